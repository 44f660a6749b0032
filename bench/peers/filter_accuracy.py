#!/usr/bin/env python3
"""Accuracy sweep of sigpu's filters against scipy.signal at the same dtype.

Both are measured against an extended-precision reference on the same f64 coefficients, input and
zi: scipy's own sosfilt in np.longdouble (x87 80-bit, 64-bit significand) for sections; for
(b, a) from a zero state the numerator as an FIR and the poles (A's roots in 60 digits, mpmath)
as sections, in long double (the long-double direct form inherits the ill-conditioning of
high-order designs), and with zi scipy's lfilter in long double.
Error = max|y - ref| / max|ref|. The contract: sigpu's error <= 4x scipy's at the same dtype
(errors at the rounding level, <= 8 eps of the dtype, count as meeting it). Designs whose (b, a)
form is unstable in f64 (exact step-down in rationals) must be refused. Where the face reports
it (the CLI's --json), the error bound is checked too: from a zero state, max|y - exact| must
not exceed error_bound * max|x|, exact being the long-double output of the coefficients as the
dtype holds them (the bound is per unit max|x|; runs with zi are not judged on it).

Two families of cases, each run in both forms ((b, a) through lfilter, sections through
sosfilt) and both dtypes (f32, f64):
- classic designs (butter, cheby1, cheby2, ellip, bessel; low-, high- and band-pass at random
  cut-offs) on white noise;
- stopband-heavy cases: near-unit-circle resonators (r 0.999..0.99999, angle near 0 or pi),
  narrow band-passes near 0 and near Nyquist (butter, cheby1, ellip), high-passes with low
  cut-offs, notches (iirnotch), low-passes; driven by chirps, DC plus noise, steps, impulses,
  large-then-small signals and tones at the filter's most attenuated frequencies.

Faces: `cli` runs `sigpu filter --json` (CPU, or --device cuda with --cli-device cuda);
`numpy` calls the Python package on numpy arrays; `torch` and `cupy` call it on CUDA arrays of
those libraries (skipped, with a note, where the library or a GPU is missing).

usage: filter_accuracy.py [--face cli|numpy|torch|cupy ...] [--sigpu target/release/sigpu]
                          [--cli-device cpu|cuda] [--designs 100] [--stopband 450] [--seed 1]
                          [--max-len N] [--json OUT]
Prints counts (runs, contract misses, bound violations, refusals, skips) per face and exits 1
on any miss or violation.
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


def classic_design(i, rng):
    fams = ["butter", "cheby1", "cheby2", "ellip", "bessel"]
    fam = fams[i % len(fams)]
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
    return design(fam, order, wn, btype)


def design(fam, order, wn, btype):
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
    name = f"{fam}({order}, {wn if np.isscalar(wn) else [round(w, 5) for w in wn]}, {btype})"
    return dict(name=name, b=b, a=a, sos=sos)


def resonator(r, theta):
    """A biquad with poles r e^{+-i theta}, unit gain at theta (b = [g, 0, 0])."""
    a = np.array([1.0, -2 * r * np.cos(theta), r * r])
    g = abs(np.polyval(a[::-1], np.exp(-1j * theta)))
    b = np.array([g, 0.0, 0.0])
    return dict(name=f"resonator(r={r:.6f}, theta={theta:.5f})", b=b, a=a, sos=np.array([np.r_[b, a]]))


def stopband_design(i, rng):
    kind = i % 6
    if kind == 0:
        r = 1 - 10 ** rng.uniform(-5, -3)
        near_pi = rng.random() < 0.5
        off = 10 ** rng.uniform(-3.3, -1.3)
        return resonator(float(r), float(np.pi - off if near_pi else off))
    if kind == 1:
        fam = ["butter", "cheby1", "ellip"][int(rng.integers(0, 3))]
        order = int(rng.integers(1, 5))
        width = float(rng.uniform(0.01, 0.06))
        lo = float(rng.uniform(0.002, 0.03)) if rng.random() < 0.5 else float(rng.uniform(0.85, 0.99 - width))
        return design(fam, order, [lo, lo + width], "bandpass")
    if kind == 2:
        fam = ["butter", "cheby1", "ellip"][int(rng.integers(0, 3))]
        return design(fam, int(rng.integers(2, 9)), float(np.exp(rng.uniform(np.log(0.003), np.log(0.05)))), "highpass")
    if kind == 3:
        w0 = float(rng.uniform(0.01, 0.99))
        q = float(10 ** rng.uniform(0.5, 3))
        b, a = ss.iirnotch(w0, q)
        return dict(name=f"iirnotch({w0:.4f}, Q={q:.1f})", b=b, a=a, sos=ss.tf2sos(b, a))
    if kind == 4:
        w0 = float(rng.uniform(0.005, 0.995))
        q = float(10 ** rng.uniform(1, 3.5))
        b, a = ss.iirpeak(w0, q)
        return dict(name=f"iirpeak({w0:.4f}, Q={q:.1f})", b=b, a=a, sos=ss.tf2sos(b, a))
    fam = ["butter", "cheby1", "ellip", "cheby2"][int(rng.integers(0, 4))]
    return design(fam, int(rng.integers(2, 9)), float(np.exp(rng.uniform(np.log(0.005), np.log(0.3)))), "lowpass")


def stopband_frequencies(sos):
    """Frequencies (radians/sample) where the cascade attenuates most: |H| below 1e-2 of its
    peak (or the 5% most attenuated)."""
    w, h = ss.sosfreqz(sos, worN=4096)
    mag = np.abs(h)
    stop = w[mag < 1e-2 * mag.max()]
    if len(stop) < 8:
        stop = w[np.argsort(mag)[: max(8, len(w) // 20)]]
    return stop


def stopband_input(kind, n, sos, rng):
    stop = stopband_frequencies(sos)
    t = np.arange(n, dtype=float)
    if kind == "chirp":
        f0, f1 = sorted(rng.choice(stop, 2))
        return np.sin(f0 * t + 0.5 * (f1 - f0) * t * t / n)
    if kind == "dc+noise":
        return 1.0 + 1e-3 * rng.uniform(-1, 1, n)
    if kind == "step":
        return (t >= int(rng.integers(0, n))).astype(float)
    if kind == "impulse":
        x = np.zeros(n)
        x[int(rng.integers(0, n))] = 1.0
        return x
    if kind == "large-then-small":
        x = rng.uniform(-1, 1, n)
        x[n // 2:] *= 1e-6
        return x
    # a tone (two, sometimes) at the most attenuated frequencies
    f = rng.choice(stop, 2)
    return np.cos(f[0] * t + rng.uniform(0, 2 * np.pi)) + (rng.random() < 0.5) * 0.5 * np.cos(f[1] * t)


INPUTS = ["chirp", "dc+noise", "step", "impulse", "large-then-small", "tone"]


_POLES = {}


def pole_sections(a):
    """The all-pole second-order sections of 1/A from A's roots in 60-digit arithmetic (mpmath),
    in long double: a (b, a) reference that does not inherit the direct form's ill-conditioning
    (for butter(7, 0.03) the long-double direct form is itself ~1e-11 off)."""
    key = tuple(float(v) for v in a)
    if key not in _POLES:
        import mpmath
        mpmath.mp.dps = 60
        c = [mpmath.mpf(v) for v in key]
        while len(c) > 1 and c[-1] == 0:
            c.pop()
        roots = mpmath.polyroots(c, maxsteps=400, extraprec=400) if len(c) > 1 else []
        real = [r.real for r in roots if abs(r.imag) <= 1e-40 * max(1, abs(r))]
        cplx = [r for r in roots if r.imag > 1e-40 * max(1, abs(r))]
        rows = [[1, 0, 0, 1, -2 * r.real, r.real ** 2 + r.imag ** 2] for r in cplx]
        real.sort()
        while len(real) >= 2:
            p, q = real.pop(), real.pop()
            rows.append([1, 0, 0, 1, -(p + q), p * q])
        if real:
            rows.append([1, 0, 0, 1, -real[0], 0])
        sos = np.array([[LD(mpmath.nstr(v, 40)) for v in r] for r in rows], dtype=LD) if rows else None
        _POLES[key] = (sos, LD(mpmath.nstr(1 / c[0], 40)))
    return _POLES[key]


def exact_ba(b, a, x):
    """lfilter(b, a, x) from a zero state, exactly to far below f64's rounding: the numerator
    as an FIR and the poles as sections, in long double."""
    sos, inv_a0 = pole_sections(a)
    u = ss.lfilter(np.asarray(b, dtype=LD) * inv_a0, np.array([LD(1)]), x.astype(LD))
    return u if sos is None else ss.sosfilt(sos, u)


def rel_err(y, ref):
    y = np.asarray(y, dtype=LD)
    peak = np.max(np.abs(ref)) if len(ref) else 0
    if peak == 0:
        peak = 1
    if not np.all(np.isfinite(y)):
        return float("inf")
    return float(np.max(np.abs(y - ref)) / peak) if len(ref) else 0.0


def abs_err(y, ref):
    if not len(ref):
        return 0.0
    return float(np.max(np.abs(np.asarray(y, dtype=LD) - ref)))


class Cli:
    """`sigpu filter --json` on .npy files."""

    name = "cli"
    reports_bound = True

    def __init__(self, exe, device, tmp):
        self.exe, self.device, self.tmp = exe, device, tmp

    def available(self):
        return os.path.exists(self.exe), f"no binary at {self.exe}"

    def run(self, form, d, x, zi):
        def npy(name, arr):
            p = os.path.join(self.tmp, name)
            np.save(p, arr)
            return p

        xp, yp = npy("x.npy", x), os.path.join(self.tmp, "y.npy")
        dtype = "f64" if x.dtype == np.float64 else "f32"
        cmd = [self.exe, "--device", self.device, "--json", "filter", "--input", xp, "--output", yp, "--dtype", dtype]
        if form == "ba":
            cmd += ["--b", ",".join(repr(float(v)) for v in d["b"]), "--a", ",".join(repr(float(v)) for v in d["a"])]
        else:
            cmd += ["--sos", npy("sos.npy", d["sos"])]
        if zi is not None:
            cmd += ["--zi", npy("zi.npy", zi)]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            return None, p.stderr.strip()
        return (np.load(yp), json.loads(p.stdout)), None


class Python:
    """The Python package on numpy arrays, or on torch / CuPy CUDA arrays."""

    reports_bound = False

    def __init__(self, name):
        self.name = name
        self.sigpu = self.lib = None

    def available(self):
        try:
            import sigpu  # noqa: F401
            self.sigpu = sigpu
        except ImportError as e:
            return False, f"the sigpu package is not importable ({e})"
        if self.name == "numpy":
            return True, ""
        try:
            if self.name == "torch":
                import torch
                if not torch.cuda.is_available():
                    return False, "torch sees no CUDA device"
                self.lib = torch
            else:
                import cupy
                if cupy.cuda.runtime.getDeviceCount() < 1:
                    return False, "CuPy sees no CUDA device"
                self.lib = cupy
        except Exception as e:  # ImportError, or a CUDA runtime error
            return False, f"{self.name} unusable ({e})"
        return True, ""

    def to_face(self, a):
        if a is None or self.name == "numpy":
            return a
        if self.name == "torch":
            return self.lib.from_numpy(np.ascontiguousarray(a)).cuda()
        return self.lib.asarray(a)

    def to_host(self, a):
        if self.name == "torch":
            return a.cpu().numpy()
        if self.name == "cupy":
            return self.lib.asnumpy(a)
        return np.asarray(a)

    def run(self, form, d, x, zi):
        try:
            xs, zs = self.to_face(x), self.to_face(zi)
            if form == "ba":
                out = self.sigpu.lfilter(d["b"], d["a"], xs, zi=zs)
            else:
                out = self.sigpu.sosfilt(d["sos"], xs, zi=zs)
            y = out[0] if zi is not None else out
            return (self.to_host(y), None), None
        except Exception as e:
            return None, f"{type(e).__name__}: {e}"


def judge(face, form, d, dtype, x, zi, ba_stable):
    """One run: the reference, scipy at the dtype, the face; a row of the report."""
    npdt = np.float64 if dtype == "f64" else np.float32
    eps = float(np.finfo(npdt).eps)
    with np.errstate(all="ignore"):
        if form == "ba" and zi is None:
            ref = exact_ba(d["b"], d["a"], x)
            sp = ss.lfilter(d["b"].astype(npdt), d["a"].astype(npdt), x, zi=zi)
        elif form == "ba":
            ref = ss.lfilter(d["b"].astype(LD), d["a"].astype(LD), x.astype(LD), zi=None if zi is None else zi.astype(LD))
            sp = ss.lfilter(d["b"].astype(npdt), d["a"].astype(npdt), x, zi=zi)
        else:
            ref = ss.sosfilt(d["sos"].astype(LD), x.astype(LD), zi=None if zi is None else zi.astype(LD))
            sp = ss.sosfilt(d["sos"].astype(npdt), x, zi=zi)
    if zi is not None:
        ref, sp = ref[0], sp[0]
    got, err = face.run(form, d, x, zi)
    row = dict(face=face.name, design=d["name"], input=d["input"], form=form, dtype=dtype, n=len(x), zi=zi is not None)
    if form == "ba" and not ba_stable:
        row["expected"] = "refused (unstable in f64)"
        row["ok"] = got is None and "unstable" in (err or "")
        return row if row["ok"] else row | dict(stderr=err)
    if got is None and "unstable" in (err or "") and not step_down_stable(d["a"].astype(npdt).astype(float)):
        # Refused because the coefficients rounded to the dtype are unstable (checked here too).
        return row | dict(expected="refused (unstable when rounded)", ok=True, scipy_error=rel_err(sp, ref))
    if got is None and form == "sos" and "unstable" in (err or ""):
        rounded = d["sos"].astype(npdt).astype(float)
        if not all(step_down_stable(r[3:]) for r in rounded):
            return row | dict(expected="refused (a section unstable when rounded)", ok=True)
    if got is None and "overflowed" in (err or "") and not np.all(np.isfinite(sp)):
        # SciPy's own output overflows the dtype: an error naming the overflow is the answer.
        return row | dict(expected="refused (overflows, as scipy's output does)", ok=True)
    refused = any(w in (err or "").lower() for w in ("refused", "pass host arrays"))
    if got is None and refused and face.name in ("torch", "cupy"):
        # Device data the contract cannot keep blocked: refused with the reason (never wrong).
        return row | dict(expected="refused on device data", ok=True, refused=err)
    if got is None:
        return row | dict(ok=False, stderr=err)
    y, summary = got
    e_ours, e_scipy = rel_err(y, ref), rel_err(sp, ref)
    ok = e_ours <= max(4 * e_scipy, 8 * eps)
    row.update(error=e_ours, scipy_error=e_scipy, ok=ok)
    if summary is not None:
        row.update(method=summary["method"], error_bound=summary["error_bound"])
        if zi is None:
            # The bound is against the exact output of the coefficients as the engine holds
            # them: the dtype's values (their rounding is the same for scipy and is not
            # counted), except where it computes in f64 anyway — a pole cascade runs sections
            # from the f64 polynomial's poles, and section engines filter f32 signals with the
            # coefficients as given — so there it is against the f64 coefficients.
            held_as_given = summary["method"] == "pole-cascade" or (
                dtype == "f32" and summary["method"] in ("sos", "sos-serial", "sections"))
            with np.errstate(all="ignore"):
                if held_as_given:
                    exact = ref
                elif form == "ba":
                    exact = exact_ba(d["b"].astype(npdt), d["a"].astype(npdt), x)
                else:
                    exact = ss.sosfilt(d["sos"].astype(npdt).astype(LD), x.astype(LD))
            scale = float(np.max(np.abs(x))) if len(x) else 0.0
            row["bound_ok"] = abs_err(y, exact) <= summary["error_bound"] * scale * (1 + 1e-9)
    return row


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--face", action="append", choices=["cli", "numpy", "torch", "cupy"])
    ap.add_argument("--sigpu", default="target/release/sigpu")
    ap.add_argument("--cli-device", default="cpu")
    ap.add_argument("--designs", type=int, default=100, help="classic designs on white noise")
    ap.add_argument("--stopband", type=int, default=450, help="stopband-heavy cases")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-len", type=int, default=300_007)
    ap.add_argument("--json")
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    lengths = [n for n in [1, 3, 2071, 2073, 16577, 33151, 40_009, 100_003, 300_007, 1_000_001] if n <= args.max_len]
    long_lengths = [n for n in [40_009, 70_001, 100_003, 300_007] if n <= args.max_len] or lengths
    cases = []
    for i in range(args.designs):
        d = classic_design(i, rng)
        n = lengths[i % len(lengths)]
        d.update(input="white", x=rng.uniform(-1, 1, n))
        cases.append(d)
    for i in range(args.stopband):
        d = stopband_design(i, rng)
        kind = INPUTS[(i // 6) % len(INPUTS)]
        n = long_lengths[i % len(long_lengths)] if i % 5 else lengths[i % len(lengths)]
        d.update(input=kind, x=stopband_input(kind, n, d["sos"], rng))
        cases.append(d)
    t0 = time.time()
    report = dict(faces={}, rows=[])
    exit_code = 0
    with tempfile.TemporaryDirectory() as tmp:
        for fname in args.face or ["cli"]:
            face = Cli(args.sigpu, args.cli_device, tmp) if fname == "cli" else Python(fname)
            ok, why = face.available()
            if not ok:
                print(f"SKIP face {fname}: {why}")
                report["faces"][fname] = dict(skipped=why)
                continue
            rows, frng = [], np.random.default_rng(args.seed + 1)
            for i, d in enumerate(cases):
                ba_stable = step_down_stable(d["a"])
                for form in ["ba", "sos"]:
                    for dtype in ["f64", "f32"]:
                        npdt = np.float64 if dtype == "f64" else np.float32
                        x = d["x"].astype(npdt)
                        use_zi = (i + (dtype == "f32")) % 4 == 1
                        if form == "ba":
                            k = max(len(d["a"]), len(d["b"])) - 1
                            zi = (frng.uniform(-1, 1, k) * 0.1).astype(npdt) if use_zi else None
                        else:
                            zi = (frng.uniform(-1, 1, (len(d["sos"]), 2)) * 0.1).astype(npdt) if use_zi else None
                        rows.append(judge(face, form, d, dtype, x, zi, ba_stable))
                if (i + 1) % 50 == 0:
                    miss = sum(not r["ok"] for r in rows)
                    print(f"{fname}: {i + 1}/{len(cases)} cases, {miss} misses, {time.time() - t0:.0f} s", file=sys.stderr)
            misses = [r for r in rows if not r["ok"]]
            violations = [r for r in rows if r.get("bound_ok") is False]
            methods = {}
            for r in rows:
                m = r.get("method", r.get("expected", "error"))
                methods[m] = methods.get(m, 0) + 1
            stop_rows = [r for r in rows if r["input"] != "white"]
            counts = dict(runs=len(rows), stopband_runs=len(stop_rows),
                          contract_misses=len(misses),
                          bound_checked=sum("bound_ok" in r for r in rows),
                          bound_violations=len(violations),
                          refusals=sum("expected" in r for r in rows), methods=methods,
                          worst_ratio=max([r["error"] / max(r["scipy_error"], 8 * float(np.finfo(np.float64 if r["dtype"] == "f64" else np.float32).eps))
                                           for r in rows if "error" in r] or [0.0]))
            report["faces"][fname] = counts
            report["rows"] += rows
            print(f"{fname}: {counts['runs']} runs ({counts['stopband_runs']} stopband-heavy), "
                  f"{counts['contract_misses']} contract misses, {counts['bound_violations']} bound violations "
                  f"of {counts['bound_checked']} checked, {counts['refusals']} expected refusals, "
                  f"worst error / max(scipy's, 8 eps) {counts['worst_ratio']:.2f}; methods {methods}")
            for r in (misses + violations)[:30]:
                print("MISS" if not r["ok"] else "BOUND", {k: v for k, v in r.items()})
            if misses or violations:
                exit_code = 1
    report["seconds"] = time.time() - t0
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(report, fh, indent=1, default=float)
    sys.exit(exit_code)


if __name__ == "__main__":
    main()
