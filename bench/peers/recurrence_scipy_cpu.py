#!/usr/bin/env python3
"""scipy.signal.lfilter on the CPU for the CPU target of `sigpu bench filter --device cpu`
(orders 1-4, f64, same signatures, U[-1, 1) input), median of RUNS calls.

usage: recurrence_scipy_cpu.py [LOG2_N=24] [RUNS=5] > scipy.json
"""
import json
import sys
import time

import numpy as np
import scipy
import scipy.signal as ssig

log2_n = int(sys.argv[1]) if len(sys.argv) > 1 else 24
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
n = 1 << log2_n
# The seed's (a0, … : b1, …) is lfilter([a0, …], [1, -b1, …]).
CASES = [
    ("(0.2 : 0.8)", [0.2], [0.8]),
    ("(0.04 : 1.6, -0.64)", [0.04], [1.6, -0.64]),
    ("(0.1 : 0.9, 0.05, -0.1)", [0.1], [0.9, 0.05, -0.1]),
    ("(0.1 : 0.5, 0.2, 0.1, -0.05)", [0.1], [0.5, 0.2, 0.1, -0.05]),
]
x = np.random.default_rng(1).uniform(-1, 1, n)
rows = []
for sig, ff, fb in CASES:
    a = [1.0] + [-b for b in fb]
    samples = []
    for _ in range(runs):
        t0 = time.perf_counter()
        ssig.lfilter(ff, a, x)
        samples.append(time.perf_counter() - t0)
    s = float(np.median(samples))
    rows.append({"peer": "scipy.signal.lfilter (CPU)", "version": scipy.__version__,
                 "signature": sig, "dtype": "f64", "n": n, "median_ms": s * 1e3,
                 "gelem_per_s": n / s / 1e9})
print(json.dumps({"peers": rows}, indent=1))
