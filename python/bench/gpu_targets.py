#!/usr/bin/env python3
"""The Python package's GPU targets, measured through the Python call on CUDA arrays:

- sigpu.lfilter on a 2^28-element float32 CUDA array (PyTorch and CuPy): the call's wall time,
  CUDA-synchronised, as bandwidth (4 bytes read + 4 written per sample) against a device copy
  of the same array timed the same way, and against cupyx.scipy.signal.lfilter in this run;
- ldpc.Code.decode on a CUDA tensor of LLRs for 1,024 DVB-T2 normal 1/2 frames (8-bit min-sum,
  flooding, 50 iterations, no early termination) as coded Mbps, against Sionna's LDPCBPDecoder
  (min-sum, 50 iterations) on the same LLRs when Sionna is importable.

Each lfilter entry also says where a synchronised call's time goes: `host_ms`, the host time
of the call alone started on an idle GPU (everything before the launch, plus the return);
`kernel_events_ms`, CUDA events around the bare native launch on a preallocated output (the
kernel as a single launch); `pipelined_ms`, events around back-to-back calls per call (the
host work hidden behind the previous kernel); `general_path`, the same call through the
general path (`device="cuda"`: array description, then the checks) in the same run; and
`parts_us`, the host time of each step of the call (median of many).

usage: gpu_targets.py [--log2-n 28] [--runs 20] [--frames 1024] [--skip ldpc,cupyx]
  > results.json
Prints one JSON object (progress on stderr)."""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("--log2-n", type=int, default=28)
ap.add_argument("--runs", type=int, default=20)
ap.add_argument("--frames", type=int, default=1024)
ap.add_argument("--sionna-runs", type=int, default=3)
ap.add_argument("--skip", default="", help="comma-separated: ldpc (the decoder part), cupyx (the CuPy peers)")
args = ap.parse_args()
skip = set(filter(None, args.skip.split(",")))
t_start = time.perf_counter()

import torch  # noqa: E402

import sigpu  # noqa: E402
from sigpu import _arrays, _native, _signal, ldpc  # noqa: E402


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def wall(fn, sync, runs, warmup=3):
    """Median wall time (ms) of fn() followed by a device synchronisation."""
    for _ in range(warmup):
        fn()
    sync()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        sync()
        times.append((time.perf_counter() - t) * 1e3)
    return {"median_ms": statistics.median(times), "min_ms": min(times), "max_ms": max(times), "runs": runs}


def events(fn, runs, warmup=3):
    """Median CUDA-event time (ms) of fn() on the current torch stream."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e))
    return statistics.median(times)


def host(fn, sync, runs, warmup=3):
    """Median host time (ms) of fn() alone, each started on an idle GPU (synchronised first):
    for an asynchronous call, the host work before its launch and after it."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(runs):
        sync()
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1e3)
    sync()
    return statistics.median(times)


def micro_us(fn, reps=200):
    """Median host time (µs) of fn(), over `reps` calls timed in blocks of 10."""
    fn()
    times = []
    for _ in range(max(reps // 10, 1)):
        t = time.perf_counter()
        for _ in range(10):
            fn()
        times.append((time.perf_counter() - t) * 1e5)
    return statistics.median(times)


def pipelined(fn, calls=10, warmup=2):
    """CUDA-event time (ms) per call of `calls` back-to-back calls on the current torch stream:
    the host work of a call overlaps the previous call's kernel."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    for _ in range(calls):
        fn()
    e.record()
    e.synchronize()
    return s.elapsed_time(e) / calls


def breakdown(b, a, arr, kind, sync):
    """Where a synchronised sigpu.lfilter call on `arr` spends its time (see the docstring)."""
    ba = _signal._validated(b, a)
    io = _signal._direct_io(arr, -1)
    assert io is not None, "the direct path should take this array"
    yk, name, xp, yp, rows, cols, dev, stream = io
    launch = lambda: _native.filter_cuda(ba.bl, ba.al, name, xp, yp, rows, cols, dev, stream)
    r = {"host_ms": host(lambda: sigpu.lfilter(b, a, arr), sync, args.runs)}
    if kind == "torch":
        r["kernel_events_ms"] = events(launch, args.runs)
        r["pipelined_ms"] = pipelined(lambda: sigpu.lfilter(b, a, arr))
    g = wall(lambda: sigpu.lfilter(b, a, arr, device="cuda"), sync, args.runs)
    g["host_ms"] = host(lambda: sigpu.lfilter(b, a, arr, device="cuda"), sync, args.runs)
    r["general_path"] = g
    parts = {
        "validate_coefs": micro_us(lambda: _signal._validated(b, a)),
        "direct_io": micro_us(lambda: _signal._direct_io(arr, -1)),
        "describe_general": micro_us(lambda: _arrays.gpu_array(arr)),
        "native_launch": 1e3 * host(launch, sync, args.runs),
    }
    if kind == "torch":
        parts["empty_like"] = micro_us(lambda: torch.empty_like(arr))
        parts["raw_stream"] = micro_us(lambda: _arrays.torch_stream(torch, 0))
        parts["current_stream_object"] = micro_us(lambda: torch.cuda.current_stream(0).cuda_stream)
    else:
        parts["empty"] = micro_us(lambda: cupy.empty(arr.shape, arr.dtype))
        parts["array_interface"] = micro_us(lambda: arr.__cuda_array_interface__)
        parts["current_stream"] = micro_us(lambda: cupy.cuda.get_current_stream().ptr)
    r["parts_us"] = parts
    sync()
    del yk
    return r


out = {
    "torch": torch.__version__,
    "device": torch.cuda.get_device_name(0),
    "sigpu": sigpu.__version__,
    "log2_n": args.log2_n,
}
n = 1 << args.log2_n
nbytes = 2 * 4 * n  # read + write, float32
FILTERS = {"(0.2 : 0.8)": ([0.2], [1.0, -0.8]), "(0.04 : 1.6, -0.64)": ([0.04], [1.0, -1.6, 0.64])}

# ---- torch
x = torch.randn(n, device="cuda", dtype=torch.float32)
y = torch.empty_like(x)
sync = torch.cuda.synchronize
copy = wall(lambda: y.copy_(x), sync, args.runs)
copy["gb_per_s"] = nbytes / copy["median_ms"] / 1e6
copy["events_ms"] = events(lambda: y.copy_(x), args.runs)
copy["host_ms"] = host(lambda: y.copy_(x), sync, args.runs)
out["torch_copy"] = copy
log("torch copy", copy)
first = time.perf_counter()
sigpu.lfilter([0.2], [1.0, -0.8], x)
sync()
out["first_call_s"] = time.perf_counter() - first  # kernel compile or cache load, context
res = {}
for name, (b, a) in FILTERS.items():
    r = wall(lambda: sigpu.lfilter(b, a, x), sync, args.runs)
    r["gb_per_s"] = nbytes / r["median_ms"] / 1e6
    r["of_copy"] = r["gb_per_s"] / copy["gb_per_s"]
    r["events_ms"] = events(lambda: sigpu.lfilter(b, a, x), args.runs)
    yy = sigpu.lfilter(b, a, x[: 1 << 20]).double().cpu().numpy()
    import scipy.signal as ss

    ref = ss.lfilter(b, a, x[: 1 << 20].double().cpu().numpy())
    r["max_abs_error_vs_scipy_f64_first_2^20"] = float(np.max(np.abs(yy - ref)))
    r.update(breakdown(b, a, x, "torch", sync))
    res[name] = r
    log("sigpu torch", name, r)
out["sigpu_lfilter_torch"] = res
import scipy.signal as ss

sos = ss.butter(8, 0.1, output="sos")
r = wall(lambda: sigpu.sosfilt(sos, x), sync, args.runs)
r["gb_per_s"] = nbytes / r["median_ms"] / 1e6
r["of_copy"] = r["gb_per_s"] / copy["gb_per_s"]
r["host_ms"] = host(lambda: sigpu.sosfilt(sos, x), sync, args.runs)
yy = sigpu.sosfilt(sos, x[: 1 << 20]).double().cpu().numpy()
r["max_abs_error_vs_scipy_f64_first_2^20"] = float(np.max(np.abs(yy - ss.sosfilt(sos, x[: 1 << 20].double().cpu().numpy()))))
out["sigpu_sosfilt_torch_butter8"] = r
log("sigpu sosfilt torch", r)
del y

# ---- cupy
try:
    import cupy
    import cupyx.scipy.signal as cs

    xc = cupy.asarray(x)  # a CuPy view of the same memory (CAI)
    yc = cupy.empty_like(xc)
    csync = cupy.cuda.runtime.deviceSynchronize
    cc = wall(lambda: yc.__setitem__(Ellipsis, xc), csync, args.runs)
    cc["gb_per_s"] = nbytes / cc["median_ms"] / 1e6
    cc["host_ms"] = host(lambda: yc.__setitem__(Ellipsis, xc), csync, args.runs)
    out["cupy_copy"] = cc
    resc = {}
    for name, (b, a) in FILTERS.items():
        r = wall(lambda: sigpu.lfilter(b, a, xc), csync, args.runs)
        r["gb_per_s"] = nbytes / r["median_ms"] / 1e6
        r["of_copy"] = r["gb_per_s"] / cc["gb_per_s"]
        assert isinstance(sigpu.lfilter(b, a, xc[:16]), cupy.ndarray)
        if "cupyx" not in skip:
            peer = wall(lambda: cs.lfilter(cupy.asarray(b, cupy.float32), cupy.asarray(a, cupy.float32), xc), csync, 3, warmup=1)
            r["cupyx_lfilter_ms"] = peer["median_ms"]
            r["vs_cupyx"] = peer["median_ms"] / r["median_ms"]
            yp = cs.lfilter(cupy.asarray(b, cupy.float32), cupy.asarray(a, cupy.float32), xc[: 1 << 20])
            ys = sigpu.lfilter(b, a, xc[: 1 << 20])
            r["max_abs_diff_vs_cupyx_first_2^20"] = float(cupy.max(cupy.abs(yp - ys)))
        r.update(breakdown(b, a, xc, "cupy", csync))
        resc[name] = r
        log("sigpu cupy", name, r)
    out["sigpu_lfilter_cupy"] = resc
    r = wall(lambda: sigpu.sosfilt(sos, xc), csync, args.runs)
    r["gb_per_s"] = nbytes / r["median_ms"] / 1e6
    if "cupyx" not in skip:
        peer = wall(lambda: cs.sosfilt(cupy.asarray(sos, cupy.float32), xc), csync, 3, warmup=1)
        r["cupyx_sosfilt_ms"] = peer["median_ms"]
        r["vs_cupyx"] = peer["median_ms"] / r["median_ms"]
    out["sigpu_sosfilt_cupy_butter8"] = r
    log("sigpu sosfilt cupy", r)
    del xc, yc
except ImportError as e:
    out["cupy"] = f"not importable: {e}"
del x
torch.cuda.empty_cache()

# ---- LDPC
if "ldpc" in skip:
    out["total_s"] = time.perf_counter() - t_start
    print(json.dumps(out, indent=1))
    sys.exit(0)
code = ldpc.Code("dvbt2-normal-1/2")
F, N = args.frames, code.n
# All-zero codeword, BPSK over AWGN at Eb/N0 = 2 dB: LLR = 2y/σ² (ln P(0)/P(1)).
rate = code.rate
sigma2 = 1.0 / (2 * rate * 10 ** 0.2)
g = torch.Generator(device="cuda").manual_seed(1)
yv = 1.0 + (sigma2 ** 0.5) * torch.randn((F, N), device="cuda", generator=g)
llr = (2.0 * yv / sigma2).float().contiguous()
del yv
t = time.perf_counter()
bits = code.decode(llr, iterations=50)
sync()
out["ldpc_first_call_s"] = time.perf_counter() - t
r = wall(lambda: code.decode(llr, iterations=50), sync, 5, warmup=2)
r["coded_mbps"] = F * N / (r["median_ms"] * 1e-3) / 1e6
r["frames"] = F
r["bit_errors"] = int(code.decode(llr, iterations=50).sum().item())
# The same LLRs through the host path (numpy in, CPU-side quantisation, GPU decoder).
llr_host = llr.cpu().numpy()
rh = wall(lambda: code.decode(llr_host, iterations=50, device="cuda"), lambda: None, 3, warmup=1)
rh["coded_mbps"] = F * N / (rh["median_ms"] * 1e-3) / 1e6
r["host_array_path"] = rh
cpu_bits = code.decode(llr_host[:128], iterations=50, device="cpu")
r["equals_cpu_decoder_first_128"] = bool((bits[:128].cpu().numpy() == cpu_bits).all())
out["sigpu_decode_torch"] = r
log("decode", r)

try:
    import sionna
    from sionna.phy.fec.ldpc import LDPCBPDecoder
    import scipy.sparse as sp

    indptr, indices = code._code.h_csr()
    pcm = sp.csr_matrix((np.ones(len(indices), np.float32), indices, indptr), shape=(code.m, N))
    dec = LDPCBPDecoder(pcm, cn_update="minsum", num_iter=50, hard_out=True, device="cuda:0")
    # Sionna's LLRs are ln P(1)/P(0).
    neg = -llr
    rs = wall(lambda: dec(neg), sync, args.sionna_runs, warmup=1)
    rs["coded_mbps"] = F * N / (rs["median_ms"] * 1e-3) / 1e6
    rs["version"] = sionna.__version__
    rs["bit_errors"] = int(dec(neg).sum().item())
    rs["sigpu_speedup"] = rs["median_ms"] / r["median_ms"]
    out["sionna_LDPCBPDecoder"] = rs
    log("sionna", rs)
except Exception as e:  # noqa: BLE001
    out["sionna_LDPCBPDecoder"] = f"not run: {type(e).__name__}: {e}"

out["total_s"] = time.perf_counter() - t_start
print(json.dumps(out, indent=1))
