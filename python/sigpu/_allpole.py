"""``sigpu.allpole``: time-varying all-pole filters (LPC synthesis), torchlpc's interface.

    y[t] = x[t] − Σ_{k=1..p} A[t, k−1] · y[t − k],    y[−k] = zi[k − 1]

with x ``(B, T)``, A ``(B, T, p)`` and zi ``(B, p)`` (optional; zero without it). numpy arrays
run on the CPU engine (float32 stays float32, float64 and integers as float64); torch
tensors return tensors on x's device, differentiable with respect to x, A and zi through a
``torch.autograd.Function`` whose backward is sigpu's own: the adjoint (the time-reversed
filter with the shifted coefficients, run by the same engine in transposed form), the
coefficient gradient −u[t]·y[t−k−1] and the state gradient from the adjoint's final state.
float32 CUDA tensors run the chunked GPU kernel; float64 CUDA tensors are filtered on the CPU
and moved back (the kernel's f64 carries lose accuracy near the unit circle).
"""

from __future__ import annotations

import sys
from typing import Any, Optional, Tuple

import numpy as np

from . import _native
from ._arrays import torch_stream
from ._threads import workers as _workers

__all__ = ["allpole", "sample_wise_lpc"]

_FUNCTION: Any = None


def _shapes(xs: Tuple[int, ...], As: Tuple[int, ...], zs: Optional[Tuple[int, ...]]) -> int:
    """The order, after checking the shapes (errors name the argument)."""
    if len(xs) != 2:
        raise ValueError(f"x must have shape (B, T), got {xs}")
    if len(As) != 3:
        raise ValueError(f"A must have shape (B, T, order), got {As}")
    if As[:2] != xs:
        raise ValueError(f"A has shape {As}; its first two dimensions must be x's {xs}")
    order = As[2]
    if not 1 <= order <= 64:
        raise ValueError(f"A: order {order} (its last dimension) must be 1 … 64")
    if zs is not None and zs != (xs[0], order):
        raise ValueError(f"zi has shape {zs}; it must be (B, order) = {(xs[0], order)}")
    return order


def _np_float(v: Any, name: str, dtype: Optional[np.dtype] = None) -> np.ndarray:
    arr = np.asarray(v)
    if arr.dtype.kind == "c":
        raise TypeError(f"{name}: complex values are not supported")
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name}: numbers expected, not {arr.dtype}")
    if dtype is None:
        dtype = np.dtype(np.float32) if arr.dtype == np.float32 else np.dtype(np.float64)
    return np.ascontiguousarray(arr, dtype=dtype)


def _numpy(x: Any, A: Any, zi: Any, workers: Optional[int]) -> np.ndarray:
    xa = _np_float(x, "x")
    Aa = _np_float(A, "A", xa.dtype)
    za = None if zi is None else _np_float(zi, "zi", xa.dtype)
    order = _shapes(xa.shape, Aa.shape, None if za is None else za.shape)
    B, T = xa.shape
    if B == 0 or T == 0:
        return np.empty_like(xa)
    y = _native.allpole_rows(
        xa.ravel(), Aa.ravel(), B, order, None if za is None else za.ravel(), _workers(workers)
    )
    return y.reshape(B, T)


def _function(tm: Any) -> Any:
    global _FUNCTION
    if _FUNCTION is not None and _FUNCTION[0] is tm:
        return _FUNCTION[1]

    def host(t: Any) -> np.ndarray:
        return np.ascontiguousarray(t.detach().cpu().numpy()).ravel()

    def run_forward(x: Any, A: Any, zi: Any) -> Any:
        B, T = x.shape
        order = A.shape[2]
        if B == 0 or T == 0:
            return tm.empty_like(x)
        if x.is_cuda and x.dtype == tm.float32:
            dev = x.get_device()
            y = tm.empty_like(x)
            _native.allpole_cuda(
                x.data_ptr(), A.data_ptr(), None if zi is None else zi.data_ptr(), y.data_ptr(),
                B, T, order, dev, torch_stream(tm, dev),
            )
            return y
        y = _native.allpole_rows(host(x), host(A), B, order, None if zi is None else host(zi))
        return tm.from_numpy(y.reshape(B, T)).to(x.device)

    def run_backward(A: Any, y: Any, zi: Any, g: Any) -> Tuple[Any, Any, Any]:
        B, T = y.shape
        order = A.shape[2]
        if B == 0 or T == 0:
            return tm.zeros_like(y), tm.zeros_like(A), None if zi is None else tm.zeros_like(zi)
        if y.is_cuda and y.dtype == tm.float32:
            dev = y.get_device()
            gx, ga = tm.empty_like(y), tm.empty_like(A)
            gzi = None if zi is None else tm.empty_like(zi)
            _native.allpole_cuda_backward(
                A.data_ptr(), y.data_ptr(), None if zi is None else zi.data_ptr(), g.data_ptr(),
                gx.data_ptr(), ga.data_ptr(), None if gzi is None else gzi.data_ptr(),
                B, T, order, dev, torch_stream(tm, dev),
            )
            return gx, ga, gzi
        gx, ga, gzi = _native.allpole_rows_backward(
            host(A), host(y), host(g), B, order, None if zi is None else host(zi)
        )
        dev = y.device
        return (
            tm.from_numpy(gx.reshape(B, T)).to(dev),
            tm.from_numpy(ga.reshape(A.shape)).to(dev),
            None if gzi is None else tm.from_numpy(gzi.reshape(zi.shape)).to(dev),
        )

    class AllPole(tm.autograd.Function):
        """y = allpole(x, A, zi) for contiguous x (B, T), A (B, T, p), zi (B, p) or None."""

        @staticmethod
        def forward(ctx: Any, x: Any, A: Any, zi: Any) -> Any:
            y = run_forward(x, A, zi)
            ctx.save_for_backward(A, y, zi)
            return y

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            A, y, zi = ctx.saved_tensors
            gx, ga, gzi = run_backward(A, y, zi, g.contiguous())
            need_x, need_a, need_zi = ctx.needs_input_grad[:3]
            return (gx if need_x else None, ga if need_a else None,
                    gzi if need_zi and zi is not None else None)

    _FUNCTION = (tm, AllPole)
    return AllPole


def _torch(tm: Any, x: Any, A: Any, zi: Any) -> Any:
    like = next(t for t in (x, A, zi) if isinstance(t, tm.Tensor))
    def tensor(v: Any, name: str, dtype: Any) -> Any:
        if not isinstance(v, tm.Tensor):
            v = tm.as_tensor(_np_float(v, name), device=like.device)
        if v.dtype.is_complex:
            raise TypeError(f"{name}: complex values are not supported")
        if dtype is None:
            dtype = v.dtype if v.dtype in (tm.float32, tm.float64) else tm.float64
            if v.dtype.is_floating_point and v.dtype not in (tm.float32, tm.float64):
                raise TypeError(f"{name}: dtype {v.dtype} is not supported: use float32 or float64")
        return v.to(dtype)
    xt = tensor(x, "x", None)
    At = tensor(A, "A", xt.dtype)
    zt = None if zi is None else tensor(zi, "zi", xt.dtype)
    for t, name in ((At, "A"), (zt, "zi")):
        if t is not None and t.device != xt.device:
            raise ValueError(f"{name} is on {t.device} but x on {xt.device}: move it first")
    _shapes(tuple(xt.shape), tuple(At.shape), None if zt is None else tuple(zt.shape))
    for t, name in ((xt, "x"), (At, "A"), (zt, "zi")):
        if t is not None and not t.is_cuda and not bool(tm.isfinite(t.detach()).all()):
            i = int(tm.nonzero(~tm.isfinite(t.detach().reshape(-1)))[0])
            raise ValueError(f"{name}[{i}] (flattened) is not finite")
    xt, At = xt.contiguous(), At.contiguous()
    zt = None if zt is None else zt.contiguous()
    return _function(tm).apply(xt, At, zt)


def allpole(x: Any, A: Any, zi: Any = None, workers: Optional[int] = None) -> Any:
    """Time-varying all-pole filter: ``y[t] = x[t] − Σ_k A[t, k−1]·y[t−k]`` (module notes).

    x ``(B, T)``, A ``(B, T, order)`` (order 1 … 64), zi ``(B, order)`` with
    ``zi[k] = y[−k−1]`` (torchlpc's layout) or None. numpy in, numpy out (float32 stays
    float32; others as float64); torch tensors in, a tensor out on x's device,
    differentiable with respect to x, A and zi. Host data with a NaN or infinity is refused
    naming the argument; on CUDA tensors a NaN spreads to later outputs. No stability test:
    a sequence of stable filters can still grow.
    """
    tm = sys.modules.get("torch")
    if tm is not None and any(isinstance(t, tm.Tensor) for t in (x, A, zi)):
        return _torch(tm, x, A, zi)
    return _numpy(x, A, zi, workers)


def sample_wise_lpc(x: Any, a: Any, zi: Any = None) -> Any:
    """torchlpc's name for :func:`allpole` (same arguments and layout)."""
    return allpole(x, a, zi)
