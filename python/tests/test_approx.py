"""sigpu.approx's fast float32 functions against numpy's float64 values, within the error the
library measures for them (a few float32 ulp on the documented domains)."""

from __future__ import annotations

import numpy as np
import pytest

from sigpu import approx

RNG = np.random.default_rng(9)
CASES = [
    (approx.exp, np.exp, RNG.uniform(-10, 10, 100_000)),
    (approx.log, np.log, np.exp2(RNG.uniform(-60, 60, 100_000))),
    (approx.sin, np.sin, RNG.uniform(-np.pi, np.pi, 100_000)),
    (approx.cos, np.cos, RNG.uniform(-np.pi, np.pi, 100_000)),
]


@pytest.mark.parametrize("fast,ref,x", CASES)
def test_fast_functions_within_a_few_ulp(fast, ref, x):
    x32 = x.astype(np.float32)
    got = fast(x32.reshape(100, 1000))
    assert got.dtype == np.float32 and got.shape == (100, 1000)
    want = ref(x32.astype(np.float64))
    ulp = np.spacing(np.abs(want).astype(np.float32)).astype(np.float64)
    err = np.abs(got.ravel().astype(np.float64) - want)
    # sin/cos near their zeros: measure against the absolute scale of the function.
    scale = np.maximum(ulp, np.spacing(np.float32(1.0)) if fast in (approx.sin, approx.cos) else 0)
    assert (err / scale).max() <= 8


def test_only_float32():
    with pytest.raises(TypeError, match="float32"):
        approx.exp(np.ones(3))


def _ulps(got: np.ndarray, want64: np.ndarray) -> np.ndarray:
    """Distance in float32 ulps from the float64 answer rounded to float32 (0 where both are
    NaN or the same infinity)."""
    want = want64.astype(np.float32)

    def key(v: np.ndarray) -> np.ndarray:
        b = v.view(np.int32).astype(np.int64)
        return np.where(b < 0, np.int64(-(2**31)) - b, b)

    same = (np.isnan(got) & np.isnan(want)) | (got == want)
    return np.where(same, 0, np.abs(key(got) - key(want)))


def test_every_float32_against_numpy_float64():
    # A stride through all 2^32 bit patterns: both signs, subnormals, the huge arguments of
    # phase accumulators, ±inf and NaN. The Rust sweep (docs/design/approx.md) takes all.
    bits = np.arange(0, 2**32, 997, dtype=np.uint64).astype(np.uint32)
    x = bits.view(np.float32)
    with np.errstate(all="ignore"):
        x64 = x.astype(np.float64)
        for fast, ref, max_ulps in ((approx.exp, np.exp, 3), (approx.log, np.log, 3)):
            got = fast(x)
            want = ref(x64)
            assert np.array_equal(np.isnan(got), np.isnan(want.astype(np.float32))), fast
            assert _ulps(got, want).max() <= max_ulps, fast
        for fast, ref in ((approx.sin, np.sin), (approx.cos, np.cos)):
            got = fast(x)
            want = ref(x64)
            assert np.array_equal(np.isnan(got), np.isnan(want)), fast
            big = np.abs(want) >= 1e-3
            assert _ulps(got[big], want[big]).max() <= 2, fast
            assert np.nanmax(np.abs(got[~big] - want[~big])) <= 2e-10, fast


def test_the_former_domain_edges():
    f32 = np.float32
    with np.errstate(all="ignore"):
        assert abs(approx.sin(np.array([3e8], f32))[0] - np.sin(f32(3e8).astype(float))) < 1e-6
        assert abs(approx.cos(np.array([3e8], f32))[0] - np.cos(f32(3e8).astype(float))) < 1e-6
        assert abs(approx.sin(np.array([1e6], f32))[0] - np.sin(1e6)) < 1e-6
        assert np.isnan(approx.sin(np.array([np.inf, -np.inf, np.nan], f32))).all()
        top = np.arange(np.float32(88.3763).view(np.int32), np.float32(88.7227).view(np.int32))
        top = top.astype(np.int32).view(np.float32)
        assert top.size > 3000 and np.isfinite(approx.exp(top)).all()
        lo = approx.exp(np.array([-np.inf, -100.0, -1000.0], f32))
        assert lo[0] == 0 and lo[2] == 0 and abs(lo[1] - np.exp(-100.0)) < 2e-45
        assert abs(approx.log(np.array([1e-45], f32))[0] - np.log(f32(1e-45).astype(float))) < 1e-4
