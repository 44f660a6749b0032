"""sigpu.lns logsumexp and Tensor.matmul on a GPU against torch: bit-for-bit checks of the
timed kernels against the CPU path, then timings.

Needs the sigpu wheel of this tree and PyTorch with CUDA. Usage:

    python bench/peers/lns_tensor_bench.py [--size N]

Checks (GPU words or floats vs the CPU's, no tolerance): logsumexp and log_softmax of
(4096, 64) f32 and f64 logs with −∞ and NaN entries, lns16 / lns32; the row sum of
(4096, 64) words; matmuls of 192 × 300 × 160 in lns16 (int16 storage) and lns32 with zeros.
Timings: CUDA events around the Python call (the output's allocation included), after
warm-up, median of runs:

- logsumexp of a (2^20, 64) f32 tensor, lns32 and lns16, against torch.logsumexp on the same
  tensor, one call between the events and ten in a row (the host's work per call then
  overlaps the device's); "% of copy" counts the bytes read (4 per element) against the
  H200's measured copy bandwidth (4.27 TB/s, read + write), as bench/peers/lns_tensor_gpu.py
  does;
- the row sum of a (2^20, 64) lns32 tensor (the same kernel family on words);
- matmul N × N × N (N = 4096 by default) in lns16 and lns32, in G products/s and as a share
  of the s_b evaluation peak the lns kernels reach (lns16 SFU 1,620 G/s, lns32 f32split
  1,056 G/s), with torch's bf16 matmul for reference.

Prints one line per check and timing, then a JSON summary; exits 1 if a check differs.
"""

from __future__ import annotations

import json
import statistics
import sys

import numpy as np
import torch

from sigpu import lns

COPY_TBS = 4.27
SB_PEAK = {"lns16": 1620.0, "lns32": 1056.0}
SIZE = int(sys.argv[sys.argv.index("--size") + 1]) if "--size" in sys.argv else 4096
rng = np.random.default_rng(2029)
failures: list = []
summary: dict = {}


def words(t: lns.Tensor) -> np.ndarray:
    w = t.words.cpu().numpy() if isinstance(t.words, torch.Tensor) else np.asarray(t.words)
    return w.view(np.uint16).astype(np.uint32) if w.dtype == np.int16 else w.view(np.uint32)


def same(name: str, got, want) -> None:
    g, w = np.asarray(got), np.asarray(want)
    if g.dtype.kind == "f":
        g = g.view(np.uint64 if g.itemsize == 8 else np.uint32)
        w = w.view(np.uint64 if w.itemsize == 8 else np.uint32)
    bad = np.flatnonzero(g.ravel() != w.ravel()) if g.shape == w.shape else np.arange(1)
    if bad.size:
        failures.append(name)
        print(f"{name:52s} MISMATCH {bad.size}/{w.size}")
    else:
        print(f"{name:52s} ok ({w.size})")


def checks() -> None:
    for dt in (np.float32, np.float64):
        x = rng.normal(0, 4, (4096, 64)).astype(dt)
        x[5, :40] = -np.inf
        x[9, 3] = np.nan
        x[11, :] = -np.inf
        xg = torch.from_numpy(x).cuda()
        for fmt in ("lns32", "lns16"):
            same(f"logsumexp {dt.__name__} (4096, 64) {fmt}",
                 lns.logsumexp(xg, -1, format=fmt).cpu().numpy(), lns.logsumexp(x, -1, format=fmt))
            same(f"log_softmax {dt.__name__} (4096, 64) {fmt}",
                 lns.log_softmax(xg, -1, format=fmt).cpu().numpy(), lns.log_softmax(x, -1, format=fmt))
    v = rng.normal(0, 1, (4096, 64))
    v[7, :32] = -v[7, 32:][::-1]
    for fmt, storage in (("lns32", None), ("lns16", "int16")):
        c = lns.Tensor.from_float(v, fmt, storage)
        g = lns.Tensor.from_float(torch.from_numpy(v).cuda(), fmt, storage)
        same(f"sum(axis=-1) (4096, 64) {fmt}", words(g.sum(axis=-1)), words(c.sum(axis=-1)))
    m, k, n = 192, 300, 160
    a = rng.normal(0, 1, (m, k))
    b = rng.normal(0, 1, (k, n))
    a[3, :] = 0.0
    b[:, 5] = 0.0
    for fmt, storage in (("lns16", "int16"), ("lns32", None)):
        ac, bc = lns.Tensor.from_float(a, fmt, storage), lns.Tensor.from_float(b, fmt, storage)
        ag = lns.Tensor.from_float(torch.from_numpy(a).cuda(), fmt, storage)
        bg = lns.Tensor.from_float(torch.from_numpy(b).cuda(), fmt, storage)
        same(f"matmul {m}x{k}x{n} {fmt}", words(ag @ bg), words(ac @ bc))


def timed(fn, runs: int = 20, warm: int = 3, reps: int = 1) -> float:
    """Median over `runs` of the time per call of `reps` calls between two CUDA events (with
    reps > 1 the host's launch overhead overlaps the device's work, as in a model's loop)."""
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(runs):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(reps):
            fn()
        e.record()
        e.synchronize()
        samples.append(s.elapsed_time(e) * 1e-3 / reps)
    return statistics.median(samples)


def report(name: str, seconds: float, nbytes: float = 0.0, products: float = 0.0, extra: str = "") -> None:
    line = f"{name:56s} {seconds * 1e3:9.3f} ms"
    rec: dict = {"ms": seconds * 1e3}
    if nbytes:
        tbs = nbytes / seconds / 1e12
        line += f"  {tbs:5.2f} TB/s = {100 * tbs / COPY_TBS:5.1f}% of copy"
        rec["pct_copy"] = 100 * tbs / COPY_TBS
    if products:
        g = products / seconds / 1e9
        line += f"  {g:8.1f} G products/s"
        rec["g_products_per_s"] = g
    print(line + extra)
    summary[name] = rec


def timings() -> None:
    xs = torch.randn((1 << 20, 64), device="cuda")
    nbytes = 4 * xs.numel()
    for reps in (1, 10):
        tag = "one call" if reps == 1 else f"{reps} calls in a row"
        t_torch = timed(lambda: torch.logsumexp(xs, -1), reps=reps)
        report(f"torch.logsumexp f32 (2^20, 64), {tag}", t_torch, nbytes)
        for fmt in ("lns32", "lns16"):
            name = f"lns.logsumexp f32 (2^20, 64) {fmt}, {tag}"
            t = timed(lambda: lns.logsumexp(xs, -1, format=fmt), reps=reps)
            report(name, t, nbytes, extra=f"  {t_torch / t:5.2f}x torch")
            summary[name]["x_torch"] = t_torch / t
    w = lns.Tensor.from_float(xs, "lns32")
    report("lns32 sum(axis=-1) (2^20, 64), 10 calls in a row", timed(lambda: w.sum(axis=-1), reps=10), nbytes)
    del xs, w
    torch.cuda.empty_cache()
    prods = float(SIZE) ** 3
    for fmt, storage in (("lns16", "int16"), ("lns32", "int32")):
        a = lns.Tensor.from_float(torch.randn(SIZE, SIZE, device="cuda"), fmt, storage)
        b = lns.Tensor.from_float(torch.randn(SIZE, SIZE, device="cuda"), fmt, storage)
        t = timed(lambda: a @ b, runs=3, warm=1)
        g = prods / t / 1e9
        report(f"{fmt} matmul {SIZE}^3", t, products=prods,
               extra=f"  {100 * g / SB_PEAK[fmt]:5.1f}% of the s_b peak ({SB_PEAK[fmt]:.0f} G/s)")
        del a, b
    bf = torch.randn(SIZE, SIZE, device="cuda", dtype=torch.bfloat16)
    report(f"torch bf16 matmul {SIZE}^3 (reference)", timed(lambda: bf @ bf), products=prods)


def main() -> None:
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    print("== bit-for-bit: GPU vs CPU")
    checks()
    print("== timings")
    timings()
    print("== summary")
    print(json.dumps({"checks_failed": failures, "timings": summary}, indent=1))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
