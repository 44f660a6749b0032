#!/usr/bin/env bash
# GPU acceptance of the front-door tree in one device call, from the repository root: the GPU
# test binaries, every self-check, the demo, the benchmarks the front door must leave within
# noise (copy, filter suite, sections, fused LNS sum, LDPC flooding), the Python package's GPU
# tests and the filter's accuracy contract on every face. Expects $D (default .gpu/) holding the
# stripped release CLI `sigpu`, GPU test binaries `<name>-gpu` and the wheel `sigpu-*.whl`;
# PART=tests runs the tests, checks, demo and the faces, PART=bench the benchmarks (two device
# calls, each under the 10-minute limit); CLI_PATH is where the CLI test binaries look for
# the `sigpu` binary (the path cargo compiled into them).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-} PYTHONUNBUFFERED=1 SIGPU_KERNEL_CACHE=/tmp/sigpu-kc
D=${D:-.gpu}; S=$D/sigpu; R=${OUT:-/tmp/out}; mkdir -p "$R"
t0=$(date +%s)
step() { echo; echo "=== $* ($(( $(date +%s) - t0 )) s)"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
# CLI tests find the binary at the path cargo compiled into them.
if [ -n "${CLI_PATH:-}" ]; then mkdir -p "$(dirname "$CLI_PATH")"; ln -sf "$PWD/$S" "$CLI_PATH"; fi
python3 -m zipfile -e $D/sigpu-*.whl /tmp/site && export PYTHONPATH=/tmp/site
if [ "${PART:-tests}" = tests ]; then
for t in "$D"/*-gpu; do
  [ -x "$t" ] || continue
  step "test $(basename "$t")"
  SIGPU_REQUIRE_GPU=1 SIGPU_CLI="$PWD/$S" timeout 200 "$t" --test-threads 1 2>&1 | grep -E "^test result|FAILED|panicked|^test .*(fail|FAIL)" | head -8
done
step check; timeout 240 $S --json check --device cuda --seed ${SEED:-41} > $R/check.json 2> $R/check.err; echo "rc=$?"
python3 - "$R/check.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(d["device"], "seed", d["seed"], "passed", d["passed"], "failed", d["failed"])
for c in d["checks"]:
    if not c["passed"]:
        print("FAIL", c["name"], c.get("error"), (c.get("report") or {}).get("note"))
PY
step demo; timeout 150 $S demo --device cuda > $R/demo.txt 2>&1; echo "rc=$?"; tail -4 $R/demo.txt
step "python"
SIGPU_REQUIRE_GPU=1 SIGPU_CLI="$PWD/$S" SIGPU_REQUIRE_CLI=0 timeout 240 python3 -m pytest -q -rs -p no:cacheprovider python/tests > $R/pytest.txt 2>&1; tail -6 $R/pytest.txt
step "filter faces"; timeout 200 python3 bench/peers/filter_faces.py --sigpu $S --json $R/faces.json 2>&1 | tail -32
else
step "bench copy"; timeout 60 $S --json bench copy --device cuda > $R/copy.json; python3 -c "import json;d=json.load(open('$R/copy.json'));print({k:v for k,v in d.items() if 'gb' in k.lower()})"
step "bench filter"; timeout 150 $S bench filter --device cuda --log2-n 26,28 --runs 10 --out $R/filter.json 2>&1 | tail -14
step "bench filter --sos"; timeout 120 $S bench filter --device cuda --sos --log2-n 26,28 --runs 20 --out $R/sos.json 2>&1 | tail -6
step "bench lns fused sum"; timeout 90 $S --json bench lns --device cuda --format lns32 --reduce-only > $R/lns32.json 2>&1; tail -c 600 $R/lns32.json; echo
step "bench ldpc flooding"; timeout 120 $S bench ldpc --device cuda --codes dvbt2-normal-1/2 --iterations 50 --out $R/ldpc.json 2>&1 | tail -6
step "python lfilter 2^28"; timeout 120 python3 python/bench/gpu_targets.py --skip ldpc,cupyx > $R/gpu_targets.json 2> $R/gpu_targets.log; tail -3 $R/gpu_targets.log | cut -c1-300
fi
echo "elapsed $(( $(date +%s) - t0 )) s"
