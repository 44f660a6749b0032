"""sigpu.lns.Tensor on a GPU: bit-for-bit checks of every operation against the CPU path on the
same words, then timings against copy bandwidth and torch.

Needs the sigpu wheel of this tree and PyTorch with CUDA. Usage:

    python bench/peers/lns_tensor_gpu.py [--quick]

Prints one line per check (``ok`` or the number of differing words and the first of them),
then one line per timing, then a summary; exits 1 if any check differs. Timings are CUDA
events around the Python call (allocation of the output included), after warm-up, median of
runs; "copy" is the H200's measured copy bandwidth (4.27 TB/s, read + write bytes).
"""

from __future__ import annotations

import json
import statistics
import sys
import time

import numpy as np
import torch

from sigpu import lns

COPY_TBS = 4.27
QUICK = "--quick" in sys.argv
rng = np.random.default_rng(2026)
failures = []
summary = {}


def words(t: lns.Tensor) -> np.ndarray:
    w = t.words.cpu().numpy() if isinstance(t.words, torch.Tensor) else np.asarray(t.words)
    return w.view(np.uint16).astype(np.uint32) if w.dtype == np.int16 else w.view(np.uint32)


def same(name: str, got, want) -> None:
    g, w = np.asarray(got), np.asarray(want)
    if g.dtype.kind == "f":
        g, w = g.view(np.uint64 if g.itemsize == 8 else np.uint32), w.view(np.uint64 if w.itemsize == 8 else np.uint32)
    if g.shape != w.shape:
        failures.append(name)
        print(f"{name:48s} SHAPE {g.shape} vs {w.shape}")
        return
    bad = np.flatnonzero(g.ravel() != w.ravel())
    if bad.size:
        failures.append(name)
        i = bad[0]
        print(f"{name:48s} MISMATCH {bad.size}/{g.size}: [{i}] gpu {g.ravel()[i]:#x} cpu {w.ravel()[i]:#x}")
    else:
        print(f"{name:48s} ok ({g.size})")


def floats(n: int, spread: float = 10.0, specials: bool = True) -> np.ndarray:
    x = np.exp2(rng.uniform(-spread, spread, n)) * rng.choice([-1.0, 1.0], n)
    if specials:
        idx = rng.integers(0, n, max(1, n // 200))
        x[idx] = rng.choice([0.0, np.inf, -np.inf, np.nan], idx.size)
    return x


def pair(x: np.ndarray, fmt: str, storage=None):
    """The same values as a CPU (numpy) and a GPU (torch) tensor, from float64 and float32."""
    cpu = lns.Tensor.from_float(x, fmt, storage)
    gpu = lns.Tensor.from_float(torch.from_numpy(x).cuda(), fmt, storage)
    return cpu, gpu


def checks(fmt: str, storage) -> None:
    tag = f"{fmt}/{storage or 'default'}"
    n = 1 << 16 if QUICK else 1 << 20
    x, y = floats(n), floats(n)
    y[: n // 8] = -x[: n // 8]
    a_c, a_g = pair(x, fmt, storage)
    b_c, b_g = pair(y, fmt, storage)
    same(f"{tag} from_float f64", words(a_g), words(a_c))
    x32 = x.astype(np.float32)
    same(f"{tag} from_float f32", words(lns.Tensor.from_float(torch.from_numpy(x32).cuda(), fmt, storage)),
         words(lns.Tensor.from_float(x32, fmt, storage)))
    same(f"{tag} to_float f64", a_g.to_float("float64").cpu().numpy(), a_c.to_float())
    same(f"{tag} to_float f32", a_g.to_float("float32").cpu().numpy(), a_c.to_float("float32"))
    for op in ("__add__", "__sub__", "__mul__", "__truediv__", "__lt__", "__eq__", "__ne__", "__ge__"):
        g, c = getattr(a_g, op)(b_g), getattr(a_c, op)(b_c)
        if isinstance(g, lns.Tensor):
            same(f"{tag} {op}", words(g), words(c))
        else:
            same(f"{tag} {op}", g.cpu().numpy(), c)
    same(f"{tag} neg", words(-a_g), words(-a_c))
    same(f"{tag} abs", words(abs(a_g)), words(abs(a_c)))
    m = n // 1024
    xb = floats(7 * 5 * m).reshape(7, 5, m)
    t_c, t_g = pair(xb, fmt, storage)
    for axis in (-1, 0, 1, None, (0, 2)):
        for op in ("sum", "prod", "max", "min"):
            same(f"{tag} {op} axis={axis}", words(getattr(t_g, op)(axis=axis)), words(getattr(t_c, op)(axis=axis)))
    nosp = floats(3 * 65 * 200, 4.0, specials=False)
    ma_c, ma_g = pair(nosp[: 3 * 65 * 100].reshape(3, 65, 100), fmt, storage)
    mb_c, mb_g = pair(floats(100 * 33).reshape(100, 33), fmt, storage)
    same(f"{tag} matmul (3,65,100)@(100,33)", words(ma_g @ mb_g), words(ma_c @ mb_c))


def log_checks() -> None:
    for fmt in ("lns16", "lns32", "i6f13"):
        for dt in (np.float32, np.float64):
            x = rng.normal(0, 6, (300, 517)).astype(dt)
            x[3, :100] = -np.inf
            x[5, 7] = np.nan
            xg = torch.from_numpy(x).cuda()
            for axis in (-1, 0):
                same(f"{fmt} logsumexp {dt.__name__} axis={axis}",
                     lns.logsumexp(xg, axis=axis, format=fmt).cpu().numpy(), lns.logsumexp(x, axis=axis, format=fmt))
            same(f"{fmt} log_softmax {dt.__name__}", lns.log_softmax(xg, format=fmt).cpu().numpy(),
                 lns.log_softmax(x, format=fmt))


def timed(fn, runs: int = 10) -> float:
    for _ in range(2):
        fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(runs):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        e.synchronize()
        samples.append(s.elapsed_time(e) * 1e-3)
    return statistics.median(samples)


def report(name: str, seconds: float, nbytes: float = 0.0, evals: float = 0.0, extra: str = "") -> None:
    line = f"{name:44s} {seconds * 1e3:9.3f} ms"
    rec = {"ms": seconds * 1e3}
    if nbytes:
        tbs = nbytes / seconds / 1e12
        line += f"  {tbs:5.2f} TB/s = {100 * tbs / COPY_TBS:5.1f}% of copy"
        rec["pct_copy"] = 100 * tbs / COPY_TBS
    if evals:
        line += f"  {evals / seconds / 1e9:8.1f} G/s"
        rec["g_per_s"] = evals / seconds / 1e9
    print(line + extra)
    summary[name] = rec


def timings() -> None:
    n = 1 << (24 if QUICK else 28)
    for fmt, storage, nbytes in (("lns16", "int16", 2), ("lns32", "int32", 4)):
        x = torch.randn(n, device="cuda")
        a = lns.Tensor.from_float(x, fmt, storage)
        b = lns.Tensor.from_float(torch.randn(n, device="cuda"), fmt, storage)
        del x
        report(f"{fmt} add 2^{n.bit_length() - 1} words", timed(lambda: a + b), 3 * n * nbytes)
        if storage == "int32":  # int16 mul/div widen through torch first: not a kernel timing
            report(f"{fmt} mul 2^{n.bit_length() - 1} words", timed(lambda: a * b), 3 * n * nbytes)
        # Rows of ≤ 4096 are read once (registers), longer ones twice (the second from L2).
        for length in (4096, 16384):
            r2 = lns.Tensor(a.words.reshape(n // length, length), fmt)
            shape = f"({n // length}, {length})"
            report(f"{fmt} sum(axis=-1) {shape}", timed(lambda: r2.sum(axis=-1)), n * nbytes)
            report(f"{fmt} max(axis=-1) {shape}", timed(lambda: r2.max(axis=-1)), n * nbytes)
        del a, b, r2
        torch.cuda.empty_cache()
    for length in (4096, 16384):
        shape = (n // length, length)
        x = torch.randn(shape, device="cuda")
        t_torch = timed(lambda: torch.logsumexp(x, -1))
        report(f"torch.logsumexp f32 {shape}", t_torch, 4 * n)
        for fmt in ("lns16", "lns32"):
            t = timed(lambda: lns.logsumexp(x, -1, format=fmt))
            report(f"lns.logsumexp f32 {shape} {fmt}", t, 4 * n, extra=f"  {t_torch / t:5.2f}x torch")
        del x
    xs = torch.randn((1 << 20, 64), device="cuda")
    t_torch = timed(lambda: torch.logsumexp(xs, -1))
    report("torch.logsumexp f32 (2^20, 64)", t_torch, 4 * xs.numel())
    t = timed(lambda: lns.logsumexp(xs, -1))
    report("lns.logsumexp f32 (2^20, 64) lns32", t, 4 * xs.numel(), extra=f"  {t_torch / t:5.2f}x torch")
    del xs
    torch.cuda.empty_cache()
    size = 1024 if QUICK else 4096
    for fmt, storage in (("lns16", "int16"), ("lns32", "int32")):
        a = lns.Tensor.from_float(torch.randn(size, size, device="cuda"), fmt, storage)
        b = lns.Tensor.from_float(torch.randn(size, size, device="cuda"), fmt, storage)
        start = time.perf_counter()
        (a @ b).words.sum()
        torch.cuda.synchronize()
        first = time.perf_counter() - start
        runs = 3 if first < 20 else 1
        t = timed(lambda: a @ b, runs)
        # One s_b-like evaluation (a term 2^d) per product: size^3 terms.
        report(f"{fmt} matmul {size}^3", t, evals=float(size) ** 3)
    bf = torch.randn(size, size, device="cuda", dtype=torch.bfloat16)
    report(f"torch bf16 matmul {size}^3 (reference)", timed(lambda: bf @ bf), evals=float(size) ** 3)


def main() -> None:
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    print("== bit-for-bit: GPU vs CPU on the same words")
    for fmt, storage in (("lns16", None), ("lns16", "int32"), ("lns32", None), ("i6f13", None)):
        checks(fmt, storage)
    log_checks()
    print("== timings")
    timings()
    print("== summary")
    print(json.dumps({"checks_failed": failures, "timings": summary}, indent=1))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
