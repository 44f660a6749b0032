#!/bin/bash
# Merged main on the GPU: every self-check, the exhaustive lns32 f32split certificate,
# streaming LNS adds, prefix sums, the CLNS SFU certificate through the CLI, the LDPC frame chain.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 SIGPU_KERNEL_CACHE=/tmp/sigpu-kc
S=.gpu/sigpu; R=$OUT/v; mkdir -p $R; SECONDS=0
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
timeout 150 $S --json check --device cuda --seed 61 > $R/check.json 2> $R/check.err; echo "check rc $? ${SECONDS}s"
python3 - $R/check.json <<'PY'
import json,sys
d=json.load(open(sys.argv[1]))
rows=d if isinstance(d,list) else next((v for v in d.values() if isinstance(v,list)),[])
bad=[r for r in rows if not (r.get('passed') or r.get('ok') or r.get('status') in ('pass','passed'))]
print('checks', len(rows), 'failed', len(bad)); [print(json.dumps(r)[:400]) for r in bad]
PY
timeout 40 $S lns certify --device cuda --format lns32 --method f32split > $R/certify-lns32.txt 2>&1; echo "certify rc $? ${SECONDS}s"; tail -5 $R/certify-lns32.txt
timeout 60 $S --json bench lns --device cuda --format lns32 > $R/bench-lns32.json 2> $R/bench-lns32.err; echo "bench lns32 rc $? ${SECONDS}s"
timeout 60 $S --json bench lns --device cuda --format lns16 > $R/bench-lns16.json 2> $R/bench-lns16.err; echo "bench lns16 rc $? ${SECONDS}s"
for t in i32 f32; do timeout 40 $S --json bench filter --device cuda --signature "(1 : 1)" --dtype $t --log2-n 28,30 --check-up-to 28 > $R/scan-$t.json 2> $R/scan-$t.err; echo "scan $t rc $? ${SECONDS}s"; done
timeout 30 $S --json ldpc simulate --device cuda --code dvbt2-normal-1/2 --eb-n0 1.5 --seed 7 --min-errors 1000000000 --max-frames 8192 > $R/chain.json 2> $R/chain.err; echo "chain rc $? ${SECONDS}s"
cd $OUT && tar czf v.tgz v
