#!/usr/bin/env python3
"""Accuracy sweep of `sigpu filter` against scipy.signal at the same dtype.

Both are measured against an extended-precision reference: scipy's own lfilter / sosfilt run in
np.longdouble (x87 80-bit, 64-bit significand) on the same f64 coefficients, input and zi.
Error = max|y - ref| / max|ref|. The contract: sigpu's error <= 4x scipy's at the same dtype
(errors at the rounding level, <= 8 eps of the dtype, count as meeting it). Designs whose
(b, a) form is unstable in f64 (exact step-down in rationals) must be refused.

usage: filter_accuracy.py --sigpu target/debug/sigpu [--designs 220] [--seed 1] [--max-len N]
                          [--json OUT]
"""
import argparse, json, os, subprocess, sys, tempfile, time
from fractions import Fraction
import numpy as np
import scipy.signal as ss

LD = np.longdouble


def step_down_stable(a):
    """Exact Schur-Cohn step-down on the f64 coefficients (a[0] normalised exactly)."""
    c = [Fraction(float(v)) / Fraction(float(a[0])) for v in a]
    c = c[1:]
    while c and c[-1] == 0:
        c.pop()
    while c:
        k = c[-1]
        if abs(k) >= 1:
            return False
        m = len(c)
        c = [(c[i] - k * c[m - 2 - i]) / (1 - k * k) for i in range(m - 1)]
    return True


def designs(count, rng):
    fams = ["butter", "cheby1", "cheby2", "ellip", "bessel"]
    out = []
    while len(out) < count:
        fam = fams[len(out) % len(fams)]
        order = int(rng.integers(1, 13))
        btype = ["lowpass", "highpass", "bandpass"][int(rng.integers(0, 3))]
        lo = float(np.exp(rng.uniform(np.log(0.005), np.log(0.45))))
        if btype == "bandpass":
            if order > 6:
                order = int(rng.integers(1, 7))  # band-pass doubles the order
            hi = min(0.95, lo * float(rng.uniform(1.3, 3.0)))
            wn = [lo, hi]
        else:
            wn = lo
        pre, kw = (), {}
        if fam == "cheby1":
            pre = (1,)
        elif fam == "cheby2":
            pre = (40,)
        elif fam == "ellip":
            pre = (1, 40)
        elif fam == "bessel":
            kw = dict(norm="phase")
        f = getattr(ss, fam)
        b, a = f(order, *pre, wn, btype=btype, **kw)
        sos = f(order, *pre, wn, btype=btype, output="sos", **kw)
        out.append(dict(name=f"{fam}({order}, {wn if np.isscalar(wn) else [round(w, 5) for w in wn]}, {btype})",
                        b=b, a=a, sos=sos))
    return out


def npy(path, arr):
    np.save(path, arr)
    return path


def rel_err(y, ref):
    y = np.asarray(y, dtype=LD)
    peak = np.max(np.abs(ref))
    if peak == 0:
        peak = 1
    if not np.all(np.isfinite(y)):
        return float("inf")
    return float(np.max(np.abs(y - ref)) / peak)


def run_sigpu(exe, tmp, form, d, dtype, x, zi):
    xp = npy(os.path.join(tmp, "x.npy"), x)
    yp = os.path.join(tmp, "y.npy")
    cmd = [exe, "--device", "cpu", "--json", "filter", "--input", xp, "--output", yp, "--dtype", dtype]
    if form == "ba":
        cmd += ["--b", ",".join(repr(float(v)) for v in d["b"]), "--a", ",".join(repr(float(v)) for v in d["a"])]
    else:
        cmd += ["--sos", npy(os.path.join(tmp, "sos.npy"), d["sos"])]
    if zi is not None:
        cmd += ["--zi", npy(os.path.join(tmp, "zi.npy"), zi)]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        return None, p.stderr.strip()
    return (np.load(yp), json.loads(p.stdout)), None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sigpu", default="target/debug/sigpu")
    ap.add_argument("--designs", type=int, default=220)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-len", type=int, default=100_003)
    ap.add_argument("--json")
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    lengths = [n for n in [1, 3, 2071, 2073, 16577, 33151, 100_003, 1_000_001, 16_777_215] if n <= args.max_len]
    rows, failures = [], []
    t0 = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        for i, d in enumerate(designs(args.designs, rng)):
            n = lengths[i % len(lengths)] if i % 3 else lengths[-1]
            x64 = rng.uniform(-1, 1, n)
            ba_stable = step_down_stable(d["a"])
            for form in ["ba", "sos"]:
                for dtype in ["f64", "f32"]:
                    npdt = np.float64 if dtype == "f64" else np.float32
                    eps = float(np.finfo(npdt).eps)
                    x = x64.astype(npdt)
                    use_zi = (i + (dtype == "f32")) % 2 == 1
                    if form == "ba":
                        k = max(len(d["a"]), len(d["b"])) - 1
                        zi = (rng.uniform(-1, 1, k) * 0.1).astype(npdt) if use_zi else None
                        with np.errstate(all="ignore"):
                            ref = ss.lfilter(d["b"].astype(LD), d["a"].astype(LD), x.astype(LD),
                                             zi=None if zi is None else zi.astype(LD))
                            sp = ss.lfilter(d["b"].astype(npdt), d["a"].astype(npdt), x,
                                            zi=None if zi is None else zi)
                    else:
                        zi = (rng.uniform(-1, 1, (len(d["sos"]), 2)) * 0.1).astype(npdt) if use_zi else None
                        ref = ss.sosfilt(d["sos"].astype(LD), x.astype(LD), zi=None if zi is None else zi.astype(LD))
                        with np.errstate(all="ignore"):
                            sp = ss.sosfilt(d["sos"].astype(npdt), x, zi=zi)
                    if zi is not None:
                        ref, sp = ref[0], sp[0]
                    got, err = run_sigpu(args.sigpu, tmp, form, d, dtype, x, zi)
                    row = dict(design=d["name"], form=form, dtype=dtype, n=n, zi=zi is not None)
                    if form == "ba" and not ba_stable:
                        row["expected"] = "refused (unstable in f64)"
                        row["ok"] = got is None and "unstable" in (err or "")
                        if not row["ok"]:
                            failures.append(row | dict(stderr=err))
                        rows.append(row)
                        continue
                    if got is None:
                        row.update(ok=False, stderr=err)
                        failures.append(row)
                        rows.append(row)
                        continue
                    y, summary = got
                    e_ours, e_scipy = rel_err(y, ref), rel_err(sp, ref)
                    ok = e_ours <= max(4 * e_scipy, 8 * eps)
                    row.update(method=summary["method"], error=e_ours, scipy_error=e_scipy,
                               error_bound=summary["error_bound"], ok=ok)
                    if not ok:
                        failures.append(row)
                    rows.append(row)
            if (i + 1) % 20 == 0:
                print(f"{i + 1} designs, {len(failures)} failures, {time.time() - t0:.0f} s", file=sys.stderr)
    met = sum(r["ok"] for r in rows)
    out = dict(runs=len(rows), met=met, failures=failures, seconds=time.time() - t0, rows=rows)
    methods = {}
    for r in rows:
        methods[r.get("method", r.get("expected", "error"))] = methods.get(r.get("method", r.get("expected", "error")), 0) + 1
    print(f"{met} / {len(rows)} runs meet the contract; methods {methods}; {len(failures)} failures")
    for f in failures[:30]:
        print("FAIL", {k: v for k, v in f.items() if k != "rows"})
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(out, fh, indent=1, default=float)
    sys.exit(0 if not failures else 1)


if __name__ == "__main__":
    main()
