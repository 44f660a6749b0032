"""Filter banks: a different filter per channel. A bank is ``b``, ``a`` of shape
``(channels, taps)`` or ``sos`` of shape ``(channels, sections, 6)``; with the filtered axis
moved last, ``x`` has shape ``(..., channels, n)`` and channel ``c`` (``x[..., c, :]``) is
filtered by filter ``c`` — torchaudio's ``lfilter(..., batching=True)`` layout. A bank of one
filter applies it to every channel.

A bank runs as one planner call per *distinct* filter over the channels that share it, so
each call keeps the accuracy contract of its own filter exactly as a single-filter call does.
The cost over a single-filter call is one gather of those channels into contiguous rows and
one scatter of the outputs (two extra passes over the data when the bank has more than one
distinct filter; none when every channel has the same filter)."""

from __future__ import annotations

import sys
from typing import Any, Callable, List, Optional, Tuple

import numpy as np


def distinct_filters(coefs: np.ndarray) -> List[Tuple[Optional[np.ndarray], int]]:
    """The channels of each distinct filter of a bank ``coefs`` (channels, ...): a list of
    (channel indices, or None for "every channel", a representative channel)."""
    c = coefs.shape[0]
    if c == 1:
        return [(None, 0)]
    flat = np.ascontiguousarray(coefs.reshape(c, -1))
    _, first, inverse = np.unique(flat, axis=0, return_index=True, return_inverse=True)
    inverse = np.asarray(inverse).reshape(-1)
    if len(first) == 1:
        return [(None, 0)]
    return [(np.flatnonzero(inverse == g), int(first[g])) for g in range(len(first))]


def trimmed(c: np.ndarray) -> np.ndarray:
    """One filter's coefficients without trailing zeros (at least one kept): the planner sees
    the filter's true order (an FIR's a = [1, 0, ...] is a = [1])."""
    nz = np.flatnonzero(c)
    return c[: int(nz[-1]) + 1 if nz.size else 1]


def check_channels(shape: Tuple[int, ...], channels: int, what: str) -> None:
    """Refuses an ``x`` (filtered axis moved last: ``shape``) without a matching channel axis."""
    if channels == 1:
        return
    if len(shape) < 2 or shape[-2] != channels:
        raise ValueError(
            f"{what} is a bank of {channels} filters: x, with the filtered axis moved last, "
            f"must have shape (..., {channels}, n) (channel c filtered by filter c), got "
            f"{tuple(shape)}"
        )


def _index(like: Any, idx: np.ndarray) -> Any:
    """``idx`` as an index of ``like``'s library."""
    if isinstance(like, np.ndarray):
        return idx
    tm = sys.modules.get("torch")
    if tm is not None and isinstance(like, tm.Tensor):
        return tm.as_tensor(idx, device=like.device)
    import cupy

    return cupy.asarray(idx)


def _cat(parts: List[Any], axis: int) -> Any:
    first = parts[0]
    if isinstance(first, np.ndarray):
        return np.concatenate(parts, axis=axis)
    tm = sys.modules.get("torch")
    if tm is not None and isinstance(first, tm.Tensor):
        return tm.cat(parts, dim=axis)
    import cupy

    return cupy.concatenate(parts, axis=axis)


def run_bank(
    groups: List[Tuple[Optional[np.ndarray], int]],
    one: Callable[[int, Any, Any], Tuple[Any, Any]],
    xm: Any,
    zm: Any,
    channels: int,
) -> Tuple[Any, Any]:
    """Filters ``xm`` (..., channels, n) channel group by channel group: ``one(rep, x, z)``
    filters ``x`` (..., k, n) with the representative filter ``rep`` from states ``z``
    (..., k, state) or None and returns (y, zf or None). The outputs are put back in channel
    order (a concatenation and one gather, so autograd follows them)."""
    if len(groups) == 1:
        return one(groups[0][1], xm, zm)
    ys, zfs, order = [], [], []
    for idx, rep in groups:
        assert idx is not None
        ix = _index(xm, idx)
        y, zf = one(rep, xm[..., ix, :], None if zm is None else zm[..., _index(zm, idx), :])
        ys.append(y)
        zfs.append(zf)
        order.append(idx)
    inv = np.empty(channels, dtype=np.int64)
    inv[np.concatenate(order)] = np.arange(channels)
    y = _cat(ys, -2)
    y = y[..., _index(y, inv), :]
    if zm is None:
        return y, None
    zf = _cat(zfs, -2)
    return y, zf[..., _index(zf, inv), :]
