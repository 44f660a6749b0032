#!/usr/bin/env python3
"""The CPU target: sigpu.lfilter on 2^24 float64 samples, order 2, against scipy.signal.lfilter
in the same process; interleaved runs, median. Prints JSON.

usage: cpu_lfilter.py [--log2-n 24] [--runs 7]"""

import argparse
import json
import os
import statistics
import time

import numpy as np
import scipy
import scipy.signal as ss

import sigpu

ap = argparse.ArgumentParser()
ap.add_argument("--log2-n", type=int, default=24)
ap.add_argument("--runs", type=int, default=7)
args = ap.parse_args()
x = np.random.default_rng(1).standard_normal(1 << args.log2_n)
out = {"n": x.size, "scipy": scipy.__version__, "cpus": os.cpu_count(), "load": os.getloadavg()}
for name, (b, a) in {
    "order 1 (0.2 : 0.8)": ([0.2], [1.0, -0.8]),
    "order 2 (0.04 : 1.6, -0.64)": ([0.04], [1.0, -1.6, 0.64]),
    "order 2 butter(2, 0.1)": tuple(ss.butter(2, 0.1)),
}.items():
    assert np.max(np.abs(sigpu.lfilter(b, a, x) - ss.lfilter(b, a, x))) < 1e-9
    ts, tp = [], []
    for _ in range(args.runs):
        t = time.perf_counter(); sigpu.lfilter(b, a, x); ts.append(time.perf_counter() - t)
        t = time.perf_counter(); ss.lfilter(b, a, x); tp.append(time.perf_counter() - t)
    s, p = statistics.median(ts), statistics.median(tp)
    out[name] = {"sigpu_ms": s * 1e3, "scipy_ms": p * 1e3, "sigpu_msamples_s": x.size / s / 1e6,
                 "scipy_msamples_s": x.size / p / 1e6, "speedup": p / s}
out["load_after"] = os.getloadavg()
print(json.dumps(out, indent=1))
