"""Fast float32 exp / log / sin / cos on the CPU (``sigpu-approx``): branch-free polynomials
through an AVX2 + FMA loop, on all cores (or ``workers``). Every function takes every float32
and gives the IEEE answers at the edges: exp is 0 below about -103.97 and inf above
ln(float32 max) = 88.72, with subnormal results rounded gradually; log is -inf at 0, NaN below
0 and exact for subnormals; sin / cos are NaN at ±inf. sin / cos reduce |x| ≤ 8192 by a fast
three-part π/2 and larger arguments (phase accumulators) exactly (Payne–Hanek), one element at
a time. Errors over every float32 against float64: exp and log ≤ 3 ulp, sin / cos ≤ 2 ulp
where |result| ≥ 1e-3 and ≤ 1.1e-10 absolute below (docs/design/approx.md). A long call stops
at Ctrl-C.

``tune(source, kernel, args, grid, block, metric, qos)`` tunes your own CUDA kernel on the GPU:
its transcendental calls are made SFU intrinsics or FMA polynomials (per call site, each with
its own share λ of the warps), timed and scored on your data against the accurate kernel, and
the fastest setting within the bound is returned as CUDA source (a drop-in: same kernel name
and parameters), with the time / error / energy report. It is ``sigpu approx tune --source``
behind one call: the arrays are written as temporary .npy files and passed as the CLI's
argument strings."""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from typing import Any, Dict, Optional, Sequence, Tuple, Union

import numpy as np

from . import _native
from ._threads import workers as _workers

__all__ = ["exp", "log", "sin", "cos", "Out", "TuneResult", "tune"]


def _run(name: str, x: Any, workers: Optional[int]) -> np.ndarray:
    arr = np.asarray(x)
    if arr.dtype.kind != "f" or arr.dtype.itemsize != 4:
        raise TypeError(f"sigpu.approx.{name} takes float32 arrays, not {arr.dtype}")
    # Native byte order, contiguous and aligned (a copy only where it is not).
    flat = np.require(arr, dtype=np.float32, requirements=["C", "A"]).ravel()
    return _native.approx_f32(name, flat, _workers(workers)).reshape(arr.shape)


def exp(x: Any, *, workers: Optional[int] = None) -> np.ndarray:
    """e^x, float32."""
    return _run("exp", x, workers)


def log(x: Any, *, workers: Optional[int] = None) -> np.ndarray:
    """ln x, float32."""
    return _run("log", x, workers)


def sin(x: Any, *, workers: Optional[int] = None) -> np.ndarray:
    """sin x, float32 (radians; any magnitude)."""
    return _run("sin", x, workers)


def cos(x: Any, *, workers: Optional[int] = None) -> np.ndarray:
    """cos x, float32 (radians; any magnitude)."""
    return _run("cos", x, workers)


_DTYPES = {np.dtype(np.float32): "f32", np.dtype(np.float64): "f64", np.dtype(np.int32): "i32", np.dtype(np.uint32): "u32"}


@dataclass(frozen=True)
class Out:
    """An output buffer argument: ``Out(n, "float32")`` or ``Out(like=array)``."""

    n: Optional[int] = None
    dtype: Any = np.float32
    like: Any = None

    def spec(self, where: str) -> str:
        if self.like is not None:
            arr = _host(self.like, where)
            n, dt = arr.size, arr.dtype
        else:
            n, dt = self.n, np.dtype(self.dtype)
        if dt not in _DTYPES:
            raise TypeError(f"{where}: output type {dt} is not float32, float64, int32 or uint32")
        if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 1:
            raise ValueError(f"{where}: output length must be an int >= 1, not {n!r}")
        return f"out:{_DTYPES[dt]}:{int(n)}"


@dataclass(frozen=True)
class TuneResult:
    """What ``tune`` found: ``report`` (the JSON report as a dict: rows with time, error and
    energy per variant, the λ searches, HEU against OMG at equal confidence, the per-site
    search) and ``source`` (the kernel at the chosen setting)."""

    report: Dict[str, Any]
    source: str

    @property
    def speedup(self) -> float:
        return float(self.report["chosen"]["speedup"])

    @property
    def error(self) -> float:
        return float(self.report["chosen"]["error"])


def _host(x: Any, where: str) -> np.ndarray:
    """A host numpy copy of a numpy, torch or CuPy array."""
    mod = type(x).__module__
    if mod.startswith("torch"):
        x = x.detach().cpu().numpy()
    elif mod.startswith("cupy"):
        x = x.get()
    arr = np.asarray(x)
    if arr.dtype.kind == "O":
        raise TypeError(f"{where}: {type(x).__name__} is not an array, Out, int, float or numpy scalar")
    if arr.dtype.kind not in "fiu" or arr.ndim == 0:
        raise TypeError(f"{where}: expected a float32, float64, int32 or uint32 array, not {arr.dtype} with shape {arr.shape}")
    return arr


def _scalar(x: Any, where: str) -> str:
    if isinstance(x, (bool, np.bool_)):
        raise TypeError(f"{where}: a bool is not a kernel argument (pass an int or np.int32)")
    if isinstance(x, np.generic):
        kinds = {np.dtype(np.int32): "i32", np.dtype(np.uint32): "u32", np.dtype(np.int64): "i64",
                 np.dtype(np.float32): "f32", np.dtype(np.float64): "f64"}
        if x.dtype not in kinds:
            raise TypeError(f"{where}: scalar type {x.dtype} is not int32, uint32, int64, float32 or float64")
        return f"{kinds[x.dtype]}:{x.item()!r}"
    if isinstance(x, int):
        if not -(2**31) <= x < 2**31:
            raise ValueError(f"{where}: {x} does not fit an int (pass np.int64 for a long long)")
        return f"i32:{x}"
    if isinstance(x, float):
        return f"f32:{x!r}"
    raise TypeError(f"{where}: {type(x).__name__} is not an array, Out, int, float or numpy scalar")


def _specs(args: Sequence[Any], folder: str, tag: str) -> list:
    specs = []
    for i, a in enumerate(args):
        where = f"{tag}[{i}]"
        if isinstance(a, Out):
            specs.append(a.spec(where))
        elif isinstance(a, str):
            specs.append(a)
        elif isinstance(a, (int, float, np.generic)):
            specs.append(_scalar(a, where))
        else:
            arr = _host(a, where)
            if arr.dtype not in _DTYPES:
                raise TypeError(f"{where}: array type {arr.dtype} is not float32, float64, int32 or uint32")
            path = os.path.join(folder, f"{tag}{i}.npy")
            np.save(path, np.ascontiguousarray(arr))
            specs.append(f"in:{path}")
    return specs


def _dim(v: Union[int, Sequence[int]], name: str) -> Tuple[int, int, int]:
    t = (v,) if isinstance(v, (int, np.integer)) else tuple(v)
    if not 1 <= len(t) <= 3 or any(not isinstance(e, (int, np.integer)) or e < 1 for e in t):
        raise ValueError(f"{name} must be an int >= 1 or a tuple of 1 to 3 of them, not {v!r}")
    return tuple(int(e) for e in t) + (1,) * (3 - len(t))  # type: ignore[return-value]


def tune(
    source: Union[str, "os.PathLike[str]"],
    kernel: str,
    args: Sequence[Any],
    grid: Union[int, Sequence[int]],
    block: Union[int, Sequence[int]],
    metric: str = "rel-l2",
    qos: Optional[float] = None,
    *,
    qos_ratio: float = 0.8,
    per_site: bool = True,
    guards: bool = True,
    energy_seconds: float = 0.5,
    holdout: Optional[Sequence[Any]] = None,
    shared_mem: int = 0,
    device: int = 0,
) -> TuneResult:
    """Tunes ``kernel`` (an ``extern "C" __global__`` function of ``source``: CUDA text or a
    path to a .cu file) on ``args`` launched with ``grid`` x ``block``.

    ``args`` in the kernel's parameter order: arrays (numpy, torch or CuPy; float32, float64,
    int32, uint32) are inputs, ``Out(n, dtype)`` / ``Out(like=a)`` outputs, Python ints
    ``int``, floats ``float``, numpy scalars their own type. ``metric``: ``rel-l2``,
    ``max-abs``, ``max-ulp``, ``psnr`` or ``cmd:COMMAND``. ``qos``: the bound in the metric's
    unit (most error; fewest dB for psnr), else ``qos_ratio`` of the all-SFU kernel's error.
    ``holdout``: the same arguments on other data, to check the chosen kernel there
    (``report["holdout"]``). Energy figures come from NVML where the driver has it, else the
    report says why not."""
    if isinstance(source, os.PathLike) or (isinstance(source, str) and source.endswith(".cu") and "\n" not in source):
        path = os.fspath(source)
        with open(path, encoding="utf-8") as f:
            code, file = f.read(), path
    else:
        code, file = str(source), f"{kernel}.cu"
    with tempfile.TemporaryDirectory(prefix="sigpu-tune-") as folder:
        specs = _specs(args, folder, "args")
        hold = _specs(holdout, folder, "holdout") if holdout is not None else None
        report, tuned = _native.approx_tune(
            code, kernel, specs, _dim(grid, "grid"), _dim(block, "block"), metric,
            qos=qos, qos_ratio=qos_ratio, per_site=per_site, guards=guards,
            energy_seconds=energy_seconds, holdout=hold, shared_mem=shared_mem,
            device=device, file=file,
        )
    return TuneResult(json.loads(report), tuned)
