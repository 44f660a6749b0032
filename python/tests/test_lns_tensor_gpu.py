"""sigpu.lns.Tensor on torch and CuPy CUDA arrays: every operation gives the CPU path's words
bit for bit, in the input's library, on its device (skipped without a GPU, a failure with
SIGPU_REQUIRE_GPU=1)."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from sigpu import lns

RNG = np.random.default_rng(21)


@pytest.fixture(params=["torch", "cupy"])
def xp(request, gpu):
    try:
        lib = importlib.import_module(request.param)
    except ImportError:
        pytest.skip(f"{request.param} is not installed")
    if request.param == "torch":
        return lib, (lambda a: lib.as_tensor(a, device="cuda")), (lambda t: t.cpu().numpy())
    return lib, lib.asarray, lib.asnumpy


def floats(n: int, spread: float = 8.0) -> np.ndarray:
    x = np.exp2(RNG.uniform(-spread, spread, n)) * RNG.choice([-1.0, 1.0], n)
    x[RNG.integers(0, n, n // 100 + 1)] = RNG.choice([0.0, np.inf, -np.inf, np.nan])
    return x


def same_words(g: lns.Tensor, c: lns.Tensor, back) -> None:
    assert g.is_cuda and not c.is_cuda
    assert g.shape == c.shape and g.format == c.format
    np.testing.assert_array_equal(back(g.words), np.asarray(c.words))


@pytest.mark.parametrize("fmt, storage", [("lns16", None), ("lns16", "int32"), ("lns32", None)])
def test_every_operation_on_the_gpu_gives_the_cpu_words(xp, fmt, storage):
    lib, to, back = xp
    x, y = floats(3 * 5 * 700).reshape(3, 5, 700), floats(700)
    cx, cy = lns.Tensor.from_float(x, fmt, storage), lns.Tensor.from_float(y, fmt, storage)
    gx, gy = lns.Tensor.from_float(to(x), fmt, storage), lns.Tensor.from_float(to(y), fmt, storage)
    assert type(gx.words) is type(to(x))
    same_words(gx, cx, back)
    x32 = x.astype(np.float32)
    same_words(lns.Tensor.from_float(to(x32), fmt, storage), lns.Tensor.from_float(x32, fmt, storage), back)
    for dt in ("float32", "float64"):
        np.testing.assert_array_equal(back(gx.to_float(dt)), cx.to_float(dt))
    for op in ("__add__", "__sub__", "__mul__", "__truediv__"):
        same_words(getattr(gx, op)(gy), getattr(cx, op)(cy), back)
    same_words(-gx, -cx, back)
    same_words(abs(gx), abs(cx), back)
    same_words(gx.relu(), cx.relu(), back)
    for op in ("__lt__", "__le__", "__eq__", "__ne__"):
        np.testing.assert_array_equal(back(getattr(gx, op)(gy)), getattr(cx, op)(cy))
    for axis in (-1, 0, None, (0, 2)):
        for op in ("sum", "prod", "max", "min"):
            same_words(getattr(gx, op)(axis=axis), getattr(cx, op)(axis=axis), back)
    same_words(gx.sum(axis=1, keepdims=True), cx.sum(axis=1, keepdims=True), back)
    a = floats(2 * 9 * 130, 3.0).reshape(2, 9, 130)
    b = floats(130 * 11, 3.0).reshape(130, 11)
    ga, gb = lns.Tensor.from_float(to(a), fmt, storage), lns.Tensor.from_float(to(b), fmt, storage)
    ca, cb = lns.Tensor.from_float(a, fmt, storage), lns.Tensor.from_float(b, fmt, storage)
    same_words(ga @ gb, ca @ cb, back)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_logsumexp_and_log_softmax_on_the_gpu_give_the_cpu_bits(xp, dtype):
    lib, to, back = xp
    for shape in ((40, 100), (7, 5000)):
        x = RNG.normal(0, 5, shape).astype(dtype)
        x[0, :30] = -np.inf
        gx = to(x)
        for axis in (-1, 0):
            got = lns.logsumexp(gx, axis=axis, format="lns32")
            assert type(got) is type(gx)
            np.testing.assert_array_equal(back(got), lns.logsumexp(x, axis=axis, format="lns32"))
        np.testing.assert_array_equal(back(lns.log_softmax(gx, format="lns16")), lns.log_softmax(x, format="lns16"))


def test_hmm_forward_takes_a_cuda_tensor(xp):
    lib, to, back = xp
    rng = np.random.default_rng(5)
    s, t = 8, 50
    pi = np.log(rng.dirichlet(np.ones(s)))
    A = np.log(rng.dirichlet(np.ones(s), size=s))
    B = np.log(rng.uniform(0.01, 1, (3, t, s)))
    np.testing.assert_array_equal(
        lns.hmm_forward(pi, A, to(B), "lns32"), lns.hmm_forward(pi, A, B, "lns32", device="cuda")
    )
