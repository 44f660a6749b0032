"""Complex CUDA arrays with real coefficients, filtered in place: each complex channel is read
as its two real channels, the re and im parts interleaved at a stride of 2 elements, by the real
GPU filter (``_native.filter_cuda`` with ``sample_stride=2``: the recurrence crate's
``ChannelLayout``, checked there before any launch). No copy to rows and back: the kernel
loads the (re, im) pairs as they lie and filters both parts alike; zi / zf are complex arrays
in scipy's shapes (their interleaved parts are the pairs' states).

The planner decides whether its engine reads such a layout; where it does not (the fused
section kernel, a pole cascade), ``filter_cuda`` runs nothing and says so, and the caller takes
the copying path (``_complex.on_arrays``). So does any call this module does not describe: the
axis not last, rows not one after another (C order), gradients wanted, coefficients on a
GPU or complex, empty arrays.
"""

from __future__ import annotations

import sys
from typing import Any, List, Optional, Tuple

import numpy as np

from . import _native
from ._arrays import GpuArray, axis_index, empty_like_kind, gpu_array, parse_device

_PARTS = {"complex64": "float32", "complex128": "float64"}


def _rows_contiguous(g: GpuArray) -> bool:
    """Whether ``g``'s rows along its last axis lie one after another (C order)."""
    return g.c_contiguous


def _requires_grad(*vs: Any) -> bool:
    tm = sys.modules.get("torch")
    return tm is not None and any(isinstance(v, tm.Tensor) and v.requires_grad for v in vs)


def candidate(x: Any, axis: int, zi: Any, device: Optional[str], coefs: Tuple[Any, ...]) -> \
        Optional[GpuArray]:
    """``x``'s description when this path may run the call, else None (the copying path)."""
    if _requires_grad(x, zi, *coefs):
        return None
    for c in coefs:
        if gpu_array(c) is not None or np.iscomplexobj(np.asarray(_host(c))):
            return None
    g = gpu_array(x)
    if g is None or g.dtype.name not in _PARTS or len(g.shape) == 0:
        return None
    if g.kind == "torch" and (x.is_conj() or x.is_neg()):
        return None  # a lazy conjugate or negation: its memory is not its values
    dev = parse_device(device)
    if dev is not None and dev != g.device:
        return None
    if axis_index(axis, len(g.shape)) != len(g.shape) - 1 or 0 in g.shape:
        return None
    if not _rows_contiguous(g):
        return None
    return g


def _host(c: Any) -> Any:
    tm = sys.modules.get("torch")
    if tm is not None and isinstance(c, tm.Tensor):
        return c.detach().cpu().numpy()
    return c


def _state(g: GpuArray, zi: Any, k: int) -> Any:
    """zi as a C-contiguous complex array of x's library, dtype and device, of shape
    lead + (k,) (scipy's shape for the last axis), or None where it cannot be."""
    want = tuple(g.shape[:-1]) + (k,)
    if g.kind == "torch":
        import torch

        z = zi if isinstance(zi, torch.Tensor) else torch.as_tensor(np.asarray(zi))
        if z.is_cuda and z.get_device() != g.device:
            return None
        if tuple(z.shape) != want:
            return None
        z = z.to(device=g.obj.device, dtype=g.obj.dtype)
        return z.resolve_conj().resolve_neg().contiguous()
    import cupy

    with cupy.cuda.Device(g.device):
        z = cupy.asarray(zi)
        if tuple(z.shape) != want:
            return None
        return cupy.ascontiguousarray(z, dtype=g.dtype)


def _ptr(v: Any, kind: str) -> int:
    return int(v.data_ptr()) if kind == "torch" else int(v.data.ptr)


def run(g: GpuArray, zi: Any, k: int, b: List[float], a: List[float],
        sos_shape: Optional[List[int]], allow_unstable: bool) -> Any:
    """y (or (y, zf) with zi) of complex CUDA array ``g`` filtered along its last axis by real
    ``b``, ``a`` (or sections, with ``sos_shape``) in place as interleaved channels; None where
    the planned engine reads rows only or zi is not of x's shape (nothing ran: the caller
    copies)."""
    n = g.shape[-1]
    rows = int(np.prod(g.shape[:-1], dtype=np.int64))
    parts = _PARTS[g.dtype.name]
    zs = zf = None
    if zi is not None:
        zs = _state(g, zi, k)
        if zs is None:
            return None
        zf = empty_like_kind(g, tuple(g.shape[:-1]) + (k,), g.dtype.name)
    y = empty_like_kind(g, tuple(g.shape), g.dtype.name)
    ran = _native.filter_cuda(
        b, a, parts, g.ptr, _ptr(y, g.kind), 2 * rows, n, g.device, g.stream,
        None if zs is None else _ptr(zs, g.kind), None if zf is None else _ptr(zf, g.kind),
        sos_shape=sos_shape, allow_unstable=allow_unstable, sample_stride=2,
        channel_stride=2 * n,
    )
    if not ran:
        return None
    return y if zi is None else (y, zf)
