#!/usr/bin/env bash
# GPU acceptance: every GPU test binary, every check, the demo and each bench command.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
S=.gpu/sigpu; R=${OUT:-/tmp}
step() { echo; echo "=== $* ($(date +%T))"; }
for t in runtime clns ldpc; do step "test $t"; SIGPU_REQUIRE_GPU=1 timeout 120 .gpu/$t-gpu --test-threads 1 2>&1 | tail -4; done
step check; timeout 200 $S --json check --device cuda --seed ${SEED:-25} > $R/check.json; echo "rc=$?"
python3 - "$R/check.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(d["device"], "seed", d["seed"], "passed", d["passed"], "failed", d["failed"])
for c in d["checks"]:
    if not c["passed"]:
        print("FAIL", c["name"], c.get("error"), (c.get("report") or {}).get("note"))
PY
step demo; timeout 150 $S --json demo --device cuda > $R/demo.json; echo "rc=$?"; timeout 150 $S demo --device cuda 2>&1 | tail -14
step "bench copy"; timeout 60 $S bench copy --device cuda 2>&1 | tail -6
step "bench lns16"; timeout 150 $S bench lns --device cuda --format lns16 --out $R/lns16.json 2>&1 | grep -E "^(sfu|accurate|f64|horner3|tex2|tex1\+sfu +1/8) |of copy|words|reductions|^(sum|dot) "
step "bench lns32"; timeout 120 $S bench lns --device cuda --format lns32 2>&1 | grep -E "^(f64|horner3|tex2) |of copy|^(sum|dot) "
step "bench clns"; timeout 120 $S bench clns --device cuda --table1-only --out $R/clns.json 2>&1 | tail -18
step "bench filter"; timeout 120 $S bench filter --device cuda --log2-n 26,28 --runs 10 --out $R/filter.json 2>&1 | tail -18
step "bench ldpc"; timeout 120 $S bench ldpc --device cuda --codes dvbt2-normal-1/2,dvbt2-short-1/2 --iterations 50 --runs 10 --out $R/ldpc.json 2>&1 | tail -5
step "approx bench"; timeout 120 $S approx bench --out $R/approx.json 2>&1 | head -4
step "lns certify, default device"; timeout 60 $S lns certify --format lns16 2>&1 | head -3
step "clns fft, default device"; timeout 60 $S clns fft --size 1024 --batch 64 --bits 16 2>&1 | tail -6
step end
