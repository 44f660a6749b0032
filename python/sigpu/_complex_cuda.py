"""Complex coefficients on CUDA arrays (torch tensors and CuPy arrays): ``lfilter`` and
``sosfilt`` through the complex serial kernel on the array's device and stream (the recurrence
crate's ``ComplexFilter::run_device``: scipy's loops in complex float64, one channel per GPU
thread, bit for bit the CPU engine's result; complex64 arrays of fewer than 1024 channels of at
least 65536 samples run the chunked scan instead, within the complex64 contract), and
``filtfilt`` / ``sosfiltfilt`` as scipy pads and starts them, written with the array library's
operations around two such calls.

The array keeps its width: float32 / complex64 arrays give complex64 (filtered in float64,
rounded once), others complex128. Nothing is copied to the host; the array is copied on the
device only when the filtered axis is not its last contiguous one (or its dtype is not the
complex type it is filtered as).
"""

from __future__ import annotations

import math
from typing import Any, Optional, Tuple

import numpy as np

from . import _complex, _native
from ._arrays import contiguous_last, data_ptr, empty_like_kind, gpu_array, parse_device
from ._pad import extend, flip_last, lib_of as _lib


def _moveaxis(v: Any, kind: str, src: int, dst: int) -> Any:
    return _lib(kind).movedim(v, src, dst) if kind == "torch" else _lib(kind).moveaxis(v, src, dst)


def _contiguous(v: Any, kind: str) -> Any:
    return v.contiguous() if kind == "torch" else _lib(kind).ascontiguousarray(v)


def complex_dtype(x: Any) -> str:
    """The complex type a CUDA array is filtered as: complex64 for float32 / complex64, else
    complex128 (torch's complex32 is refused)."""
    name = str(x.dtype).replace("torch.", "")
    if name in ("complex32", "chalf"):
        raise TypeError(f"{name} arrays are not supported: convert to complex64 or complex128")
    return "complex64" if name in ("float32", "complex64") else "complex128"


def _like(v: Any, g: Any, dtype: str) -> Any:
    """``v`` (host or device) as an array of ``g``'s library on its device, of ``dtype``."""
    if g.kind == "torch":
        import torch

        if isinstance(v, torch.Tensor):
            if v.is_cuda and v.get_device() != g.device:
                raise ValueError(f"zi is on cuda:{v.get_device()} but x on cuda:{g.device}")
            return v.to(device=g.obj.device, dtype=getattr(torch, dtype)).resolve_conj()
        return torch.as_tensor(np.asarray(v, dtype=dtype), device=g.obj.device)
    import cupy

    with cupy.cuda.Device(g.device):
        if gpu_array(v) is None:
            v = np.asarray(v)
        return cupy.asarray(v, dtype=dtype)


def _check_device(g: Any, device: Optional[str]) -> None:
    dev = parse_device(device)
    if dev == -1:
        raise ValueError(
            "device='cpu' with a CUDA array: move the array to the host first (.cpu() / .get())"
        )
    if dev is not None and dev != g.device:
        raise ValueError(f"device='cuda:{dev}' but the array is on cuda:{g.device}")


def _parts(c: np.ndarray) -> Tuple[list, list]:
    flat = c.ravel()
    return flat.real.tolist(), flat.imag.tolist()


def run(
    coefs: Tuple[np.ndarray, ...], x: Any, axis: int, zi: Any, allow_unstable: bool,
    device: Optional[str] = None,
) -> Any:
    """``lfilter`` (coefs ``(b, a)``, complex128) or ``sosfilt`` (coefs ``(sos,)``, (S, 6)
    complex128) of the CUDA array ``x`` along ``axis`` (non-negative) with scipy's zi / zf
    shapes; returns y, or (y, zf) with zi."""
    kind = "torch" if type(x).__module__.startswith("torch") else "cupy"
    if kind == "torch":
        x = x.resolve_conj().resolve_neg()
    g = gpu_array(x)
    assert g is not None
    _check_device(g, device)
    cdt = complex_dtype(x)
    part = "float32" if cdt == "complex64" else "float64"
    shape = tuple(g.shape)
    sos = len(coefs) == 1
    if sos:
        s = coefs[0]
        sections = s.shape[0]
        k = 2 * sections
        (br, bi), (ar, ai) = _parts(s), ([], [])
    else:
        bc, ac = coefs
        k = max(len(bc), len(ac)) - 1
        bc = np.concatenate([bc, np.zeros(k + 1 - len(bc))])
        ac = np.concatenate([ac, np.zeros(k + 1 - len(ac))])
        (br, bi), (ar, ai) = _parts(bc), _parts(ac)
    xm = contiguous_last(g, axis, cdt)
    lead, n = tuple(xm.shape[:-1]), int(xm.shape[-1])
    rows = math.prod(lead)
    y = empty_like_kind(g, tuple(xm.shape), cdt)
    zi_rows = zf = None
    if zi is not None:
        z = _like(zi, g, cdt)
        if sos:
            want = (sections,) + shape[:axis] + (2,) + shape[axis + 1:]
            if tuple(z.shape) != want:
                raise ValueError(f"zi has shape {tuple(z.shape)}; it must be {want} (n_sections, "
                                 f"then x's shape with axis {axis} replaced by 2)")
            zm = _moveaxis(_moveaxis(z, kind, axis + 1, -1), kind, 0, -2)
            zf = empty_like_kind(g, lead + (sections, 2), cdt)
        else:
            want = shape[:axis] + (k,) + shape[axis + 1:]
            at = axis - (len(want) - z.ndim)
            try:
                if at < 0 or z.shape[at] != k:
                    raise ValueError
                z = _lib(kind).broadcast_to(z, want)
            except (ValueError, RuntimeError):
                raise ValueError(
                    f"zi has shape {tuple(z.shape)}; it must be {want} (x's shape with axis "
                    f"{axis} replaced by max(len(a), len(b)) - 1 = {k})"
                ) from None
            zm = _moveaxis(z, kind, axis, -1)
            zf = empty_like_kind(g, lead + (k,), cdt)
        zi_rows = _contiguous(zm, kind)
    if rows > 0 and n > 0:
        _native.complex_cuda(
            br, bi, ar, ai, part, data_ptr(xm, kind), data_ptr(y, kind), rows, n, g.device,
            g.stream,
            None if zi_rows is None else data_ptr(zi_rows, kind),
            None if zf is None else data_ptr(zf, kind),
            sos=sos, allow_unstable=allow_unstable,
        )
    elif zf is not None:
        zf[...] = zi_rows  # nothing to filter: zf is zi
    y = _moveaxis(y, kind, -1, axis)
    if zf is None:
        return y
    if sos:
        return y, _moveaxis(_moveaxis(zf, kind, -2, 0), kind, -1, axis + 1)
    return y, _moveaxis(zf, kind, -1, axis)


def zero_phase(
    coefs: Tuple[np.ndarray, ...], zi1: np.ndarray, x: Any, axis: int, edge: int,
    padtype: Optional[str], allow_unstable: bool,
) -> Any:
    """scipy's forward-backward pass on the CUDA array ``x``: extend by ``edge`` samples
    (``padtype``), filter forward from ``zi1 · x[0]`` and backward from ``zi1 · y[-1]`` (zi1:
    lfilter_zi (k,) or sosfilt_zi (S, 2), complex128), trim."""
    kind = "torch" if type(x).__module__.startswith("torch") else "cupy"
    if kind == "torch":
        x = x.resolve_conj().resolve_neg()
    g = gpu_array(x)
    assert g is not None
    cdt = complex_dtype(x)
    xm = contiguous_last(g, axis, cdt)
    lead = tuple(xm.shape[:-1])
    ext = extend(xm, kind, padtype, edge)
    sos = zi1.ndim == 2
    shape = ((zi1.shape[0],) + (1,) * len(lead) + (2,)) if sos else ((1,) * len(lead) + (zi1.size,))
    zi = _like(zi1.reshape(shape), g, cdt)
    last = len(lead)

    def start(v: Any) -> Any:
        first = v[..., :1]
        return zi * (first[None] if sos else first)

    y, _ = run(coefs, ext, last, start(ext), allow_unstable)
    y = _contiguous(flip_last(y, kind), kind)
    y, _ = run(coefs, y, last, start(y), allow_unstable)
    y = flip_last(y, kind)
    if edge > 0:
        y = y[..., edge:y.shape[-1] - edge]
    return _moveaxis(_contiguous(y, kind), kind, -1, axis)


def lfilter(b: Any, a: Any, x: Any, axis: int, zi: Any, allow_unstable: bool,
            device: Optional[str]) -> Any:
    """``lfilter`` of the CUDA array ``x`` with complex (b, a)."""
    bc, ac, _ = _complex._ba(b, a)
    return run((bc, ac), x, axis, zi, allow_unstable, device)


def sosfilt(sos: Any, x: Any, axis: int, zi: Any, allow_unstable: bool,
            device: Optional[str]) -> Any:
    """``sosfilt`` of the CUDA array ``x`` with complex sections."""
    return run((_complex._sos(sos),), x, axis, zi, allow_unstable, device)


def filtfilt(b: Any, a: Any, x: Any, axis: int, padtype: Optional[str],
             padlen: Optional[int], allow_unstable: bool) -> Any:
    """``filtfilt`` (method 'pad') of the CUDA array ``x`` with complex (b, a): scipy's
    default padlen 3 · max(len(a), len(b)) and lfilter_zi starts."""
    bc, ac, _ = _complex._ba(b, a)
    edge = 0 if padtype is None else (3 * max(len(ac), len(bc)) if padlen is None else padlen)
    zi1 = _complex.lfilter_zi(bc, ac)
    return zero_phase((bc, ac), zi1, x, axis, edge, padtype, allow_unstable)


def sosfiltfilt(sos: Any, x: Any, axis: int, padtype: Optional[str], padlen: Optional[int],
                allow_unstable: bool) -> Any:
    """``sosfiltfilt`` of the CUDA array ``x`` with complex sections: scipy's default padlen
    3 × (2 · sections + 1 − the sections with b[2] = a[2] = 0) and sosfilt_zi starts."""
    s = _complex._sos(sos)
    ntaps = 2 * s.shape[0] + 1 - min(int(np.sum(s[:, 2] == 0)), int(np.sum(s[:, 5] == 0)))
    edge = 0 if padtype is None else (3 * ntaps if padlen is None else padlen)
    return zero_phase((s,), _complex.sosfilt_zi(s), x, axis, edge, padtype, allow_unstable)
