"""Fast float32 exp / log / sin / cos on the CPU (``sigpu-approx``): branch-free polynomials
through an AVX2 + FMA loop, on all cores. Documented domains and measured errors: exp on any
float32 (clamped to the finite range), log on positive normal inputs, sin / cos on
|x| ≤ 8192 (BENCHMARKS.md and ``sigpu approx`` give the error figures)."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _native

__all__ = ["exp", "log", "sin", "cos"]


def _run(name: str, x: Any) -> np.ndarray:
    arr = np.asarray(x)
    if arr.dtype != np.float32:
        raise TypeError(f"sigpu.approx.{name} takes float32 arrays, not {arr.dtype}")
    flat = np.ascontiguousarray(arr).ravel()
    return _native.approx_f32(name, flat).reshape(arr.shape)


def exp(x: Any) -> np.ndarray:
    """e^x, float32."""
    return _run("exp", x)


def log(x: Any) -> np.ndarray:
    """ln x, float32 (positive normal inputs)."""
    return _run("log", x)


def sin(x: Any) -> np.ndarray:
    """sin x, float32 (|x| ≤ 8192)."""
    return _run("sin", x)


def cos(x: Any) -> np.ndarray:
    """cos x, float32 (|x| ≤ 8192)."""
    return _run("cos", x)
