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
