#!/usr/bin/env bash
# GPU acceptance of the merged tree in one device call: every GPU test binary, every self-check,
# the filter's GPU dispatch against its CPU path, the filter benchmarks ((b, a) and sections),
# the Python package's GPU tests and the demo. Expects $D (default .gpu-lead/) with the stripped
# release CLI `sigpu`, the GPU test binaries `<crate>-gpu` and the wheel `sigpu-*.whl`.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-} PYTHONUNBUFFERED=1 SIGPU_KERNEL_CACHE=/tmp/sigpu-kc
D=${D:-.gpu-lead}; S=$D/sigpu; R=${OUT:-/tmp/out}; mkdir -p "$R"
step() { echo; echo "=== $* ($(date +%T))"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
for t in runtime clns ldpc recurrence; do
  [ -x "$D/$t-gpu" ] || continue
  step "test $t"; SIGPU_REQUIRE_GPU=1 timeout 150 "$D/$t-gpu" --test-threads 1 2>&1 | grep -E "^test result|FAILED|panicked" | head -5
done
step check; timeout 240 $S --json check --device cuda --seed ${SEED:-41} > $R/check.json; echo "rc=$?"
python3 - "$R/check.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(d["device"], "seed", d["seed"], "passed", d["passed"], "failed", d["failed"])
for c in d["checks"]:
    if not c["passed"]:
        print("FAIL", c["name"], c.get("error"), (c.get("report") or {}).get("note"))
PY
step "filter: GPU dispatch vs CPU"
python3 - "$S" "$R" <<'PY'
import json, subprocess, sys, numpy as np, scipy.signal as ss
S, R = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(5)
x = rng.standard_normal((3, 1 << 20))
np.save(f"{R}/x64.npy", x); np.save(f"{R}/x32.npy", x.astype(np.float32))
def run(args, dev, out):
    p = subprocess.run([S, "--json", "filter", "--device", dev, *args, "--output", out],
                       capture_output=True, text=True)
    if p.returncode: print("  FAILED", dev, args[:4], p.stderr.strip()[:300]); return None, None
    return json.loads(p.stdout), np.load(out)
cases = []
for name, (b, a) in {"butter(8,0.02)": ss.butter(8, 0.02), "butter(4,0.2)": ss.butter(4, 0.2),
                     "cheby1(6,1,0.05)": ss.cheby1(6, 1, 0.05)}.items():
    cases.append((name + " (b,a)", ["--b", ",".join(repr(float(v)) for v in b), "--a", ",".join(repr(float(v)) for v in a)], ("ba", b, a)))
sos = ss.butter(8, 0.1, output="sos"); np.save(f"{R}/sos.npy", sos)
cases.append(("butter(8,0.1) sos", ["--sos", f"{R}/sos.npy"], ("sos", sos)))
sos2 = ss.ellip(10, 0.5, 60, 0.01, output="sos"); np.save(f"{R}/sos2.npy", sos2)
cases.append(("ellip(10,0.01) sos", ["--sos", f"{R}/sos2.npy"], ("sos", sos2)))
for dt in ("64", "32"):
    xin = f"{R}/x{dt}.npy"
    for name, args, ref in cases:
        xx = np.load(xin).astype(np.float64)
        want = ss.lfilter(ref[1], ref[2], xx) if ref[0] == "ba" else ss.sosfilt(ref[1], xx)
        res = {}
        for dev in ("cpu", "cuda"):
            rep, y = run(args + ["--input", xin], dev, f"{R}/y-{dev}.npy")
            if y is None: continue
            # The bound is per unit max|x| (sigpu filter --help); against the f64 coefficients.
            err = float(np.max(np.abs(y - want)) / np.max(np.abs(xx)))
            res[dev] = (rep.get("method"), rep.get("error_bound"), err)
        print(f"  f{dt} {name:22s}", "  ".join(f"{d}: {m} bound {b:.2g} err {e:.2g}" for d, (m, b, e) in res.items()
                                             if b is not None))
PY
step "bench filter (b, a)"; timeout 120 $S bench filter --device cuda --log2-n 26,28 --runs 10 --out $R/filter.json 2>&1 | tail -14
step "bench filter --sos"; timeout 150 $S bench filter --device cuda --sos --log2-n 26,28 --runs 20 --out $R/sos.json 2>&1 | tail -8
step "python"
rm -rf /tmp/site; mkdir -p /tmp/site; python3 -m zipfile -e $D/sigpu-*.whl /tmp/site
SIGPU_REQUIRE_GPU=1 SIGPU_CLI=$PWD/$S PYTHONPATH=/tmp/site timeout 200 python3 -m pytest -q -rs -p no:cacheprovider python/tests > $R/pytest.txt 2>&1; echo "rc=$?"; tail -6 $R/pytest.txt
step demo; timeout 150 $S demo --device cuda 2>&1 | tail -14
step end
