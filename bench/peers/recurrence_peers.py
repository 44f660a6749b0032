#!/usr/bin/env python3
"""Peers for `sigpu bench filter`, on the same signatures and lengths, timed the same way
(CUDA events, warm-up, median): cupyx.scipy.signal.lfilter (PLR-derived chunked IIR),
torch.cumsum (CUB scan) for the prefix sums, torchaudio.functional.lfilter (one thread per
channel, looping over time) where importable, and scipy.signal.lfilter on the CPU.

usage: recurrence_peers.py [--log2-n 28 | 10-30] [--runs 10] [--cpu-log2-n 20 | 0]
                           [--torchaudio-max-log2 20] > peers.json
Feed the output to `sigpu bench filter --peers peers.json` to put it in the report and plots.
"""
import argparse
import json
import time

import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("--log2-n", default="28", help="exponent or A-B range, comma-separated")
ap.add_argument("--runs", type=int, default=10, help="timed runs (3 above 2^26)")
ap.add_argument("--cpu-log2-n", type=int, default=20, help="scipy length exponent; 0 skips")
ap.add_argument("--torchaudio-max-log2", type=int, default=20,
                help="torchaudio runs serially per channel (~0.01 G/s): longest length")
args = ap.parse_args()


def exponents(spec):
    out = []
    for part in spec.split(","):
        lo, _, hi = part.partition("-")
        out.extend(range(int(lo), int(hi or lo) + 1))
    return out


sizes = [1 << l for l in exponents(args.log2_n)]
n_max = max(sizes)

# (signature, b, a) in SciPy's convention: the seed's (a0, … : b1, …) is lfilter(a…, [1, -b1, …]).
IIR = [
    ("(0.2 : 0.8)", [0.2], [1.0, -0.8]),
    ("(0.04 : 1.6, -0.64)", [0.04], [1.0, -1.6, 0.64]),
    ("(0.9, -0.9 : 0.8)", [0.9, -0.9], [1.0, -0.8]),
    ("(0.81, -1.62, 0.81 : 1.6, -0.64)", [0.81, -1.62, 0.81], [1.0, -1.6, 0.64]),
]
rows = []


def runs_for(n):
    return args.runs if n <= 1 << 26 else 3


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


def row(peer, version, sig, dtype, n, ms, **extra):
    r = {"peer": peer, "version": version, "signature": sig, "dtype": dtype, "n": n,
         "median_ms": ms, "gelem_per_s": n / (ms * 1e-3) / 1e9}
    r.update(extra)
    rows.append(r)


try:
    import cupy
    import cupyx.scipy.signal as csig

    x = cupy.random.default_rng(1).uniform(-1, 1, n_max, dtype=cupy.float32)
    for sig, b, a in IIR:
        bb = cupy.asarray(np.array(b, dtype=np.float32))
        aa = cupy.asarray(np.array(a, dtype=np.float32))
        for n in sizes:
            xn = x[:n]
            try:
                ms = timed_gpu(lambda: csig.lfilter(bb, aa, xn), "cupy", runs_for(n))
                row("cupyx.scipy.signal.lfilter", cupy.__version__, sig, "f32", n, ms)
            except Exception as e:  # a peer failing is reported, not fatal
                rows.append({"peer": "cupyx.scipy.signal.lfilter", "signature": sig, "n": n,
                             "error": repr(e)})
    del x
    cupy.get_default_memory_pool().free_all_blocks()
except Exception as e:
    rows.append({"peer": "cupy", "error": repr(e)})

try:
    import torch

    for dtype, name in [(torch.int32, "i32"), (torch.float32, "f32")]:
        t = torch.randint(-100, 100, (n_max,), device="cuda").to(dtype)
        for n in sizes:
            tn = t[:n]
            ms = timed_gpu(lambda: torch.cumsum(tn, 0, dtype=dtype), "torch", runs_for(n))
            row("torch.cumsum", torch.__version__, "(1 : 1)", name, n, ms)
        del t
        torch.cuda.empty_cache()
except Exception as e:
    rows.append({"peer": "torch", "error": repr(e)})

try:
    import torch
    import torchaudio
    import torchaudio.functional as taf

    for sig, b, a in IIR:
        bt = torch.tensor(b + [0.0] * (len(a) - len(b)), device="cuda")
        at = torch.tensor(a + [0.0] * (len(b) - len(a)), device="cuda")
        for n in [n for n in sizes if n <= 1 << args.torchaudio_max_log2]:
            w = torch.rand(1, n, device="cuda") * 2 - 1
            ms = timed_gpu(lambda: taf.lfilter(w, at, bt, clamp=False), "torch", 3)
            row("torchaudio.functional.lfilter", torchaudio.__version__, sig, "f32", n, ms,
                channels=1)
        # Its GPU kernel runs a thread per channel: many channels is its good case.
        w = torch.rand(4096, 1 << 16, device="cuda") * 2 - 1
        ms = timed_gpu(lambda: taf.lfilter(w, at, bt, clamp=False), "torch", 3)
        rows.append({"peer": "torchaudio.functional.lfilter, 4096 channels",
                     "version": torchaudio.__version__, "signature": sig, "dtype": "f32",
                     "n": 1 << 16, "channels": 4096, "median_ms": ms,
                     "gelem_per_s": 4096 * (1 << 16) / (ms * 1e-3) / 1e9})
except Exception as e:
    rows.append({"peer": "torchaudio", "error": repr(e)})

if args.cpu_log2_n > 0:
    try:
        import scipy
        import scipy.signal as ssig

        m = 1 << args.cpu_log2_n
        xc = np.random.default_rng(1).uniform(-1, 1, m)
        for sig, b, a in IIR:
            samples = []
            for _ in range(5):
                t0 = time.perf_counter(); ssig.lfilter(b, a, xc); samples.append(time.perf_counter() - t0)
            s = float(np.median(samples))
            row("scipy.signal.lfilter (CPU)", scipy.__version__, sig, "f64", m, s * 1e3)
    except Exception as e:
        rows.append({"peer": "scipy", "error": repr(e)})

print(json.dumps({"peers": rows}, indent=1))
