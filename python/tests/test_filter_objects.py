"""sigpu.Filter and sigpu.Sos (a filter set up once, streamed block by block), thread control
(workers=, set_threads, the threads context manager), and the arrays scipy's filters take
that once were refused: big-endian and unaligned ones; filtfilt's padlen checked."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.signal as ss

import sigpu

RNG = np.random.default_rng(7)
SOS = ss.butter(8, [0.1, 0.3], "bandpass", output="sos")
BA = ss.butter(4, 0.2)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_filter_object_is_lfilter_with_its_coefficients_bound(dtype):
    x = RNG.standard_normal((3, 5000)).astype(dtype)
    f = sigpu.Filter(*BA)
    np.testing.assert_array_equal(f(x), sigpu.lfilter(*BA, x))
    zi = RNG.standard_normal((3, 4))
    y, zf = f(x, zi)
    y2, zf2 = sigpu.lfilter(*BA, x, zi=zi)
    np.testing.assert_array_equal(y, y2)
    np.testing.assert_array_equal(zf, zf2)
    assert y.dtype == np.result_type(BA[0].dtype, dtype) and f.state_len == 4  # scipy's


@pytest.mark.parametrize("axis", [-1, 0])
def test_streaming_blocks_equals_one_call(axis):
    x = RNG.standard_normal((4000, 2)) if axis == 0 else RNG.standard_normal((2, 4000))
    for f, whole in (
        (sigpu.Filter(*BA), ss.lfilter(*BA, x, axis=axis)),
        (sigpu.Sos(SOS), ss.sosfilt(SOS, x, axis=axis)),
    ):
        assert f.zi is None
        cuts = [0, 1, 700, 701, 2048, 4000]
        parts = [f.process(np.take(x, range(a, b), axis=axis), axis=axis)
                 for a, b in zip(cuts, cuts[1:])]
        np.testing.assert_allclose(np.concatenate(parts, axis=axis), whole, rtol=0, atol=1e-12)
        f.reset()
        again = f.process(x, axis=axis)
        np.testing.assert_allclose(again, whole, rtol=0, atol=1e-12)


def test_sos_object_takes_scipy_state_and_gives_scipy_final_state():
    x = RNG.standard_normal(3000)
    zi = ss.sosfilt_zi(SOS) * x[0]
    y, zf = sigpu.Sos(SOS)(x, zi)
    want, wzf = ss.sosfilt(SOS, x, zi=zi)
    np.testing.assert_allclose(y, want, atol=1e-12)
    np.testing.assert_allclose(zf, wzf, atol=1e-12)
    f = sigpu.Sos(SOS)
    f.reset(zi)
    np.testing.assert_allclose(f.process(x), want, atol=1e-12)


def test_workers_and_the_thread_settings():
    n = sigpu._native.host_threads()
    assert sigpu.get_threads() == n
    with sigpu.threads(1):
        assert sigpu.get_threads() == 1
        with sigpu.threads(-1):
            assert sigpu.get_threads() == n
        assert sigpu.get_threads() == 1
    assert sigpu.get_threads() == n
    sigpu.set_threads(1)
    try:
        assert sigpu.get_threads() == 1
    finally:
        sigpu.set_threads(None)
    for bad in (0, -(n + 1)):
        with pytest.raises(ValueError, match="workers"):
            sigpu.lfilter(*BA, np.ones(8), workers=bad)
    with pytest.raises(TypeError):
        sigpu.set_threads(1.5)
    x = RNG.standard_normal(1 << 17)
    want = ss.sosfilt(SOS, x)
    for w in (1, 2, -1, None):
        np.testing.assert_allclose(sigpu.sosfilt(SOS, x, workers=w), want, atol=1e-10)
        np.testing.assert_allclose(sigpu.Sos(SOS)(x, workers=w), want, atol=1e-10)
        np.testing.assert_allclose(sigpu.lfilter(*BA, x, workers=w), ss.lfilter(*BA, x),
                                   atol=1e-10)
    x32 = np.linspace(-50, 50, 1 << 16, dtype=np.float32)
    np.testing.assert_array_equal(sigpu.approx.sin(x32, workers=1), sigpu.approx.sin(x32))
    pi = np.log(np.full(3, 1 / 3))
    A = np.log(np.full((3, 3), 1 / 3))
    B = np.log(RNG.uniform(0.1, 1, (4, 20, 3)))
    np.testing.assert_array_equal(
        sigpu.lns.hmm_forward(pi, A, B, workers=1), sigpu.lns.hmm_forward(pi, A, B)
    )


def _unaligned(a: np.ndarray) -> np.ndarray:
    raw = np.zeros(a.nbytes + 1, dtype=np.uint8)
    view = np.frombuffer(raw.data, dtype=a.dtype, count=a.size, offset=1).reshape(a.shape)
    view[...] = a
    assert not view.flags.aligned
    return view


@pytest.mark.parametrize("dtype", ["<f8", ">f8", "<f4", ">f4"])
def test_big_endian_and_unaligned_arrays_are_filtered_as_scipy_does(dtype):
    x = RNG.standard_normal(1000).astype(dtype)
    want = sigpu.lfilter(*BA, x.astype(np.dtype(dtype).newbyteorder("=")))
    for arr in (x, _unaligned(x)):
        np.testing.assert_array_equal(sigpu.lfilter(*BA, arr), want)
        np.testing.assert_allclose(sigpu.sosfilt(SOS, arr), ss.sosfilt(SOS, arr.astype(float)),
                                   atol=1e-4 if "4" in dtype else 1e-12)
        np.testing.assert_allclose(sigpu.filtfilt(*BA, arr), ss.filtfilt(*BA, arr.astype(float)),
                                   atol=1e-4 if "4" in dtype else 1e-10)
        y, zf = sigpu.lfilter(*BA, arr, zi=np.zeros(4).astype(">f8"))
        np.testing.assert_array_equal(y, want)
    x32 = np.linspace(-3, 3, 100).astype(">f4")
    np.testing.assert_array_equal(sigpu.approx.exp(x32), sigpu.approx.exp(x32.astype("<f4")))
    np.testing.assert_array_equal(sigpu.approx.exp(_unaligned(x32.astype("<f4"))),
                                  sigpu.approx.exp(x32.astype("<f4")))


@pytest.mark.parametrize("padlen", [3.5, -1, "3", True, np.float64(2.0)])
@pytest.mark.parametrize("fn", ["filtfilt", "sosfiltfilt"])
@pytest.mark.parametrize("padtype", ["odd", "even"])
def test_padlen_must_be_a_non_negative_integer(padlen, fn, padtype):
    x = np.ones(100)
    args = BA if fn == "filtfilt" else (SOS,)
    with pytest.raises(ValueError, match="padlen"):
        getattr(sigpu, fn)(*args, x, padtype=padtype, padlen=padlen)
    ok = getattr(sigpu, fn)(*args, x, padtype=padtype, padlen=np.int64(3))
    want = getattr(ss, fn)(*args, x, padtype=padtype, padlen=3)
    np.testing.assert_allclose(ok, want, atol=1e-9)
