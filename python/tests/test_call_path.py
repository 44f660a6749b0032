"""The GPU call path without a GPU: validated coefficients are cached by their exact values
and every check still runs for new ones; the direct path (C-contiguous float32 / float64, last
axis, no zi) passes the native launch the array's addresses, rows, length, device and the
caller's current stream, and everything else takes the general path. torch and CuPy are
stand-in modules here (the real ones are exercised by test_gpu.py on a GPU); the native launch
is replaced by a recorder."""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest
import scipy.signal as ss

import sigpu
from sigpu import _signal

RNG = np.random.default_rng(5)


def test_cache_keys_are_exact_values():
    key = _signal._ba_key
    assert key([1, -0.5]) == key([1.0, -0.5]) == key((1.0, -0.5))
    assert key([0.0]) != key([-0.0]), "the sign of zero is part of the value"
    assert key(np.array([1.0], np.float32)) != key(np.array([1.0]))
    assert key(np.array([1.0, 2.0])) != key([1.0, 2.0])
    for other in ([True], [1 << 60], ["0.5"], [1j], [np.float64(0.5)], np.ones((2, 2)), 0.5):
        assert key(other) is None, other


def test_cached_coefficients_keep_every_check():
    x = RNG.standard_normal(64)
    for _ in range(2):  # the second call would hit the cache if a failure were cached
        with pytest.raises(ValueError, match="finite"):
            sigpu.lfilter([np.nan], [1.0], x)
        with pytest.raises(ValueError, match="a\\[0\\] must be nonzero"):
            sigpu.lfilter([1.0], [0.0, 1.0], x)
        with pytest.raises(ValueError, match="empty"):
            sigpu.lfilter([], [1.0], x)
        with pytest.raises(ValueError, match="finite"):
            sigpu.lfilter([1j, np.nan], [1.0], x)
    y = sigpu.lfilter([0.5], [1.0, -0.5], x)
    np.testing.assert_allclose(y, ss.lfilter([0.5], [1.0, -0.5], x), atol=1e-12)
    # Equal values from another container are the same filter; a changed array is a new one.
    b = np.array([0.5])
    np.testing.assert_array_equal(sigpu.lfilter(b, [1.0, -0.5], x), y)
    b[0] = 0.25
    assert b.flags.writeable, "the caller's array is left as it was"
    np.testing.assert_allclose(
        sigpu.lfilter(b, [1.0, -0.5], x), ss.lfilter([0.25], [1.0, -0.5], x), atol=1e-12
    )
    sos = ss.butter(4, 0.2, output="sos")
    for _ in range(2):
        np.testing.assert_allclose(sigpu.sosfilt(sos, x), ss.sosfilt(sos, x), atol=1e-12)
    bad = sos.copy()
    bad[0, 3] = 2.0
    for _ in range(2):
        with pytest.raises(ValueError, match="a\\[0\\] = 1"):
            sigpu.sosfilt(bad, x)


# ---- stand-ins for torch and CuPy


class _TDtype:
    def __init__(self, name):
        self.name = name

    def __str__(self):
        return "torch." + self.name


def _fake_torch():
    torch = types.ModuleType("torch")
    for name in ("float32", "float64", "int32", "int64", "bfloat16"):
        setattr(torch, name, _TDtype(name))
    torch.contiguous_format = object()

    class Tensor:
        __module__ = "torch"

        def __init__(self, shape, dtype, ptr, strides=None, cuda=True, device=0):
            self.shape = tuple(shape)
            self.dtype = dtype
            self.ptr = ptr
            self.is_cuda = cuda
            self._device = device
            self._strides = strides or tuple(
                int(np.prod(self.shape[i + 1 :], dtype=np.int64)) for i in range(len(self.shape))
            )
            self.device = types.SimpleNamespace(type="cuda", index=device)

        def dim(self):
            return len(self.shape)

        def size(self, i):
            return self.shape[i]

        def numel(self):
            return int(np.prod(self.shape, dtype=np.int64))

        def stride(self):
            return self._strides

        def is_contiguous(self):
            want = Tensor(self.shape, self.dtype, 0)._strides
            return all(n <= 1 or s == w for n, s, w in zip(self.shape, self._strides, want))

        def get_device(self):
            return self._device

        def data_ptr(self):
            return self.ptr

    torch.Tensor = Tensor
    torch.allocated = []

    def empty_like(x, memory_format=None):
        assert memory_format is torch.contiguous_format
        t = Tensor(x.shape, x.dtype, 0xB000 + len(torch.allocated), device=x._device)
        torch.allocated.append(t)
        return t

    torch.empty_like = empty_like
    torch.streams = {0: 0, 1: 0x51}
    torch._C = types.SimpleNamespace(_cuda_getCurrentRawStream=lambda dev: torch.streams[dev])
    return torch


def _fake_cupy():
    cupy = types.ModuleType("cupy")

    class ndarray:
        __module__ = "cupy"

        def __init__(self, shape, dtype, ptr, contiguous=True, device=0):
            self.shape = tuple(shape)
            self.dtype = np.dtype(dtype)
            self.ndim = len(self.shape)
            self.size = int(np.prod(self.shape, dtype=np.int64))
            self.data = types.SimpleNamespace(ptr=ptr)
            self.flags = types.SimpleNamespace(c_contiguous=contiguous)
            self.device = types.SimpleNamespace(id=device)

    cupy.ndarray = ndarray
    cupy.current = {"device": 0, "stream": 0x77}
    cupy.allocated = []

    def empty(shape, dtype=None):
        a = ndarray(shape, dtype, 0xC000 + len(cupy.allocated), device=cupy.current["device"])
        cupy.allocated.append(a)
        return a

    class Device:
        def __init__(self, i):
            self.i = i

        def __enter__(self):
            self.prev = cupy.current["device"]
            cupy.current["device"] = self.i

        def __exit__(self, *a):
            cupy.current["device"] = self.prev

    cupy.empty = empty
    cupy.cuda = types.SimpleNamespace(
        Device=Device,
        get_current_stream=lambda: types.SimpleNamespace(ptr=cupy.current["stream"]),
        runtime=types.SimpleNamespace(getDevice=lambda: cupy.current["device"]),
    )
    return cupy


@pytest.fixture
def launches(monkeypatch):
    """The native launches of the calls made in the test, as (function, arguments)."""
    seen = []
    native = types.SimpleNamespace(
        filter_cuda=lambda *a, **k: seen.append(("sosfilt" if "sos_shape" in k else "lfilter", a, k)),
    )
    monkeypatch.setattr(_signal, "_native", native)
    monkeypatch.setitem(sys.modules, "torch", _fake_torch())
    monkeypatch.setitem(sys.modules, "cupy", _fake_cupy())
    return seen


def test_direct_path_torch(launches):
    torch = sys.modules["torch"]
    x = torch.Tensor((3, 1000), torch.float32, 0xA000, device=1)
    y = sigpu.lfilter([0.2], [1.0, -0.8], x)
    assert y is torch.allocated[-1] and y.shape == (3, 1000) and y._device == 1
    assert launches == [
        ("lfilter", ([0.2], [1.0, -0.8], "float32", 0xA000, y.ptr, 3, 1000, 1, 0x51), {})
    ]
    x64 = torch.Tensor((5,), torch.float64, 0xA100)
    sigpu.lfilter([0.2], [1.0, -0.8], x64, axis=0)
    assert launches[-1][1][2:] == ("float64", 0xA100, torch.allocated[-1].ptr, 1, 5, 0, 0)
    sos = ss.butter(2, 0.3, output="sos")
    sigpu.sosfilt(sos, x)
    kind, args, kw = launches[-1]
    assert kind == "sosfilt" and args[1] == [] and args[2:] == (
        "float32", 0xA000, torch.allocated[-1].ptr, 3, 1000, 1, 0x51,
    ) and kw == {"sos_shape": [1, 6]}


def test_direct_path_cupy(launches):
    cupy = sys.modules["cupy"]
    x = cupy.ndarray((2, 10), np.float32, 0xD000, device=1)
    y = sigpu.lfilter([0.2], [1.0, -0.8], x)
    assert y.device.id == 1, "the output is allocated on the array's device"
    assert cupy.current["device"] == 0
    assert launches[-1] == (
        "lfilter", ([0.2], [1.0, -0.8], "float32", 0xD000, y.data.ptr, 2, 10, 1, 0x77), {}
    )
    cupy.current["stream"] = 1  # the legacy default stream in CuPy's numbering is handle 0
    x0 = cupy.ndarray((7,), np.float64, 0xD100)
    sigpu.lfilter([0.2], [1.0, -0.8], x0)
    assert launches[-1][1][2:] == ("float64", 0xD100, cupy.allocated[-1].data.ptr, 1, 7, 0, 0)


def test_other_calls_take_the_general_path(launches, monkeypatch):
    torch = sys.modules["torch"]
    general = []
    monkeypatch.setattr(_signal, "_lfilter_gpu", lambda *a: general.append(a) or "general")
    monkeypatch.setattr(_signal, "_sosfilt_gpu", lambda *a: general.append(a) or "general")
    b, a = [0.2], [1.0, -0.8]
    x = torch.Tensor((4, 6), torch.float32, 0xE000)
    strided = torch.Tensor((4, 6), torch.float32, 0xE000, strides=(12, 2))
    calls = [
        lambda: sigpu.lfilter(b, a, x, axis=0),
        lambda: sigpu.lfilter(b, a, x, zi=np.zeros((4, 1))),
        lambda: sigpu.lfilter(b, a, x, device="cuda"),
        lambda: sigpu.lfilter(b, a, strided),
        lambda: sigpu.lfilter(b, a, torch.Tensor((4, 6), torch.int32, 0xE000)),
        lambda: sigpu.lfilter(b, a, torch.Tensor((4, 0), torch.float32, 0xE000)),
        lambda: sigpu.lfilter(b, a, x, axis=np.int64(-1)),
        lambda: sigpu.sosfilt(ss.butter(2, 0.3, output="sos"), x, axis=0),
    ]
    for i, call in enumerate(calls):
        assert call() == "general", i
    assert len(general) == len(calls) and launches == []
    with pytest.raises(TypeError, match="bfloat16"):
        sigpu.lfilter(b, a, torch.Tensor((4,), torch.bfloat16, 0xE000))
