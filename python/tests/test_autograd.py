"""PyTorch gradients of lfilter and sosfilt, and filter banks: torch.autograd.gradcheck in
float64 (orders 1-4 with and without zi, batched along an axis; 1-4 sections), values and
gradients against autograd through a naive per-sample torch loop of scipy's transposed direct
form, second derivatives, and banks against one scipy call per channel. CPU tensors here;
the CUDA twins are at the end behind the GPU gate (SIGPU_REQUIRE_GPU=1 there: a failure
without a GPU or torch). Skipped when torch is not installed."""

from __future__ import annotations

import os

import numpy as np
import pytest
import scipy.signal as ss

import sigpu

if os.environ.get("SIGPU_REQUIRE_GPU") == "1":
    import torch  # noqa: F401  (the GPU machine must have it)
else:
    torch = pytest.importorskip("torch")

RNG = np.random.default_rng(28)


def stable_ba(order: int, seed: int):
    """A random stable (b, a) of the order: poles of radius 0.5-0.9, conjugate pairs."""
    rng = np.random.default_rng(seed)
    poles = []
    while len(poles) < order:
        r, th = rng.uniform(0.5, 0.9), rng.uniform(0.2, 2.8)
        if order - len(poles) >= 2:
            poles += [r * np.exp(1j * th), r * np.exp(-1j * th)]
        else:
            poles.append(rng.uniform(-0.9, 0.9))
    a = np.real(np.poly(poles)) * rng.uniform(0.5, 2.0)  # a[0] != 1 on purpose
    b = rng.standard_normal(order + 1)
    return b, a


def naive_lfilter(b, a, x, zi=None):
    """scipy's transposed direct form, one sample at a time, in torch (autograd's reference).
    b, a (C, K) or (K,); x (..., C, T) or (..., T); zi (..., C, K-1) or None."""
    if b.dim() == 1:
        b, a = b.unsqueeze(0), a.unsqueeze(0)
        x = x.unsqueeze(-2)
        zi = None if zi is None else zi.unsqueeze(-2)
        y, zf = naive_lfilter(b, a, x, zi)
        return y.squeeze(-2), zf.squeeze(-2)
    K = max(b.shape[1], a.shape[1])
    b = torch.nn.functional.pad(b, (0, K - b.shape[1])) / a[:, :1]
    a = torch.nn.functional.pad(a, (0, K - a.shape[1])) / a[:, :1]
    N = K - 1
    z = [zi[..., m] if zi is not None else x[..., 0] * 0 for m in range(N)]
    ys = []
    for t in range(x.shape[-1]):
        xt = x[..., t]
        yt = b[:, 0] * xt + (z[0] if N else 0)
        z = [b[:, m + 1] * xt + (z[m + 1] if m + 1 < N else 0) - a[:, m + 1] * yt
             for m in range(N)]
        ys.append(yt)
    zf = torch.stack(z, -1) if N else x[..., :0]
    return torch.stack(ys, -1), zf


def naive_sosfilt(sos, x, zi=None):
    """sos (S, 6) or (C, S, 6); zi (S, ..., 2) with x (..., T)."""
    zfs = []
    for s in range(sos.shape[-2]):
        sec = sos[..., s, :]
        x, zf = naive_lfilter(sec[..., :3], sec[..., 3:], x, None if zi is None else zi[s])
        zfs.append(zf)
    return x, torch.stack(zfs, 0)


def t64(a, grad=True):
    return torch.tensor(np.asarray(a), dtype=torch.float64, requires_grad=grad)


# ---- lfilter ---------------------------------------------------------------------------------

@pytest.mark.parametrize("order", [1, 2, 3, 4])
@pytest.mark.parametrize("with_zi", [False, True])
def test_lfilter_gradcheck(order, with_zi):
    """x (2, 13, 3) filtered along axis 1: gradients w.r.t. x, b, a (a[0] != 1) and zi."""
    b, a = stable_ba(order, order)
    x = t64(RNG.standard_normal((2, 13, 3)))
    args = [x, t64(b), t64(a)]
    if with_zi:
        args.append(t64(RNG.standard_normal((2, order, 3))))

        def f(x, b, a, zi):
            return sigpu.lfilter(b, a, x, axis=1, zi=zi)
    else:

        def f(x, b, a):
            return sigpu.lfilter(b, a, x, axis=1)
    assert torch.autograd.gradcheck(f, tuple(args), eps=1e-6, atol=1e-7)


@pytest.mark.parametrize("nb, na", [(3, 3), (5, 2), (1, 4), (4, 1)])
def test_lfilter_values_and_gradients_equal_the_naive_loop(nb, na):
    """Unequal b and a lengths (FIR and all-pole included), zi, f64 and f32."""
    rng = np.random.default_rng(nb * 10 + na)
    b = rng.standard_normal(nb)
    a = np.atleast_1d(1.5 * np.poly(rng.uniform(-0.8, 0.8, na - 1)))  # stable, a[0] = 1.5
    n = max(nb, na) - 1
    x0 = rng.standard_normal((3, 40))
    z0 = rng.standard_normal((3, n))
    for dt, tol in ((torch.float64, 1e-10), (torch.float32, 2e-4)):
        ins = [torch.tensor(v, dtype=dt, requires_grad=True) for v in (x0, b, a, z0)]
        ref_in = [t.detach().clone().requires_grad_() for t in ins]
        y, zf = sigpu.lfilter(ins[1], ins[2], ins[0], zi=ins[3])
        yr, zfr = naive_lfilter(ref_in[1], ref_in[2], ref_in[0], ref_in[3])
        assert y.dtype == dt and zf.dtype == dt
        torch.testing.assert_close(y, yr, atol=tol, rtol=tol)
        torch.testing.assert_close(zf, zfr, atol=tol, rtol=tol)
        w = torch.tensor(rng.standard_normal(x0.shape), dtype=dt)
        wz = torch.tensor(rng.standard_normal(z0.shape), dtype=dt)
        ((y * w).sum() + (zf * wz).sum()).backward()
        ((yr * w).sum() + (zfr * wz).sum()).backward()
        for got, want in zip(ins, ref_in):
            torch.testing.assert_close(got.grad, want.grad, atol=tol * 50, rtol=tol * 50)


def test_mixed_dtypes_keep_x_dtype_and_each_gradient_its_input_dtype():
    b, a = ss.butter(2, 0.2)
    x = torch.randn(2, 50, requires_grad=True)  # float32
    zi = torch.zeros(2, 2, requires_grad=True)
    bt, at = t64(b), t64(a)
    y, zf = sigpu.lfilter(bt, at, x, zi=zi)
    assert y.dtype == zf.dtype == torch.float32
    (y.sum() + zf.sum()).backward()
    assert x.grad.dtype == zi.grad.dtype == torch.float32
    assert bt.grad.dtype == at.grad.dtype == torch.float64
    sos = t64(ss.butter(4, 0.2, output="sos"))
    y, zf = sigpu.sosfilt(sos, x, zi=torch.zeros(2, 2, 2))
    assert y.dtype == zf.dtype == torch.float32
    y.sum().backward()
    assert sos.grad.dtype == torch.float64


def test_lfilter_gradient_of_x_alone_is_one_time_reversed_call():
    """Only x requires grad: the backward pass is flip(lfilter(b, a, flip(g)))."""
    b, a = ss.butter(3, 0.2)
    x = t64(RNG.standard_normal((4, 64)))
    y = sigpu.lfilter(b, a, x)
    g = torch.tensor(RNG.standard_normal((4, 64)))
    (dx,) = torch.autograd.grad(y, x, g)
    want = np.flip(ss.lfilter(b, a, np.flip(g.numpy(), -1)), -1)
    np.testing.assert_allclose(dx.numpy(), want, atol=1e-12)


def test_lfilter_gradgradcheck():
    b, a = stable_ba(2, 7)
    x = t64(RNG.standard_normal((2, 9)))
    zi = t64(RNG.standard_normal((2, 2)))
    assert torch.autograd.gradgradcheck(
        lambda x, b, a, zi: sigpu.lfilter(b, a, x, zi=zi), (x, t64(b), t64(a), zi),
        eps=1e-6, atol=1e-6,
    )


def test_lfilter_short_signals_and_empty_input_keep_gradients():
    """T < the state length and T = 0: zf and its gradient still follow scipy."""
    b, a = stable_ba(3, 3)
    for T in (0, 1, 2):
        x = t64(RNG.standard_normal((2, T)))
        zi = t64(RNG.standard_normal((2, 3)))
        y, zf = sigpu.lfilter(t64(b, False), t64(a, False), x, zi=zi)
        want_y, want_zf = ss.lfilter(b, a, x.detach().numpy(), zi=zi.detach().numpy())
        if T == 0:  # scipy returns an uninitialised zf there; the state is unchanged
            want_zf = zi.detach().numpy()
        np.testing.assert_allclose(y.detach().numpy(), want_y, atol=1e-12)
        np.testing.assert_allclose(zf.detach().numpy(), want_zf, atol=1e-12)
        xs = (x,) if T else ()  # gradcheck takes no empty input
        assert torch.autograd.gradcheck(
            lambda *v: sigpu.lfilter(b, a, v[0] if T else x, zi=v[-1]), xs + (zi,),
            eps=1e-6, atol=1e-7,
        )


# ---- sosfilt ---------------------------------------------------------------------------------

@pytest.mark.parametrize("sections", [1, 2, 3, 4])
@pytest.mark.parametrize("with_zi", [False, True])
def test_sosfilt_gradcheck(sections, with_zi):
    """Gradients w.r.t. x, the sections' b and a[1:] (a[0] = 1 is required, so gradcheck
    must not perturb it) and zi."""
    sos = ss.butter(2 * sections, 0.3, output="sos")
    x = t64(RNG.standard_normal((3, 11, 2)))
    args = [x, t64(sos[:, :3]), t64(sos[:, 4:])]
    one = torch.ones(sections, 1, dtype=torch.float64)
    if with_zi:
        args.append(t64(RNG.standard_normal((sections, 3, 2, 2))))

        def f(x, sb, sa, zi):
            return sigpu.sosfilt(torch.cat([sb, one, sa], 1), x, axis=1, zi=zi)
    else:

        def f(x, sb, sa):
            return sigpu.sosfilt(torch.cat([sb, one, sa], 1), x, axis=1)
    assert torch.autograd.gradcheck(f, tuple(args), eps=1e-6, atol=1e-7)


def test_sosfilt_gradient_of_x_alone_runs_the_fused_cascade_reversed():
    sos = ss.butter(8, 0.05, output="sos")
    x = t64(RNG.standard_normal((3, 200)))
    g = RNG.standard_normal((3, 200))
    (dx,) = torch.autograd.grad(sigpu.sosfilt(sos, x), x, torch.tensor(g))
    np.testing.assert_allclose(dx.numpy(), np.flip(ss.sosfilt(sos, np.flip(g, -1)), -1),
                               atol=1e-10)
    assert torch.autograd.gradgradcheck(lambda x: sigpu.sosfilt(sos, x), (x[:, :20],))


def test_sosfilt_coefficient_gradients_have_second_derivatives():
    """The section chain's fast backward (S + 1 calls) and, under create_graph, its
    differentiable rebuild."""
    sos = ss.butter(4, 0.3, output="sos")
    one = torch.ones(2, 1, dtype=torch.float64)
    x = t64(RNG.standard_normal((2, 10)))
    assert torch.autograd.gradgradcheck(
        lambda x, sb, sa: sigpu.sosfilt(torch.cat([sb, one, sa], 1), x),
        (x, t64(sos[:, :3]), t64(sos[:, 4:])), eps=1e-6, atol=1e-6,
    )


def test_sosfilt_values_and_gradients_equal_the_naive_loop():
    sos0 = ss.cheby1(6, 1, 0.25, output="sos")
    x0 = RNG.standard_normal((2, 50))
    z0 = RNG.standard_normal((3, 2, 2))
    for dt, tol in ((torch.float64, 1e-10), (torch.float32, 2e-4)):
        ins = [torch.tensor(v, dtype=dt, requires_grad=True) for v in (x0, sos0, z0)]
        ref = [t.detach().clone().requires_grad_() for t in ins]
        y, zf = sigpu.sosfilt(ins[1], ins[0], zi=ins[2])
        yr, zfr = naive_sosfilt(ref[1], ref[0], ref[2])
        # Without zi: the section chain (its own backward) against the same loop.
        y2 = sigpu.sosfilt(ins[1], ins[0])
        y2r, _ = naive_sosfilt(ref[1], ref[0])
        torch.testing.assert_close(y2, y2r, atol=tol, rtol=tol)
        g2 = torch.autograd.grad(y2.square().sum(), (ins[0], ins[1]))
        g2r = torch.autograd.grad(y2r.square().sum(), (ref[0], ref[1]))
        for got, want in zip(g2, g2r):
            torch.testing.assert_close(got, want, atol=tol * 100, rtol=tol * 100)
        torch.testing.assert_close(y, yr, atol=tol, rtol=tol)
        torch.testing.assert_close(zf, zfr, atol=tol, rtol=tol)
        (y.square().sum() + zf.sum()).backward()
        (yr.square().sum() + zfr.sum()).backward()
        for got, want in zip(ins, ref):
            torch.testing.assert_close(got.grad, want.grad, atol=tol * 100, rtol=tol * 100)


# ---- zero-phase filtering ---------------------------------------------------------------------

@pytest.mark.parametrize("padtype", ["odd", "even", "constant", None])
def test_filtfilt_and_sosfiltfilt_on_tensors_equal_scipy_and_are_differentiable(padtype):
    b, a = ss.butter(3, 0.2)
    sos = ss.butter(4, 0.15, output="sos")
    x = RNG.standard_normal((2, 80))
    y = sigpu.filtfilt(torch.tensor(b), torch.tensor(a), torch.tensor(x), padtype=padtype)
    np.testing.assert_allclose(y.numpy(), ss.filtfilt(b, a, x, padtype=padtype), atol=1e-10)
    y = sigpu.sosfiltfilt(sos, torch.tensor(x.T), axis=0, padtype=padtype)
    np.testing.assert_allclose(y.numpy(), ss.sosfiltfilt(sos, x.T, axis=0, padtype=padtype),
                               atol=1e-10)
    xs = t64(x[:, :30])
    one = torch.ones(2, 1, dtype=torch.float64)
    assert torch.autograd.gradcheck(
        lambda x, b, a: sigpu.filtfilt(b, a, x, padtype=padtype, padlen=6),
        (xs, t64(b), t64(a)), eps=1e-6, atol=1e-7, fast_mode=True,
    )
    assert torch.autograd.gradcheck(
        lambda x, sb, sa: sigpu.sosfiltfilt(torch.cat([sb, one, sa], 1), x, padtype=padtype,
                                            padlen=5),
        (xs, t64(sos[:, :3]), t64(sos[:, 4:])), eps=1e-6, atol=1e-7, fast_mode=True,
    )


def test_steady_state_helpers_on_tensors_equal_scipy_and_are_differentiable():
    b, a = ss.cheby1(4, 1, 0.2)
    sos = ss.bessel(3, 0.2, output="sos")  # a first-order section among them
    np.testing.assert_allclose(sigpu.lfilter_zi(torch.tensor(b), torch.tensor(a)).numpy(),
                               ss.lfilter_zi(b, a), rtol=1e-10)
    np.testing.assert_allclose(sigpu.sosfilt_zi(torch.tensor(sos)).numpy(), ss.sosfilt_zi(sos),
                               rtol=1e-10)
    bank = sigpu.lfilter_zi(torch.tensor(np.stack([b, b * 2])), torch.tensor(a))
    np.testing.assert_allclose(bank[1].numpy(), ss.lfilter_zi(b * 2, a), rtol=1e-10)
    assert torch.autograd.gradcheck(lambda b, a: sigpu.lfilter_zi(b, a), (t64(b), t64(a)))


def test_filtfilt_of_a_bank_filters_each_channel_zero_phase():
    b, a = _bank(3, 2)
    sos = np.stack([ss.butter(2, f, output="sos") for f in (0.1, 0.2, 0.3)])
    x = RNG.standard_normal((2, 3, 60))
    y = sigpu.filtfilt(torch.tensor(b), torch.tensor(a), torch.tensor(x))
    ys = sigpu.sosfiltfilt(torch.tensor(sos), torch.tensor(x))
    for c in range(3):
        np.testing.assert_allclose(y[:, c].numpy(), ss.filtfilt(b[c], a[c], x[:, c]),
                                   atol=1e-10)
        np.testing.assert_allclose(ys[:, c].numpy(), ss.sosfiltfilt(sos[c], x[:, c]),
                                   atol=1e-10)


# ---- tensors without gradients ----------------------------------------------------------------

def test_cpu_tensors_come_back_as_tensors_of_their_dtype():
    b, a = ss.butter(4, 0.1)
    x = RNG.standard_normal((2, 1000))
    for dt in (torch.float32, torch.float64):
        y = sigpu.lfilter(b, a, torch.tensor(x, dtype=dt))
        assert isinstance(y, torch.Tensor) and y.dtype == dt and not y.requires_grad
        np.testing.assert_allclose(y.numpy(), ss.lfilter(b, a, x),
                                   atol=1e-10 if dt == torch.float64 else 1e-4)
    y = sigpu.lfilter(b, a, torch.arange(10))
    assert y.dtype == torch.float64
    with torch.no_grad():
        y = sigpu.lfilter(b, a, torch.ones(5, requires_grad=True))
    assert not y.requires_grad


@pytest.mark.parametrize("order", [8, 6, 4])
def test_float32_cpu_tensors_keep_the_contract(order):
    """The float32 engine with float64 coefficients (butter(8 | 6 | 4, 0.02)): within 4x
    scipy's float32 error, or refused with the way out."""
    from test_filters import assert_contract

    assert_contract(lambda b, a, x: sigpu.lfilter(b, a, torch.from_numpy(x)).numpy(), order,
                    np.float32)


def test_filter_objects_take_cpu_tensors_and_stream_them():
    b, a = ss.butter(3, 0.1)
    sos = ss.butter(4, 0.1, output="sos")
    x = torch.randn(2, 300)
    for f, want in ((sigpu.Filter(b, a), ss.lfilter(b, a, x.numpy())),
                    (sigpu.Sos(sos), ss.sosfilt(sos, x.numpy()))):
        y = torch.cat([f.process(x[:, :100]), f.process(x[:, 100:])], dim=-1)
        assert isinstance(y, torch.Tensor) and y.dtype == torch.float32
        np.testing.assert_allclose(y.numpy(), want, atol=1e-4)


def test_bad_torch_arguments_are_refused_with_the_reason():
    x = torch.ones(8)
    for call, err, words in (
        (lambda: sigpu.lfilter([1.0], [0.0, 1.0], x), ValueError, r"a\[0\]"),
        (lambda: sigpu.lfilter(torch.ones(2, 2, 2), [1.0], x), ValueError, "2-D"),
        (lambda: sigpu.lfilter([1.0], [1.0], x.half()), TypeError, "float32"),
        (lambda: sigpu.lfilter([1.0, float("nan")], [1.0], x), ValueError, "finite"),
        (lambda: sigpu.lfilter([1.0, 1.0], [1.0], x, zi=torch.ones(3)), ValueError, "zi"),
        (lambda: sigpu.lfilter(torch.ones(3, 2), [1.0], torch.ones(2, 8)), ValueError, "bank"),
        (lambda: sigpu.sosfilt(torch.ones(2, 5), x), ValueError, "n_sections, 6"),
        (lambda: sigpu.sosfilt(torch.tensor([[1.0, 0, 0, 2, 0, 0]]), x), ValueError, r"a\[0\]"),
        (lambda: sigpu.lfilter([1.0], [1.0], x, device="cuda"), ValueError, "move"),
    ):
        with pytest.raises(err, match=words):
            call()


# ---- filter banks --------------------------------------------------------------------------

def _bank(channels: int, order: int):
    bs, as_ = zip(*(stable_ba(order, 100 + c) for c in range(channels)))
    return np.array(bs), np.array(as_)


@pytest.mark.parametrize("lib", ["numpy", "torch"])
def test_lfilter_bank_filters_each_channel_by_its_filter(lib):
    """x (2, 4, 300): channel c by filter c (channels 1 and 3 share one: one call for both),
    with zi; axis 0 with the channels on axis 1 too."""
    b, a = _bank(4, 2)
    b[3], a[3] = b[1], a[1]
    x = RNG.standard_normal((2, 4, 300))
    zi = RNG.standard_normal((2, 4, 2))
    conv = (lambda v: v) if lib == "numpy" else torch.tensor
    y, zf = sigpu.lfilter(conv(b), conv(a), conv(x), zi=conv(zi))
    for c in range(4):
        want, wzf = ss.lfilter(b[c], a[c], x[:, c], zi=zi[:, c])
        np.testing.assert_allclose(np.asarray(y)[:, c], want, atol=1e-10)
        np.testing.assert_allclose(np.asarray(zf)[:, c], wzf, atol=1e-10)
    xt = np.moveaxis(x, -1, 0)  # (300, 2, 4): time first, channels last ... moved: (2, 4, 300)
    y0 = sigpu.lfilter(conv(b), conv(a), conv(xt), axis=0)
    np.testing.assert_allclose(np.moveaxis(np.asarray(y0), 0, -1),
                               np.asarray(sigpu.lfilter(b, a, x)), atol=1e-12)


@pytest.mark.parametrize("lib", ["numpy", "torch"])
def test_sosfilt_bank_filters_each_channel_by_its_sections(lib):
    sos = np.stack([ss.butter(4, f, output="sos") for f in (0.1, 0.2, 0.3)])
    x = RNG.standard_normal((5, 3, 200)).astype(np.float32)
    conv = (lambda v: v) if lib == "numpy" else torch.tensor
    y = np.asarray(sigpu.sosfilt(conv(sos), conv(x)))
    assert y.dtype == (np.float64 if lib == "numpy" else np.float32)  # scipy's result type
    for c in range(3):
        np.testing.assert_allclose(y[:, c], ss.sosfilt(sos[c], x[:, c]), atol=1e-5)


def test_sosfilt_bank_with_zi_on_any_axis():
    """sos (3, 2, 6), x (40, 2, 3) filtered along axis 0 (moved last: (2, 3, 40), so the
    channels are x's last axis), zi of scipy's shape (2, 2, 2, 3): numpy and torch, with and
    without gradients."""
    sos = np.stack([ss.butter(4, f, output="sos") for f in (0.1, 0.2, 0.3)])
    x = RNG.standard_normal((40, 2, 3))
    zi = RNG.standard_normal((2, 2, 2, 3))
    want = [ss.sosfilt(sos[c], x[..., c], axis=0, zi=zi[..., c]) for c in range(3)]
    for conv in (lambda v: v, torch.tensor, lambda v: torch.tensor(v, requires_grad=True)):
        y, zf = sigpu.sosfilt(conv(sos), conv(x), axis=0, zi=conv(zi))
        y, zf = (np.asarray(v.detach() if isinstance(v, torch.Tensor) else v) for v in (y, zf))
        for c in range(3):
            np.testing.assert_allclose(y[..., c], want[c][0], atol=1e-10)
            np.testing.assert_allclose(zf[..., c], want[c][1], atol=1e-10)


def test_banks_are_differentiable():
    b, a = _bank(3, 2)
    x = t64(RNG.standard_normal((2, 3, 12)))
    zi = t64(RNG.standard_normal((2, 3, 2)))
    assert torch.autograd.gradcheck(
        lambda x, b, a, zi: sigpu.lfilter(b, a, x, zi=zi), (x, t64(b), t64(a), zi),
        eps=1e-6, atol=1e-7,
    )
    sos = np.stack([ss.butter(2, f, output="sos") for f in (0.1, 0.3, 0.3)])  # (3, 1, 6)
    one = torch.ones(3, 1, 1, dtype=torch.float64)
    assert torch.autograd.gradcheck(
        lambda x, sb, sa: sigpu.sosfilt(torch.cat([sb, one, sa], -1), x),
        (x, t64(sos[..., :3]), t64(sos[..., 4:])), eps=1e-6, atol=1e-7,
    )
    # The coefficient gradient of a channel comes from that channel only, shared values or not.
    bt, at = t64(np.stack([b[0]] * 3)), t64(np.stack([a[0]] * 3))
    y = sigpu.lfilter(bt, at, x.detach())
    (y[:, 1].sum()).backward()
    assert bt.grad[0].abs().max() == 0 and bt.grad[1].abs().max() > 0


def test_a_bank_refuses_a_mismatched_channel_axis():
    b, a = _bank(3, 2)
    with pytest.raises(ValueError, match=r"\(\.\.\., 3, n\)"):
        sigpu.lfilter(b, a, np.ones((4, 100)))


# ---- CUDA tensors (the lead's GPU run) ---------------------------------------------------------

@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_gradients_on_cuda_equal_the_cpu_ones(gpu, dt):
    dtype = getattr(torch, dt)
    tol = 1e-9 if dt == "float64" else 2e-3
    b, a = ss.butter(2, 0.1)
    sos = ss.butter(8, 0.05, output="sos")
    x0 = RNG.standard_normal((4, 4096))
    zi0 = RNG.standard_normal((4, 2))
    for run in (
        lambda x, c, z: sigpu.lfilter(c[0], c[1], x, zi=z)[0],
        lambda x, c, z: sigpu.lfilter(c[0], c[1], x),
        lambda x, c, z: sigpu.sosfilt(c[2], x),
    ):
        grads = []
        for dev in ("cpu", "cuda"):
            x = torch.tensor(x0, dtype=dtype, device=dev, requires_grad=True)
            cs = [torch.tensor(v, dtype=torch.float64, device=dev, requires_grad=True)
                  for v in (b, a, sos)]
            z = torch.tensor(zi0, dtype=dtype, device=dev, requires_grad=True)
            y = run(x, cs, z)
            assert y.device.type == dev and y.dtype == dtype
            y.square().mean().backward()
            grads.append([t.grad.cpu() if t.grad is not None else None for t in [x, z] + cs])
        for g_cpu, g_gpu in zip(*grads):
            if g_cpu is None:
                assert g_gpu is None
                continue
            scale = float(g_cpu.abs().max()) or 1.0
            assert float((g_cpu - g_gpu).abs().max()) <= tol * scale


def test_cuda_banks_equal_scipy(gpu):
    b, a = _bank(4, 2)
    sos = np.stack([ss.butter(4, f, output="sos") for f in (0.1, 0.2, 0.2, 0.3)])
    x = RNG.standard_normal((3, 4, 5000))
    xt = torch.tensor(x, device="cuda", requires_grad=True)
    y = sigpu.lfilter(b, a, xt)
    ys = sigpu.sosfilt(sos, xt)
    for c in range(4):
        np.testing.assert_allclose(y[:, c].detach().cpu().numpy(),
                                   ss.lfilter(b[c], a[c], x[:, c]), atol=1e-9)
        np.testing.assert_allclose(ys[:, c].detach().cpu().numpy(),
                                   ss.sosfilt(sos[c], x[:, c]), atol=1e-9)
    (y.sum() + ys.sum()).backward()
    assert xt.grad is not None and xt.grad.device.type == "cuda"
