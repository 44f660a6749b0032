#!/usr/bin/env python3
"""Peers for `sigpu bench filter`, on the same signatures and sizes, timed the same way
(CUDA events, warm-up, median): cupyx.scipy.signal.lfilter (PLR-derived chunked IIR),
torch.cumsum (CUB scan) for the prefix sums, and scipy.signal.lfilter on the CPU.

usage: recurrence_peers.py LOG2_N [RUNS] [CPU_LOG2_N] > peers.json
"""
import json
import sys
import time

import numpy as np

log2_n = int(sys.argv[1]) if len(sys.argv) > 1 else 28
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 10
cpu_log2_n = int(sys.argv[3]) if len(sys.argv) > 3 else 20
n = 1 << log2_n

# (signature, b, a) in SciPy's convention: the seed's (a0, … : b1, …) is lfilter(a…, [1, -b1, …]).
IIR = [
    ("(0.2 : 0.8)", [0.2], [1.0, -0.8]),
    ("(0.04 : 1.6, -0.64)", [0.04], [1.0, -1.6, 0.64]),
    ("(0.9, -0.9 : 0.8)", [0.9, -0.9], [1.0, -0.8]),
    ("(0.81, -1.62, 0.81 : 1.6, -0.64)", [0.81, -1.62, 0.81], [1.0, -1.6, 0.64]),
]
rows = []


def timed_gpu(fn, kind, runs):
    for _ in range(2):
        fn()
    samples = []
    for _ in range(runs):
        if kind == "cupy":
            import cupy
            start, end = cupy.cuda.Event(), cupy.cuda.Event()
            start.record(); fn(); end.record(); end.synchronize()
            samples.append(cupy.cuda.get_elapsed_time(start, end))
        else:
            import torch
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record(); fn(); end.record(); end.synchronize()
            samples.append(start.elapsed_time(end))
    return float(np.median(samples))


try:
    import cupy
    import cupyx.scipy.signal as csig

    rng = np.random.default_rng(1)
    x = cupy.asarray(rng.uniform(-1, 1, n).astype(np.float32))
    for sig, b, a in IIR:
        bb = cupy.asarray(np.array(b, dtype=np.float32))
        aa = cupy.asarray(np.array(a, dtype=np.float32))
        try:
            ms = timed_gpu(lambda: csig.lfilter(bb, aa, x), "cupy", runs)
            rows.append({"peer": "cupyx.scipy.signal.lfilter", "version": cupy.__version__,
                         "signature": sig, "dtype": "f32", "n": n, "median_ms": ms,
                         "gelem_per_s": n / (ms * 1e-3) / 1e9})
        except Exception as e:  # a peer failing is reported, not fatal
            rows.append({"peer": "cupyx.scipy.signal.lfilter", "signature": sig, "error": repr(e)})
    del x
    cupy.get_default_memory_pool().free_all_blocks()
except Exception as e:
    rows.append({"peer": "cupy", "error": repr(e)})

try:
    import torch

    for dtype, name in [(torch.int32, "i32"), (torch.float32, "f32")]:
        t = torch.randint(-100, 100, (n,), device="cuda").to(dtype)
        ms = timed_gpu(lambda: torch.cumsum(t, 0, dtype=dtype), "torch", runs)
        rows.append({"peer": "torch.cumsum", "version": torch.__version__, "signature": "(1 : 1)",
                     "dtype": name, "n": n, "median_ms": ms, "gelem_per_s": n / (ms * 1e-3) / 1e9})
        del t
except Exception as e:
    rows.append({"peer": "torch", "error": repr(e)})

try:
    import scipy
    import scipy.signal as ssig

    m = 1 << cpu_log2_n
    xc = np.random.default_rng(1).uniform(-1, 1, m)
    for sig, b, a in IIR:
        samples = []
        for _ in range(5):
            t0 = time.perf_counter(); ssig.lfilter(b, a, xc); samples.append(time.perf_counter() - t0)
        s = float(np.median(samples))
        rows.append({"peer": "scipy.signal.lfilter (CPU)", "version": scipy.__version__, "signature": sig,
                     "dtype": "f64", "n": m, "median_ms": s * 1e3, "gelem_per_s": m / s / 1e9})
except Exception as e:
    rows.append({"peer": "scipy", "error": repr(e)})

print(json.dumps({"peers": rows}, indent=1))
