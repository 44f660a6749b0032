#!/usr/bin/env bash
# Tunes three kernels from outside the built-in suite (crates/approx/tests/fixtures: a
# softplus-GELU activation, a Gaussian RBF kernel matrix, a von Mises mixture log-likelihood)
# end to end on the GPU: from the CLI (`sigpu approx tune --source`) and from Python
# (`sigpu.approx.tune`), each checked on held-out inputs, then prints a summary: speedup, error,
# energy, per-call-site against the best single λ, HEU against OMG at equal confidence.
#
# Run from the repository root on a GPU machine:
#   bash bench/approx/tune_user_kernels.sh [OUT_DIR]
# Environment: ROOT (the repository, default the script's), FIX (the fixtures folder), LOG2N
# (elements of the activation and log-likelihood inputs, default 2^25), SIGPU (the CLI; default target/release/sigpu, built when missing), PYTHON
# (default python3; the Python part is skipped with a note when `import sigpu` fails),
# SUITE=1 also re-measures the catalog (`approx bench`) and the 12 apps (`approx tune --app all
# --curve`) with energy into OUT_DIR.
set -euo pipefail
cd "${ROOT:-$(dirname "$0")/../..}"
OUT=${1:-${OUT:-bench/results/approx-user-kernels}}
mkdir -p "$OUT"
SIGPU=${SIGPU:-target/release/sigpu}
PYTHON=${PYTHON:-python3}
if [ ! -x "$SIGPU" ]; then
  cargo build --release -p sigpu-cli
fi
FIX=${FIX:-crates/approx/tests/fixtures}
LOG2N=${LOG2N:-25}

# Inputs (tuning) and held-out inputs (other seeds, wider ranges) as .npy files.
"$PYTHON" - "$OUT" "$LOG2N" <<'PY'
import sys, numpy as np
out = sys.argv[1]
def save(name, a): np.save(f"{out}/{name}.npy", np.ascontiguousarray(a))
r, h = np.random.default_rng(1), np.random.default_rng(2)
n = 1 << int(sys.argv[2])
save("act_x", r.uniform(-8, 8, n).astype(np.float32))
save("act_x_hold", h.normal(0, 6, n).astype(np.float32))
rows, cols, d = 1024, 4096, 16
save("rbf_a", r.normal(0, 1, (rows, d)).astype(np.float32))
save("rbf_b", r.normal(0, 1, (cols, d)).astype(np.float32))
save("rbf_a_hold", h.normal(0, 1.5, (rows, d)).astype(np.float32))
save("rbf_b_hold", h.normal(0, 1.5, (cols, d)).astype(np.float32))
save("ll_x", r.uniform(-np.pi, np.pi, n).astype(np.float32))
# Held-out angles reach 3π: cos(x - μ) leaves sin.approx's [-π, π] and the guards take over.
save("ll_x_hold", h.uniform(-3 * np.pi, 3 * np.pi, n).astype(np.float32))
PY
# Mixture constants: c = 2π I0(κ).
C0=$("$PYTHON" -c 'import numpy as np; print(repr(float(2*np.pi*np.i0(4.0))))')
C1=$("$PYTHON" -c 'import numpy as np; print(repr(float(2*np.pi*np.i0(1.5))))')
N=$((1 << LOG2N))

run_cli() { # name, json args...
  local name=$1; shift
  echo "== CLI: $name"
  "$SIGPU" approx tune "$@" --json --out "$OUT/$name.cli.json" -o "$OUT/$name.tuned.cu" > /dev/null
}
run_cli activation --source $FIX/activation.cu --kernel softplus_gelu --grid $((N / 256)) --block 256 \
  --args in:$OUT/act_x.npy out:like:$OUT/act_x.npy i32:$N \
  --holdout-args in:$OUT/act_x_hold.npy out:like:$OUT/act_x_hold.npy i32:$N \
  --metric rel-l2 --qos 2e-5
# The RBF matrix through an external metric command (max |K - K_ref| by numpy).
run_cli rbf --source $FIX/rbf.cu --kernel rbf_matrix --grid 16,1024 --block 256 \
  --args in:$OUT/rbf_a.npy in:$OUT/rbf_b.npy out:f32:$((1024 * 4096)) i32:1024 i32:4096 i32:16 f32:0.05 \
  --holdout-args in:$OUT/rbf_a_hold.npy in:$OUT/rbf_b_hold.npy out:f32:$((1024 * 4096)) i32:1024 i32:4096 i32:16 f32:0.05 \
  --metric "cmd:$PYTHON -c 'import numpy as np,sys; print(float(np.abs(np.load(sys.argv[1]+\"/0.npy\").astype(np.float64)-np.load(sys.argv[2]+\"/0.npy\")).max()))' {ref} {out}" \
  --qos 1e-6
# Tighter bounds, below the all-SFU kernel's error, where one λ for every site must give up
# and a choice per call site need not.
run_cli activation-tight --source $FIX/activation.cu --kernel softplus_gelu --grid $((N / 256)) --block 256 \
  --args in:$OUT/act_x.npy out:like:$OUT/act_x.npy i32:$N \
  --holdout-args in:$OUT/act_x_hold.npy out:like:$OUT/act_x_hold.npy i32:$N \
  --metric rel-l2 --qos 1e-7
run_cli loglik-tight --source $FIX/loglik.cu --kernel vonmises_loglik --grid $((N / 256)) --block 256 \
  --args in:$OUT/ll_x.npy out:like:$OUT/ll_x.npy i32:$N f32:0.5 f32:4.0 f32:$C0 f32:-1.0 f32:1.5 f32:$C1 \
  --holdout-args in:$OUT/ll_x_hold.npy out:like:$OUT/ll_x_hold.npy i32:$N f32:0.5 f32:4.0 f32:$C0 f32:-1.0 f32:1.5 f32:$C1 \
  --metric rel-l2 --qos 5e-8
run_cli loglik --source $FIX/loglik.cu --kernel vonmises_loglik --grid $((N / 256)) --block 256 \
  --args in:$OUT/ll_x.npy out:like:$OUT/ll_x.npy i32:$N f32:0.5 f32:4.0 f32:$C0 f32:-1.0 f32:1.5 f32:$C1 \
  --holdout-args in:$OUT/ll_x_hold.npy out:like:$OUT/ll_x_hold.npy i32:$N f32:0.5 f32:4.0 f32:$C0 f32:-1.0 f32:1.5 f32:$C1 \
  --metric rel-l2 --qos 1e-5

echo "== Python"
if "$PYTHON" -c 'import sigpu.approx as a; a.tune' 2>/dev/null; then
  "$PYTHON" - "$OUT" "$FIX" "$C0" "$C1" "$LOG2N" <<'PY'
import json, sys, numpy as np
from sigpu import approx
from sigpu.approx import Out
out, fix, c0, c1 = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
L = lambda n: np.load(f"{out}/{n}.npy")
n = 1 << int(sys.argv[5])
runs = {
    "activation": (f"{fix}/activation.cu", "softplus_gelu", lambda x: [x, Out(like=x), n], "act_x", n // 256, 256, "rel-l2", 2e-5),
    "rbf": (f"{fix}/rbf.cu", "rbf_matrix", None, None, (16, 1024), 256, "max-abs", 1e-6),
    "loglik": (f"{fix}/loglik.cu", "vonmises_loglik", lambda x: [x, Out(like=x), n, 0.5, 4.0, c0, -1.0, 1.5, c1], "ll_x", n // 256, 256, "rel-l2", 1e-5),
}
for name, (src, kernel, args, data, grid, block, metric, qos) in runs.items():
    if name == "rbf":
        a, b, ah, bh = L("rbf_a"), L("rbf_b"), L("rbf_a_hold"), L("rbf_b_hold")
        mk = lambda a, b: [a, b, Out(1024 * 4096), 1024, 4096, 16, 0.05]
        tr, ho = mk(a, b), mk(ah, bh)
    else:
        tr, ho = args(L(data)), args(L(data + "_hold"))
    r = approx.tune(src, kernel, tr, grid, block, metric, qos, holdout=ho)
    with open(f"{out}/{name}.py.json", "w") as f:
        json.dump(r.report, f, indent=1)
    print(f"{name}: {r.speedup:.3f}x, error {r.error:.3e}, held-out {r.report['holdout']}")
PY
else
  echo "python: sigpu with approx.tune is not importable here; skipped (build it with python/test.sh)"
fi

if [ "${SUITE:-0}" = 1 ]; then
  echo "== catalog and the 12 apps"
  "$SIGPU" approx bench --json --out "$OUT/catalog.json" > /dev/null
  "$SIGPU" approx tune --app all --curve --json --out "$OUT/apps.json" --plot "$OUT/figures" > /dev/null
fi

echo "== Summary"
"$PYTHON" - "$OUT" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
def e(row):
    en = row.get("energy")
    return (en["joules_per_run"], en["watts"]) if en else (None, None)
print(f"{'kernel':<18} {'speedup':>8} {'error':>10} {'bound':>9} {'held-out':>10} {'J saved':>8} {'W acc/ch':>11} {'per-site':>9} {'1-λ':>7} {'HEU/OMG':>14}")
for path in sorted(glob.glob(f"{out}/*.cli.json") + glob.glob(f"{out}/*.py.json")):
    r = json.load(open(path))
    name = os.path.basename(path).replace(".json", "")
    rows = {x["variant"]: x for x in r["rows"]}
    acc, ch = rows["accurate"], rows["chosen"]
    (ja, wa), (jc, wc) = e(acc), e(ch)
    saved = f"{100 * (1 - jc / ja):.1f}%" if ja and jc else "n/a"
    watts = f"{wa:.0f}/{wc:.0f}" if wa and wc else "n/a"
    ps = r.get("per_site")
    base = r["curve"][0]["time"]
    per_site = f"{ps['base']['time'] / ps['measured']['time']:.3f}x" if ps else "-"
    single = f"{base / r['curve'][r['single_lambda']]['time']:.3f}x"
    h = r.get("heu_vs_omg")
    heu = f"{h['heu']}/{h['omg']} {'agree' if h['agree'] else 'DIFFER'}" if h else "-"
    hold = r.get("holdout")
    held = (f"{hold['error']:.2e}" + ("" if hold["meets"] else "!")) if hold else "-"
    print(f"{name:<18} {ch['speedup']:>7.3f}x {ch['error']:>10.3e} {r['bound']:>9.2e} {held:>10} {saved:>8} {watts:>11} {per_site:>9} {single:>7} {heu:>14}")
print(f"energy: {json.load(open(sorted(glob.glob(out + '/*.json'))[0])).get('energy', '?')}")
PY
