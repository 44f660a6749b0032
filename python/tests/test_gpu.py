"""The GPU paths: PyTorch tensors and CuPy arrays filtered on their device, returned as the same
type (no host copy), on the caller's stream; LDPC decoding of CUDA tensors bit for bit equal to
the CPU decoder; the HMM on a GPU. Skipped without a GPU (SIGPU_REQUIRE_GPU=1: a failure)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.signal as ss

import sigpu
from sigpu import ldpc, lns
from test_filters import CONTRACT_ORDERS, assert_contract

RNG = np.random.default_rng(21)


def _lib(name):
    try:
        return __import__(name)
    except ImportError:
        if __import__("os").environ.get("SIGPU_REQUIRE_GPU") == "1":
            pytest.fail(f"SIGPU_REQUIRE_GPU=1 but {name} is not installed")
        pytest.skip(f"{name} is not installed")


@pytest.fixture(params=["torch", "cupy"])
def xp(request, gpu):
    lib = _lib(request.param)
    if request.param == "torch":
        to = lambda a: lib.as_tensor(a, device="cuda")
        back = lambda t: t.cpu().numpy()
    else:
        to = lambda a: lib.asarray(a)
        back = lambda t: lib.asnumpy(t)
    return request.param, lib, to, back


def test_lfilter_on_gpu_arrays_equals_scipy(xp):
    name, lib, to, back = xp
    b, a = ss.cheby1(3, 1, 0.35)
    for dtype, atol in ((np.float64, 1e-10), (np.float32, 2e-4)):
        x = RNG.standard_normal((3, 100_003)).astype(dtype)
        y = sigpu.lfilter(b, a, to(x))
        assert type(y) is type(to(x)), "the result is of the input's library"
        assert str(y.dtype).endswith(np.dtype(dtype).name)
        np.testing.assert_allclose(back(y), ss.lfilter(b, a, x.astype(np.float64)), atol=atol)


@pytest.mark.parametrize("order", CONTRACT_ORDERS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_lfilter_on_gpu_arrays_keeps_the_contract(xp, order, dtype):
    """2 x 2^20 samples of butter(8 | 6 | 4, 0.02): within the contract, or refused with the
    way out; the method the contract chose is never swapped for the plain PLR kernel."""
    name, lib, to, back = xp

    def run(b, a, x):
        y = sigpu.lfilter(b, a, to(x))
        assert type(y) is type(to(x))
        return back(y)

    assert_contract(run, order, dtype)
    assert_contract(lambda b, a, x: sigpu.lfilter(b, a, x, device="cuda"), order, dtype)


def test_serial_ba_designs_on_gpu_arrays_run_as_checked_sections_or_are_refused(xp):
    """f64 (b, a) designs the contract runs serially: butter(4, 0.1) converts to second-order
    sections within the contract, and a CUDA array runs them (the GPU checks each channel)
    within SciPy's error, while with zi (the (b, a) state, not the sections') it is refused;
    butter(4, 0.2) does not convert and is refused, naming host arrays and sections."""
    name, lib, to, back = xp
    x = RNG.standard_normal((2, 10_000))
    b, a = ss.butter(4, 0.1)
    np.testing.assert_allclose(back(sigpu.lfilter(b, a, to(x))), ss.lfilter(b, a, x), atol=1e-12)
    zi = RNG.standard_normal((2, 4))
    with pytest.raises(ValueError, match="host arrays"):
        sigpu.lfilter(b, a, to(x), zi=to(zi))
    b, a = ss.butter(4, 0.2)
    with pytest.raises(ValueError, match="host arrays"):
        sigpu.lfilter(b, a, to(x))
    np.testing.assert_allclose(sigpu.lfilter(b, a, x, device="cuda"), ss.lfilter(b, a, x), atol=1e-12)
    sos = ss.butter(4, 0.2, output="sos")
    np.testing.assert_allclose(back(sigpu.sosfilt(sos, to(x))), ss.sosfilt(sos, x), atol=1e-10)


def test_gpu_axis_zi_and_non_contiguous(xp):
    name, lib, to, back = xp
    b, a = ss.cheby1(3, 1, 0.3)
    x = RNG.standard_normal((5000, 4))
    zi = RNG.standard_normal((3, 4))
    y, zf = sigpu.lfilter(b, a, to(x), axis=0, zi=to(zi))
    y2, zf2 = ss.lfilter(b, a, x, axis=0, zi=zi)
    np.testing.assert_allclose(back(y), y2, atol=1e-10)
    np.testing.assert_allclose(back(zf), zf2, atol=1e-10)
    xt = to(RNG.standard_normal((4, 8000)))[:, ::2]
    np.testing.assert_allclose(back(sigpu.lfilter(b, a, xt)), ss.lfilter(b, a, back(xt)), atol=1e-10)


def test_gpu_sosfilt(xp):
    name, lib, to, back = xp
    sos = ss.butter(8, 0.1, output="sos")
    x = RNG.standard_normal(200_000)
    y = sigpu.sosfilt(sos, to(x))
    assert type(y) is type(to(x))
    np.testing.assert_allclose(back(y), ss.sosfilt(sos, x), atol=1e-9)
    x2 = RNG.standard_normal((3000, 3))
    zi = RNG.standard_normal((sos.shape[0], 2, 3))
    y, zf = sigpu.sosfilt(sos, to(x2), axis=0, zi=to(zi))
    y2, zf2 = ss.sosfilt(sos, x2, axis=0, zi=zi)
    np.testing.assert_allclose(back(y), y2, atol=1e-9)
    np.testing.assert_allclose(back(zf), zf2, atol=1e-9)
    x32 = x.astype(np.float32)
    np.testing.assert_allclose(back(sigpu.sosfilt(sos, to(x32))), ss.sosfilt(sos, x), atol=2e-4)


def test_the_callers_stream_orders_the_work(gpu):
    torch = _lib("torch")
    b, a = [0.3, 0.2], [1.0, -0.6]
    s = torch.cuda.Stream()
    x_host = RNG.standard_normal(1 << 22).astype(np.float32)
    with torch.cuda.stream(s):
        x = torch.as_tensor(x_host, device="cuda") * 2  # still running on s when lfilter runs
        y = sigpu.lfilter(b, a, x)
        z = y * 1  # ordered after lfilter on s
    s.synchronize()
    np.testing.assert_allclose(z.cpu().numpy(), ss.lfilter(b, a, 2 * x_host.astype(np.float64)), atol=2e-4)


def test_direct_path_equals_the_general_path(xp):
    """The common call (C-contiguous, last axis, no zi) and the general path (device="cuda")
    launch the same kernel on the same memory: equal bit for bit, same type and device."""
    name, lib, to, back = xp
    b, a = ss.butter(3, 0.15)
    sos = ss.butter(6, 0.1, output="sos")
    for dtype in (np.float32, np.float64):
        x = to(RNG.standard_normal((3, 50_001)).astype(dtype))
        y = sigpu.lfilter(b, a, x)
        assert type(y) is type(x) and y.shape == x.shape and str(y.dtype) == str(x.dtype)
        assert y.device == x.device
        np.testing.assert_array_equal(back(y), back(sigpu.lfilter(b, a, x, device="cuda")))
        np.testing.assert_array_equal(back(sigpu.sosfilt(sos, x)), back(sigpu.sosfilt(sos, x, device="cuda")))
        np.testing.assert_allclose(back(y), ss.lfilter(b, a, back(x).astype(np.float64)),
                                   atol=1e-10 if dtype == np.float64 else 2e-4)


def test_the_callers_cupy_stream_orders_the_work(gpu):
    cupy = _lib("cupy")
    b, a = [0.3, 0.2], [1.0, -0.6]
    x_host = RNG.standard_normal(1 << 22).astype(np.float32)
    with cupy.cuda.Stream(non_blocking=True) as s:
        x = cupy.asarray(x_host) * 2  # still running on s when lfilter runs
        y = sigpu.lfilter(b, a, x)
        z = y * 1  # ordered after lfilter on s
    s.synchronize()
    np.testing.assert_allclose(cupy.asnumpy(z), ss.lfilter(b, a, 2 * x_host.astype(np.float64)), atol=2e-4)


def test_numpy_input_on_the_gpu(gpu):
    b, a = ss.butter(2, 0.2)
    x = RNG.standard_normal((2, 50_000))
    y = sigpu.lfilter(b, a, x, device="cuda")
    assert isinstance(y, np.ndarray)
    np.testing.assert_allclose(y, ss.lfilter(b, a, x), atol=1e-10)


def test_cuda_array_with_device_cpu_is_refused(xp):
    name, lib, to, back = xp
    with pytest.raises(ValueError, match="device='cpu' with a CUDA array"):
        sigpu.lfilter([1.0], [1.0], to(np.ones(4)), device="cpu")


@pytest.mark.parametrize("schedule", ["flooding", "layered"])
def test_decode_cuda_tensor_equals_the_cpu_decoder(xp, schedule):
    name, lib, to, back = xp
    code = ldpc.Code("dvbt2-short-1/2")
    info = RNG.integers(0, 2, (130, code.k), dtype=np.uint8)
    words = code.encode(info)
    llr = ldpc.demap(ldpc.awgn(ldpc.modulate(words), 1.3, seed=2), 1.3)
    bits = code.decode(to(llr), schedule=schedule, iterations=10)
    assert type(bits) is type(to(llr))
    want = code.decode(llr, schedule=schedule, iterations=10, device="cpu")
    np.testing.assert_array_equal(back(bits), want)


def test_hmm_on_the_gpu_equals_the_cpu(gpu):
    rng = np.random.default_rng(4)
    s, t = 16, 300
    pi = np.log(rng.dirichlet(np.ones(s)))
    A = np.log(rng.dirichlet(np.ones(s), size=s))
    B = np.log(rng.uniform(0.01, 1, (4, t, s)))
    cpu = lns.hmm_forward(pi, A, B, "lns32")
    dev = lns.hmm_forward(pi, A, B, "lns32", device="cuda")
    bound = (1.5 * t + 2) * lns.ulp("lns32") * np.log(2)
    np.testing.assert_allclose(dev, cpu, atol=2 * bound)


def test_filter_objects_stream_gpu_arrays(xp):
    """sigpu.Filter / sigpu.Sos on torch and CuPy CUDA arrays: one call equals lfilter /
    sosfilt, and blocks streamed with process() (the state kept as an array of the input's
    library) join to one call's output."""
    name, lib, to, back = xp
    b, a = ss.cheby1(3, 1, 0.35)
    sos = ss.butter(6, [0.1, 0.3], "bandpass", output="sos")
    x = RNG.standard_normal((2, 30_000))
    for f, whole in ((sigpu.Filter(b, a), ss.lfilter(b, a, x)), (sigpu.Sos(sos), ss.sosfilt(sos, x))):
        y = f(to(x))
        assert type(y) is type(to(x))
        np.testing.assert_allclose(back(y), whole, atol=1e-9)
        parts = [f.process(to(x[:, s : s + 7_000])) for s in range(0, 30_000, 7_000)]
        assert all(type(p) is type(to(x)) for p in parts)
        assert type(f.zi) is type(to(x))
        np.testing.assert_allclose(np.concatenate([back(p) for p in parts], axis=1), whole, atol=1e-9)
        f.reset()
        np.testing.assert_allclose(back(f.process(to(x))), whole, atol=1e-9)
