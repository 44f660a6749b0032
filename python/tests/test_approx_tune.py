"""sigpu.approx.tune: arguments become the CLI's argument strings, and every mistake is named
before a GPU is needed; on a machine with a GPU it tunes a kernel from outside the suite."""

from __future__ import annotations

import os

import numpy as np
import pytest

from sigpu import approx
from sigpu.approx import Out, _specs

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "crates", "approx", "tests", "fixtures")
ACTIVATION = os.path.join(FIXTURES, "activation.cu")


def test_arguments_become_argument_strings(tmp_path):
    x = np.linspace(-3, 3, 64, dtype=np.float32)
    specs = _specs([x, Out(64), Out(like=x.astype(np.float64)), 64, 0.5, np.float64(0.25), np.uint32(7), "i64:9"], str(tmp_path), "args")
    assert specs[0] == f"in:{tmp_path}/args0.npy"
    np.testing.assert_array_equal(np.load(specs[0][3:]), x)
    assert specs[1:] == ["out:f32:64", "out:f64:64", "i32:64", "f32:0.5", "f64:0.25", "u32:7", "i64:9"]


@pytest.mark.parametrize(
    "bad,err,want",
    [
        (np.array([1, 2], dtype=np.int16), TypeError, "args[1]"),
        (True, TypeError, "args[1]: a bool"),
        (2**40, ValueError, "args[1]"),
        (Out(0), ValueError, "args[1]: output length"),
        (Out(8, np.float16), TypeError, "args[1]: output type"),
        ({"x": 1}, TypeError, "args[1]: dict"),
    ],
)
def test_bad_arguments_are_named(bad, err, want):
    x = np.zeros(8, np.float32)
    with pytest.raises(err, match=want.replace("[", r"\[").replace("]", r"\]")):
        approx.tune(ACTIVATION, "softplus_gelu", [x, bad, 8], 1, 32)


def test_bad_metric_bound_and_shape_are_value_errors():
    x = np.zeros(8, np.float32)
    args = [x, Out(8), 8]
    with pytest.raises(ValueError, match="metric"):
        approx.tune(ACTIVATION, "softplus_gelu", args, 1, 32, metric="l1")
    with pytest.raises(ValueError, match="qos"):
        approx.tune(ACTIVATION, "softplus_gelu", args, 1, 32, qos=-1.0)
    with pytest.raises(ValueError, match="qos"):
        approx.tune(ACTIVATION, "softplus_gelu", args, 1, 32, qos_ratio=1.5)
    with pytest.raises(ValueError, match="block"):
        approx.tune(ACTIVATION, "softplus_gelu", args, 1, (64, 32))
    with pytest.raises(ValueError, match="grid"):
        approx.tune(ACTIVATION, "softplus_gelu", args, 0, 32)


def test_without_a_gpu_the_error_says_why():
    import sigpu

    if sigpu.cuda_available():
        pytest.skip("a GPU is usable here")
    x = np.linspace(-6, 6, 4096, dtype=np.float32)
    with pytest.raises(RuntimeError, match="driver|GPU|CUDA"):
        approx.tune(ACTIVATION, "softplus_gelu", [x, Out(like=x), x.size], 16, 256, qos=1e-4)


def test_tunes_an_activation_within_its_bound_on_held_out_inputs(gpu):
    rng = np.random.default_rng(3)
    x = rng.uniform(-6, 6, 1 << 20).astype(np.float32)
    held = rng.normal(0, 4, 1 << 20).astype(np.float32)
    r = approx.tune(
        ACTIVATION, "softplus_gelu", [x, Out(like=x), x.size], x.size // 256, 256,
        qos=1e-5, holdout=[held, Out(like=held), held.size], device=gpu,
    )
    assert r.report["chosen"]["meets"] and r.report["holdout"]["meets"], r.report["holdout"]
    assert r.report["chosen"]["error"] <= 1e-5
    assert "softplus_gelu(" in r.source
