"""The CUDA face of complex-coefficient filters (module ``_complex_cuda``) without a GPU: its
layout work (rows along the axis, zi / zf in scipy's shapes, the dtype kept, padding and
starts of filtfilt / sosfiltfilt) runs on CPU torch tensors, with the device kernel replaced by
its CPU twin (the native host call on the same memory, read and written through the
addresses the face passes). The kernel itself is held to that twin bit for bit by the crate's
GPU checks; here the face is held to scipy."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
import scipy.signal as ss

import sigpu
from sigpu import _arrays, _complex_cuda, _native

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(77)
Q = np.array([0.95 * np.exp(0.4j), 0.9 * np.exp(-0.1j)])
BC2, AC2 = np.array([0.05, 0.02j, -0.01]), np.poly(Q)
P1 = 0.9 * np.exp(0.3j)
SOSC = np.array([[0.1, 0.05 + 0.02j, 0.0, 1.0, -P1, 0.0],
                 [1.0, -0.3j, 0.2, 1.0, -(Q[0] + Q[1]), Q[0] * Q[1]]])


def _host_view(addr: int, count: int, dtype: str) -> np.ndarray:
    ct = ctypes.c_float if dtype == "float32" else ctypes.c_double
    return np.ctypeslib.as_array((ct * count).from_address(addr))


@pytest.fixture
def host_device(monkeypatch):
    """CPU tensors stand for CUDA arrays; the kernel call runs the CPU engine in place."""
    calls = []

    def fake_gpu_array(x):
        if isinstance(x, torch.Tensor):
            return _arrays.GpuArray(
                obj=x, kind="torch", ptr=int(x.data_ptr()), shape=tuple(x.shape),
                strides=tuple(x.stride()), dtype=np.dtype(str(x.dtype).replace("torch.", "")),
                device=0, stream=0,
            )
        return None

    def fake_kernel(br, bi, ar, ai, dtype, x, y, channels, n, device, stream, zi=None,
                    zf=None, sos=False, allow_unstable=False, sync=False):
        k = 2 * (len(br) // 6) if sos else len(br) - 1
        xs = _host_view(x, 2 * channels * n, dtype).reshape(channels, 2 * n)
        zs = None if zi is None else _host_view(zi, 2 * channels * k, dtype).reshape(
            channels, 2 * k).copy()
        y2, zf2, report = _native.complex_rows(br, bi, ar, ai, xs.copy(), zs, sos=sos,
                                               allow_unstable=allow_unstable)
        _host_view(y, 2 * channels * n, dtype)[:] = y2.ravel()
        if zf is not None:
            _host_view(zf, 2 * channels * k, dtype)[:] = zf2.ravel()
        calls.append((dtype, channels, n, zi is not None, sos))
        return report

    monkeypatch.setattr(_complex_cuda, "gpu_array", fake_gpu_array)
    monkeypatch.setattr(_native, "complex_cuda", fake_kernel)
    return calls


def cx(shape, dtype=np.complex128):
    return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(dtype)


def close(got, want, tol):
    got = got.numpy() if isinstance(got, torch.Tensor) else np.asarray(got)
    assert got.shape == want.shape, (got.shape, want.shape)
    scale = max(float(np.max(np.abs(want))) if want.size else 1.0, 1.0)
    assert np.max(np.abs(got - want), initial=0.0) <= tol * scale


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_lfilter_rows_and_states_follow_scipys_shapes(host_device, axis):
    x = cx((3, 40, 5))
    k = 2
    zshape = list(x.shape)
    zshape[axis] = k
    zi = cx(tuple(zshape))
    y, zf = _complex_cuda.lfilter(BC2, AC2, torch.as_tensor(x), axis, torch.as_tensor(zi),
                                  False, None)
    wy, wzf = ss.lfilter(BC2, AC2, x, axis=axis, zi=zi)
    assert y.dtype == torch.complex128 and zf.dtype == torch.complex128
    close(y, wy, 1e-12)
    close(zf, wzf, 1e-12)
    # A zi broadcast from size-1 dimensions, as scipy accepts it.
    zb = np.ones([1 if d != axis else k for d in range(3)]) * (0.5 - 0.25j)
    y, _ = _complex_cuda.lfilter(BC2, AC2, torch.as_tensor(x), axis, zb, False, None)
    close(y, ss.lfilter(BC2, AC2, x, axis=axis, zi=np.broadcast_to(zb, zshape))[0], 1e-12)
    assert host_device[-1][0] == "float64"


def test_sosfilt_states_and_complex64(host_device):
    x = cx((4, 300), np.complex64)
    zi = cx((SOSC.shape[0], 4, 2))
    y, zf = _complex_cuda.sosfilt(SOSC, torch.as_tensor(x), 1, torch.as_tensor(zi), False, None)
    assert y.dtype == torch.complex64 and zf.dtype == torch.complex64
    wy, wzf = ss.sosfilt(SOSC, x.astype(np.complex128), zi=zi.astype(np.complex64))
    close(y.numpy().astype(np.complex128), wy, 2e-7)
    close(zf.numpy().astype(np.complex128), wzf, 2e-7)
    assert host_device[-1] == ("float32", 4, 300, True, True)
    # Along axis 0, and a float32 tensor filtered as complex64.
    r = RNG.standard_normal((300, 2)).astype(np.float32)
    y = _complex_cuda.sosfilt(SOSC, torch.as_tensor(r), 0, None, False, None)
    assert y.dtype == torch.complex64
    close(y.numpy().astype(np.complex128), ss.sosfilt(SOSC, r.astype(np.float64), axis=0), 2e-7)
    with pytest.raises(ValueError, match="zi has shape"):
        _complex_cuda.sosfilt(SOSC, torch.as_tensor(x), 1, np.zeros((2, 4, 3)), False, None)


def test_empty_signals_pass_zi_to_zf(host_device):
    zi = cx((3, 2))
    y, zf = _complex_cuda.lfilter(BC2, AC2, torch.as_tensor(cx((3, 0))), 1,
                                  torch.as_tensor(zi), False, None)
    assert tuple(y.shape) == (3, 0)
    np.testing.assert_array_equal(zf.numpy(), zi)
    assert host_device == []


@pytest.mark.parametrize("padtype,padlen", [("odd", None), ("even", 11), ("constant", 4),
                                            (None, None)])
def test_zero_phase_pads_and_starts_as_scipy(host_device, padtype, padlen):
    x = cx((2, 500))
    got = _complex_cuda.filtfilt(BC2, AC2, torch.as_tensor(x), 1, padtype, padlen, False)
    close(got, ss.filtfilt(BC2, AC2, x, padtype=padtype, padlen=padlen), 1e-10)
    got = _complex_cuda.sosfiltfilt(SOSC, torch.as_tensor(np.ascontiguousarray(x.T)), 0,
                                    padtype, padlen, False)
    close(got, ss.sosfiltfilt(SOSC, x.T, axis=0, padtype=padtype, padlen=padlen), 1e-10)


def test_zero_phase_refuses_what_scipy_refuses(host_device):
    x = torch.as_tensor(cx((2, 8)))
    with pytest.raises(ValueError, match="padlen"):
        _complex_cuda.filtfilt(BC2, AC2, x, 1, "odd", None, False)
    with pytest.raises(ValueError, match="padtype"):
        _complex_cuda.filtfilt(BC2, AC2, x, 1, "wrap", 2, False)
    with pytest.raises(ValueError, match="device='cpu'"):
        _complex_cuda.lfilter(BC2, AC2, x, 1, None, False, "cpu")


def test_cuda_arrays_with_complex_coefficients_reach_the_kernel(monkeypatch):
    """The public functions hand CUDA arrays with complex coefficients to this face (and keep
    refusing gradients)."""
    seen = []

    def fake(*args):
        seen.append(args)
        return "ran"

    monkeypatch.setattr(_complex_cuda, "lfilter", lambda *a: fake("lfilter", *a))
    monkeypatch.setattr(_complex_cuda, "sosfiltfilt", lambda *a: fake("sosfiltfilt", *a))

    class FakeCuda(torch.Tensor):
        @property
        def is_cuda(self):
            return True

    t = torch.as_tensor(cx(64)).as_subclass(FakeCuda)
    assert sigpu.lfilter(BC2, AC2, t) == "ran"
    assert sigpu.sosfiltfilt(SOSC, t) == "ran"
    assert [s[0] for s in seen] == ["lfilter", "sosfiltfilt"]
    with pytest.raises(ValueError, match="gradients"):
        sigpu.lfilter(BC2, AC2, t.clone().requires_grad_(True))
