"""sigpu's filters against scipy.signal: values within the filter contract's tolerance (float64
to a few ulp of the output's scale, float32 to ~1e-5 relative), shapes, axes, dtypes,
non-contiguous inputs, and bad input."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.signal as ss

import sigpu

RNG = np.random.default_rng(7)
FILTERS = [
    ([0.2, 0.3, 0.1], [1.0, -0.5, 0.2]),
    ss.butter(4, 0.2),
    ss.cheby1(3, 1, 0.35),
    ([1.0], [1.0, -0.95]),
    ([0.5, 0.5], [1.0]),
]


def tol(y_ref: np.ndarray, dtype) -> float:
    scale = max(1.0, float(np.max(np.abs(y_ref))) if y_ref.size else 1.0)
    return (1e-12 if dtype == np.float64 else 2e-5) * scale


@pytest.mark.parametrize("b,a", FILTERS)
@pytest.mark.parametrize("n", [1, 5, 1000, 70_000])
def test_lfilter_equals_scipy_float64(b, a, n):
    x = RNG.standard_normal(n)
    y = sigpu.lfilter(b, a, x)
    want = ss.lfilter(b, a, x)
    assert y.dtype == np.float64 and y.shape == want.shape
    np.testing.assert_allclose(y, want, rtol=0, atol=tol(want, np.float64))


@pytest.mark.parametrize("b,a", FILTERS)
def test_lfilter_float32_follows_scipys_result_type_within_contract(b, a):
    """float32 samples with float32 coefficients stay float32 (within the float32 contract);
    with float64 coefficients they are filtered in float64, as scipy does."""
    x = RNG.standard_normal(50_000).astype(np.float32)
    b32, a32 = np.asarray(b, np.float32), np.asarray(a, np.float32)
    y = sigpu.lfilter(b32, a32, x)
    assert y.dtype == np.float32 == ss.lfilter(b32, a32, x).dtype
    want = ss.lfilter(b32.astype(np.float64), a32.astype(np.float64), x.astype(np.float64))
    np.testing.assert_allclose(y, want, rtol=0, atol=tol(want, np.float32) * 10)
    y64 = sigpu.lfilter(b, a, x)
    assert y64.dtype == np.float64 == ss.lfilter(b, a, x).dtype
    np.testing.assert_allclose(y64, ss.lfilter(b, a, x), rtol=0, atol=tol(want, np.float64))


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.bool_])
def test_integers_are_filtered_as_float64(dtype):
    x = (RNG.integers(-5, 5, 300)).astype(dtype)
    y = sigpu.lfilter([0.2, 0.3], [1.0, -0.4], x)
    assert y.dtype == np.float64
    np.testing.assert_allclose(y, ss.lfilter([0.2, 0.3], [1.0, -0.4], x), atol=1e-12)


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -2])
def test_any_axis_with_zi(axis):
    b, a = ss.butter(3, 0.3)
    x = RNG.standard_normal((4, 5, 300))
    k = max(len(a), len(b)) - 1
    zshape = list(x.shape)
    zshape[axis] = k
    zi = RNG.standard_normal(zshape)
    y, zf = sigpu.lfilter(b, a, x, axis=axis, zi=zi)
    y2, zf2 = ss.lfilter(b, a, x, axis=axis, zi=zi)
    assert y.shape == y2.shape and zf.shape == zf2.shape
    np.testing.assert_allclose(y, y2, atol=1e-11)
    np.testing.assert_allclose(zf, zf2, atol=1e-11)


def test_non_contiguous_and_reversed_inputs():
    b, a = ss.butter(2, 0.25)
    base = RNG.standard_normal((6, 4000))
    for x in (base[:, ::2], base[::-1, ::-3], base.T, np.asfortranarray(base)):
        np.testing.assert_allclose(sigpu.lfilter(b, a, x), ss.lfilter(b, a, x), atol=1e-12)


def test_unequal_lengths_and_scipy_state_length():
    x = RNG.standard_normal(100)
    for b, a in (([1.0, 0.0, 0.0], [1.0]), ([1.0], [1.0, 0.5, 0.0, 0.0]), ([2.0, 1.0], [2.0, 0.3])):
        k = max(len(a), len(b)) - 1
        zi = np.arange(1, k + 1, dtype=float)
        y, zf = sigpu.lfilter(b, a, x, zi=zi)
        y2, zf2 = ss.lfilter(b, a, x, zi=zi)
        np.testing.assert_allclose(y, y2, atol=1e-12)
        np.testing.assert_allclose(zf, zf2, atol=1e-12)


def test_lfilter_zi_and_steady_state():
    for b, a in FILTERS[:3]:
        np.testing.assert_allclose(sigpu.lfilter_zi(b, a), ss.lfilter_zi(b, a), atol=1e-12)
    b, a = ss.butter(2, 0.1)
    y, _ = sigpu.lfilter(b, a, np.ones(50), zi=sigpu.lfilter_zi(b, a))
    np.testing.assert_allclose(y, 1.0, atol=1e-12)


@pytest.mark.parametrize("order", [2, 5, 8])
def test_sosfilt_and_zi_equal_scipy(order):
    sos = ss.butter(order, 0.15, output="sos")
    x = RNG.standard_normal((3, 5000))
    np.testing.assert_allclose(sigpu.sosfilt(sos, x), ss.sosfilt(sos, x), atol=1e-11)
    zi = sigpu.sosfilt_zi(sos)
    np.testing.assert_allclose(zi, ss.sosfilt_zi(sos), atol=1e-12)
    z3 = np.repeat(zi[:, None, :], 3, axis=1) * x[:, :1][None]
    y, zf = sigpu.sosfilt(sos, x, zi=z3)
    y2, zf2 = ss.sosfilt(sos, x, zi=z3)
    np.testing.assert_allclose(y, y2, atol=1e-11)
    np.testing.assert_allclose(zf, zf2, atol=1e-11)


@pytest.mark.parametrize("padtype", ["odd", "even", "constant", None])
def test_filtfilt_and_sosfiltfilt_equal_scipy(padtype):
    b, a = ss.butter(4, 0.1)
    x = RNG.standard_normal((2, 3000))
    np.testing.assert_allclose(
        sigpu.filtfilt(b, a, x, padtype=padtype), ss.filtfilt(b, a, x, padtype=padtype), atol=1e-10
    )
    sos = ss.butter(6, 0.1, output="sos")
    np.testing.assert_allclose(
        sigpu.sosfiltfilt(sos, x, axis=1, padtype=padtype),
        ss.sosfiltfilt(sos, x, axis=1, padtype=padtype),
        atol=1e-10,
    )
    np.testing.assert_allclose(
        sigpu.filtfilt(b, a, x.T, axis=0), ss.filtfilt(b, a, x.T, axis=0), atol=1e-10
    )


def test_empty_and_multichannel_shapes():
    assert sigpu.lfilter([1.0], [1.0, -0.5], np.zeros(0)).shape == (0,)
    y, zf = sigpu.lfilter([1.0], [1.0, -0.5], np.zeros((3, 0)), zi=np.ones((3, 1)))
    assert y.shape == (3, 0) and zf.shape == (3, 1)
    np.testing.assert_array_equal(zf, np.ones((3, 1)))


def test_device_cpu_is_accepted_and_bad_devices_are_refused():
    x = RNG.standard_normal(10)
    np.testing.assert_allclose(sigpu.lfilter([1.0], [1.0, -0.5], x, device="cpu"),
                               ss.lfilter([1.0], [1.0, -0.5], x), atol=1e-14)
    with pytest.raises(ValueError, match="device 'tpu'"):
        sigpu.lfilter([1.0], [1.0], x, device="tpu")


@pytest.mark.parametrize(
    "call,exc,msg",
    [
        (lambda: sigpu.lfilter([1.0], [1.0], np.ones(4, np.clongdouble)), TypeError,
         "complex128"),
        (lambda: sigpu.lfilter(np.ones(1, np.float16), np.ones(1, np.float16),
                               np.ones(4, np.float16)), TypeError, "float16"),
        (lambda: sigpu.lfilter([np.nan], [1.0], np.ones(4)), ValueError, r"b\[0\] is nan"),
        (lambda: sigpu.lfilter([1.0], [0.0, 1.0], np.ones(4)), ValueError, r"a\[0\] must be nonzero"),
        (lambda: sigpu.lfilter([1.0], [1.0, -2.0], np.ones(4)), ValueError, "unstable"),
        (lambda: sigpu.lfilter([1.0], [1.0], np.float64(3.0)), ValueError, "at least one dimension"),
        (lambda: sigpu.lfilter([1.0], [1.0], np.ones((2, 3)), axis=2), ValueError, "out of bounds"),
        (lambda: sigpu.lfilter([[[1.0]]], [1.0], np.ones(3)), ValueError, "bank"),
        (lambda: sigpu.lfilter([1, 2], [1.0, 0.5], np.ones(4), zi=np.ones(3)), ValueError, "zi has shape"),
        (lambda: sigpu.lfilter([1.0], [1.0], np.array([1.0, np.nan])), ValueError, r"x\[1\] is NaN"),
        (lambda: sigpu.sosfilt(np.ones((2, 5)), np.ones(4)), ValueError, r"\(n_sections, 6\)"),
        (lambda: sigpu.sosfilt([[1, 0, 0, 1, -0.5, 0]], np.array([1.0, 2.0, np.inf, 4.0])), ValueError,
         r"x\[2\] is inf"),
        (lambda: sigpu.sosfilt([[1, 0, 0, 1, -0.5, 0]], np.r_[np.zeros(70000), np.nan]), ValueError,
         r"x\[70000\] is NaN"),
        (lambda: sigpu.filtfilt([1.0], [1.0, -0.5], np.ones(3)), ValueError, "padlen"),
    ],
)
def test_bad_input_raises_with_a_clear_message(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call()


def test_unstable_message_names_the_pole():
    with pytest.raises(ValueError) as e:
        sigpu.lfilter([1.0], [1.0, -1.5], np.ones(8))
    assert "magnitude 1.5" in str(e.value)


# The accuracy contract's hard cases: scipy.signal.butter(8 | 6 | 4, 0.02) as (b, a), whose
# plain blocked (PLR) form is far off (its correction factors grow to ~3e9) and which, rounded
# to float32, are unstable for orders 8 and 6. Reference: scipy's lfilter in long double.
CONTRACT_ORDERS = (8, 6, 4)
LD = np.longdouble


def contract_case(order: int, dtype, n: int = 1 << 20):
    """(b, a, x, reference, allowed): two channels of white noise in ``dtype`` and the largest
    max|y - ref| / max|ref| the contract allows: 4x scipy's own error at the dtype, at least
    8 eps; 1e-3 where scipy's own run is not finite, so a finite wrong answer still fails."""
    b, a = ss.butter(order, 0.02)
    x = np.random.default_rng(24 + order).standard_normal((2, n)).astype(dtype)
    ref = ss.lfilter(b.astype(LD), a.astype(LD), x.astype(LD), axis=-1)
    scipy_err = contract_error(ss.lfilter(b.astype(dtype), a.astype(dtype), x, axis=-1), ref)
    eps = float(np.finfo(dtype).eps)
    allowed = max(4 * scipy_err, 8 * eps) if np.isfinite(scipy_err) else 1e-3
    return b, a, x, ref, allowed


def contract_error(y, ref) -> float:
    y = np.asarray(y, dtype=LD)
    if not np.all(np.isfinite(y)):
        return float("inf")
    return float(np.max(np.abs(y - ref)) / (np.max(np.abs(ref)) or 1))


def assert_contract(run, order: int, dtype) -> None:
    """``run(b, a, x)`` returns y as a numpy array, or raises ValueError naming the way out."""
    b, a, x, ref, allowed = contract_case(order, dtype)
    try:
        y = run(b, a, x)
    except ValueError as e:
        assert "host arrays" in str(e) or "second-order sections" in str(e), str(e)
        return
    err = contract_error(y, ref)
    assert err <= allowed, f"butter({order}, 0.02) {np.dtype(dtype).name}: {err:.3g} > {allowed:.3g}"


@pytest.mark.parametrize("order", CONTRACT_ORDERS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_lfilter_keeps_the_contract_on_hard_designs(order, dtype):
    # float32 numpy samples with these float64 coefficients are filtered in float64 (scipy's
    # result type): within the float32 allowance by far. The float32 engine with float64
    # coefficients (torch and CuPy arrays) is held to the contract in test_gpu.py and, on
    # CPU tensors, test_autograd.py.
    assert_contract(lambda b, a, x: sigpu.lfilter(b, a, x), order, dtype)

