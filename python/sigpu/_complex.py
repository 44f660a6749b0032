"""Complex signals and complex coefficients for ``lfilter``, ``sosfilt``, ``filtfilt``,
``sosfiltfilt``, ``lfilter_zi`` and ``sosfilt_zi`` (module ``_signal`` hands a call here when
any of its arrays is complex).

numpy input follows scipy's result type, ``result_type(b, a, x[, zi])``: complex64 samples
with float64 coefficients are filtered and returned as complex128, as scipy does; complex64
stays complex64 when the coefficients are float32 / complex64. The rows go to the recurrence
crate's complex front door (``plan_complex``) as their interleaved float view; it decides how
they run: real coefficients as the real filter on the real and imaginary parts (the real
contract and engines), complex coefficients by scipy's serial loops in complex float64.

torch and CuPy arrays keep their own dtype (complex64 stays complex64; a real tensor with
complex coefficients becomes complex64 / complex128 as its float32 / float64). With real
coefficients they are filtered as real arrays of (re, im) pairs by the real filters (on their
device, differentiable for torch as the real path is). Complex coefficients on a CUDA array run
the complex serial kernel on the array's device and stream (module ``_complex_cuda``; scipy's
loops in complex float64, bit for bit the CPU engine's result — complex64 arrays of few long
channels by the chunked scan, within the complex64 contract; filtfilt / sosfiltfilt padded
and started as scipy does, on the device); on CPU tensors they run through numpy. Gradients
through complex coefficients are not built (refused when an input requires grad).
"""

from __future__ import annotations

import json
import sys
from typing import Any, Callable, Optional, Tuple

import numpy as np

from . import _native
from ._arrays import axis_index as _axis, gpu_array, parse_device
from ._threads import workers as _workers

ArrayLike = Any


def is_complex(v: Any) -> bool:
    """Whether ``v`` (an array, tensor, list or scalar) holds complex values; cheap for the
    real types the hot path sees."""
    if v is None:
        return False
    t = type(v)
    if t is np.ndarray:
        return v.dtype.kind == "c"
    if t is float or t is int:
        return False
    if t is list or t is tuple:
        return any(isinstance(e, complex) or is_complex(e) for e in v
                   if type(e) is not float and type(e) is not int)
    if isinstance(v, complex):
        return True
    tm = sys.modules.get("torch")
    if tm is not None and isinstance(v, tm.Tensor):
        return bool(getattr(v.dtype, "is_complex", False))
    dt = getattr(v, "dtype", None)
    if dt is not None:
        try:
            return np.dtype(dt).kind == "c"
        except TypeError:
            return False
    return bool(np.iscomplexobj(v))


def wants(*args: Any) -> bool:
    """Whether a call with these arrays is complex (any of them is)."""
    return any(is_complex(v) for v in args)


def _given(c: Any) -> np.dtype:
    tm = sys.modules.get("torch")
    if tm is not None and isinstance(c, tm.Tensor):
        return np.dtype(str(c.dtype).replace("torch.", ""))
    g = gpu_array(c)
    if g is not None:
        return g.dtype
    return c.dtype if isinstance(c, np.ndarray) else np.asarray(c).dtype


def _coefs(c: ArrayLike, name: str, ndim: int = 1) -> np.ndarray:
    """Coefficients as a complex128 array of ``ndim`` dimensions, checked finite."""
    tm = sys.modules.get("torch")
    if tm is not None and isinstance(c, tm.Tensor):
        c = c.detach().cpu().numpy()
    arr = np.asarray(c)
    if arr.dtype.kind not in "biufc":
        raise TypeError(f"{name}: coefficients must be numbers, not {arr.dtype}")
    arr = np.atleast_1d(arr).astype(np.complex128)
    if ndim == 1 and arr.ndim == 2:
        raise TypeError(f"{name} of shape {arr.shape}: filter banks with complex signals or "
                        "coefficients are not supported; call once per filter")
    if arr.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-D, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty")
    if not np.all(np.isfinite(arr)):
        i = int(np.flatnonzero(~np.isfinite(arr.ravel()))[0])
        raise ValueError(f"{name}[{i}] is {arr.ravel()[i]}: coefficients must be finite")
    return arr


def _parts(c: np.ndarray) -> Tuple[list, list]:
    """Real and imaginary parts as the native calls take them (no imaginary parts: real)."""
    flat = c.ravel()
    im = flat.imag
    return flat.real.tolist(), (im.tolist() if np.any(im != 0) else [])


def _sos(sos: ArrayLike) -> np.ndarray:
    if np.ndim(_coefs_any(sos)) == 3:
        raise TypeError("sos banks (channels, n_sections, 6) with complex signals or "
                        "coefficients are not supported; call once per filter")
    s = _coefs(np.atleast_2d(_coefs_any(sos)), "sos", 2)
    if s.shape[1] != 6:
        raise ValueError(f"sos must have shape (n_sections, 6), got {s.shape}")
    return s


def result_dtype(*given: np.dtype) -> np.dtype:
    """scipy's result type of a complex call on numpy input: complex64 or complex128."""
    rt = np.result_type(*given)
    if rt.kind in "biuf":
        rt = np.result_type(rt, np.complex64)
    if rt.kind != "c":
        raise TypeError(f"inputs of dtype {rt} are not supported")
    if rt.itemsize > 16:
        raise TypeError(f"{rt} input is not supported: sigpu computes in complex64 or "
                        "complex128; convert with .astype(np.complex128)")
    # Native byte order: a big-endian array is converted, as scipy accepts it.
    return np.dtype(np.complex64) if rt.itemsize == 8 else np.dtype(np.complex128)


def _part(rt: np.dtype) -> np.dtype:
    return np.dtype(np.float32) if rt.itemsize == 8 else np.dtype(np.float64)


def _rows(a: np.ndarray, rt: np.dtype, rows: int, m: int) -> np.ndarray:
    """A complex array of rows × m values as (rows, 2·m) interleaved parts, C-contiguous (one
    copy at most)."""
    c = np.require(a, dtype=rt, requirements=["C", "A"])
    return c.reshape(rows, m).view(_part(rt))


def _native_rows(
    b: np.ndarray, a: Optional[np.ndarray], x2: np.ndarray, zi2: Optional[np.ndarray],
    allow_unstable: bool, workers: Optional[int], device: Optional[str],
) -> Tuple[np.ndarray, Optional[np.ndarray], dict]:
    dev = parse_device(device)
    br, bi = _parts(b)
    ar, ai = ([], []) if a is None else _parts(a)
    y2, zf2, report = _native.complex_rows(
        br, bi, ar, ai, x2, zi2, sos=a is None, allow_unstable=allow_unstable,
        workers=_workers(workers), device=dev if dev is not None and dev >= 0 else None,
    )
    return y2, zf2, json.loads(report)


def _host_x(x: Any) -> np.ndarray:
    x = np.asarray(x)
    if x.ndim == 0:
        raise ValueError("x must have at least one dimension")
    return x


def _ba(b: ArrayLike, a: ArrayLike) -> Tuple[np.ndarray, np.ndarray, list]:
    """Complex (b, a), checked, and their given dtypes (for the result type)."""
    given = [_given(b), _given(a)]
    bc, ac = _coefs(b, "b"), _coefs(a, "a")
    if ac[0] == 0:
        raise ValueError("a[0] must be nonzero (the filter is normalised by it)")
    return bc, ac, given


def lfilter_numpy(
    b: ArrayLike, a: ArrayLike, x: ArrayLike, axis: int, zi: Optional[ArrayLike],
    device: Optional[str], allow_unstable: bool, workers: Optional[int],
    rt: Optional[np.dtype] = None,
) -> Any:
    """``lfilter`` of host arrays with a complex signal, coefficients or zi."""
    bc, ac, given = _ba(b, a)
    x = _host_x(x)
    if rt is None:
        rt = result_dtype(*given, x.dtype, *([] if zi is None else [_given(zi)]))
    ax = _axis(axis, x.ndim)
    k = max(len(ac), len(bc)) - 1
    xm = np.moveaxis(x, ax, -1)
    lead, n = xm.shape[:-1], xm.shape[-1]
    rows = int(np.prod(lead, dtype=np.int64))
    x2 = _rows(xm, rt, rows, n)
    zi2 = None
    if zi is not None:
        want = x.shape[:ax] + (k,) + x.shape[ax + 1:]
        z = np.asarray(zi)
        at = ax - (len(want) - z.ndim)
        try:
            if at < 0 or z.shape[at] != k:
                raise ValueError
            z = np.broadcast_to(z, want)
        except ValueError:
            raise ValueError(
                f"zi has shape {z.shape}; it must be {want} (x's shape with axis {ax} replaced "
                f"by max(len(a), len(b)) - 1 = {k})"
            ) from None
        zi2 = _rows(np.moveaxis(z, ax, -1), rt, rows, k)
        # Equal lengths: the state then has scipy's max(len(a), len(b)) - 1 values.
        m = k + 1
        bc = np.concatenate([bc, np.zeros(m - len(bc))])
        ac = np.concatenate([ac, np.zeros(m - len(ac))])
    y2, zf2, _ = _native_rows(bc, ac, x2, zi2, allow_unstable, workers, device)
    y = np.moveaxis(y2.view(rt).reshape(lead + (n,)), -1, ax)
    if zi is None:
        return y
    return y, np.moveaxis(zf2.view(rt).reshape(lead + (k,)), -1, ax)


def sosfilt_numpy(
    sos: ArrayLike, x: ArrayLike, axis: int, zi: Optional[ArrayLike], device: Optional[str],
    allow_unstable: bool, workers: Optional[int], rt: Optional[np.dtype] = None,
) -> Any:
    """``sosfilt`` of host arrays with a complex signal, sections or zi."""
    given = _given(sos)
    s = _sos(sos)
    x = _host_x(x)
    if rt is None:
        rt = result_dtype(given, x.dtype, *([] if zi is None else [_given(zi)]))
    ax = _axis(axis, x.ndim)
    sections = s.shape[0]
    xm = np.moveaxis(x, ax, -1)
    lead, n = xm.shape[:-1], xm.shape[-1]
    rows = int(np.prod(lead, dtype=np.int64))
    x2 = _rows(xm, rt, rows, n)
    zi2 = None
    if zi is not None:
        want = (sections,) + x.shape[:ax] + (2,) + x.shape[ax + 1:]
        z = np.asarray(zi)
        if z.shape != want:
            raise ValueError(f"zi has shape {z.shape}; it must be {want} (n_sections, then x's "
                             f"shape with axis {ax} replaced by 2)")
        z = np.moveaxis(np.moveaxis(z, ax + 1, -1), 0, -2)
        zi2 = _rows(z, rt, rows, 2 * sections)
    y2, zf2, _ = _native_rows(s, None, x2, zi2, allow_unstable, workers, device)
    y = np.moveaxis(y2.view(rt).reshape(lead + (n,)), -1, ax)
    if zi is None:
        return y
    zf = zf2.view(rt).reshape(lead + (sections, 2))
    return y, np.moveaxis(np.moveaxis(zf, -2, 0), -1, ax + 1)


def lfilter_zi(b: ArrayLike, a: ArrayLike) -> np.ndarray:
    """scipy's ``lfilter_zi`` for complex coefficients (complex128)."""
    bc, ac = _coefs(b, "b"), _coefs(a, "a")
    re, im = _native.complex_lfilter_zi(*_parts(bc), *_parts(ac))
    return np.asarray(re) + 1j * np.asarray(im)


def sosfilt_zi(sos: ArrayLike) -> np.ndarray:
    """scipy's ``sosfilt_zi`` for complex sections: (n_sections, 2) complex128."""
    s = _sos(sos)
    re, im = _native.complex_sosfilt_zi(*_parts(s))
    return (np.asarray(re) + 1j * np.asarray(im)).reshape(-1, 2)


def zero_phase_numpy(
    run: Callable[..., Any], zi1: np.ndarray, x: np.ndarray, ax: int, edge: int,
    extend: Callable[..., np.ndarray], padtype: Optional[str],
) -> np.ndarray:
    """scipy's forward-backward pass: extend x by ``edge`` (``padtype``), filter forward from
    ``zi1 · x[0]`` and backward from ``zi1 · y[-1]`` with ``run(x, zi)``, trim. ``zi1`` is
    lfilter_zi (k,) or sosfilt_zi (S, 2)."""
    ext = extend(x, padtype, edge, ax)
    shape = [1] * (x.ndim + (1 if zi1.ndim == 2 else 0))
    if zi1.ndim == 2:
        shape[0] = zi1.shape[0]
        shape[ax + 1] = 2
    else:
        shape[ax] = zi1.size
    zi = zi1.reshape(shape)

    def first(v: np.ndarray, i: int) -> np.ndarray:
        e = np.take(v, [i], axis=ax)
        return np.expand_dims(e, 0) if zi1.ndim == 2 else e

    y, _ = run(ext, zi * first(ext, 0))
    y, _ = run(np.flip(y, axis=ax), zi * first(y, -1))
    y = np.flip(y, axis=ax)
    if edge > 0:
        y = np.take(y, np.arange(edge, y.shape[ax] - edge), axis=ax)
    return y


# --- torch and CuPy -----------------------------------------------------------------------

def _torch_of(*args: Any) -> Any:
    tm = sys.modules.get("torch")
    if tm is not None and any(isinstance(v, tm.Tensor) for v in args):
        return tm
    return None


def _complex_coefs(*cs: Any) -> bool:
    return any(c is not None and np.any(np.asarray(_coefs_any(c)).imag != 0) for c in cs)


def _coefs_any(c: Any) -> np.ndarray:
    tm = sys.modules.get("torch")
    if tm is not None and isinstance(c, tm.Tensor):
        c = c.detach().cpu().numpy()
    g = gpu_array(c)
    if g is not None:
        raise TypeError("coefficients on a GPU with complex signals: pass them as host arrays")
    return np.asarray(c)


def _refuse_split(x: Any) -> None:
    raise ValueError(
        f"zi is on a CUDA device but x on the host ({type(x).__name__}): put both on the same "
        "device"
    )


def _as_pairs(v: Any, kind: str, dtype: Any = None) -> Any:
    """A complex (or real) array as a real array of (re, im) pairs on a new last axis."""
    if kind == "torch":
        import torch

        if dtype is not None and v.dtype != dtype:
            v = v.to(dtype)  # a state of another width than x: x's
        elif not v.is_complex():
            v = v.to(torch.complex64 if v.dtype == torch.float32 else torch.complex128)
        return torch.view_as_real(v.resolve_conj())
    if kind == "cupy":
        import cupy

        return cupy.stack([v.real, v.imag], axis=-1)
    v = np.asarray(v)
    return np.stack([v.real, v.imag], axis=-1)


def _from_pairs(v: Any, kind: str) -> Any:
    if kind == "torch":
        import torch

        return torch.view_as_complex(v.contiguous())
    # The (re, im) pairs viewed as complex of the parts' width (no promotion rule involved).
    lib = np if kind == "numpy" else __import__("cupy")
    cdt = np.complex64 if v.dtype == np.float32 else np.complex128
    return lib.ascontiguousarray(v).view(cdt)[..., 0]


def _kind(x: Any) -> str:
    tm = sys.modules.get("torch")
    if tm is not None and isinstance(x, tm.Tensor):
        return "torch"
    g = gpu_array(x)
    return g.kind if g is not None else "numpy"


def _is_cuda(v: Any) -> bool:
    tm = sys.modules.get("torch")
    if tm is not None and isinstance(v, tm.Tensor):
        return bool(v.is_cuda)
    return gpu_array(v) is not None


def host_only(*args: Any) -> bool:
    """Whether no argument is a torch tensor or a CUDA array (the numpy face)."""
    tm = sys.modules.get("torch")
    for v in args:
        if tm is not None and isinstance(v, tm.Tensor):
            return False
        if v is not None and type(v) is not np.ndarray and gpu_array(v) is not None:
            return False
    return True


def on_arrays(
    run_real: Callable[[Any, int, Any], Any], coefs: Tuple[Any, ...], x: Any, zi: Any,
    axis: int, call_numpy: Callable[[np.ndarray, Optional[np.ndarray], np.dtype], Any],
    call_cuda: Callable[[Any, Any, int], Any],
) -> Any:
    """A torch / CuPy call with complex data: real coefficients as the real filter
    (``run_real(pairs, axis, zi pairs)``) on (re, im) pairs, on the array's device in the
    array's dtype; complex ones on CUDA arrays by the complex kernel on their device
    (``call_cuda(x, zi, axis)``), and through numpy on the host for CPU tensors
    (``call_numpy(x, zi, result dtype)``)."""
    kind = _kind(x)
    tm = _torch_of(x, zi, *coefs)
    if kind == "numpy" and tm is not None:
        kind = "torch"
        x = tm.as_tensor(np.asarray(x))
    nd = len(tuple(x.shape))
    if nd == 0:
        raise ValueError("x must have at least one dimension")
    ax = _axis(axis, nd)
    if not _complex_coefs(*coefs):
        xr = _as_pairs(x, kind)
        zr = None
        if zi is not None:
            zk = _kind(zi)
            if kind == "torch" and zk != "torch":
                zi = tm.as_tensor(np.asarray(zi), device=x.device)
                zk = "torch"
            elif kind == "cupy" and zk != "cupy":
                import cupy

                zi = cupy.asarray(np.asarray(zi))
                zk = "cupy"
            part = None
            if kind == "torch":
                part = tm.complex64 if xr.dtype == tm.float32 else tm.complex128
            zr = _as_pairs(zi, zk, dtype=part)
        out = run_real(xr, ax, zr)
        if zi is None:
            return _from_pairs(out, kind)
        return _from_pairs(out[0], kind), _from_pairs(out[1], kind)
    if kind == "torch":
        if any(isinstance(v, tm.Tensor) and v.requires_grad for v in (x, zi, *coefs)):
            raise ValueError(
                "gradients through complex-coefficient filters are not built: call with "
                "tensors that do not require grad (.detach()), or use real coefficients"
            )
    if _is_cuda(x):
        return call_cuda(x, zi, ax)
    if zi is not None and _is_cuda(zi):
        _refuse_split(x)
    if kind == "torch":
        xd = x.dtype
        rt = np.dtype(np.complex64) if xd in (tm.float32, tm.complex64) else \
            np.dtype(np.complex128)
        xn = x.detach().resolve_conj().numpy()
        zn = None if zi is None else (zi.detach().cpu().numpy() if isinstance(zi, tm.Tensor)
                                      else np.asarray(zi))
        out = call_numpy(xn, zn, rt)
        if isinstance(out, tuple):
            return tuple(tm.from_numpy(np.ascontiguousarray(o)) for o in out)
        return tm.from_numpy(np.ascontiguousarray(out))
    raise TypeError(f"complex filtering of {type(x).__name__} arrays is not supported")


def filtfilt_numpy(
    b: ArrayLike, a: ArrayLike, x: ArrayLike, axis: int, padtype: Optional[str],
    padlen: Optional[int], extend: Callable[..., np.ndarray], allow_unstable: bool,
    workers: Optional[int], rt: Optional[np.dtype] = None,
) -> np.ndarray:
    """``filtfilt`` (method 'pad') of host arrays with complex data: scipy's padding and
    initial conditions around two complex ``lfilter`` calls."""
    bc, ac, given = _ba(b, a)
    x = _host_x(x)
    if rt is None:
        rt = result_dtype(*given, x.dtype)
    x = np.require(x, dtype=rt, requirements=["A"])
    ax = _axis(axis, x.ndim)
    edge = 0 if padtype is None else (3 * max(len(ac), len(bc)) if padlen is None else padlen)
    zi1 = lfilter_zi(bc, ac)

    def run(xe: np.ndarray, zi: np.ndarray) -> Any:
        return lfilter_numpy(bc, ac, xe, ax, zi, None, allow_unstable, workers, rt=rt)

    return zero_phase_numpy(run, zi1, x, ax, edge, extend, padtype).astype(rt, copy=False)


def sosfiltfilt_numpy(
    sos: ArrayLike, x: ArrayLike, axis: int, padtype: Optional[str], padlen: Optional[int],
    extend: Callable[..., np.ndarray], allow_unstable: bool, workers: Optional[int],
    rt: Optional[np.dtype] = None,
) -> np.ndarray:
    """``sosfiltfilt`` of host arrays with complex data, as scipy pads and starts it."""
    given = _given(sos)
    s = _sos(sos)
    x = _host_x(x)
    if rt is None:
        rt = result_dtype(given, x.dtype)
    x = np.require(x, dtype=rt, requirements=["A"])
    ax = _axis(axis, x.ndim)
    # scipy's default pad: 3 × (2 · sections + 1 − the sections with b[2] = a[2] = 0).
    ntaps = 2 * s.shape[0] + 1 - min(int(np.sum(s[:, 2] == 0)), int(np.sum(s[:, 5] == 0)))
    edge = 0 if padtype is None else (3 * ntaps if padlen is None else padlen)
    zi1 = sosfilt_zi(s)

    def run(xe: np.ndarray, zi: np.ndarray) -> Any:
        return sosfilt_numpy(s, xe, ax, zi, None, allow_unstable, workers, rt=rt)

    return zero_phase_numpy(run, zi1, x, ax, edge, extend, padtype).astype(rt, copy=False)
