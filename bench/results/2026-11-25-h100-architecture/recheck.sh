#!/usr/bin/env bash
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
R=${OUT:-/tmp}
for s in 26 27 28 29 30; do
  .gpu/sigpu --json check --device cuda --seed $s $([ $s = 26 ] || echo --filter approx/catalog) > $R/check-$s.json; echo "seed $s rc=$?"
done
python3 - "$R" <<'PY'
import json, sys, glob
for f in sorted(glob.glob(sys.argv[1] + "/check-*.json")):
    d = json.load(open(f))
    print(f.split("/")[-1], d["device"], "seed", d["seed"], "passed", d["passed"], "failed", d["failed"])
    for c in d["checks"]:
        if not c["passed"] or c["name"] == "approx/catalog_vs_f64":
            print("  ", c["name"], c["passed"], (c.get("report") or {}).get("note"), c.get("error"))
PY
