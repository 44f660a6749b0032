"""``filtfilt``, ``sosfiltfilt``, ``lfilter_zi`` and ``sosfilt_zi`` on PyTorch tensors,
differentiable: scipy's method 'pad' (odd / even / constant / no extension, padlen) and its
steady-state initial conditions written with torch operations around two calls of the
differentiable ``lfilter`` / ``sosfilt`` of ``_torch_filters``; lfilter_zi is the batched
linear solve (I − companion(a)ᵀ) zi = b[1:] − a[1:] b[0]. CPU and CUDA tensors, filter banks
(b, a of shape (channels, taps), sos of shape (channels, sections, 6)) too."""

from __future__ import annotations

import sys
from typing import Any, Optional

from ._arrays import axis_index as _axis
from ._pad import extend
from ._torch_filters import _coef_tensor, _x_tensor, lfilter, sosfilt


def _lfilter_zi(tm: Any, b: Any, a: Any) -> Any:
    """scipy's lfilter_zi for a bank b, a (C, K) normalised (a[:, 0] = 1), differentiable:
    the solution of (I − companion(a)ᵀ) zi = b[1:] − a[1:] b[0], (C, K − 1)."""
    b, a = tm.broadcast_tensors(b, a)  # a bank of one filter shared by b's rows, or a's
    C, K = a.shape
    n = K - 1
    if n == 0:
        return a[:, :0]
    eye = tm.eye(n, dtype=a.dtype, device=a.device)
    sup = tm.diag_embed(tm.ones(n - 1, dtype=a.dtype, device=a.device), offset=1)
    m = (eye - sup).expand(C, n, n) + tm.nn.functional.pad(a[:, 1:, None], (0, n - 1))
    rhs = b[:, 1:] - a[:, 1:] * b[:, :1]
    return tm.linalg.solve(m, rhs)


def _padtype(padtype: Any, method: str = "pad") -> None:
    if method != "pad":
        raise ValueError(f"method {method!r}: only 'pad' is supported")
    if padtype not in ("odd", "even", "constant", None):
        raise ValueError(f"unknown padtype {padtype!r}: expected 'odd', 'even', 'constant' or None")


def filtfilt(
    b: Any, a: Any, x: Any, axis: int, padtype: Optional[str], padlen: Optional[int],
    method: str, allow_unstable: bool, workers: Optional[int],
) -> Any:
    """``sigpu.filtfilt`` with torch arguments: scipy's method 'pad' written with torch
    operations around two differentiable ``lfilter`` calls (CPU or CUDA tensors, banks too)."""
    tm = sys.modules["torch"]
    _padtype(padtype, method)
    like = next((t for t in (x, b, a) if isinstance(t, tm.Tensor)), None)
    x = _x_tensor(tm, x, like)
    bt = _coef_tensor(tm, b, "b", x.device)
    at = _coef_tensor(tm, a, "a", x.device)
    bt = bt.reshape(1) if bt.dim() == 0 else bt
    at = at.reshape(1) if at.dim() == 0 else at
    K = max(bt.shape[-1], at.shape[-1])
    b2, a2 = bt if bt.dim() == 2 else bt.unsqueeze(0), at if at.dim() == 2 else at.unsqueeze(0)
    a0 = a2[:, :1]
    if bool((a0.detach() == 0).any()):
        raise ValueError("a[0] must be nonzero (the filter is normalised by it)")
    bn = tm.nn.functional.pad(b2, (0, K - b2.shape[-1])) / a0
    an = tm.nn.functional.pad(a2, (0, K - a2.shape[-1])) / a0
    bank = bt.dim() == 2 or at.dim() == 2
    if x.dim() == 0:
        raise ValueError("x must have at least one dimension")
    ax = _axis(axis, x.dim())
    xm = tm.movedim(x, ax, -1)
    edge = 0 if padtype is None else (3 * K if padlen is None else padlen)
    ext = extend(xm, "torch", padtype, edge)
    zi = _lfilter_zi(tm, bn, an).to(x.dtype)  # (C, K - 1)
    if not bank:
        zi = zi[0]
    kw = dict(axis=-1, device=None, allow_unstable=allow_unstable, workers=workers)
    bb, aa = (bn, an) if bank else (bn[0], an[0])
    y, _ = lfilter(bb, aa, ext, zi=zi * ext[..., :1], **kw)
    y, _ = lfilter(bb, aa, tm.flip(y, dims=(-1,)), zi=zi * y[..., -1:], **kw)
    y = tm.flip(y, dims=(-1,))
    if edge > 0:
        y = y[..., edge : y.shape[-1] - edge]
    return tm.movedim(y, -1, ax)


def _sosfilt_zi(tm: Any, s3: Any) -> Any:
    """scipy's sosfilt_zi for a bank s3 (C, S, 6), differentiable: (C, S, 2)."""
    zis = []
    scale = tm.ones_like(s3[:, 0, 0])
    for s in range(s3.shape[1]):
        b, a = s3[:, s, :3], s3[:, s, 3:]
        zis.append(scale.unsqueeze(-1) * _lfilter_zi(tm, b, a))
        scale = scale * b.sum(-1) / a.sum(-1)
    return tm.stack(zis, dim=1)


def sosfiltfilt(
    sos: Any, x: Any, axis: int, padtype: Optional[str], padlen: Optional[int],
    allow_unstable: bool, workers: Optional[int],
) -> Any:
    """``sigpu.sosfiltfilt`` with torch arguments: scipy's method written with torch
    operations around two differentiable ``sosfilt`` calls."""
    tm = sys.modules["torch"]
    _padtype(padtype)
    like = next((t for t in (x, sos) if isinstance(t, tm.Tensor)), None)
    x = _x_tensor(tm, x, like)
    st = _coef_tensor(tm, sos, "sos", x.device)
    st = st.unsqueeze(0) if st.dim() == 1 else st
    if st.dim() not in (2, 3) or st.shape[-1] != 6 or st.shape[-2] == 0:
        raise ValueError(
            f"sos must have shape (n_sections, 6), or (channels, n_sections, 6) for a filter "
            f"bank, got {tuple(st.shape)}"
        )
    bank = st.dim() == 3
    s3 = st if bank else st.unsqueeze(0)
    if bool((s3.detach()[..., 3] != 1).any()):
        raise ValueError("each section of sos must have a[0] = 1 (column 3)")
    S = s3.shape[1]
    # scipy's default pad: 3 × (2 · sections + 1 − the sections with b[2] = a[2] = 0).
    sh = s3.detach()
    zeros = tm.minimum((sh[..., 2] == 0).sum(-1), (sh[..., 5] == 0).sum(-1))
    ntaps = {2 * S + 1 - int(z) for z in zeros.tolist()}
    if padlen is None and padtype is not None and len(ntaps) > 1:
        raise ValueError(
            "the filters of this bank have different default padlen (scipy's rule counts the "
            "sections whose b[2] = a[2] = 0): pass padlen explicitly"
        )
    if x.dim() == 0:
        raise ValueError("x must have at least one dimension")
    ax = _axis(axis, x.dim())
    xm = tm.movedim(x, ax, -1)
    edge = 0 if padtype is None else (3 * ntaps.pop() if padlen is None else padlen)
    ext = extend(xm, "torch", padtype, edge)
    zi = _sosfilt_zi(tm, s3).to(x.dtype)  # (C, S, 2)
    if bank:
        zshape = (S,) + tuple(ext.shape[:-2]) + (s3.shape[0], 2)
        zi = tm.movedim(zi, 1, 0)  # (S, C, 2)
    else:
        zshape = (S,) + tuple(ext.shape[:-1]) + (2,)
        zi = zi[0]  # (S, 2)
    lead = [1] * (len(zshape) - zi.dim())
    zi = zi.reshape(zi.shape[:1] + tuple(lead) + zi.shape[1:])
    kw = dict(axis=-1, device=None, allow_unstable=allow_unstable, workers=workers)
    y, _ = sosfilt(st, ext, zi=(zi * ext[..., :1].unsqueeze(0)).expand(zshape), **kw)
    y, _ = sosfilt(st, tm.flip(y, dims=(-1,)), zi=(zi * y[..., -1:].unsqueeze(0)).expand(zshape),
                   **kw)
    y = tm.flip(y, dims=(-1,))
    if edge > 0:
        y = y[..., edge : y.shape[-1] - edge]
    return tm.movedim(y, -1, ax)


def lfilter_zi(b: Any, a: Any) -> Any:
    """``sigpu.lfilter_zi`` with torch coefficients: differentiable, on their device; a bank
    (channels, taps) gives (channels, taps − 1)."""
    tm = sys.modules["torch"]
    like = next(t for t in (b, a) if isinstance(t, tm.Tensor))
    bt = _coef_tensor(tm, b, "b", like.device)
    at = _coef_tensor(tm, a, "a", like.device)
    bt = bt.reshape(1) if bt.dim() == 0 else bt
    at = at.reshape(1) if at.dim() == 0 else at
    bank = bt.dim() == 2 or at.dim() == 2
    b2, a2 = bt if bt.dim() == 2 else bt.unsqueeze(0), at if at.dim() == 2 else at.unsqueeze(0)
    if bool((a2.detach()[:, 0] == 0).any()):
        raise ValueError("a[0] must be nonzero (the filter is normalised by it)")
    K = max(b2.shape[-1], a2.shape[-1])
    a0 = a2[:, :1]
    zi = _lfilter_zi(tm, tm.nn.functional.pad(b2, (0, K - b2.shape[-1])) / a0,
                     tm.nn.functional.pad(a2, (0, K - a2.shape[-1])) / a0)
    return zi if bank else zi[0]


def sosfilt_zi(sos: Any) -> Any:
    """``sigpu.sosfilt_zi`` with a torch sos: differentiable, (n_sections, 2), or
    (channels, n_sections, 2) for a bank."""
    tm = sys.modules["torch"]
    st = sos if sos.dtype.is_floating_point else sos.to(tm.float64)
    st = st.unsqueeze(0) if st.dim() == 1 else st
    if st.dim() not in (2, 3) or st.shape[-1] != 6 or st.shape[-2] == 0:
        raise ValueError(f"sos must have shape (n_sections, 6), got {tuple(st.shape)}")
    zi = _sosfilt_zi(tm, st if st.dim() == 3 else st.unsqueeze(0))
    return zi if st.dim() == 3 else zi[0]
