"""The backward passes run their time-reversed filters as filters read backwards, not as flips
around a forward filter: each adjoint is one planner call with ``reverse=True`` on the
gradient as it lies (no torch.flip, no copy of g), whose result equals the flipped composition.
On a GPU the reversed kernel reads and writes in place; there the gradient equals the flipped
composition on the device bit for bit (same kernel shape, deterministic tail-carry kernel)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.signal as ss

import sigpu
from sigpu import _torch_filters

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(4242)


@pytest.fixture
def calls(monkeypatch):
    """Records each planner call's direction and forbids torch.flip during backward passes."""
    seen = []
    rows = _torch_filters._rows

    def recording(tm, b, a, x2, z2, sos_shape, opts, reverse=False):
        seen.append(reverse)
        return rows(tm, b, a, x2, z2, sos_shape, opts, reverse)

    monkeypatch.setattr(_torch_filters, "_rows", recording)
    return seen


def _no_flips(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a backward pass flipped a tensor")

    monkeypatch.setattr(torch, "flip", refuse)


def test_lfilter_gradient_of_x_is_one_backwards_call(calls, monkeypatch):
    b, a = ss.butter(3, 0.2)
    x = torch.tensor(RNG.standard_normal((4, 64)), requires_grad=True)
    y = sigpu.lfilter(b, a, x)
    g = torch.tensor(RNG.standard_normal((4, 64)))
    _no_flips(monkeypatch)
    (dx,) = torch.autograd.grad(y, x, g)
    assert calls == [False, True]
    want = np.flip(ss.lfilter(b, a, np.flip(g.numpy(), -1)), -1)
    np.testing.assert_allclose(dx.numpy(), want, atol=1e-12)


def test_lfilter_coefficient_gradients_run_backwards_without_flips(calls, monkeypatch):
    b, a = ss.butter(2, 0.15)
    x = torch.tensor(RNG.standard_normal((3, 80)), requires_grad=True)
    bt = torch.tensor(b, requires_grad=True)
    at = torch.tensor(a, requires_grad=True)
    y = sigpu.lfilter(bt, at, x)
    G = RNG.standard_normal((3, 80))
    loss = (y * torch.tensor(G)).sum()
    _no_flips(monkeypatch)
    loss.backward()
    assert calls[0] is False and calls[1:] == [True, True]
    # Against the adjoint through scipy: u = flip(lfilter([1], a, flip(G))),
    # db_i = sum u[t] x[t - i], da_j = -sum u[t] y[t - j].
    u = np.flip(ss.lfilter([1.0], a, np.flip(G, -1)), -1)
    xn, yn = x.detach().numpy(), ss.lfilter(b, a, x.detach().numpy())
    lag = lambda v, i: np.sum(u[:, i:] * v[:, : v.shape[1] - i])  # noqa: E731
    np.testing.assert_allclose(bt.grad.numpy(), [lag(xn, i) for i in range(3)], atol=1e-9)
    np.testing.assert_allclose(at.grad.numpy()[1:], [-lag(yn, j) for j in (1, 2)], atol=1e-9)


def test_sosfilt_gradient_of_x_runs_the_cascade_backwards(calls, monkeypatch):
    sos = ss.butter(6, 0.05, output="sos")
    x = torch.tensor(RNG.standard_normal((2, 150)), requires_grad=True)
    y = sigpu.sosfilt(sos, x)
    g = RNG.standard_normal((2, 150))
    _no_flips(monkeypatch)
    (dx,) = torch.autograd.grad(y, x, torch.tensor(g))
    assert calls == [False, True]
    np.testing.assert_allclose(dx.numpy(), np.flip(ss.sosfilt(sos, np.flip(g, -1)), -1),
                               atol=1e-10)


def test_section_coefficient_gradients_run_each_adjoint_step_backwards(calls, monkeypatch):
    sos = torch.tensor(ss.butter(4, 0.1, output="sos"), requires_grad=True)
    x = torch.tensor(RNG.standard_normal((2, 60)), requires_grad=True)
    y = sigpu.sosfilt(sos, x)
    forward = len(calls)
    _no_flips(monkeypatch)
    y.square().sum().backward()
    assert all(calls[forward:]) and len(calls) - forward == 3  # 2 adjoint steps + x
    assert sos.grad is not None and x.grad is not None


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_backwards_in_place_on_a_gpu_equals_the_flipped_call(gpu, dt):
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA")
    b, a = ss.butter(2, 0.1)
    dtype = getattr(torch, dt)
    x = torch.tensor(RNG.standard_normal((8, 50_001)), dtype=dtype, device="cuda",
                     requires_grad=True)
    g = torch.tensor(RNG.standard_normal((8, 50_001)), dtype=dtype, device="cuda")
    (dx,) = torch.autograd.grad(sigpu.lfilter(b, a, x), x, g)
    want = torch.flip(sigpu.lfilter(b, a, torch.flip(g, (-1,)).contiguous()), (-1,))
    assert torch.equal(dx, want)
