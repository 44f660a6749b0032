#!/usr/bin/env python3
"""Forward + backward of sigpu's differentiable filters on torch CUDA float32, against a device
copy and torchaudio's lfilter timed in the same run:

- sosfilt with butter(8, 0.05) as 4 sections, and lfilter with butter(2, 0.05) as (b, a);
- shapes 4096 x 2^14 and 1 x 2^28 (--shapes to choose);
- "x": only x requires grad (one fused call each way); "x+coefs": the coefficients too.

Each entry: the median wall time (ms) of ``y = f(x); y.backward(g)`` with a CUDA
synchronisation, the bytes the pair must move at least (x read, y written, g read, dx
written: 16 per sample), that as GB/s, and its share of the copy's bandwidth (a device copy
of the same array, read + write counted, timed the same way). torchaudio
(``torchaudio.functional.lfilter``, its own backward) is timed on the same data where it is
importable (the 1 x 2^28 case only with --slow-peers: its loop is serial per channel).

usage: gpu_grad_targets.py [--shapes 4096x16384,1x268435456] [--runs 10] [--slow-peers]
  > results.json
Prints one JSON object (progress on stderr)."""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

import numpy as np
import scipy.signal as ss
import torch

import sigpu

ap = argparse.ArgumentParser()
ap.add_argument("--shapes", default="4096x16384,1x268435456")
ap.add_argument("--runs", type=int, default=10)
ap.add_argument("--slow-peers", action="store_true")
args = ap.parse_args()


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def wall(fn, runs, warmup=2):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


sos = ss.butter(8, 0.05, output="sos")
b, a = ss.butter(2, 0.05)
out = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "cases": []}
try:
    import torchaudio.functional as taf

    out["torchaudio"] = __import__("torchaudio").__version__
except Exception as e:  # noqa: BLE001
    taf = None
    out["torchaudio"] = f"not importable: {e}"

for shape in args.shapes.split(","):
    rows, n = (int(v) for v in shape.split("x"))
    x0 = torch.randn(rows, n, device="cuda")
    g = torch.randn_like(x0)
    samples = rows * n
    dst = torch.empty_like(x0)
    copy_ms = wall(lambda: dst.copy_(x0), args.runs)
    copy_gbs = 2 * 4 * samples / (copy_ms * 1e-3) / 1e9
    log(f"{shape}: copy {copy_ms:.3f} ms ({copy_gbs:.0f} GB/s)")
    sos_t = torch.tensor(sos, device="cuda")
    b_t, a_t = torch.tensor(b, device="cuda"), torch.tensor(a, device="cuda")
    for name, coefs_grad in (("x", False), ("x+coefs", True)):
        for filt in ("sosfilt", "lfilter"):
            x = x0.clone().requires_grad_()
            cs = [c.clone().requires_grad_(coefs_grad) for c in (sos_t, b_t, a_t)]

            def step():
                x.grad = None
                y = sigpu.sosfilt(cs[0], x) if filt == "sosfilt" else sigpu.lfilter(cs[1], cs[2], x)
                y.backward(g)

            try:
                ms = wall(step, args.runs)
            except Exception as e:  # noqa: BLE001 - a refusal is a result
                out["cases"].append({"shape": shape, "filter": filt, "grad": name, "error": str(e)})
                log(f"  {filt} {name}: {e}")
                continue
            gbs = 16 * samples / (ms * 1e-3) / 1e9
            entry = {"shape": shape, "filter": filt, "grad": name, "median_ms": ms,
                     "gb_per_s": gbs, "share_of_copy": gbs / copy_gbs, "copy_ms": copy_ms}
            if taf is not None and (rows > 1 or args.slow_peers):
                xa = x0.clone().requires_grad_()
                ca = [c.float().clone().requires_grad_(coefs_grad) for c in (sos_t, b_t, a_t)]

                def peer():
                    xa.grad = None
                    if filt == "lfilter":
                        y = taf.lfilter(xa, ca[2], ca[1], clamp=False)
                    else:
                        y = xa
                        for s in range(ca[0].shape[0]):
                            y = taf.lfilter(y, ca[0][s, 3:], ca[0][s, :3], clamp=False)
                    y.backward(g)

                try:
                    pms = wall(peer, max(2, args.runs // 5), warmup=1)
                    entry["torchaudio_ms"] = pms
                    entry["speedup_vs_torchaudio"] = pms / ms
                except Exception as e:  # noqa: BLE001
                    entry["torchaudio_error"] = str(e)
            out["cases"].append(entry)
            log(f"  {filt} {name}: {ms:.3f} ms, {gbs:.0f} GB/s, "
                f"{100 * gbs / copy_gbs:.0f}% of copy"
                + (f", torchaudio {entry['torchaudio_ms']:.1f} ms" if "torchaudio_ms" in entry
                   else ""))
    del x0, g, dst

print(json.dumps(out, indent=1))
