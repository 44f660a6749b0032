"""scipy's edge extension (``padtype`` odd / even / constant) of torch and CuPy arrays along
their last axis, for the zero-phase filters of CUDA arrays. Torch operations only for torch
tensors, so the extension stays differentiable."""

from __future__ import annotations

from typing import Any, Optional


def lib_of(kind: str) -> Any:
    """The array library of ``kind`` ("torch" or "cupy")."""
    if kind == "torch":
        import torch

        return torch
    import cupy

    return cupy


def flip_last(v: Any, kind: str) -> Any:
    """v reversed along its last axis."""
    return lib_of(kind).flip(v, (-1,)) if kind == "torch" else lib_of(kind).flip(v, -1)


def extend(x: Any, kind: str, padtype: Optional[str], n: int) -> Any:
    """scipy's odd / even / constant extension of x (..., T) by n samples each side."""
    if padtype not in ("odd", "even", "constant", None):
        raise ValueError(f"unknown padtype {padtype!r}: expected 'odd', 'even', 'constant' or None")
    if padtype is None or n < 1:
        return x
    T = x.shape[-1]
    if T <= n:
        raise ValueError(
            f"the length of the input along the filtered axis ({T}) must be greater than "
            f"padlen, which is {n}"
        )
    lib = lib_of(kind)
    first, last = x[..., :1], x[..., -1:]
    left = flip_last(x[..., 1:n + 1], kind)
    right = flip_last(x[..., T - n - 1:T - 1], kind)
    if padtype == "odd":
        left, right = 2 * first - left, 2 * last - right
    elif padtype == "constant":
        left, right = lib.broadcast_to(first, left.shape), lib.broadcast_to(last, right.shape)
    parts = [left, x, right]
    return lib.cat(parts, dim=-1) if kind == "torch" else lib.concatenate(parts, axis=-1)
