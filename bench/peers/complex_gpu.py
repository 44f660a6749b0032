#!/usr/bin/env python3
"""complex64 (or complex128) filtering of a CUDA tensor through sigpu, against the device's
copy of the same array (read + write): real coefficients — lfilter butter(2, 0.1) and sosfilt
butter(8, 0.1) — and complex ones — lfilter of a one-pole band-pass at 0.3 rad/sample and
sosfilt of two complex sections (the complex kernel: one thread per channel, or the chunked
scan for few long complex64 channels) — median of CUDA-event timings after a warm-up.

usage: complex_gpu.py [--log2-n 28] [--channels 1] [--dtype complex64] [--runs 10]
(2^log2-n samples in all, as `channels` rows; prints one JSON object)"""
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
    ap.add_argument("--channels", type=int, default=1)
    ap.add_argument("--dtype", choices=["complex64", "complex128"], default="complex64")
    ap.add_argument("--runs", type=int, default=10)
    args = ap.parse_args()
    n = 1 << args.log2_n
    rows_n = n // args.channels
    part = torch.float32 if args.dtype == "complex64" else torch.float64
    g = torch.Generator(device="cuda").manual_seed(1)
    x = torch.complex(torch.randn(n, device="cuda", generator=g, dtype=part),
                      torch.randn(n, device="cuda", generator=g, dtype=part))
    x = x.reshape(args.channels, rows_n)
    copy_ms = timed(lambda: x.clone(), args.runs)
    b, a = ss.butter(2, 0.1)
    sos = ss.butter(8, 0.1, output="sos")
    p1 = 0.9 * np.exp(0.3j)
    bc, ac = np.array([0.1, 0.05 + 0.02j]), np.array([1.0, -p1])
    q = np.array([0.95 * np.exp(0.4j), 0.9 * np.exp(-0.1j)])
    sosc = np.array([[0.1, 0.05 + 0.02j, 0.0, 1.0, -p1, 0.0],
                     [1.0, -0.3j, 0.2, 1.0, -(q[0] + q[1]), q[0] * q[1]]])
    rows = {}
    for name, fn, ref_fn in [
        ("lfilter butter(2, 0.1)", lambda: sigpu.lfilter(b, a, x), lambda v: ss.lfilter(b, a, v)),
        ("sosfilt butter(8, 0.1)", lambda: sigpu.sosfilt(sos, x), lambda v: ss.sosfilt(sos, v)),
        ("lfilter complex one-pole", lambda: sigpu.lfilter(bc, ac, x),
         lambda v: ss.lfilter(bc, ac, v)),
        ("sosfilt 2 complex sections", lambda: sigpu.sosfilt(sosc, x),
         lambda v: ss.sosfilt(sosc, v)),
    ]:
        ms = timed(fn, args.runs)
        y = fn()
        # accuracy on the first 2^16 samples of the first row against scipy in complex128
        m = min(rows_n, 1 << 16)
        xs = x[0, :m].cpu().numpy().astype(np.complex128)
        ref = ref_fn(xs)
        err = float(np.max(np.abs(y[0, :m].cpu().numpy() - ref)) / np.max(np.abs(ref)))
        rows[name] = dict(ms=ms, percent_of_copy=100 * copy_ms / ms, g_samples_per_s=n / ms / 1e6,
                          rel_error_first_row=err)
    print(json.dumps(dict(n=n, channels=args.channels, dtype=args.dtype, copy_ms=copy_ms,
                          rows=rows), indent=1))


if __name__ == "__main__":
    main()
