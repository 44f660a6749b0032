#!/usr/bin/env python3
"""The Python-side host cost of `sigpu.lfilter` on a CUDA array, measured without a GPU.

Stand-ins for `torch` and `cupy` (modules of those names, whose arrays expose what sigpu reads:
data pointers, shapes, strides, dtypes, `__cuda_array_interface__`, the current stream) are put
in `sys.modules`, and the native launch is replaced by a stub that only counts its calls, so
what is timed is sigpu's own Python work per call: the coefficient checks, recognising the
array, describing it, choosing the path, allocating the output (a stand-in: the libraries' own
allocation and stream queries are measured on the GPU by `gpu_targets.py`), and building the
native call's arguments.

usage: host_path.py [--reps 20000] > results.json
Prints one JSON object: microseconds per call (median of blocks), for the direct path (the
common call: C-contiguous float32, last axis, no zi) and the general path (`device="cuda"`,
which takes the array description, then the checks), and the steps of each."""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import types

import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("--reps", type=int, default=20000)
args = ap.parse_args()


# ---- a torch stand-in
torch = types.ModuleType("torch")


class _Dtype:
    def __init__(self, name):
        self.name = name

    def __str__(self):
        return "torch." + self.name


torch.float32 = _Dtype("float32")
torch.float64 = _Dtype("float64")
torch.contiguous_format = object()


class _Device:
    def __init__(self, index):
        self.type, self.index = "cuda", index


class Tensor:
    __module__ = "torch"

    def __init__(self, shape, dtype, ptr=0x7F0000000000):
        self.shape = tuple(shape)
        self.dtype = dtype
        self._ptr = ptr
        self.is_cuda = True
        self.device = _Device(0)

    def dim(self):
        return len(self.shape)

    def size(self, i):
        return self.shape[i]

    def numel(self):
        n = 1
        for s in self.shape:
            n *= s
        return n

    def stride(self):
        out, acc = [], 1
        for s in reversed(self.shape):
            out.append(acc)
            acc *= s
        return tuple(reversed(out))

    def is_contiguous(self):
        return True

    def get_device(self):
        return 0

    def data_ptr(self):
        return self._ptr


torch.Tensor = Tensor
torch.empty_like = lambda x, memory_format=None: Tensor(x.shape, x.dtype, x._ptr + (1 << 32))
torch.empty = lambda shape, dtype=None, device=None: Tensor(shape, dtype, 0x7E0000000000)
torch._C = types.SimpleNamespace(_cuda_getCurrentRawStream=lambda dev: 0)
torch.cuda = types.SimpleNamespace(
    current_stream=lambda dev=None: types.SimpleNamespace(cuda_stream=0), current_device=lambda: 0
)
sys.modules["torch"] = torch

# ---- a CuPy stand-in
cupy = types.ModuleType("cupy")


class _Mem:
    def __init__(self, ptr):
        self.ptr = ptr


class ndarray:
    __module__ = "cupy"

    def __init__(self, shape, dtype, ptr=0x7D0000000000):
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        self.ndim = len(self.shape)
        self.size = 1
        for n in self.shape:
            self.size *= n
        self.data = _Mem(ptr)
        self.flags = types.SimpleNamespace(c_contiguous=True)
        self.device = types.SimpleNamespace(id=0)

    @property
    def __cuda_array_interface__(self):
        return {
            "shape": self.shape,
            "typestr": self.dtype.str,
            "data": (self.data.ptr, False),
            "strides": None,
            "version": 3,
            "stream": 1,
        }


class _DeviceCtx:
    def __init__(self, i):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


cupy.ndarray = ndarray
cupy.empty = lambda shape, dtype=None: ndarray(shape, dtype, 0x7C0000000000)
cupy.cuda = types.SimpleNamespace(
    Device=_DeviceCtx,
    get_current_stream=lambda: types.SimpleNamespace(ptr=0),
    runtime=types.SimpleNamespace(getDevice=lambda: 0),
)
sys.modules["cupy"] = cupy

import sigpu  # noqa: E402
from sigpu import _arrays, _signal  # noqa: E402

calls = []


def stub(*a, **k):
    calls.append(len(a))


_signal._native = types.SimpleNamespace(filter_cuda=stub)


def us(fn, reps=args.reps, block=100):
    fn()
    times = []
    for _ in range(max(reps // block, 1)):
        t = time.perf_counter()
        for _ in range(block):
            fn()
        times.append((time.perf_counter() - t) / block * 1e6)
    return round(statistics.median(times), 3)


b, a = [0.2], [1.0, -0.8]
out = {"python": sys.version.split()[0], "numpy": np.__version__, "reps": args.reps}
for kind, arr in (
    ("torch", Tensor((1 << 28,), torch.float32)),
    ("cupy", ndarray((1 << 28,), np.float32)),
):
    r = {
        "direct_call": us(lambda: sigpu.lfilter(b, a, arr)),
        "general_call": us(lambda: sigpu.lfilter(b, a, arr, device="cuda")),
        "steps": {
            "validate_coefs_uncached": us(lambda: (_signal._coefs(b, "b"), _signal._coefs(a, "a"))),
            "describe_general": us(lambda: _arrays.gpu_array(arr)),
            "parse_device": us(lambda: _arrays.parse_device("cuda")),
        },
    }
    if hasattr(_signal, "_validated"):  # absent before the direct path
        r["steps"].update(
            validate_coefs_cached=us(lambda: _signal._validated(b, a)),
            coefs_from_numpy_cached=us(lambda: _signal._validated(np.array(b), np.array(a))),
            direct_io=us(lambda: _signal._direct_io(arr, -1)),
        )
    sos = np.array([[0.2, 0.0, 0.0, 1.0, -0.8, 0.0]])
    r["sosfilt_direct_call"] = us(lambda: sigpu.sosfilt(sos, arr))
    r["sosfilt_general_call"] = us(lambda: sigpu.sosfilt(sos, arr, device="cuda"))
    out[kind] = r
assert calls, "the native launch was reached"
print(json.dumps(out, indent=1))
