"""sigpu.lns against numpy within the certified bounds: conversion rounds the log to nearest
(half an ulp), products are exact, sums are faithful (within one ulp of log2|x|), fused sums
and dots round once; the HMM forward within its per-step bound of a float64 log-sum-exp."""

from __future__ import annotations

import numpy as np
import pytest

import sigpu
from sigpu import lns

RNG = np.random.default_rng(3)


def log_err_ulps(got: np.ndarray, want: np.ndarray, fmt: str) -> np.ndarray:
    return np.abs(np.log2(np.abs(got)) - np.log2(np.abs(want))) / lns.ulp(fmt)


@pytest.mark.parametrize("fmt", ["lns16", "lns32", "i6f13"])
def test_conversion_rounds_the_log_to_nearest(fmt):
    x = RNG.uniform(0.01, 100, 2000) * RNG.choice([-1, 1], 2000)
    a = lns.Array(x, fmt)
    assert a.words.dtype == np.uint32 and a.shape == x.shape
    back = a.to_numpy()
    assert (np.sign(back) == np.sign(x)).all()
    assert log_err_ulps(back, x, fmt).max() <= 0.5 + 1e-9


@pytest.mark.parametrize("fmt", ["lns16", "lns32"])
def test_add_sub_are_faithful_and_mul_div_exact(fmt):
    x = RNG.uniform(0.01, 100, 5000) * RNG.choice([-1, 1], 5000)
    y = RNG.uniform(0.01, 100, 5000) * RNG.choice([-1, 1], 5000)
    a, b = lns.Array(x, fmt), lns.Array(y, fmt)
    xa, yb = a.to_numpy(), b.to_numpy()
    for got, want in (((a + b).to_numpy(), xa + yb), ((a - b).to_numpy(), xa - yb)):
        keep = np.abs(want) > 1e-3 * np.maximum(np.abs(xa), np.abs(yb))
        assert log_err_ulps(got[keep], want[keep], fmt).max() <= 1.0 + 1e-9
        assert (np.sign(got[keep]) == np.sign(want[keep])).all()
    np.testing.assert_allclose((a * b).to_numpy(), xa * yb, rtol=1e-14)
    np.testing.assert_allclose((a / b).to_numpy(), xa / yb, rtol=1e-14)
    np.testing.assert_allclose((a * 2.0).to_numpy(), xa * 2.0, rtol=1e-14)
    np.testing.assert_allclose((1.0 / a).to_numpy(), 1.0 / xa, rtol=1e-14)


def test_broadcasting_and_shapes():
    a = lns.Array(np.arange(1, 7, dtype=float).reshape(2, 3))
    b = lns.Array([1.0, 2.0, 4.0])
    assert (a * b).shape == (2, 3)
    np.testing.assert_allclose((a * b).to_numpy(), a.to_numpy() * b.to_numpy(), rtol=1e-14)


@pytest.mark.parametrize("fmt", ["lns16", "lns32"])
def test_fused_sum_and_dot_round_once(fmt):
    x = RNG.uniform(0.001, 1, 4096)
    y = RNG.uniform(0.001, 1, 4096)
    a, b = lns.Array(x, fmt), lns.Array(y, fmt)
    s = a.sum().to_numpy()
    assert s.shape == ()
    assert log_err_ulps(s, a.to_numpy().sum(), fmt) <= 0.5 + 1e-6
    d = a.dot(b).to_numpy()
    assert log_err_ulps(d, a.to_numpy() @ b.to_numpy(), fmt) <= 0.5 + 1e-6


def forward_reference(log_pi, log_A, log_B):
    alpha = log_pi + log_B[0]
    for t in range(1, log_B.shape[0]):
        m = alpha[:, None] + log_A
        top = m.max(axis=0)
        alpha = top + np.log(np.exp(m - top).sum(axis=0)) + log_B[t]
    top = alpha.max()
    return top + np.log(np.exp(alpha - top).sum())


def random_hmm(states, steps, batch, seed):
    rng = np.random.default_rng(seed)
    pi = rng.uniform(0.05, 1, states)
    A = rng.uniform(0.05, 1, (states, states))
    B = rng.uniform(0.01, 1, (batch, steps, states))
    return np.log(pi / pi.sum()), np.log(A / A.sum(axis=1, keepdims=True)), np.log(B)


@pytest.mark.parametrize("fmt", ["lns16", "lns32"])
def test_hmm_forward_within_its_bound(fmt):
    states, steps = 8, 200
    log_pi, log_A, log_B = random_hmm(states, steps, 3, 1)
    ll = lns.hmm_forward(log_pi, log_A, log_B, format=fmt)
    assert ll.shape == (3,)
    # Per step: the emission and transition words round by half an ulp each and the fused dot
    # once more; the rescaling is exact.
    bound = (1.5 * steps + 2) * lns.ulp(fmt) * np.log(2)
    for i in range(3):
        ref = forward_reference(log_pi, log_A, log_B[i])
        assert abs(ll[i] - ref) <= bound, (ll[i], ref, bound)
    one = lns.hmm_forward(log_pi, log_A, log_B[0], format=fmt)
    assert isinstance(one, float) and one == ll[0]


@pytest.mark.parametrize(
    "call,exc,msg",
    [
        (lambda: lns.Array([1.0], "lns64"), ValueError, "expected lns16, lns32"),
        (lambda: lns.Array([1 + 1j]), TypeError, "complex"),
        (lambda: lns.Array([1.0], "lns16") + lns.Array([1.0], "lns32"), ValueError, "formats differ"),
        (lambda: lns.Array([1.0, 2.0]).dot(lns.Array([1.0])), ValueError, "lengths 2 and 1"),
        (lambda: lns.hmm_forward([0.0], [[0.0]], np.zeros((2, 2))), ValueError, r"\(T, 1\)"),
        (lambda: lns.hmm_forward(np.log([0.5, 0.5]), np.zeros((3, 3)), np.zeros((4, 2))), ValueError, r"\(S, S\)"),
        (lambda: lns.hmm_forward(np.log([0.5, 0.5]), np.full((2, 2), np.log(0.5)), np.ones((4, 2))), ValueError, "log-probabilities"),
    ],
)
def test_bad_input(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call()
