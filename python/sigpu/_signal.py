"""scipy.signal's IIR filters over sigpu's parallel recurrence: same names, argument order,
defaults and return shapes as scipy.signal.

Every call goes through the recurrence crate's planner: the method (PLR, pole cascade, serial,
fused sections) is chosen by the accuracy contract — the predicted error within 4x of scipy's
own at the same dtype — and run on every core for numpy arrays. On a CUDA array the same
method runs on the array's device and the caller's current stream, into a new array of the
same library (no host copies; an axis other than the last, or a strided array, costs one device
copy to a contiguous layout): the PLR kernel, the fused second-order-section kernel, or a pole
cascade's numerator and sections. Where the contract keeps a filter only serially, a CUDA array
is refused (ValueError) with the way out: a host array, or the filter as second-order sections.
``filtfilt`` and ``sosfiltfilt`` take host arrays and torch tensors (CPU or CUDA); on host
arrays padtype 'odd' runs in the library, the other padtypes extend the signal here and call
``lfilter`` / ``sosfilt``; on tensors the padding is written with torch operations.

dtype policy: numpy input follows scipy's result type, ``result_type(b, a, x[, zi])``: float32
samples with float64 coefficients are filtered and returned in float64, as scipy does (keeping
float32 there lost up to 4 orders of accuracy against scipy on narrow designs); float32 stays
float32 when every input is float32. Integer and boolean input is filtered as float64 (scipy
refuses all-integer input). torch and CuPy arrays keep their own float32 / float64 (the
planner rounds the coefficients under the float32 contract). float16 with float16
coefficients and long double raise TypeError. Big-endian and unaligned arrays are read
through a native, aligned copy.

Complex data (module ``_complex``): complex64 / complex128 signals, complex coefficients and
complex zi, with the same rule — numpy follows scipy's result type (complex64 x with float64
coefficients gives complex128), torch and CuPy keep the array's dtype. Real coefficients filter
the real and imaginary parts with the real filter (CPU, and GPU arrays on their device);
complex coefficients run scipy's serial loop in complex128 on the CPU, and its CUDA kernel on
CUDA arrays (module ``_complex_cuda``: on the array's device, bit for bit the CPU's result —
few long complex64 channels by a chunked scan within the contract —, filtfilt / sosfiltfilt too;
no gradients); complex long double raises TypeError.

PyTorch (module ``_torch_filters``): any torch argument gives a torch result, differentiable
with respect to x, the coefficients and zi when one of them requires grad. Filter banks (module
``_bank``): b, a of shape (channels, taps) or sos of shape (channels, sections, 6) filter
channel c — x's axis before the filtered one, once that is moved last — by filter c.
SciPy conformance, case by case: docs/reference/scipy-conformance.md.

Keywords beyond scipy's: ``allow_unstable`` (run a filter with a pole outside the unit circle,
which is refused otherwise), ``workers`` (CPU threads, as scipy.fft takes them; default
``sigpu.set_threads``'s, else every core) and ``device``.
"""

from __future__ import annotations

import math
import struct
import sys
from typing import Any, Dict, Optional, Tuple, Union

import numpy as np

from . import _native
from ._arrays import (
    GpuArray,
    axis_index as _axis,
    contiguous_last,
    data_ptr,
    empty_like_kind,
    gpu_array,
    move_back,
    parse_device,
    torch_stream,
)
from . import _complex, _complex_cuda, _complex_views, _torch_filters, _torch_zero_phase
from ._bank import check_channels, distinct_filters, run_bank, trimmed
from ._threads import workers as _workers

ArrayLike = Any


def _coefs(c: ArrayLike, name: str) -> np.ndarray:
    arr = np.asarray(c)
    if arr.dtype.kind == "c":
        raise TypeError(f"{name}: complex coefficients are not supported")
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name}: coefficients must be numbers, not {arr.dtype}")
    arr = np.atleast_1d(arr.astype(np.float64))
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty")
    if not np.all(np.isfinite(arr)):
        i = int(np.flatnonzero(~np.isfinite(arr))[0])
        raise ValueError(f"{name}[{i}] is {arr[i]}: coefficients must be finite")
    return arr


def _work_dtype(dtype: np.dtype) -> np.dtype:
    # The native type (a big-endian array is converted, as scipy accepts it).
    if dtype.kind == "f" and dtype.itemsize == 4:
        return np.dtype(np.float32)
    if dtype.kind == "f" and dtype.itemsize == 8:
        return np.dtype(np.float64)
    if dtype.kind in "biu":
        return np.dtype(np.float64)
    if dtype.kind == "c":
        raise TypeError(f"complex input ({dtype}) is not supported")
    raise TypeError(f"input of dtype {dtype} is not supported: use float32 or float64")


def _host(a: Any, dtype: np.dtype) -> np.ndarray:
    """``a`` as a C-contiguous, aligned array of native ``dtype`` (a copy only when it is not
    one already: another type or byte order, strides, or an unaligned buffer)."""
    return np.require(a, dtype=dtype, requirements=["C", "A"])


def _padlen(padlen: Any) -> Optional[int]:
    """filtfilt's ``padlen``: None or a non-negative integer (scipy would index with it)."""
    if padlen is None:
        return None
    if isinstance(padlen, (bool, np.bool_)) or not isinstance(padlen, (int, np.integer)):
        raise ValueError(
            f"padlen must be a non-negative integer or None, not {padlen!r} "
            f"({type(padlen).__name__})"
        )
    if padlen < 0:
        raise ValueError(f"padlen must be a non-negative integer or None, not {int(padlen)}")
    return int(padlen)


def _state_len(b: np.ndarray, a: np.ndarray) -> int:
    return max(len(a), len(b)) - 1


def _padded(b: np.ndarray, a: np.ndarray) -> Tuple[list, list]:
    # Equal lengths: the library's state then has scipy's max(len(a), len(b)) - 1 values.
    n = max(len(a), len(b))
    return (
        np.concatenate([b, np.zeros(n - len(b))]).tolist(),
        np.concatenate([a, np.zeros(n - len(a))]).tolist(),
    )


class _Ba:
    """A validated (b, a): float64 arrays, and the lists the native calls take."""

    __slots__ = ("b", "a", "bl", "al", "dtype")

    def __init__(self, b: np.ndarray, a: np.ndarray, dtype: np.dtype) -> None:
        b.flags.writeable = False
        a.flags.writeable = False
        self.b, self.a = b, a
        self.bl, self.al = b.tolist(), a.tolist()
        self.dtype = dtype  # the coefficients' own dtype, as given (result_type of b and a)


# Validated coefficients by their exact values (see _ba_key): a filter applied again skips the
# checks and conversions. Bounded: cleared when full.
_BA_CACHE: Dict[Any, _Ba] = {}
_BA_CACHE_MAX = 256
_I53 = 1 << 53  # ints up to here are exact as float64, as _coefs takes them


def _ba_key(c: Any) -> Any:
    """A key naming ``c``'s values exactly (their float64 bits, or the numpy array's dtype and
    bytes), or None for anything else (validated anew on each call): lists and tuples of
    Python floats and ints, and 1-D real numpy arrays."""
    t = type(c)
    if t is list or t is tuple:
        for v in c:
            if type(v) is not float and (type(v) is not int or not -_I53 <= v <= _I53):
                return None
        try:
            return struct.pack(f"{len(c)}d", *c)
        except (OverflowError, struct.error):
            return None
    if t is np.ndarray and c.ndim == 1 and c.dtype.kind in "iuf":
        return (c.dtype.str, c.tobytes())
    return None


def _given_dtype(c: ArrayLike) -> np.dtype:
    return c.dtype if isinstance(c, np.ndarray) else np.asarray(c).dtype


def _result_dtype(coefs: np.dtype, x: np.dtype, zi: Optional[ArrayLike] = None) -> np.dtype:
    """The dtype of a numpy input's result, as scipy makes it: ``result_type(b, a, x[, zi])``
    — float32 only when every input is float32 (or narrower), so float32 samples with float64
    coefficients are filtered in float64 — with sigpu's extension that all-integer or boolean
    input is filtered as float64 (scipy refuses it). float16, long double and complex results
    are refused, naming the way out."""
    if x.kind == "c":
        raise TypeError(f"complex input ({x}) is not supported")
    if x.kind not in "biuf":
        raise TypeError(f"input of dtype {x} is not supported: use float32 or float64")
    parts = [coefs, x]
    if zi is not None:
        zd = _given_dtype(zi)
        if zd.kind == "c":
            raise TypeError("complex zi is not supported")
        parts.append(zd)
    rt = np.result_type(*parts)
    if rt.kind in "biu":
        return np.dtype(np.float64)
    if rt.kind != "f":
        raise TypeError(f"inputs of dtype {rt} are not supported: use float32 or float64")
    if rt.itemsize == 2:
        raise TypeError(
            "float16 samples with float16 coefficients are not supported (scipy refuses them "
            "too): convert x to float32 or pass float32 / float64 coefficients"
        )
    if rt.itemsize > 8:
        raise TypeError(
            f"{rt} input is not supported: sigpu computes in float32 or float64; convert with "
            ".astype(np.float64)"
        )
    return np.dtype(np.float32) if rt.itemsize == 4 else np.dtype(np.float64)


def _validated(b: ArrayLike, a: ArrayLike) -> _Ba:
    kb, ka = _ba_key(b), _ba_key(a)
    key = None if kb is None or ka is None else (kb, ka)
    if key is not None:
        hit = _BA_CACHE.get(key)
        if hit is not None:
            return hit
    bv = _coefs(b, "b")
    av = _coefs(a, "a")
    if av[0] == 0:
        raise ValueError("a[0] must be nonzero (the filter is normalised by it)")
    ba = _Ba(bv, av, np.result_type(_given_dtype(b), _given_dtype(a)))
    if key is not None:
        if len(_BA_CACHE) >= _BA_CACHE_MAX:
            _BA_CACHE.clear()
        _BA_CACHE[key] = ba
    return ba


_FAST_CHARS = {"f": "float32", "d": "float64"}


def _direct_io(x: Any, axis: Any) -> Optional[tuple]:
    """The common GPU call, read straight from the array's attributes: for a C-contiguous
    float32 / float64 torch or CuPy CUDA array filtered along its last axis, a new output of
    the array's library on its device and ``(y, dtype name, x address, y address, rows, n,
    device, stream)``, the stream being the caller's current one there. No array-interface
    dict, no description object, no device synchronisation. None for anything else (another
    type, layout, dtype or axis, an empty array), which takes the general path."""
    if type(axis) is not int:
        return None
    t = type(x)
    tm = sys.modules.get("torch")
    if tm is not None and t is tm.Tensor:
        if not x.is_cuda:
            return None
        dt = x.dtype
        if dt is tm.float32:
            name = "float32"
        elif dt is tm.float64:
            name = "float64"
        else:
            return None
        nd = x.dim()
        if nd == 0 or (axis != -1 and axis != nd - 1) or not x.is_contiguous():
            return None
        n = x.size(-1)
        total = x.numel()
        if n == 0 or total == 0:
            return None
        dev = x.get_device()
        y = tm.empty_like(x, memory_format=tm.contiguous_format)
        return (y, name, x.data_ptr(), y.data_ptr(), total // n, n, dev, torch_stream(tm, dev))
    cm = sys.modules.get("cupy")
    if cm is not None and t is cm.ndarray:
        dt = x.dtype
        name = _FAST_CHARS.get(dt.char)
        nd = x.ndim
        if name is None or nd == 0 or (axis != -1 and axis != nd - 1):
            return None
        if not x.flags.c_contiguous:
            return None
        shape = x.shape
        n = shape[-1]
        total = x.size
        if n == 0 or total == 0:
            return None
        dev = x.device.id
        # The stream the array interface reports: CuPy's current stream (the protocol's 1,
        # the legacy default stream, is handle 0).
        stream = cm.cuda.get_current_stream().ptr
        stream = 0 if stream == 1 else int(stream)
        if cm.cuda.runtime.getDevice() == dev:
            y = cm.empty(shape, dtype=dt)
        else:
            with cm.cuda.Device(dev):
                y = cm.empty(shape, dtype=dt)
        return (y, name, x.data.ptr, y.data.ptr, total // n, n, dev, stream)
    return None


def lfilter(
    b: ArrayLike,
    a: ArrayLike,
    x: ArrayLike,
    axis: int = -1,
    zi: Optional[ArrayLike] = None,
    *,
    device: Optional[str] = None,
    allow_unstable: bool = False,
    workers: Optional[int] = None,
) -> Any:
    """Filter ``x`` along ``axis`` with the IIR filter ``b / a`` (scipy.signal.lfilter).

    Returns ``y``, or ``(y, zf)`` when ``zi`` is given. ``x`` may be a numpy array (CPU) or a
    PyTorch / CuPy CUDA array, filtered on its device on the caller's current stream and
    returned as the same type. ``device``: None (the input's device), "cpu", "cuda" or
    "cuda:N". None keeps host arrays on the CPU: copying them to a GPU and back costs more
    than filtering them on the CPU (BENCHMARKS.md: the kernel of a 2^26 filter takes 0.2 ms,
    its transfers 200 ms); "cuda" with a host array uploads, filters and downloads.
    ``allow_unstable``: run a filter with a pole outside the unit circle (refused otherwise).
    ``workers``: CPU threads (``sigpu.set_threads``). A long call stops at Ctrl-C.

    Result dtype: for numpy input, scipy's ``result_type(b, a, x[, zi])`` (float32 samples
    with float64 coefficients are filtered and returned in float64, as scipy does; all
    float32 stays float32); integer and boolean input is filtered as float64. A torch or
    CuPy array keeps its own floating dtype (float32 stays float32, the coefficients are
    rounded to it by the planner under the float32 contract). Complex x, b, a or zi give a
    complex result by the same rule (complex64 x with float64 b, a: complex128 for numpy,
    complex64 for a torch / CuPy array); complex coefficients run scipy's loop in complex128,
    on the CPU for host arrays and on the device for a CUDA array (bit for bit the CPU's
    result, or within the complex64 contract for few long complex64 channels; not
    differentiable).

    PyTorch: with any torch argument (x on the CPU or a GPU, b, a or zi as tensors) the result
    is a torch tensor, and it is differentiable with respect to x, b, a and zi when any of
    them requires grad (the adjoint is the time-reversed filter with the same poles, run by
    the same planner). Filter banks: ``b`` and ``a`` of shape ``(channels, taps)`` filter
    channel ``c`` of ``x`` — with the filtered axis moved last, x has shape
    ``(..., channels, n)``, as torchaudio's ``lfilter(..., batching=True)`` — by filter ``c``
    (one planner call per distinct filter); zi keeps scipy's shape.
    """
    if _complex.wants(x, b, a, zi):
        return _complex_lfilter(b, a, x, axis, zi, device, allow_unstable, workers)
    tm = sys.modules.get("torch")
    if tm is not None and _torch_filters.wants_torch(tm, b, a, x, zi):
        return _torch_filters.lfilter(b, a, x, axis, zi, device, allow_unstable, workers)
    if _is_bank(b) or _is_bank(a):
        return _lfilter_bank(b, a, x, axis, zi, device, allow_unstable, workers)
    ba = _validated(b, a)
    if zi is None and device is None:
        io = _direct_io(x, axis)
        if io is not None:
            if allow_unstable:
                _native.filter_cuda(ba.bl, ba.al, *io[1:], allow_unstable=True)
            else:
                _native.filter_cuda(ba.bl, ba.al, *io[1:])
            return io[0]
    b, a = ba.b, ba.a
    dev = parse_device(device)
    w = _workers(workers)
    g = gpu_array(x)
    if g is not None:
        return _lfilter_gpu(b, a, g, axis, zi, dev, allow_unstable)
    x = np.asarray(x)
    if x.ndim == 0:
        raise ValueError("x must have at least one dimension")
    dtype = _result_dtype(ba.dtype, x.dtype, zi)
    ax = _axis(axis, x.ndim)
    k = _state_len(b, a)
    if dev is not None and dev >= 0:
        return _lfilter_host_on_gpu(b, a, x, ax, zi, k, dtype, dev, allow_unstable)
    # Rows of the axis, contiguous (a copy only when x is not laid out so already).
    xm = np.moveaxis(x, ax, -1)
    lead, n = xm.shape[:-1], xm.shape[-1]
    rows = int(np.prod(lead, dtype=np.int64))
    x2 = _host(xm, dtype).reshape(rows, n)
    if zi is None:
        y2, _ = _native.filter_rows(
            b.tolist(), a.tolist(), x2, allow_unstable=allow_unstable, workers=w
        )
        return np.moveaxis(y2.reshape(lead + (n,)), -1, ax)
    zi2 = _zi_rows(zi, x.shape, ax, k, dtype, rows)
    bl, al = _padded(b, a)
    y2, zf2 = _native.filter_rows(bl, al, x2, zi2, allow_unstable=allow_unstable, workers=w)
    y = np.moveaxis(y2.reshape(lead + (n,)), -1, ax)
    return y, np.moveaxis(zf2.reshape(lead + (k,)), -1, ax)


def _broadcast_zi(zi: ArrayLike, want: Tuple[int, ...], ax: int, k: int) -> np.ndarray:
    z = np.asarray(zi)
    if z.dtype.kind == "c":
        raise TypeError("complex zi is not supported")
    # The state axis must be there with its k values: broadcasting one value to the k states
    # would start the filter from a state the caller did not give (scipy refuses it too).
    at = ax - (len(want) - z.ndim)
    try:
        if at < 0 or z.shape[at] != k:
            raise ValueError
        return np.broadcast_to(z, want)
    except ValueError:
        raise ValueError(
            f"zi has shape {z.shape}; it must be {want} (x's shape with axis {ax} replaced by "
            f"max(len(a), len(b)) - 1 = {k})"
        ) from None


def _lfilter_host_on_gpu(
    b: np.ndarray, a: np.ndarray, x: np.ndarray, ax: int, zi: Optional[ArrayLike], k: int,
    dtype: np.dtype, dev: int, allow_unstable: bool,
) -> Any:
    """A host array filtered on GPU ``dev``: uploaded, filtered, downloaded."""
    xm = np.moveaxis(x, ax, -1)
    lead, n = xm.shape[:-1], xm.shape[-1]
    rows = int(np.prod(lead, dtype=np.int64))
    x2 = _host(xm, dtype).reshape(rows, n)
    zi2 = None if zi is None else _zi_rows(zi, x.shape, ax, k, dtype, rows)
    bl, al = _padded(b, a) if zi is not None else (b.tolist(), a.tolist())
    y2, zf2 = _native.filter_rows(
        bl, al, x2, zi2, device=dev, allow_unstable=allow_unstable
    )
    y = np.moveaxis(y2.reshape(lead + (n,)), -1, ax)
    if zi is None:
        return y
    return y, np.moveaxis(zf2.reshape(lead + (k,)), -1, ax)


def _zi_rows(
    zi: ArrayLike, shape: Tuple[int, ...], ax: int, k: int, dtype: np.dtype, rows: int
) -> np.ndarray:
    want = shape[:ax] + (k,) + shape[ax + 1 :]
    z = _broadcast_zi(zi, want, ax, k)
    return _host(np.moveaxis(z, ax, -1), dtype).reshape(rows, k)


def _gpu_rows(g: GpuArray, axis: int, dev: Optional[int]) -> Tuple[GpuArray, str, int, bool]:
    """A CUDA array as C-contiguous rows along ``axis`` in its working dtype (one device copy
    only when it is not laid out so already): (rows, dtype name, axis, whether moved)."""
    if dev == -1:
        raise ValueError(
            "device='cpu' with a CUDA array: move the array to the host first (.cpu() / .get())"
        )
    if dev is not None and dev != g.device:
        raise ValueError(f"device='cuda:{dev}' but the array is on cuda:{g.device}")
    if len(g.shape) == 0:
        raise ValueError("x must have at least one dimension")
    dtype = _work_dtype(g.dtype)
    name = dtype.name
    ax = _axis(axis, len(g.shape))
    moved = ax != len(g.shape) - 1
    src = g
    if moved or not g.c_contiguous or g.dtype != dtype:
        src = gpu_array(contiguous_last(g, ax, name))  # type: ignore[assignment]
    assert src is not None
    return src, name, ax, moved


def _lfilter_gpu(
    b: np.ndarray, a: np.ndarray, g: GpuArray, axis: int, zi: Optional[ArrayLike],
    dev: Optional[int], allow_unstable: bool = False,
) -> Any:
    src, name, ax, moved = _gpu_rows(g, axis, dev)
    k = _state_len(b, a)
    n = src.shape[-1]
    lead = src.shape[:-1]
    rows = math.prod(lead)
    y = empty_like_kind(src, src.shape, name)
    y_ptr = data_ptr(y, g.kind)
    zi_dev = zf = None
    zi_ptr = zf_ptr = None
    if zi is not None:
        want = g.shape[:ax] + (k,) + g.shape[ax + 1 :]
        zg = gpu_array(zi)
        if zg is None:
            znp = np.broadcast_to(np.asarray(zi, dtype=name), want)
            znp = np.ascontiguousarray(np.moveaxis(znp, ax, -1))
            zi_dev = _upload_like(src, znp)
        else:
            if tuple(zg.shape) != want:
                raise ValueError(f"zi has shape {zg.shape}; it must be {want}")
            zi_dev = contiguous_last(zg, ax, name)
        zi_ptr = gpu_array(zi_dev).ptr  # type: ignore[union-attr]
        zf = empty_like_kind(src, tuple(lead) + (k,), name)
        zf_ptr = data_ptr(zf, g.kind)
    if rows > 0 and n > 0:
        bl, al = _padded(b, a) if zi is not None else (b.tolist(), a.tolist())
        _native.filter_cuda(
            bl, al, name, src.ptr, y_ptr, rows, n, src.device, src.stream, zi_ptr, zf_ptr,
            allow_unstable=allow_unstable,
        )
    elif zi is not None and zf is not None:
        zf[...] = zi_dev
    if moved:
        y = move_back(y, g.kind, ax)
        if zf is not None:
            zf = move_back(zf, g.kind, ax)
    return y if zi is None else (y, zf)


def _upload_like(g: GpuArray, host: np.ndarray) -> Any:
    if g.kind == "torch":
        import torch

        return torch.as_tensor(host, device=g.obj.device)
    import cupy

    with cupy.cuda.Device(g.device):
        return cupy.asarray(host)


def lfilter_zi(b: ArrayLike, a: ArrayLike) -> np.ndarray:
    """Initial state of ``lfilter`` for a step response's steady state (scipy's
    lfilter_zi): ``lfilter(b, a, x, zi=lfilter_zi(b, a) * x[0])``. Torch coefficients give a
    differentiable torch result (banks of shape (channels, taps) too)."""
    if _complex.wants(b, a):
        return _complex.lfilter_zi(b, a)
    if _any_torch(b, a):
        return _torch_zero_phase.lfilter_zi(b, a)
    b = _coefs(b, "b")
    a = _coefs(a, "a")
    return np.asarray(_native.signal_lfilter_zi(b.tolist(), a.tolist()), dtype=np.float64)


def _sos(sos: ArrayLike) -> np.ndarray:
    s = np.asarray(sos)
    if s.dtype.kind == "c":
        raise TypeError("complex sos is not supported")
    s = np.atleast_2d(s.astype(np.float64))
    if s.ndim != 2 or s.shape[1] != 6:
        raise ValueError(f"sos must have shape (n_sections, 6), got {np.shape(sos)}")
    if s.shape[0] == 0:
        raise ValueError("sos has no sections")
    if not np.all(np.isfinite(s)):
        raise ValueError("sos coefficients must be finite")
    if np.any(s[:, 3] != 1.0):
        raise ValueError("each section of sos must have a[0] = 1 (column 3)")
    return s


# Validated sos arrays by dtype, shape and bytes: (float64 array, flattened list, shape list).
_SOS_CACHE: Dict[Any, Tuple[np.ndarray, list, list]] = {}


def _sos_validated(sos: ArrayLike) -> Tuple[np.ndarray, list, list]:
    key = None
    if type(sos) is np.ndarray and sos.ndim == 2 and sos.dtype.kind in "iuf":
        key = (sos.dtype.str, sos.shape, sos.tobytes())
        hit = _SOS_CACHE.get(key)
        if hit is not None:
            return hit
    s = _sos(sos)
    s.flags.writeable = False
    entry = (s, s.ravel().tolist(), list(s.shape))
    if key is not None:
        if len(_SOS_CACHE) >= _BA_CACHE_MAX:
            _SOS_CACHE.clear()
        _SOS_CACHE[key] = entry
    return entry


def sosfilt(
    sos: ArrayLike,
    x: ArrayLike,
    axis: int = -1,
    zi: Optional[ArrayLike] = None,
    *,
    device: Optional[str] = None,
    allow_unstable: bool = False,
    workers: Optional[int] = None,
) -> Any:
    """Filter with cascaded second-order sections (scipy.signal.sosfilt). ``zi`` has shape
    ``(n_sections, ..., 2, ...)`` (x's shape with ``axis`` replaced by 2). On a CUDA array all
    sections run fused in one kernel on the array's device and stream. ``device``,
    ``allow_unstable`` and ``workers`` as for ``lfilter``; so are the result dtype (scipy's
    ``result_type(sos, x[, zi])`` for numpy input, the array's own for torch and CuPy),
    PyTorch gradients (x, sos and zi) and filter banks (``sos`` of shape
    ``(channels, n_sections, 6)``, channel c of x — the axis before the filtered one once that
    is moved last — filtered by ``sos[c]``)."""
    if _complex.wants(x, sos, zi):
        return _complex_sosfilt(sos, x, axis, zi, device, allow_unstable, workers)
    tm = sys.modules.get("torch")
    if tm is not None and _torch_filters.wants_torch(tm, sos, None, x, zi):
        return _torch_filters.sosfilt(sos, x, axis, zi, device, allow_unstable, workers)
    if _is_bank(sos, 3):
        return _sosfilt_bank(sos, x, axis, zi, device, allow_unstable, workers)
    s, flat, shape = _sos_validated(sos)
    if zi is None and device is None:
        io = _direct_io(x, axis)
        if io is not None:
            if allow_unstable:
                _native.filter_cuda(flat, [], *io[1:], sos_shape=shape, allow_unstable=True)
            else:
                _native.filter_cuda(flat, [], *io[1:], sos_shape=shape)
            return io[0]
    dev = parse_device(device)
    w = _workers(workers)
    g = gpu_array(x)
    if g is not None:
        return _sosfilt_gpu(s, g, axis, zi, dev, allow_unstable)
    x = np.asarray(x)
    if x.ndim == 0:
        raise ValueError("x must have at least one dimension")
    dtype = _result_dtype(_given_dtype(sos), x.dtype, zi)
    ax = _axis(axis, x.ndim)
    sections = s.shape[0]
    xm = np.moveaxis(x, ax, -1)
    lead, n = xm.shape[:-1], xm.shape[-1]
    rows = int(np.prod(lead, dtype=np.int64))
    x2 = _host(xm, dtype).reshape(rows, n)
    zi2 = None if zi is None else _sos_zi_rows(zi, x.shape, ax, sections, dtype, rows)
    on = dev if dev is not None and dev >= 0 else None
    y2, zf2 = _native.filter_rows(
        s.ravel().tolist(), [], x2, zi2, sos_shape=list(s.shape), device=on,
        allow_unstable=allow_unstable, workers=w,
    )
    y = np.moveaxis(y2.reshape(lead + (n,)), -1, ax)
    if zi is None:
        return y
    return y, _sos_zf(zf2, lead, sections, ax)


def _sos_zi_rows(
    zi: ArrayLike, shape: Tuple[int, ...], ax: int, sections: int, dtype: np.dtype, rows: int
) -> np.ndarray:
    """scipy's sosfilt zi, (sections, ..., 2 at axis, ...), as the native rows of
    [section][2]."""
    want = (sections,) + shape[:ax] + (2,) + shape[ax + 1 :]
    z = np.asarray(zi)
    if z.shape != want:
        raise ValueError(f"zi has shape {z.shape}; it must be {want} (n_sections, then x's "
                         f"shape with axis {ax} replaced by 2)")
    z = np.moveaxis(np.moveaxis(z, ax + 1, -1), 0, -2)
    return _host(z, dtype).reshape(rows, 2 * sections)


def _sos_zf(zf2: np.ndarray, lead: Tuple[int, ...], sections: int, ax: int) -> np.ndarray:
    """The native rows of final states back in scipy's (sections, ..., 2 at axis, ...)."""
    zf = zf2.reshape(lead + (sections, 2))
    return np.moveaxis(np.moveaxis(zf, -2, 0), -1, ax + 1)


def _moveaxis(arr: Any, kind: str, src: int, dst: int) -> Any:
    if kind == "torch":
        import torch

        return torch.movedim(arr, src, dst)
    import cupy

    return cupy.moveaxis(arr, src, dst)


def _sosfilt_gpu(
    s: np.ndarray, g: GpuArray, axis: int, zi: Optional[ArrayLike], dev: Optional[int],
    allow_unstable: bool = False,
) -> Any:
    src, name, ax, moved = _gpu_rows(g, axis, dev)
    n, lead = src.shape[-1], src.shape[:-1]
    rows = math.prod(lead)
    sections = s.shape[0]
    y = empty_like_kind(src, src.shape, name)
    y_ptr = data_ptr(y, g.kind)
    zi_ptr: Optional[int] = None
    zf_ptr: Optional[int] = None
    zf = None
    if zi is not None:
        want = (sections,) + g.shape[:ax] + (2,) + g.shape[ax + 1 :]
        zg = gpu_array(zi)
        if zg is None:
            znp = np.asarray(zi, dtype=name)
            if znp.shape != want:
                raise ValueError(f"zi has shape {znp.shape}; it must be {want}")
            zdev = _upload_like(src, np.ascontiguousarray(znp))
        else:
            if tuple(zg.shape) != want:
                raise ValueError(f"zi has shape {zg.shape}; it must be {want}")
            zdev = zi
        # scipy's (sections, ..., 2 at axis, ...) → ours [channel][section][2].
        zdev = _moveaxis(_moveaxis(zdev, g.kind, ax + 1, -1), g.kind, 0, -2)
        zdev = gpu_array(contiguous_last(gpu_array(zdev), -1, name)).obj  # type: ignore[union-attr]
        zi_ptr = gpu_array(zdev).ptr  # type: ignore[union-attr]
        zf = empty_like_kind(src, tuple(lead) + (sections, 2), name)
        zf_ptr = data_ptr(zf, g.kind)
    if rows > 0 and n > 0:
        _native.filter_cuda(
            s.ravel().tolist(), [], name, src.ptr, y_ptr, rows, n, src.device, src.stream,
            zi=zi_ptr, zf=zf_ptr, sos_shape=list(s.shape), allow_unstable=allow_unstable,
        )
    elif zf is not None:
        zf[...] = zdev
    if moved:
        y = move_back(y, g.kind, ax)
    if zi is None:
        return y
    zf = _moveaxis(_moveaxis(zf, g.kind, -2, 0), g.kind, -1, ax + 1)
    return y, zf


def _is_bank(c: ArrayLike, ndim: int = 2) -> bool:
    """Whether coefficients are a bank (``ndim`` dimensions: 2 for b and a, 3 for sos),
    checked from the type first, so a plain call pays a type test."""
    t = type(c)
    if t is np.ndarray:
        return c.ndim == ndim
    if t is float or t is int:
        return False
    if t is list or t is tuple:
        for _ in range(ndim - 1):
            if len(c) == 0 or not isinstance(c[0], (list, tuple, np.ndarray)):
                return False
            c = c[0]
        return True
    return np.ndim(c) == ndim


def _bank_coefs(c: ArrayLike, name: str, last: int) -> np.ndarray:
    arr = np.asarray(c)
    if arr.ndim == last - 1:
        arr = arr[None]
    if arr.ndim != last or arr.shape[0] == 0 or arr.shape[-1] == 0:
        raise ValueError(f"{name} of shape {arr.shape}: a filter bank's {name} has one filter "
                         "per channel along its first axis")
    return arr


def _bank_layout(x: ArrayLike, axis: int) -> Tuple[Any, Any, int, Tuple[int, ...]]:
    """x (numpy, or a CUDA array as it is), the axis mover of its library, the axis, and x's
    shape."""
    g = gpu_array(x)
    if g is None:
        x = np.asarray(x)
        shape = x.shape

        def mv(arr: Any, src: int, dst: int) -> Any:
            return np.moveaxis(np.asarray(arr), src, dst)
    else:
        shape = tuple(g.shape)

        def mv(arr: Any, src: int, dst: int) -> Any:
            return _moveaxis(arr, g.kind, src, dst)  # type: ignore[union-attr]
    if len(shape) == 0:
        raise ValueError("x must have at least one dimension")
    return x, mv, _axis(axis, len(shape)), shape


def _bank_state(zi: ArrayLike, x: Any, want: Tuple[int, ...]) -> Any:
    """A bank's zi in scipy's shape: a host zi broadcast (and uploaded beside a CUDA x)."""
    g = gpu_array(x)
    zg = gpu_array(zi)
    if zg is not None:
        if tuple(zg.shape) != want:
            raise ValueError(f"zi has shape {zg.shape}; it must be {want}")
        return zi
    z = np.asarray(zi)
    try:
        z = np.broadcast_to(z, want)
    except ValueError:
        raise ValueError(f"zi has shape {z.shape}; it must be {want}") from None
    return z if g is None else _upload_like(g, np.ascontiguousarray(z, dtype=g.dtype))


def _lfilter_bank(
    b: ArrayLike, a: ArrayLike, x: ArrayLike, axis: int, zi: Optional[ArrayLike],
    device: Optional[str], allow_unstable: bool, workers: Optional[int],
) -> Any:
    """``lfilter`` with b, a of shape (channels, taps): module ``_bank``'s layout, one call
    per distinct filter."""
    bv, av = _bank_coefs(b, "b", 2), _bank_coefs(a, "a", 2)
    if bv.shape[0] != av.shape[0]:
        if bv.shape[0] == 1:
            bv = np.broadcast_to(bv, (av.shape[0], bv.shape[1]))
        elif av.shape[0] == 1:
            av = np.broadcast_to(av, (bv.shape[0], av.shape[1]))
        else:
            raise ValueError(f"b has {bv.shape[0]} filters and a has {av.shape[0]}")
    C, K = bv.shape[0], max(bv.shape[1], av.shape[1])
    bv = np.pad(bv, ((0, 0), (0, K - bv.shape[1])))
    av = np.pad(av, ((0, 0), (0, K - av.shape[1])))
    for c in range(C):
        _validated(bv[c], av[c])
    x, mv, ax, shape = _bank_layout(x, axis)
    xm = mv(x, ax, -1)
    check_channels(tuple(xm.shape), C, "b, a")
    zm = None
    if zi is not None:
        zm = mv(_bank_state(zi, x, shape[:ax] + (K - 1,) + shape[ax + 1 :]), ax, -1)
    norm = np.concatenate([bv / av[:, :1], av / av[:, :1]], axis=1)
    kw = dict(device=device, allow_unstable=allow_unstable, workers=workers)

    def one(rep: int, xs: Any, zs: Any) -> Tuple[Any, Any]:
        if zs is None:
            return lfilter(trimmed(bv[rep]), trimmed(av[rep]), xs, -1, **kw), None
        return lfilter(bv[rep], av[rep], xs, -1, zs, **kw)

    y, zf = run_bank(distinct_filters(norm), one, xm, zm, C)
    y = mv(y, -1, ax)
    return y if zi is None else (y, mv(zf, -1, ax))


def _sosfilt_bank(
    sos: ArrayLike, x: ArrayLike, axis: int, zi: Optional[ArrayLike], device: Optional[str],
    allow_unstable: bool, workers: Optional[int],
) -> Any:
    """``sosfilt`` with sos of shape (channels, n_sections, 6): module ``_bank``'s layout,
    one fused call per distinct filter."""
    sv = _bank_coefs(sos, "sos", 3)
    C, S = sv.shape[0], sv.shape[1]
    for c in range(C):
        _sos_validated(sv[c])
    x, mv, ax, shape = _bank_layout(x, axis)
    xm = mv(x, ax, -1)
    check_channels(tuple(xm.shape), C, "sos")
    zm = None
    if zi is not None:
        want = (S,) + shape[:ax] + (2,) + shape[ax + 1 :]
        zm = mv(_bank_state(zi, x, want), ax + 1, -1)
    kw = dict(device=device, allow_unstable=allow_unstable, workers=workers)

    def one(rep: int, xs: Any, zs: Any) -> Tuple[Any, Any]:
        if zs is None:
            return sosfilt(sv[rep], xs, -1, **kw), None
        return sosfilt(sv[rep], xs, -1, zs, **kw)

    y, zf = run_bank(distinct_filters(sv), one, xm, zm, C)
    y = mv(y, -1, ax)
    return y if zi is None else (y, mv(zf, -1, ax + 1))


def sosfilt_zi(sos: ArrayLike) -> np.ndarray:
    """Initial states of ``sosfilt`` for a step response's steady state (scipy's
    sosfilt_zi), shape (n_sections, 2). A torch sos gives a differentiable torch result
    (banks of shape (channels, n_sections, 6) too)."""
    if _complex.wants(sos):
        return _complex.sosfilt_zi(sos)
    if _any_torch(sos):
        return _torch_zero_phase.sosfilt_zi(sos)
    s = _sos(sos)
    return np.asarray(_native.signal_sosfilt_zi(s.ravel().tolist(), list(s.shape))).reshape(-1, 2)


def _odd_ext(x: np.ndarray, n: int, axis: int) -> np.ndarray:
    if n < 1:
        return x
    left_end = np.take(x, [0], axis=axis)
    left = np.flip(np.take(x, np.arange(1, n + 1), axis=axis), axis=axis)
    right_end = np.take(x, [-1], axis=axis)
    right = np.flip(np.take(x, np.arange(-n - 1, -1), axis=axis), axis=axis)
    return np.concatenate((2 * left_end - left, x, 2 * right_end - right), axis=axis)


def _even_ext(x: np.ndarray, n: int, axis: int) -> np.ndarray:
    if n < 1:
        return x
    left = np.flip(np.take(x, np.arange(1, n + 1), axis=axis), axis=axis)
    right = np.flip(np.take(x, np.arange(-n - 1, -1), axis=axis), axis=axis)
    return np.concatenate((left, x, right), axis=axis)


def _const_ext(x: np.ndarray, n: int, axis: int) -> np.ndarray:
    if n < 1:
        return x
    left = np.repeat(np.take(x, [0], axis=axis), n, axis=axis)
    right = np.repeat(np.take(x, [-1], axis=axis), n, axis=axis)
    return np.concatenate((left, x, right), axis=axis)


def _extend(x: np.ndarray, padtype: Optional[str], padlen: int, axis: int) -> np.ndarray:
    if padtype not in ("odd", "even", "constant", None):
        raise ValueError(f"unknown padtype {padtype!r}: expected 'odd', 'even', 'constant' or None")
    if padtype is None or padlen == 0:
        return x
    if x.shape[axis] <= padlen:
        raise ValueError(
            f"the length of the input along axis {axis} ({x.shape[axis]}) must be greater than "
            f"padlen, which is {padlen}"
        )
    return {"odd": _odd_ext, "even": _even_ext, "constant": _const_ext}[padtype](x, padlen, axis)


def _any_torch(*args: Any) -> bool:
    tm = sys.modules.get("torch")
    return tm is not None and any(isinstance(v, tm.Tensor) for v in args)


def _cpu_only(x: Any, what: str, coefs: np.dtype) -> np.ndarray:
    """x as a host array of scipy's result dtype with the coefficients' dtype ``coefs``."""
    if gpu_array(x) is not None:
        raise TypeError(f"{what} takes host (numpy) arrays; GPU arrays go through lfilter/sosfilt")
    arr = np.asarray(x)
    if arr.ndim == 0:
        raise ValueError("x must have at least one dimension")
    return _host(arr, _result_dtype(coefs, arr.dtype))


def filtfilt(
    b: ArrayLike,
    a: ArrayLike,
    x: ArrayLike,
    axis: int = -1,
    padtype: Optional[str] = "odd",
    padlen: Optional[int] = None,
    method: str = "pad",
    irlen: Optional[int] = None,
    *,
    allow_unstable: bool = False,
    workers: Optional[int] = None,
) -> np.ndarray:
    """Zero-phase forward-backward filtering (scipy.signal.filtfilt, method 'pad').
    ``allow_unstable`` and ``workers`` as for ``lfilter``. numpy input: host arrays, scipy's
    result dtype. torch input (CPU or CUDA tensors, b / a banks of shape (channels, taps)
    too): scipy's padding and initial conditions written with torch operations around two
    ``lfilter`` calls, differentiable with respect to x, b and a."""
    if method != "pad":
        raise ValueError(f"method {method!r}: only 'pad' is supported")
    padlen = _padlen(padlen)
    if _complex.wants(x, b, a):
        return _complex_filtfilt(b, a, x, axis, padtype, padlen, allow_unstable, workers)
    if _any_torch(b, a, x):
        return _torch_zero_phase.filtfilt(b, a, x, axis, padtype, padlen, method, allow_unstable,
                                       workers)
    cd = np.result_type(_given_dtype(b), _given_dtype(a))
    b = _coefs(b, "b")
    a = _coefs(a, "a")
    x = _cpu_only(x, "filtfilt", cd)
    ax = _axis(axis, x.ndim)
    w = _workers(workers)
    if padtype == "odd":
        y, _, _ = _native.signal_run(
            "filtfilt", b.tolist(), a.tolist(), x, ax, padlen=padlen,
            allow_unstable=allow_unstable, workers=w,
        )
        return y
    edge = 3 * max(len(a), len(b)) if padlen is None else padlen
    if padtype is None:
        edge = 0
    ext = _extend(x, padtype, edge, ax)
    zi = lfilter_zi(b, a)
    shape = [1] * x.ndim
    shape[ax] = zi.size
    zi = zi.reshape(shape)
    x0 = np.take(ext, [0], axis=ax)
    kw = dict(allow_unstable=allow_unstable, workers=w)
    y, _ = lfilter(b, a, ext, axis=ax, zi=zi * x0, **kw)
    y0 = np.take(y, [-1], axis=ax)
    y, _ = lfilter(b, a, np.flip(y, axis=ax), axis=ax, zi=zi * y0, **kw)
    y = np.flip(y, axis=ax)
    if edge > 0:
        y = np.take(y, np.arange(edge, y.shape[ax] - edge), axis=ax)
    return y.astype(x.dtype, copy=False)


def sosfiltfilt(
    sos: ArrayLike,
    x: ArrayLike,
    axis: int = -1,
    padtype: Optional[str] = "odd",
    padlen: Optional[int] = None,
    *,
    allow_unstable: bool = False,
    workers: Optional[int] = None,
) -> np.ndarray:
    """Zero-phase forward-backward filtering with second-order sections
    (scipy.signal.sosfiltfilt). ``allow_unstable`` and ``workers`` as for ``lfilter``; torch
    input as for ``filtfilt`` (differentiable with respect to x and sos; sos banks of shape
    (channels, n_sections, 6))."""
    padlen = _padlen(padlen)
    if _complex.wants(x, sos):
        return _complex_sosfiltfilt(sos, x, axis, padtype, padlen, allow_unstable, workers)
    if _any_torch(sos, x):
        return _torch_zero_phase.sosfiltfilt(sos, x, axis, padtype, padlen, allow_unstable, workers)
    s = _sos(sos)
    x = _cpu_only(x, "sosfiltfilt", _given_dtype(sos))
    ax = _axis(axis, x.ndim)
    w = _workers(workers)
    if padtype == "odd":
        y, _, _ = _native.signal_run(
            "sosfiltfilt", s.ravel().tolist(), [], x, ax, padlen=padlen,
            sos_shape=list(s.shape), allow_unstable=allow_unstable, workers=w,
        )
        return y
    # scipy's default pad: 3 × (2 · sections + 1 − the sections with b[2] = a[2] = 0).
    ntaps = 2 * s.shape[0] + 1 - min(int(np.sum(s[:, 2] == 0)), int(np.sum(s[:, 5] == 0)))
    edge = 3 * ntaps if padlen is None else padlen
    if padtype is None:
        edge = 0
    ext = _extend(x, padtype, edge, ax)
    zi = sosfilt_zi(s)
    shape = [1] * (x.ndim + 1)
    shape[0] = s.shape[0]
    shape[ax + 1] = 2
    zi = zi.reshape(shape)
    x0 = np.expand_dims(np.take(ext, [0], axis=ax), 0)
    kw = dict(allow_unstable=allow_unstable, workers=w)
    y, _ = sosfilt(s, ext, axis=ax, zi=zi * x0, **kw)
    y0 = np.expand_dims(np.take(y, [-1], axis=ax), 0)
    y, _ = sosfilt(s, np.flip(y, axis=ax), axis=ax, zi=zi * y0, **kw)
    y = np.flip(y, axis=ax)
    if edge > 0:
        y = np.take(y, np.arange(edge, y.shape[ax] - edge), axis=ax)
    return y.astype(x.dtype, copy=False)


# --- complex data (module ``_complex``): numpy through the complex front door; torch and CuPy
# arrays as (re, im) pairs through the real filters above (real coefficients), or the complex
# kernel on their device (module ``_complex_cuda``, complex coefficients) ---------------------

def _complex_lfilter(
    b: ArrayLike, a: ArrayLike, x: ArrayLike, axis: int, zi: Optional[ArrayLike],
    device: Optional[str], allow_unstable: bool, workers: Optional[int],
) -> Any:
    kw = dict(allow_unstable=allow_unstable, workers=workers)
    if _complex.host_only(b, a, x, zi):
        return _complex.lfilter_numpy(b, a, x, axis, zi, device, **kw)
    g = _complex_views.candidate(x, axis, zi, device, (b, a))
    if g is not None:
        ba = _validated(b, a)
        bl, al = _padded(ba.b, ba.a) if zi is not None else (ba.bl, ba.al)
        k = _state_len(ba.b, ba.a)
        out = _complex_views.run(g, zi, k, bl, al, None, allow_unstable)
        if out is not None:
            return out

    def real(xr: Any, ax: int, zr: Any) -> Any:
        if zr is None:
            return lfilter(b, a, xr, ax, device=device, **kw)
        return lfilter(b, a, xr, ax, zr, device=device, **kw)

    return _complex.on_arrays(
        real, (b, a), x, zi, axis,
        lambda xn, zn, rt: _complex.lfilter_numpy(b, a, xn, axis, zn, None, rt=rt, **kw),
        lambda xc, zc, ax: _complex_cuda.lfilter(b, a, xc, ax, zc, allow_unstable, device),
    )


def _complex_sosfilt(
    sos: ArrayLike, x: ArrayLike, axis: int, zi: Optional[ArrayLike], device: Optional[str],
    allow_unstable: bool, workers: Optional[int],
) -> Any:
    kw = dict(allow_unstable=allow_unstable, workers=workers)
    if _complex.host_only(sos, x, zi):
        return _complex.sosfilt_numpy(sos, x, axis, zi, device, **kw)
    # Sections' zi has its own shape (sections, ..., 2): those calls take the copying path.
    g = _complex_views.candidate(x, axis, zi, device, (sos,)) if zi is None else None
    if g is not None:
        s, flat, shape = _sos_validated(sos)
        out = _complex_views.run(g, None, 2 * s.shape[0], flat, [], shape, allow_unstable)
        if out is not None:
            return out

    def real(xr: Any, ax: int, zr: Any) -> Any:
        if zr is None:
            return sosfilt(sos, xr, ax, device=device, **kw)
        return sosfilt(sos, xr, ax, zr, device=device, **kw)

    return _complex.on_arrays(
        real, (sos,), x, zi, axis,
        lambda xn, zn, rt: _complex.sosfilt_numpy(sos, xn, axis, zn, None, rt=rt, **kw),
        lambda xc, zc, ax: _complex_cuda.sosfilt(sos, xc, ax, zc, allow_unstable, device),
    )


def _complex_filtfilt(
    b: ArrayLike, a: ArrayLike, x: ArrayLike, axis: int, padtype: Optional[str],
    padlen: Optional[int], allow_unstable: bool, workers: Optional[int],
) -> Any:
    kw = dict(allow_unstable=allow_unstable, workers=workers)
    if _complex.host_only(b, a, x):
        return _complex.filtfilt_numpy(b, a, x, axis, padtype, padlen, _extend, **kw)
    return _complex.on_arrays(
        lambda xr, ax, _: filtfilt(b, a, xr, ax, padtype, padlen, **kw), (b, a), x, None, axis,
        lambda xn, _, rt: _complex.filtfilt_numpy(b, a, xn, axis, padtype, padlen, _extend,
                                                  rt=rt, **kw),
        lambda xc, _, ax: _complex_cuda.filtfilt(b, a, xc, ax, padtype, padlen, allow_unstable),
    )


def _complex_sosfiltfilt(
    sos: ArrayLike, x: ArrayLike, axis: int, padtype: Optional[str], padlen: Optional[int],
    allow_unstable: bool, workers: Optional[int],
) -> Any:
    kw = dict(allow_unstable=allow_unstable, workers=workers)
    if _complex.host_only(sos, x):
        return _complex.sosfiltfilt_numpy(sos, x, axis, padtype, padlen, _extend, **kw)
    return _complex.on_arrays(
        lambda xr, ax, _: sosfiltfilt(sos, xr, ax, padtype, padlen, **kw), (sos,), x, None,
        axis,
        lambda xn, _, rt: _complex.sosfiltfilt_numpy(sos, xn, axis, padtype, padlen, _extend,
                                                     rt=rt, **kw),
        lambda xc, _, ax: _complex_cuda.sosfiltfilt(sos, xc, ax, padtype, padlen,
                                                    allow_unstable),
    )
