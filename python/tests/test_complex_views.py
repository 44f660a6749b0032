"""Complex CUDA arrays with real coefficients filtered in place as interleaved (re, im) channels
(module ``_complex_views``): without a GPU, CPU torch tensors stand for CUDA arrays and the
device call is replaced by its CPU twin — the real engine on the split parts, read and written
through the addresses, sample stride and channel stride the face passes — and the results are
held to scipy. On a GPU (``gpu`` fixture) the in-place path is held to the copying path (the
pairs kernel blocks by half the values per thread: equal within rounding; the crate's checks
hold it bit for bit to the plain kernel of its own shape) and to scipy."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
import scipy.signal as ss

import sigpu
from sigpu import _arrays, _complex_views, _native

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(808)
B, A = ss.butter(2, 0.1)
SOS = ss.butter(4, 0.2, output="sos")


def _host_view(addr: int, count: int, dtype: str) -> np.ndarray:
    ct = ctypes.c_float if dtype == "float32" else ctypes.c_double
    return np.ctypeslib.as_array((ct * count).from_address(addr))


@pytest.fixture
def twin(monkeypatch):
    """CPU tensors stand for CUDA arrays; the strided device call runs the real CPU engine on
    the de-interleaved parts and writes them back interleaved. ``reads`` says whether the
    planned engine takes the layout (False: nothing runs, the face copies)."""
    calls = []
    state = {"reads": True}

    def fake_gpu_array(x):
        if isinstance(x, torch.Tensor):
            return _arrays.GpuArray(
                obj=x, kind="torch", ptr=int(x.data_ptr()), shape=tuple(x.shape),
                strides=tuple(x.stride()),
                dtype=np.dtype(str(x.dtype).replace("torch.", "")), device=0, stream=0,
            )
        return None

    def fake_filter_cuda(b, a, dtype, x, y, channels, n, device, stream, zi=None, zf=None,
                         sos_shape=None, allow_unstable=False, sync=False, sample_stride=1,
                         channel_stride=None):
        calls.append((dtype, channels, n, sample_stride, channel_stride, zi is not None))
        if not state["reads"]:
            return False
        assert sample_stride == 2 and channels % 2 == 0
        rows = channels // 2
        k = 2 * sos_shape[0] if sos_shape else max(len(a), len(b)) - 1
        xs = _host_view(x, rows * channel_stride, dtype).reshape(rows, channel_stride)
        parts = xs[:, : 2 * n].reshape(rows, n, 2).transpose(0, 2, 1).reshape(channels, n)
        z2 = None
        if zi is not None:
            zs = _host_view(zi, channels * k, dtype).reshape(rows, k, 2)
            z2 = np.ascontiguousarray(zs.transpose(0, 2, 1).reshape(channels, k))
        y2, zf2 = _native.filter_rows(b, a, np.ascontiguousarray(parts), z2,
                                      sos_shape=sos_shape, allow_unstable=allow_unstable)
        ys = _host_view(y, rows * channel_stride, dtype).reshape(rows, channel_stride)
        ys[:, : 2 * n] = y2.reshape(rows, 2, n).transpose(0, 2, 1).reshape(rows, 2 * n)
        if zf is not None:
            zfs = _host_view(zf, channels * k, dtype).reshape(rows, k, 2)
            zfs[...] = zf2.reshape(rows, 2, k).transpose(0, 2, 1)
        return True

    monkeypatch.setattr(_complex_views, "gpu_array", fake_gpu_array)
    monkeypatch.setattr(_native, "filter_cuda", fake_filter_cuda)
    return calls, state


def cx(shape, dtype=np.complex128):
    return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(dtype)


def close(got, want, tol):
    got = got.numpy() if isinstance(got, torch.Tensor) else np.asarray(got)
    assert got.shape == want.shape, (got.shape, want.shape)
    scale = max(float(np.max(np.abs(want))), 1.0)
    assert np.max(np.abs(got - want)) <= tol * scale


@pytest.mark.parametrize("dtype,tol", [(np.complex128, 1e-12), (np.complex64, 2e-5)])
def test_lfilter_runs_in_place_on_the_pairs_as_scipy(twin, dtype, tol):
    calls, _ = twin
    x = cx((3, 4, 300), dtype)
    y = sigpu.lfilter(B, A, torch.from_numpy(x))
    assert y.dtype == torch.from_numpy(x).dtype
    close(y, ss.lfilter(B, A, x.astype(np.complex128)), tol)
    parts = "float32" if dtype == np.complex64 else "float64"
    assert calls == [(parts, 24, 300, 2, 600, False)]


def test_lfilter_zi_and_zf_are_complex_states_in_scipys_shape(twin):
    calls, _ = twin
    x = cx((5, 257))
    zi = cx((5, 2))
    y, zf = sigpu.lfilter(B, A, torch.from_numpy(x), zi=torch.from_numpy(zi))
    want_y, want_zf = ss.lfilter(B, A, x, zi=zi)
    close(y, want_y, 1e-12)
    close(zf, want_zf, 1e-12)
    # A real zi is a complex state with zero imaginary parts; a host zi is moved to x's place.
    zr = RNG.standard_normal((5, 2))
    y, zf = sigpu.lfilter(B, A, torch.from_numpy(x), zi=zr)
    want_y, want_zf = ss.lfilter(B, A, x, zi=zr.astype(complex))
    close(y, want_y, 1e-12)
    close(zf, want_zf, 1e-12)
    assert [c[-1] for c in calls] == [True, True]


def test_what_the_view_cannot_describe_takes_the_copying_path(twin):
    calls, state = twin
    x = cx((4, 64))
    # The axis not last, a transposed (non-C-order) array, gradients wanted: no strided call.
    close(sigpu.lfilter(B, A, torch.from_numpy(x), axis=0), ss.lfilter(B, A, x, axis=0), 1e-12)
    xt = torch.from_numpy(cx((64, 4))).T
    close(sigpu.lfilter(B, A, xt), ss.lfilter(B, A, xt.numpy()), 1e-12)
    zi_wrong = cx((4, 1, 2))  # broadcastable shape: scipy's rules, on the copying path
    # A lazy conjugate's memory holds the unconjugated values: the copying path resolves it.
    xc = torch.from_numpy(x).conj()
    assert xc.is_conj()
    close(sigpu.lfilter(B, A, xc), ss.lfilter(B, A, np.conj(x)), 1e-12)
    assert calls == []
    # An engine that reads rows only (the call runs nothing and says so): copied as before.
    state["reads"] = False
    close(sigpu.lfilter(B, A, torch.from_numpy(x)), ss.lfilter(B, A, x), 1e-12)
    close(sigpu.sosfilt(SOS, torch.from_numpy(x)), ss.sosfilt(SOS, x), 1e-12)
    assert [c[3] for c in calls] == [2, 2]
    del zi_wrong


def test_sosfilt_without_zi_reads_the_pairs_in_place(twin):
    calls, _ = twin
    x = cx((2, 3, 129))
    close(sigpu.sosfilt(SOS, torch.from_numpy(x)), ss.sosfilt(SOS, x), 1e-12)
    assert calls == [("float64", 12, 129, 2, 258, False)]
    # With zi (scipy's (sections, ..., 2) state) the copying path runs.
    zi = cx((SOS.shape[0], 2, 3, 2))
    y, zf = sigpu.sosfilt(SOS, torch.from_numpy(x), zi=torch.from_numpy(zi))
    want_y, want_zf = ss.sosfilt(SOS, x, zi=zi)
    close(y, want_y, 1e-12)
    close(zf, want_zf, 1e-12)
    assert len(calls) == 1


def test_gradients_keep_the_differentiable_path(twin):
    calls, _ = twin
    x = torch.from_numpy(cx((2, 50))).requires_grad_(True)
    y = sigpu.lfilter(B, A, x)
    y.abs().sum().backward()
    assert x.grad is not None and calls == []


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_in_place_pairs_match_the_copying_path_on_a_gpu(gpu, dtype):
    """On the device: the strided kernel against the plain kernel on the copied parts."""
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA")
    x = torch.from_numpy(cx((3, 70_001), getattr(np, dtype))).cuda()
    zi = torch.from_numpy(cx((3, 2), getattr(np, dtype))).cuda()
    y, zf = sigpu.lfilter(B, A, x, zi=zi)
    pairs = torch.view_as_real(x).movedim(-1, -2).contiguous()
    zp = torch.view_as_real(zi).movedim(-1, -2).contiguous()
    yr, zfr = sigpu.lfilter(B, A, pairs, zi=zp)
    tol = 2e-5 if dtype == "complex64" else 1e-12
    for got, ref in ((y, yr), (zf, zfr)):
        got = torch.view_as_real(got).movedim(-1, -2)
        assert float((got - ref).abs().max()) <= tol * max(float(ref.abs().max()), 1.0)
    want = ss.lfilter(B, A, x.cpu().numpy().astype(np.complex128),
                      zi=zi.cpu().numpy().astype(np.complex128))[0]
    close(y.cpu(), want, 1e-4 if dtype == "complex64" else 1e-11)
