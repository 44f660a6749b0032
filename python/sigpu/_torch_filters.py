"""``lfilter`` and ``sosfilt`` on PyTorch tensors, differentiable: used when any argument is a
torch tensor that is not handled by the plain GPU path (a CPU tensor, a tensor that requires
grad, coefficients or zi given as tensors, or a filter bank). Outputs are torch tensors on x's
device, of x's floating dtype (float32 stays float32; integer and boolean x are filtered as
float64). Every filtering step, forward and backward, is a call of sigpu's planner (the
accuracy contract holds for each); the coefficient gradients are batched dot products over
the time axis (one per tap). No per-sample Python and no serial loop.

The gradients. For one filter with ``a`` normalised (``a[0] = 1``) and ``b``, ``a`` padded
to K = N + 1 taps, scipy's transposed direct form with initial state ``zi`` is

    y = A⁻¹ (B x + c),   c[t] = zi[t] for t < N (else 0),

B and A being the lower-triangular Toeplitz matrices of ``b`` and ``a`` (the state enters as
an extra input of the all-pole part). For a loss L with g = ∂L/∂y:

    u      = A⁻ᵀ g = flip(lfilter([1], a, flip(g)))   (the same poles, time reversed)
    ∂L/∂x  = Bᵀ u  = flip(lfilter(b, [1], flip(u)))
    ∂L/∂b_i = Σ_t u[t] x[t − i],   ∂L/∂a_j = −Σ_t u[t] y[t − j],   ∂L/∂zi_m = u[m].

Lower-triangular Toeplitz matrices commute and the time reversal J maps one to its
transpose (J T J = Tᵀ), so ∂L/∂x is ``flip(lfilter(b, a, flip(g)))``, one call (made so in
every case: no FIR-only plan is needed), and for a cascade of sections
``flip(sosfilt(sos, flip(g)))``. The final state: with N zeros
appended, ``zf[m] = Σ_{j ≤ m} a_j y_ext[T + m − j]``, so a call that returns ``zf`` and needs
gradients filters N extra zeros and forms ``zf`` from the tail with torch operations. Sections:
with the gradient of x only, the fused cascade runs forward and backward; with coefficient
gradients, one call per section forward (the outputs kept) and S + 1 backward — the last
section's poles on the reversed gradient, then for each earlier section lfilter(b_{s+1}, a_s),
which joins one adjoint step's FIR part to the next one's poles, and the fused cascade
reversed for x; with a state (zi), a chain of differentiable one-section filters. Every
time reversal is a filter run backwards, not a flip: the GPU engine reads and writes the rows
backwards in place (the recurrence crate's reversed layout; where the planned engine reads
rows only, such as the fused sections, the rows are flipped around it), the CPU engine on
flipped host copies. The reversed filter's adjoint in x is the forward filter. The a[0]
normalisation (``b / a[0]``, ``a / a[0]``) is done by torch operations where a coefficient
needs a gradient, so its gradient is autograd's. Every filtering step runs a host plan
(``_torch_plans``): the coefficients read once per call, one synchronisation at most, none in
the backward pass. Backward passes are built from the same
differentiable operations, so second derivatives work too.
"""

from __future__ import annotations

import math
import sys
from typing import Any, List, Optional, Tuple

import numpy as np

from . import _native
from ._arrays import axis_index as _axis
from ._arrays import parse_device, torch_stream
from ._bank import check_channels
from ._torch_plans import BaPlan, SosPlan, ba_plan_of, host_values, sos_plan_of
from ._threads import workers as _workers

_FUNCTIONS: Any = None


def wants_torch(tm: Any, b: Any, a: Any, x: Any, zi: Any) -> bool:
    """Whether a call goes through this module: any torch argument except the plain case of a
    CUDA ``x`` that needs no gradient with non-tensor coefficients and state."""
    T = tm.Tensor
    if isinstance(b, T) or isinstance(a, T) or isinstance(zi, T):
        return True
    if isinstance(x, T):
        return not x.is_cuda or (getattr(x, "requires_grad", False) and tm.is_grad_enabled())
    return False


# ---- one planner call on rows ------------------------------------------------------------

def _rows(
    tm: Any, bl: List[float], al: List[float], x2: Any, z2: Any, sos_shape: Optional[List[int]],
    opts: Tuple[bool, Optional[int]], reverse: bool = False,
) -> Tuple[Any, Any]:
    """One planner call: rows ``x2`` (R, T) contiguous, states ``z2`` (R, state) or None, the
    coefficient lists as the plan gives them (``bl`` the flattened sos and ``al`` empty with
    ``sos_shape``). ``reverse`` (no state): each row filtered backwards in time,
    flip(filter(flip(x))) — on the GPU in place, the kernel reading and writing the rows
    backwards (the planner's engine takes the reversed layout; where it reads rows only, the
    rows are flipped around it). Returns (y, zf or None) as tensors on x2's device."""
    allow_unstable, workers = opts
    # Read by address or as numpy: never part of a graph here, and a lazy negation (a view
    # whose memory holds the negated values) made real first (a no-op otherwise).
    x2 = x2.detach().resolve_neg()
    z2 = None if z2 is None else z2.detach().resolve_neg()
    rows, n = x2.shape
    if rows == 0 or n == 0:
        return tm.empty_like(x2), None if z2 is None else z2.clone()
    if x2.is_cuda:
        name = "float32" if x2.dtype == tm.float32 else "float64"
        y = tm.empty_like(x2)
        zf = None if z2 is None else tm.empty_like(z2)
        dev = x2.get_device()
        ran = _native.filter_cuda(
            bl, al, name, x2.data_ptr(), y.data_ptr(), rows, n, dev, torch_stream(tm, dev),
            None if z2 is None else z2.data_ptr(), None if zf is None else zf.data_ptr(),
            sos_shape=sos_shape, allow_unstable=allow_unstable,
            **(_reversed_rows(n) if reverse else _PLAIN),
        )
        if reverse and not ran:
            y, _ = _rows(tm, bl, al, tm.flip(x2, (-1,)), None, sos_shape, opts)
            return tm.flip(y, (-1,)), None
        return y, zf
    xh = x2.numpy()
    if reverse:
        xh = np.ascontiguousarray(xh[:, ::-1])
    y, zf = _native.filter_rows(
        bl, al, xh, None if z2 is None else z2.numpy(), sos_shape=sos_shape,
        allow_unstable=allow_unstable, workers=_workers(workers),
    )
    if reverse:
        y = np.ascontiguousarray(y[:, ::-1])
    return tm.from_numpy(y), None if zf is None else tm.from_numpy(zf)


_PLAIN: dict = {}


def _reversed_rows(n: int) -> dict:
    return {"sample_stride": -1, "channel_stride": n}


def _index(tm: Any, idx: np.ndarray, device: Any) -> Any:
    """A bank group's channel indices on ``device``, copied without waiting for the device."""
    return tm.from_numpy(idx).to(device, non_blocking=True)


def _apply_ba(tm: Any, x3: Any, plan: BaPlan, z3: Any, opts: Any,
              reverse: bool = False) -> Tuple[Any, Any]:
    """lfilter of x3 (B, C, T) by the bank of ``plan`` (C, K) from states z3 (B, C, K-1) or
    None, with no gradient: one planner call per distinct filter, nothing read from the
    device. ``reverse`` (no state): backwards in time (``_rows``)."""
    calls = plan.calls(z3 is not None)
    B, C, T = x3.shape
    if len(calls) == 1:
        _, bl, al = calls[0]
        y, zf = _rows(tm, bl, al, x3.reshape(B * C, T),
                      None if z3 is None else z3.reshape(B * C, -1), None, opts, reverse)
        return y.reshape(B, C, T), None if zf is None else zf.reshape(z3.shape)
    y = tm.empty_like(x3)
    zf = None if z3 is None else tm.empty_like(z3)
    for idx, bl, al in calls:
        ix = _index(tm, idx, x3.device)
        xs = x3.index_select(1, ix).reshape(-1, T)
        zs = None if z3 is None else z3.index_select(1, ix).reshape(len(idx) * B, -1)
        ys, zfs = _rows(tm, bl, al, xs, zs, None, opts, reverse)
        y.index_copy_(1, ix, ys.reshape(B, len(idx), T))
        if zf is not None:
            zf.index_copy_(1, ix, zfs.reshape(B, len(idx), -1))
    return y, zf


def _apply_sos(tm: Any, x3: Any, plan: SosPlan, z4: Any, opts: Any,
               reverse: bool = False) -> Tuple[Any, Any]:
    """sosfilt of x3 (B, C, T) by the sections bank of ``plan`` (C, S, 6) from states z4
    (B, C, S, 2) or None, with no gradient: the fused cascade, one planner call per distinct
    filter. ``reverse`` (no state): backwards in time (``_rows``)."""
    B, C, T = x3.shape
    S = plan.shape[0]
    if len(plan.calls) == 1:
        flat = plan.calls[0][1]
        y, zf = _rows(tm, flat, [], x3.reshape(B * C, T),
                      None if z4 is None else z4.reshape(B * C, 2 * S), plan.shape, opts,
                      reverse)
        return y.reshape(B, C, T), None if zf is None else zf.reshape(z4.shape)
    y = tm.empty_like(x3)
    zf = None if z4 is None else tm.empty_like(z4)
    for idx, flat in plan.calls:
        ix = _index(tm, idx, x3.device)
        xs = x3.index_select(1, ix).reshape(-1, T)
        zs = None if z4 is None else z4.index_select(1, ix).reshape(-1, 2 * S)
        ys, zfs = _rows(tm, flat, [], xs, zs, plan.shape, opts, reverse)
        y.index_copy_(1, ix, ys.reshape(B, len(idx), T))
        if zf is not None:
            zf.index_copy_(1, ix, zfs.reshape(B, len(idx), S, 2))
    return y, zf


# ---- the autograd functions ----------------------------------------------------------------

def _lagdots(tm: Any, u: Any, vs: List[Any], K: int) -> List[Any]:
    """For each v of ``vs``, (C, K): Σ over rows and t of u[:, c, t] · v[:, c, t − i] for lags
    i < K, one pass over u and v per lag. One channel, both contiguous (the common case): the
    rows laid end to end make each lag one BLAS dot product of the flat arrays, less the i
    products per row boundary that pair a row's head with the previous row's tail (a small
    correction). A bank: a batched product per channel."""
    B, C, T = u.shape
    out = []
    for v in vs:
        flat = C == 1 and u.is_contiguous() and v.is_contiguous()
        uf, vf = u.reshape(-1), v.reshape(-1)
        n = uf.numel()
        cols = []
        for i in range(K):
            if i >= T:
                cols.append(u.new_zeros(C))
            elif flat:
                d = tm.dot(uf[i:], vf[: n - i])
                if i and B > 1:
                    d = d - (u[1:, 0, :i] * v[:-1, 0, T - i :]).sum()
                cols.append(d.reshape(1))
            else:
                a, b = u[..., i:], v[..., : T - i]
                cols.append(tm.einsum("bct,bct->c", a, b) if u.is_cuda else (a * b).sum(dim=(0, 2)))
        out.append(tm.stack(cols, dim=-1))
    return out


def _functions(tm: Any) -> Any:
    global _FUNCTIONS
    if _FUNCTIONS is not None and _FUNCTIONS[0] is tm:
        return _FUNCTIONS[1]

    def flip(t: Any) -> Any:
        return tm.flip(t, dims=(-1,))

    def reversed_ba(g: Any, b: Any, a: Any, opts: Any, plan: Any) -> Any:
        """ReversedFilter, or (no graph being built: grad mode off in a backward pass without
        create_graph) its one planner call without the Function's bookkeeping."""
        if tm.is_grad_enabled():
            return ReversedFilter.apply(g, b, a, opts, plan)
        return _apply_ba(tm, g.contiguous(), plan, None, opts, reverse=True)[0]

    # The coefficients go in twice: as tensors (b, a, sos; None where no gradient can flow
    # to them) for autograd, and as the host plan the forward built from their values, which
    # every filtering step, forward and backward, runs (no device read after the forward's).

    class LinearFilter(tm.autograd.Function):
        """y = lfilter(b, a, x, zi) for x (B, C, T), the bank ``plan`` (C, K) with
        a[:, 0] = 1, its tensors b, a (or None), zi (B, C, K-1) or None."""

        @staticmethod
        def forward(ctx: Any, x: Any, b: Any, a: Any, zi: Any, opts: Any, plan: Any) -> Any:
            y, _ = _apply_ba(tm, x, plan, zi, opts)
            ctx.save_for_backward(x, b, a, y)
            ctx.opts, ctx.plan = opts, plan
            return y

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            x, b, a, y = ctx.saved_tensors
            opts, plan = ctx.opts, ctx.plan
            need_x, need_b, need_a, need_zi = ctx.needs_input_grad[:4]
            dx = db = da = dzi = None
            g = g.contiguous()
            K = plan.a.shape[1]
            # The adjoints run backwards in time, reading g in place (ReversedFilter).
            if need_b or need_a or need_zi:
                u = reversed_ba(g, None, a, opts, plan.unit())
                if need_x:  # Bᵀu as the full filter of g: no FIR-only plan needed
                    dx = reversed_ba(g, b, a, opts, plan)
                if need_b or need_a:
                    lags = _lagdots(tm, u, [t for t, n in ((x, need_b), (y, need_a)) if n], K)
                    if need_b:
                        db = lags.pop(0).to(b.dtype)
                    if need_a:
                        da = (-lags.pop(0)).to(a.dtype)
                if need_zi:
                    T = u.shape[-1]
                    dzi = u[..., : K - 1]
                    if T < K - 1:
                        dzi = tm.nn.functional.pad(dzi, (0, K - 1 - T))
            elif need_x:
                dx = reversed_ba(g, b, a, opts, plan)
            return dx, db, da, dzi, None, None

    class ReversedFilter(tm.autograd.Function):
        """y = flip(lfilter(b, a, flip(x))) for x (B, C, T), the bank ``plan`` (C, K) with
        a[:, 0] = 1 (its tensors b, a or None): one call that reads and writes x backwards in
        place (no flips). Its adjoint in x is the forward filter (J L J transposed is L, L
        being lower-triangular Toeplitz); gradients in b and a (second derivatives only) go
        through the flipped composition."""

        @staticmethod
        def forward(ctx: Any, x: Any, b: Any, a: Any, opts: Any, plan: Any) -> Any:
            y, _ = _apply_ba(tm, x.contiguous(), plan, None, opts, reverse=True)
            ctx.save_for_backward(x, b, a)
            ctx.opts, ctx.plan = opts, plan
            return y

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            x, b, a = ctx.saved_tensors
            opts, plan = ctx.opts, ctx.plan
            need_x, need_b, need_a = ctx.needs_input_grad[:3]
            if need_b or need_a:
                with tm.enable_grad():
                    xs = x.detach().requires_grad_(need_x)
                    y = flip(LinearFilter.apply(flip(xs), b, a, None, opts, plan))
                    wrt = [t for t, n in ((xs, need_x), (b, need_b), (a, need_a)) if n]
                    got = list(tm.autograd.grad(y, wrt, g, create_graph=tm.is_grad_enabled()))
                return (got.pop(0) if need_x else None, got.pop(0) if need_b else None,
                        got.pop(0) if need_a else None, None, None)
            dx = LinearFilter.apply(g.contiguous(), b, a, None, opts, plan) if need_x else None
            return dx, None, None, None, None

    class FusedSections(tm.autograd.Function):
        """y = sosfilt(sos, x) for x (B, C, T), the sections ``plan`` (C, S, 6) a constant:
        one fused call each way (the gradient with respect to x only)."""

        @staticmethod
        def forward(ctx: Any, x: Any, opts: Any, plan: Any) -> Any:
            y, _ = _apply_sos(tm, x, plan, None, opts)
            ctx.opts, ctx.plan = opts, plan
            return y

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            if tm.is_grad_enabled():  # create_graph: the reversed cascade differentiable
                return ReversedSections.apply(g.contiguous(), ctx.opts, ctx.plan), None, None
            y, _ = _apply_sos(tm, g.contiguous(), ctx.plan, None, ctx.opts, reverse=True)
            return y, None, None

    class ReversedSections(tm.autograd.Function):
        """y = flip(sosfilt(sos, flip(x))), sos a constant: backwards in place where the
        planned engine reads the reversed layout; its adjoint is the forward cascade."""

        @staticmethod
        def forward(ctx: Any, x: Any, opts: Any, plan: Any) -> Any:
            y, _ = _apply_sos(tm, x.contiguous(), plan, None, opts, reverse=True)
            ctx.opts, ctx.plan = opts, plan
            return y

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return FusedSections.apply(g.contiguous(), ctx.opts, ctx.plan), None, None

    def chain(x: Any, s3: Any, opts: Any, plan: Any) -> Any:
        """The cascade as one-section filters, every step differentiable."""
        for s in range(s3.shape[1]):
            x = LinearFilter.apply(x, s3[:, s, :3], s3[:, s, 3:], None, opts,
                                   plan.section_ba(s))
        return x

    class SectionChain(tm.autograd.Function):
        """y = sosfilt(sos, x) for x (B, C, T), sos (C, S, 6) with gradients for both and no
        state. Forward: one call per section, its outputs kept. Backward: S + 1 calls — the
        last section's poles on the reversed gradient, then for each earlier section one
        filter joining the later section's numerator to its own poles (lfilter(b_{s+1}, a_s):
        the FIR part of one adjoint step and the all-pole part of the next), and the fused
        cascade reversed for x — with the coefficient gradients as dot products over time."""

        @staticmethod
        def forward(ctx: Any, x: Any, s3: Any, opts: Any, plan: Any) -> Any:
            outs = []
            cur = x
            for s in range(plan.shape[0]):
                cur, _ = _apply_sos(tm, cur, plan.section(s), None, opts)
                outs.append(cur)
            ctx.save_for_backward(x, s3, *outs)
            ctx.opts, ctx.plan = opts, plan
            return cur

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            x, s3, *outs = ctx.saved_tensors
            opts, plan = ctx.opts, ctx.plan
            need_x, need_s = ctx.needs_input_grad[:2]
            if tm.is_grad_enabled():
                # create_graph: the same gradients through differentiable steps, so a second
                # derivative follows them (at the composition's cost).
                with tm.enable_grad():
                    y = chain(x, s3, opts, plan)
                    wrt = [t for t, n in ((x, need_x), (s3, need_s)) if n]
                    got = list(tm.autograd.grad(y, wrt, g, create_graph=True))
                return (got.pop(0) if need_x else None, got.pop(0) if need_s else None,
                        None, None)
            S = plan.shape[0]
            ins = [x] + outs[:-1]  # each section's input; outs[s] is its output
            g = g.contiguous()
            ds = tm.zeros_like(s3) if need_s else None
            u = None
            for s in range(S - 1, -1, -1):
                # The adjoint step backwards in time, in place.
                u, _ = _apply_sos(tm, g if u is None else u, plan.adjoint_step(s), None, opts,
                                  reverse=True)
                if need_s:
                    lb, la = _lagdots(tm, u, [ins[s], outs[s]], 3)
                    ds[:, s, :3] = lb.to(s3.dtype)
                    ds[:, s, 3:] = (-la).to(s3.dtype)
            dx = None
            if need_x:
                dx = _apply_sos(tm, g, plan, None, opts, reverse=True)[0]
            return dx, ds, None, None

    _FUNCTIONS = (tm, (LinearFilter, FusedSections, SectionChain))
    return _FUNCTIONS[1]


# ---- argument handling -----------------------------------------------------------------------

def _x_tensor(tm: Any, x: Any, like: Any) -> Any:
    """x as a floating tensor: x's own float32 / float64, integers and booleans as float64."""
    if not isinstance(x, tm.Tensor):
        arr = np.asarray(x)
        if arr.dtype.kind not in "biuf":
            raise TypeError(f"x of dtype {arr.dtype} is not supported")
        dev = like.device if like is not None else "cpu"
        x = tm.as_tensor(np.ascontiguousarray(arr), device=dev)
    if x.dtype in (tm.float32, tm.float64):
        return x
    if x.dtype.is_complex:
        raise TypeError(f"complex input ({x.dtype}) is not supported")
    if x.dtype.is_floating_point:
        raise TypeError(f"input of dtype {x.dtype} is not supported: use float32 or float64")
    return x.to(tm.float64)


def _coef_tensor(tm: Any, c: Any, name: str, device: Any) -> Any:
    if isinstance(c, tm.Tensor):
        if c.dtype.is_complex:
            raise TypeError(f"{name}: complex coefficients are not supported")
        if not c.dtype.is_floating_point:
            c = c.to(tm.float64)
        return c.to(device)
    arr = np.asarray(c)
    if arr.dtype.kind == "c":
        raise TypeError(f"{name}: complex coefficients are not supported")
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name}: coefficients must be numbers, not {arr.dtype}")
    # Copied without waiting for the device (a pageable host-to-device copy is staged at once).
    return tm.from_numpy(arr.astype(np.float64)).to(device, non_blocking=True)


def _coef(tm: Any, c: Any, name: str) -> Any:
    """A coefficient argument as given: a floating tensor (on its own device), or a float64
    numpy array; complex and non-numeric values refused."""
    if isinstance(c, tm.Tensor):
        if c.dtype.is_complex:
            raise TypeError(f"{name}: complex coefficients are not supported")
        return c if c.dtype.is_floating_point else c.to(tm.float64)
    arr = np.asarray(c)
    if arr.dtype.kind == "c":
        raise TypeError(f"{name}: complex coefficients are not supported")
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name}: coefficients must be numbers, not {arr.dtype}")
    return arr.astype(np.float64)


def _hosts(tm: Any, cs: List[Any]) -> List[Any]:
    """Host values of ``_coef`` results: numpy arrays as they are, every tensor read in one
    transfer (``host_values``)."""
    ts = [c for c in cs if isinstance(c, tm.Tensor)]
    got = iter(host_values(tm, ts)) if ts else iter(())
    return [next(got) if isinstance(c, tm.Tensor) else c for c in cs]


def _on(tm: Any, c: Any, device: Any) -> Any:
    """A ``_coef`` result as a tensor on ``device`` (numpy copied without waiting)."""
    if isinstance(c, tm.Tensor):
        return c.to(device, non_blocking=True)  # differentiable; a host tensor is staged at once
    return tm.from_numpy(np.ascontiguousarray(c)).to(device, non_blocking=True)


def _device_check(x: Any, device: Optional[str]) -> None:
    dev = parse_device(device)
    if dev is None:
        return
    here = -1 if not x.is_cuda else x.get_device()
    if dev != here:
        raise ValueError(
            f"device={device!r} but x is on {x.device}: move the tensor first (x.to(...))"
        )


def _grad_wanted(tm: Any, *ts: Any) -> bool:
    return tm.is_grad_enabled() and any(isinstance(t, tm.Tensor) and t.requires_grad for t in ts)


def lfilter(
    b: Any, a: Any, x: Any, axis: int, zi: Any, device: Optional[str], allow_unstable: bool,
    workers: Optional[int],
) -> Any:
    """``sigpu.lfilter`` with torch arguments (module notes)."""
    tm = sys.modules["torch"]
    like = next((t for t in (x, b, a, zi) if isinstance(t, tm.Tensor)), None)
    x = _x_tensor(tm, x, like)
    _device_check(x, device)
    grad = _grad_wanted(tm, x, b, a, zi)
    bc, ac = _coef(tm, b, "b"), _coef(tm, a, "a")
    bc = bc.reshape(1) if bc.ndim == 0 else bc  # a scalar is one tap, as scipy takes it
    ac = ac.reshape(1) if ac.ndim == 0 else ac
    for t, name in ((bc, "b"), (ac, "a")):
        if t.ndim not in (1, 2) or t.shape[-1] == 0:
            raise ValueError(
                f"{name} must be 1-D (one filter) or 2-D (channels, taps) for a filter bank, "
                f"non-empty, got shape {tuple(t.shape)}"
            )
    bank = bc.ndim == 2 or ac.ndim == 2
    Cb = bc.shape[0] if bc.ndim == 2 else 1
    Ca = ac.shape[0] if ac.ndim == 2 else 1
    if Cb != Ca and 1 not in (Cb, Ca):
        raise ValueError(f"b has {Cb} filters and a has {Ca}")
    C = max(Cb, Ca)
    K = max(bc.shape[-1], ac.shape[-1])
    # The planner's coefficients: read to the host once (one transfer for every device
    # tensor), normalised there as torch does it on the device, planned by value.
    bh, ah = _hosts(tm, [bc, ac])
    bh = bh if bh.ndim == 2 else bh[None]
    ah = ah if ah.ndim == 2 else ah[None]
    plan = ba_plan_of(tm, bh, ah, C, K)
    # The tensors autograd differentiates (where a coefficient requires grad): the same
    # normalisation by torch operations, so the gradient of a[0] is autograd's.
    b2 = a2 = None
    if grad and any(isinstance(c, tm.Tensor) and c.requires_grad for c in (bc, ac)):
        bt, at = _on(tm, bc, x.device), _on(tm, ac, x.device)
        b2 = bt if bt.dim() == 2 else bt.unsqueeze(0)
        a2 = at if at.dim() == 2 else at.unsqueeze(0)
        b2, a2 = b2.expand(C, -1), a2.expand(C, -1)
        a0 = a2[:, :1]
        b2 = tm.nn.functional.pad(b2, (0, K - b2.shape[1])) / a0
        a2 = tm.nn.functional.pad(a2, (0, K - a2.shape[1])) / a0
    N = K - 1
    if x.dim() == 0:
        raise ValueError("x must have at least one dimension")
    ax = _axis(axis, x.dim())
    xm = tm.movedim(x, ax, -1)
    if bank:
        check_channels(tuple(xm.shape), C, "b, a")
    T = xm.shape[-1]
    x3 = _rows3(xm, C if bank else 1)
    if not grad:
        x3 = x3.detach()
    z3 = None
    if zi is not None:
        want = tuple(x.shape[:ax]) + (N,) + tuple(x.shape[ax + 1 :])
        z = _coef_tensor(tm, zi, "zi", x.device).to(x.dtype)
        state_at = ax - (len(want) - z.dim())  # the state axis, its N values (scipy's rule)
        try:
            if state_at < 0 or z.shape[state_at] != N:
                raise RuntimeError
            z = z.broadcast_to(want)
        except RuntimeError:
            raise ValueError(
                f"zi has shape {tuple(z.shape)}; it must be {want} (x's shape with axis {ax} "
                f"replaced by max(len(a), len(b)) - 1 = {N})"
            ) from None
        z3 = tm.movedim(z, ax, -1).reshape(x3.shape[0], x3.shape[1], N).contiguous()
        if not grad:
            z3 = z3.detach()
    opts = (bool(allow_unstable), workers)
    if not grad:
        with tm.no_grad():
            y3, zf3 = _apply_ba(tm, x3, plan, z3, opts)
    else:
        linear = _functions(tm)[0]
        if z3 is None:
            y3, zf3 = linear.apply(x3, b2, a2, None, opts, plan), None
        else:
            ext = linear.apply(tm.nn.functional.pad(x3, (0, N)), b2, a2, z3, opts, plan)
            af = a2 if a2 is not None else _on(tm, plan.a, x.device)
            y3, zf3 = ext[..., :T], _final_state(tm, ext[..., T:], af)
    y = tm.movedim(y3.reshape(xm.shape), -1, ax)
    if zi is None:
        return y
    zshape = tuple(xm.shape[:-1]) + (N,)
    return y, tm.movedim(zf3.reshape(zshape), -1, ax)


def _rows3(xm: Any, channels: int) -> Any:
    """x with the filtered axis last as contiguous (rows, channels, T) (empty shapes too)."""
    rows = math.prod(xm.shape[:-1]) // channels
    return xm.reshape(rows, channels, xm.shape[-1]).contiguous()


def _final_state(tm: Any, tail: Any, a: Any) -> Any:
    """zf[m] = Σ_{j ≤ m} a_j tail[m − j] for tail (B, C, N), a (C, K)."""
    N = tail.shape[-1]
    a = a.to(tail.dtype)  # zf has x's dtype, whatever the coefficients' is
    zf = tail
    for j in range(1, N):
        shifted = tm.nn.functional.pad(tail[..., : N - j], (j, 0))
        zf = zf + a[:, j].unsqueeze(-1) * shifted
    return zf


def sosfilt(
    sos: Any, x: Any, axis: int, zi: Any, device: Optional[str], allow_unstable: bool,
    workers: Optional[int],
) -> Any:
    """``sigpu.sosfilt`` with torch arguments (module notes)."""
    tm = sys.modules["torch"]
    like = next((t for t in (x, sos, zi) if isinstance(t, tm.Tensor)), None)
    x = _x_tensor(tm, x, like)
    _device_check(x, device)
    grad = _grad_wanted(tm, x, sos, zi)
    sc = _coef(tm, sos, "sos")
    if sc.ndim == 1:
        sc = sc.reshape(1, -1)
    if sc.ndim not in (2, 3) or sc.shape[-1] != 6 or sc.shape[-2] == 0:
        raise ValueError(
            f"sos must have shape (n_sections, 6), or (channels, n_sections, 6) for a filter "
            f"bank, got {tuple(sc.shape)}"
        )
    bank = sc.ndim == 3
    (sh,) = _hosts(tm, [sc])  # one transfer for a device tensor
    sh = sh if bank else sh[None]
    plan = sos_plan_of(tm, sh)
    C, S = sh.shape[0], sh.shape[1]
    coef_grad = grad and isinstance(sc, tm.Tensor) and sc.requires_grad
    s3 = None
    if coef_grad:
        s3 = _on(tm, sc, x.device)
        s3 = s3 if bank else s3.unsqueeze(0)
        # Normalised by a[0] (= 1) through torch, so a gradient for column 3 is autograd's.
        s3 = tm.cat([s3[..., :3] / s3[..., 3:4], s3[..., 3:] / s3[..., 3:4]], dim=-1)
    if x.dim() == 0:
        raise ValueError("x must have at least one dimension")
    ax = _axis(axis, x.dim())
    xm = tm.movedim(x, ax, -1)
    if bank:
        check_channels(tuple(xm.shape), C, "sos")
    T = xm.shape[-1]
    x3 = _rows3(xm, C if bank else 1)
    z4 = None
    if zi is not None:
        want = (S,) + tuple(x.shape[:ax]) + (2,) + tuple(x.shape[ax + 1 :])
        z = _coef_tensor(tm, zi, "zi", x.device).to(x.dtype)
        if tuple(z.shape) != want:
            raise ValueError(
                f"zi has shape {tuple(z.shape)}; it must be {want} (n_sections, then x's shape "
                f"with axis {ax} replaced by 2)"
            )
        # (S, ..., 2 at ax+1, ...) → (B, C, S, 2)
        z = tm.movedim(tm.movedim(z, ax + 1, -1), 0, -2)
        z4 = z.reshape(x3.shape[0], x3.shape[1], S, 2).contiguous()
    opts = (bool(allow_unstable), workers)
    if not grad:
        with tm.no_grad():
            y3, zf4 = _apply_sos(tm, x3.detach(), plan, None if z4 is None else z4.detach(),
                                 opts)
    elif z4 is None and not coef_grad:
        y3, zf4 = _functions(tm)[1].apply(x3, opts, plan), None
    elif z4 is None:
        y3, zf4 = _functions(tm)[2].apply(x3, s3, opts, plan), None
    else:
        linear = _functions(tm)[0]
        if s3 is None:  # the final states' arithmetic needs the poles on the device
            s3 = _on(tm, plan.s, x.device)
        cur, zfs = x3, []
        for s in range(S):
            b, a = s3[:, s, :3], s3[:, s, 3:]
            ext = linear.apply(tm.nn.functional.pad(cur, (0, 2)), b, a,
                               z4[:, :, s, :].contiguous(), opts, plan.section_ba(s))
            cur = ext[..., :T]
            zfs.append(_final_state(tm, ext[..., T:], a))
        y3 = cur
        zf4 = tm.stack(zfs, dim=2)
    y = tm.movedim(y3.reshape(xm.shape), -1, ax)
    if zi is None:
        return y
    zf = zf4.reshape(tuple(xm.shape[:-1]) + (S, 2))
    return y, tm.movedim(tm.movedim(zf, -2, 0), -1, ax + 1)
