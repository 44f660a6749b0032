#!/usr/bin/env bash
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
S=$PWD/.gpu/sigpu; chmod +x $S
for s in 1 2 3 4 5 6; do timeout 60 $S --json check --device cuda --seed $s --crate recurrence > $OUT/check-$s.json; done
python3 - <<'PY'
import json, glob, os
for f in sorted(glob.glob(os.environ['OUT'] + '/check-*.json')):
    d = json.load(open(f))
    print(os.path.basename(f), d['passed'], 'passed', d['failed'], 'failed', [(o['name'], str(o.get('report') or o.get('error'))[:300]) for o in d['checks'] if not o['passed'] or 'stopband' in o['name']])
PY
