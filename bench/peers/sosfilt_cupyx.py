#!/usr/bin/env python3
"""Peer for `sigpu bench filter --sos`: cupyx.scipy.signal.sosfilt on butter(8, 0.1) as 4
sections, f32 signal and f32 sections (so the result is f32, as sigpu's), timed the same way
(CUDA events, warm-up, median of runs) at the same lengths; and the accuracy yardstick:
scipy.signal.sosfilt in f32 and cupyx's output against scipy in f64 on 2^22 samples.

usage: sosfilt_cupyx.py [--log2-n 26,28] [--runs 10] > peers.json
"""
import argparse
import json

import cupy as cp
import numpy as np

try:
    import scipy
    from scipy import signal
except ImportError:  # the peer timing needs only cupy
    scipy = signal = None

ap = argparse.ArgumentParser()
ap.add_argument("--log2-n", default="26,28")
ap.add_argument("--runs", type=int, default=10)
args = ap.parse_args()

import cupyx.scipy.signal as csig

# scipy.signal.butter(8, 0.1, output="sos")
sos64 = np.array([
    [1.7625537291912854e-07, 3.525107458382571e-07, 1.7625537291912854e-07, 1.0, -1.4597062543768673, 0.5348259849616107],
    [1.0, 2.0, 1.0, 1.0, -1.5132907658389045, 0.5911680745682053],
    [1.0, 2.0, 1.0, 1.0, -1.6234056976410005, 0.7069497656826822],
    [1.0, 2.0, 1.0, 1.0, -1.7939618452517712, 0.8862831120070135]])
sos32 = sos64.astype(np.float32)
dev = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
rows = []
for l in [int(t) for t in args.log2_n.split(",")]:
    n = 1 << l
    rng = np.random.default_rng(l)
    x = cp.asarray(rng.uniform(-1.0, 1.0, n).astype(np.float32))
    s = cp.asarray(sos32)
    y = csig.sosfilt(s, x)
    assert y.dtype == cp.float32, y.dtype
    for _ in range(2):
        csig.sosfilt(s, x)
    cp.cuda.Device().synchronize()
    times = []
    for _ in range(args.runs):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record()
        csig.sosfilt(s, x)
        b.record()
        b.synchronize()
        times.append(cp.cuda.get_elapsed_time(a, b))
    ms = float(np.median(times))
    rows.append({"peer": "cupyx.scipy.signal.sosfilt", "filter": "butter(8, 0.1)", "sections": 4,
                 "dtype": "f32", "n": n, "median_ms": ms, "min_ms": float(min(times)),
                 "g_samples_per_s": n / (ms * 1e-3) / 1e9, "runs": args.runs})
    del x, y

# Accuracy at 2^22: scipy f32 and cupyx f32 against scipy f64 on the same f32 input and the
# same f32-rounded sections (relative to max |y_ref|).
accuracy = None
if signal is not None:
    n = 1 << 22
    x32 = np.random.default_rng(0).uniform(-1.0, 1.0, n).astype(np.float32)
    ref = signal.sosfilt(sos32.astype(np.float64), x32.astype(np.float64))
    scale = np.abs(ref).max()
    err_scipy = float(np.abs(signal.sosfilt(sos32, x32).astype(np.float64) - ref).max() / scale)
    err_cupyx = float(np.abs(cp.asnumpy(csig.sosfilt(cp.asarray(sos32), cp.asarray(x32))).astype(np.float64) - ref).max() / scale)
    accuracy = {"scipy_sosfilt_f32": err_scipy, "cupyx_sosfilt_f32": err_cupyx}
print(json.dumps({"device": dev, "cupy": cp.__version__,
                  "scipy": scipy.__version__ if scipy else None,
                  "peers": rows, "accuracy_2e22": accuracy}, indent=1))
