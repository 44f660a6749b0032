#!/usr/bin/env python3
"""Writes scipy_designs.json: scipy.signal designs and references for the crate's tests.

- "stability": butter / cheby1 / cheby2 / ellip / bessel, orders 1-12, low/high/band-pass,
  cutoffs 0.005 and 0.3 (band: [c, 1.5c]), with (b, a), sos and the exact step-down verdict on
  the f64 (b, a) (Fractions).
- "accuracy": 24 designs (seeded) with references on x_i = ((7919 i) mod 1013) / 506.5 - 1,
  n = 40001, from scipy's lfilter / sosfilt in np.longdouble, sampled every 97th output, with
  scipy's own f64 and f32 errors on the same samples.
- "filtfilt": full filtfilt / sosfiltfilt outputs (f64) for a few designs, n = 1001.
- "zi": lfilter_zi / sosfilt_zi.
Regenerate: python3 gen_scipy_fixtures.py (numpy 2.4.6, scipy 1.17.1 wrote the stored file).
"""
import json
from fractions import Fraction
import numpy as np
import scipy.signal as ss

LD = np.longdouble


def stable(a):
    c = [Fraction(float(v)) / Fraction(float(a[0])) for v in a][1:]
    while c and c[-1] == 0:
        c.pop()
    while c:
        k = c[-1]
        if abs(k) >= 1:
            return False
        m = len(c)
        c = [(c[i] - k * c[m - 2 - i]) / (1 - k * k) for i in range(m - 1)]
    return True


def design(fam, order, wn, btype, output=None):
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
    if output:
        return f(order, *pre, wn, btype=btype, output=output, **kw)
    return f(order, *pre, wn, btype=btype, **kw)


FAMS = ["butter", "cheby1", "cheby2", "ellip", "bessel"]
out = {"stability": [], "accuracy": [], "filtfilt": [], "zi": []}
for fam in FAMS:
    for order in range(1, 13):
        for btype in ["lowpass", "highpass", "bandpass"]:
            for c in [0.005, 0.3]:
                wn = [c, 1.5 * c] if btype == "bandpass" else c
                b, a = design(fam, order, wn, btype)
                sos = design(fam, order, wn, btype, "sos")
                out["stability"].append(dict(name=f"{fam}({order}, {wn}, {btype})", b=list(b), a=list(a),
                                             sos=[list(r) for r in sos], ba_stable=stable(a)))
for name, (b, a) in [("butter(11, 0.02)", ss.butter(11, 0.02)), ("butter(12, 0.02)", ss.butter(12, 0.02))]:
    out["stability"].append(dict(name=name, b=list(b), a=list(a), sos=[list(r) for r in ss.butter(int(name[7:9]), 0.02, output="sos")],
                                 ba_stable=stable(a)))

rng = np.random.default_rng(12)
n = 40001
x = np.array([((7919 * i) % 1013) / 506.5 - 1 for i in range(n)])
idx = np.arange(0, n, 97)
for i in range(24):
    fam = FAMS[i % 5]
    order = int(rng.integers(1, 11))
    btype = ["lowpass", "highpass", "bandpass"][i % 3]
    lo = float(np.exp(rng.uniform(np.log(0.005), np.log(0.4))))
    if btype == "bandpass":
        order = min(order, 5)
        wn = [lo, min(0.9, 2 * lo)]
    else:
        wn = lo
    b, a = design(fam, order, wn, btype)
    sos = design(fam, order, wn, btype, "sos")
    if not stable(a):
        continue
    rec = dict(name=f"{fam}({order}, {wn}, {btype})", b=list(b), a=list(a), sos=[list(r) for r in sos])
    for form in ["ba", "sos"]:
        if form == "ba":
            ref = ss.lfilter(b.astype(LD), a.astype(LD), x.astype(LD))
            with np.errstate(all="ignore"):
                s64 = ss.lfilter(b, a, x)
                s32 = ss.lfilter(b.astype(np.float32), a.astype(np.float32), x.astype(np.float32))
            ref32 = ref
        else:
            ref = ss.sosfilt(sos.astype(LD), x.astype(LD))
            s64 = ss.sosfilt(sos, x)
            s32 = ss.sosfilt(sos.astype(np.float32), x.astype(np.float32))
        peak = float(np.max(np.abs(ref[idx])))

        def err(y):
            y = np.asarray(y, dtype=LD)[idx]
            return float(np.max(np.abs(y - ref[idx])) / peak) if np.all(np.isfinite(y)) else 1e300

        rec["out_" + form] = dict(ref=[float(v) for v in ref[idx]], scipy_f64=err(s64), scipy_f32=err(s32))
    out["accuracy"].append(rec)

xf = np.array([((7919 * i) % 1013) / 506.5 - 1 for i in range(1001)])
for fam, order, wn, btype in [("butter", 4, 0.1, "lowpass"), ("cheby1", 3, 0.2, "highpass"), ("ellip", 4, [0.1, 0.3], "bandpass"),
                              ("bessel", 5, 0.05, "lowpass")]:
    b, a = design(fam, order, wn, btype)
    sos = design(fam, order, wn, btype, "sos")
    out["filtfilt"].append(dict(name=f"{fam}({order}, {wn}, {btype})", b=list(b), a=list(a), sos=[list(r) for r in sos],
                                filtfilt=list(ss.filtfilt(b, a, xf)), sosfiltfilt=list(ss.sosfiltfilt(sos, xf)),
                                filtfilt_padlen5=list(ss.filtfilt(b, a, xf, padlen=5))))
    out["zi"].append(dict(b=list(b), a=list(a), sos=[list(r) for r in sos], lfilter_zi=list(ss.lfilter_zi(b, a)),
                          sosfilt_zi=[list(r) for r in ss.sosfilt_zi(sos)]))
with open(__file__.replace("gen_scipy_fixtures.py", "scipy_designs.json"), "w") as fh:
    json.dump(out, fh, separators=(",", ":"))
print(len(out["stability"]), "designs,", sum(not d["ba_stable"] for d in out["stability"]), "unstable in (b, a);",
      len(out["accuracy"]), "accuracy designs")
