"""What a differentiable filter step does on the host: the coefficients are read from their
tensors once per forward call (one synchronisation on a GPU) and never in the backward pass,
which runs the plan its forward kept; no tensor is read by truthiness or ``item``; each step
makes the planner calls it needs and no more; and plans are kept by the coefficients' values,
so a tensor whose memory now holds other values is never filtered with an old plan. CPU
tensors here (the reads are the same calls on a GPU); the GPU twin is at the end."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.signal as ss

import sigpu
from sigpu import _native, _torch_filters, _torch_plans

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(2811)


@pytest.fixture
def reads(monkeypatch):
    """Counts coefficient reads (``host_values`` calls) and planner calls (binding calls)."""
    seen = {"reads": 0, "calls": 0}
    host_values = _torch_filters.host_values
    filter_rows = _native.filter_rows

    def counting_reads(tm, ts):
        seen["reads"] += 1
        return host_values(tm, ts)

    def counting_calls(*args, **kwargs):
        seen["calls"] += 1
        return filter_rows(*args, **kwargs)

    monkeypatch.setattr(_torch_filters, "host_values", counting_reads)
    monkeypatch.setattr(_native, "filter_rows", counting_calls)
    return seen


def _no_tensor_truthiness(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a tensor was read by truthiness or item() (a device wait)")

    monkeypatch.setattr(torch.Tensor, "__bool__", refuse)
    monkeypatch.setattr(torch.Tensor, "item", refuse)


@pytest.mark.parametrize("coefs", ["tensor", "numpy"])
def test_lfilter_reads_its_coefficients_once_a_step_and_not_in_backward(reads, coefs,
                                                                        monkeypatch):
    b, a = ss.butter(2, 0.05)
    bt, at = (torch.tensor(b), torch.tensor(a)) if coefs == "tensor" else (b, a)
    x = torch.tensor(RNG.standard_normal((3, 40)), requires_grad=True)
    g = torch.tensor(RNG.standard_normal((3, 40)))
    sigpu.lfilter(bt, at, x).backward(g)  # the first step builds the plan
    _no_tensor_truthiness(monkeypatch)
    for step in range(1, 4):
        x.grad = None
        y = sigpu.lfilter(bt, at, x)
        assert reads["reads"] == (step + 1 if coefs == "tensor" else 0)
        y.backward(g)
        assert reads["reads"] == (step + 1 if coefs == "tensor" else 0)  # none in backward
    assert reads["calls"] == 2 * 4  # one forward call, one backward call a step
    monkeypatch.undo()
    want = np.flip(ss.lfilter(b, a, np.flip(g.numpy(), -1)), -1)
    np.testing.assert_allclose(x.grad.numpy(), want, atol=1e-12)


def test_coefficient_gradients_read_the_coefficients_once_a_step(reads, monkeypatch):
    b, a = ss.butter(2, 0.1)
    bt = torch.tensor(b, requires_grad=True)
    at = torch.tensor(a, requires_grad=True)
    sos = torch.tensor(ss.butter(4, 0.1, output="sos"), requires_grad=True)
    x = torch.tensor(RNG.standard_normal((2, 50)), requires_grad=True)
    sigpu.lfilter(bt, at, x).sum().backward()
    sigpu.sosfilt(sos, x).sum().backward()
    _no_tensor_truthiness(monkeypatch)
    before = dict(reads)
    sigpu.lfilter(bt, at, x).sum().backward()
    assert reads["reads"] - before["reads"] == 1
    assert reads["calls"] - before["calls"] == 3  # forward, the adjoint u, dx
    before = dict(reads)
    sigpu.sosfilt(sos, x).sum().backward()
    assert reads["reads"] - before["reads"] == 1
    assert reads["calls"] - before["calls"] == 2 + 3  # 2 sections; 2 adjoint steps and dx


def test_the_plan_is_built_once_for_repeated_coefficients(monkeypatch):
    built = []
    init = _torch_plans.BaPlan.__init__

    def counting(self, b, a):
        built.append(1)
        init(self, b, a)

    monkeypatch.setattr(_torch_plans.BaPlan, "__init__", counting)
    _torch_plans.clear()
    b, a = torch.tensor([0.3, 0.2]), torch.tensor([1.0, -0.45])
    x = torch.tensor(RNG.standard_normal((2, 30)), requires_grad=True)
    for _ in range(3):
        sigpu.lfilter(b, a, x).sum().backward()
    assert len(built) == 1  # the x-only backward runs the forward's own plan


@pytest.mark.parametrize("kind", ["ba", "sos"])
def test_new_values_in_the_same_tensor_memory_get_a_new_plan(kind):
    """A tensor rewritten in place keeps its address; its plan must follow its values."""
    x = torch.tensor(RNG.standard_normal((2, 64)))
    xn = x.numpy()
    for order, wn in ((2, 0.1), (2, 0.3), (2, 0.05)):
        if kind == "ba":
            b, a = ss.butter(order, wn)
            if order == 2 and wn == 0.1:
                bt, at = torch.tensor(b), torch.tensor(a)
            ptr = bt.data_ptr()
            bt.copy_(torch.tensor(b))
            at.copy_(torch.tensor(a))
            assert bt.data_ptr() == ptr
            got = sigpu.lfilter(bt, at, x)
            np.testing.assert_allclose(got.numpy(), ss.lfilter(b, a, xn), atol=1e-12)
        else:
            sos = ss.butter(2 * order, wn, output="sos")
            if wn == 0.1:
                st = torch.tensor(sos)
            ptr = st.data_ptr()
            st.copy_(torch.tensor(sos))
            assert st.data_ptr() == ptr
            got = sigpu.sosfilt(st, x)
            np.testing.assert_allclose(got.numpy(), ss.sosfilt(sos, xn), atol=1e-12)


def test_backward_filters_with_the_values_its_forward_ran():
    """Coefficients rewritten between forward and backward: the gradient is the forward's
    (its plan), not the new values'."""
    b, a = ss.butter(2, 0.1)
    bt, at = torch.tensor(b), torch.tensor(a)
    x = torch.tensor(RNG.standard_normal((2, 80)), requires_grad=True)
    g = RNG.standard_normal((2, 80))
    y = sigpu.lfilter(bt, at, x)
    b2, a2 = ss.butter(2, 0.35)
    bt.copy_(torch.tensor(b2))
    at.copy_(torch.tensor(a2))
    y.backward(torch.tensor(g))
    want = np.flip(ss.lfilter(b, a, np.flip(g, -1)), -1)
    np.testing.assert_allclose(x.grad.numpy(), want, atol=1e-12)


def test_the_plan_cache_is_bounded():
    _torch_plans.clear()
    x = torch.tensor(RNG.standard_normal((1, 16)))
    for k in range(_torch_plans.KEEP + 20):
        sigpu.lfilter(torch.tensor([1.0 + k]), torch.tensor([1.0, -0.5]), x)
    assert len(_torch_plans._CACHE) <= _torch_plans.KEEP


def test_lfilter_refusals_are_checked_on_the_host_values():
    x = torch.tensor(RNG.standard_normal((1, 16)), requires_grad=True)
    with pytest.raises(ValueError, match="a\\[0\\] must be nonzero"):
        sigpu.lfilter(torch.tensor([1.0]), torch.tensor([0.0, 1.0]), x)
    with pytest.raises(ValueError, match="finite"):
        sigpu.lfilter(torch.tensor([float("nan")]), torch.tensor([1.0]), x)
    with pytest.raises(ValueError, match="column 3"):
        sigpu.sosfilt(torch.tensor([[1.0, 0, 0, 2.0, 0, 0]]), x)


def test_cuda_coefficients_are_read_once_a_step(gpu, monkeypatch):
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA")
    seen = []
    host_values = _torch_filters.host_values

    def counting(tm, ts):
        seen.append(len(ts))
        return host_values(tm, ts)

    monkeypatch.setattr(_torch_filters, "host_values", counting)
    b, a = ss.butter(2, 0.05)
    bt, at = torch.tensor(b, device="cuda"), torch.tensor(a, device="cuda")
    x = torch.tensor(RNG.standard_normal((4, 4096)), device="cuda", requires_grad=True)
    g = torch.tensor(RNG.standard_normal((4, 4096)), device="cuda")
    sigpu.lfilter(bt, at, x).backward(g)
    assert seen == [2]  # b and a in one read, none in the backward pass
    want = torch.flip(sigpu.lfilter(b, a, torch.flip(g, (-1,)).contiguous()), (-1,))
    torch.testing.assert_close(x.grad, want)
