"""Accuracy of the (b, a) PLR path on the GPU against SciPy, by the factor growth g·(k+2) the
planner reads: low-order designs whose factors stay small enough to run blocked (notches,
peaks, resonators, low-pass and high-pass Butterworth) driven by white and stopband-heavy
inputs, f32 and f64, torch CUDA tensors (and the CPU for comparison). Prints one JSON line per
run: design, input, dtype, g·(k+2), sigpu's error / SciPy's against a long-double reference.

Used to set the planner's limit on ‖h_1/A‖₁ for the blocked (b, a) path (the GPU's merges round
at more levels than the CPU's blocks, so its errors grow faster with it).
Run on a GPU machine: python3 bench/peers/plr_gpu_calibration.py [--seed S] [--n N]"""
import argparse
import json
import sys

import numpy as np
import scipy.signal as ss

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from filter_accuracy import INPUTS, rel_err, stopband_input  # noqa: E402

LD = np.longdouble


def growth(a, n=8192):
    """Σ_j max_q |f_j[q]| · (k + 2): the factors' growth as the planner measures it."""
    a = np.asarray(a, float)
    k = len(a) - 1
    total = 0.0
    for j in range(k):
        zi = np.zeros(k)
        # the zero-input response to the state y[-1-j] = 1 (direct form)
        y = np.zeros(n + k)
        y[k - 1 - j] = 1.0
        for t in range(k, n + k):
            y[t] = -np.dot(a[1:], y[t - 1::-1][:k])
        total += np.max(np.abs(y[k:]))
    return total * (k + 2)


def designs(rng):
    out = []
    for w0 in [0.02, 0.05, 0.1, 0.2, 0.35, 0.5, 0.65, 0.8, 0.9, 0.95, 0.9772, 0.99]:
        for q in [1.0, 3.0, 10.0, 25.1, 80.0]:
            out.append((f"iirnotch({w0}, Q={q})", *ss.iirnotch(w0, q)))
            out.append((f"iirpeak({w0}, Q={q})", *ss.iirpeak(w0, q)))
    for r in [0.9, 0.97, 0.99, 0.995]:
        for th in [0.05, 0.5, 1.5, 2.8, 3.1]:
            a = np.array([1.0, -2 * r * np.cos(th), r * r])
            out.append((f"resonator({r}, {th})", np.array([1 - r]), a))
    for order in [1, 2, 3, 4]:
        for wn in [0.02, 0.05, 0.1, 0.3, 0.6, 0.9]:
            for bt in ["lowpass", "highpass"]:
                out.append((f"butter({order}, {wn}, {bt})", *ss.butter(order, wn, bt)))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--n", type=int, default=40009)
    ap.add_argument("--limit", type=float, default=64.0, help="skip designs with g·(k+2) above")
    ap.add_argument("--cpu", action="store_true", help="the CPU (numpy) instead of torch CUDA")
    args = ap.parse_args()
    import sigpu
    torch = None
    if not args.cpu:
        import torch
    rng = np.random.default_rng(args.seed)
    for name, b, a in designs(rng):
        g = growth(a)
        if g > args.limit:
            continue
        sos = ss.tf2sos(b, a)
        for kind in ["white"] + INPUTS:
            x = rng.uniform(-1, 1, args.n) if kind == "white" else stopband_input(kind, args.n, sos, rng)
            for npdt in (np.float64, np.float32):
                xx = x.astype(npdt)
                ref = ss.lfilter(b.astype(LD), a.astype(LD), xx.astype(LD))
                sp = ss.lfilter(b.astype(npdt), a.astype(npdt), xx)
                try:
                    if torch is None:
                        y = sigpu.lfilter(b.astype(npdt), a.astype(npdt), xx)
                    else:
                        t = torch.from_numpy(xx).cuda()
                        y = sigpu.lfilter(b.astype(npdt), a.astype(npdt), t).cpu().numpy()
                    e = rel_err(y, ref)
                except Exception as ex:  # refused: never wrong
                    e = None
                    err = str(ex)[:80]
                es = rel_err(sp, ref)
                row = dict(design=name, input=kind, dtype=np.dtype(npdt).name, growth=round(g, 2),
                           error=e, scipy_error=es,
                           ratio=None if e is None else e / max(es, 8 * float(np.finfo(npdt).eps)))
                if e is None:
                    row["refused"] = err
                print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
