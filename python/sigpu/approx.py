"""Fast float32 exp / log / sin / cos on the CPU (``sigpu-approx``): branch-free polynomials
through an AVX2 + FMA loop, on all cores (or ``workers``). Every function takes every float32
and gives the IEEE answers at the edges: exp is 0 below about -103.97 and inf above
ln(float32 max) = 88.72, with subnormal results rounded gradually; log is -inf at 0, NaN below
0 and exact for subnormals; sin / cos are NaN at ±inf. sin / cos reduce |x| ≤ 8192 by a fast
three-part π/2 and larger arguments (phase accumulators) exactly (Payne–Hanek), one element at
a time. Errors over every float32 against float64: exp and log ≤ 3 ulp, sin / cos ≤ 2 ulp
where |result| ≥ 1e-3 and ≤ 1.1e-10 absolute below (docs/design/approx.md). A long call stops
at Ctrl-C."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from . import _native
from ._threads import workers as _workers

__all__ = ["exp", "log", "sin", "cos"]


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
