#!/usr/bin/env python3
"""complex64 filtering of a CUDA tensor through sigpu (real coefficients), against the device's
copy of the same array (read + write of complex64): lfilter butter(2, 0.1) and sosfilt
butter(8, 0.1), median of CUDA-event timings after a warm-up.

usage: complex_gpu.py [--log2-n 28] [--runs 10]   (prints one JSON object)"""
import argparse, json, statistics
import numpy as np
import scipy.signal as ss
import torch
import sigpu


def timed(fn, runs):
    for _ in range(2):
        fn()
    torch.cuda.synchronize()
    out = []
    for _ in range(runs):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        torch.cuda.synchronize()
        out.append(s.elapsed_time(e))
    return statistics.median(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--log2-n", type=int, default=28)
    ap.add_argument("--runs", type=int, default=10)
    args = ap.parse_args()
    n = 1 << args.log2_n
    g = torch.Generator(device="cuda").manual_seed(1)
    x = torch.complex(torch.randn(n, device="cuda", generator=g), torch.randn(n, device="cuda", generator=g))
    copy_ms = timed(lambda: x.clone(), args.runs)
    b, a = ss.butter(2, 0.1)
    sos = ss.butter(8, 0.1, output="sos")
    rows = {}
    for name, fn in [("lfilter butter(2, 0.1)", lambda: sigpu.lfilter(b, a, x)),
                     ("sosfilt butter(8, 0.1)", lambda: sigpu.sosfilt(sos, x))]:
        ms = timed(fn, args.runs)
        y = fn()
        # accuracy on the first 2^16 samples against scipy in complex128
        xs = x[: 1 << 16].cpu().numpy().astype(np.complex128)
        ref = ss.lfilter(b, a, xs) if name.startswith("lfilter") else ss.sosfilt(sos, xs)
        err = float(np.max(np.abs(y[: 1 << 16].cpu().numpy() - ref)) / np.max(np.abs(ref)))
        rows[name] = dict(ms=ms, percent_of_copy=100 * copy_ms / ms, g_samples_per_s=n / ms / 1e6, rel_error_first_65536=err)
    print(json.dumps(dict(n=n, dtype="complex64", copy_ms=copy_ms, rows=rows), indent=1))


if __name__ == "__main__":
    main()
