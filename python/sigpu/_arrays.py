"""Recognising GPU arrays (PyTorch tensors, CuPy arrays, any ``__cuda_array_interface__``
producer) without importing their libraries, and making outputs of the same type."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any, Dict, Optional, Tuple

import numpy as np


@dataclass
class GpuArray:
    """A CUDA array as its producer describes it: the data stays where it is."""

    obj: Any
    kind: str  # "torch" | "cupy"
    ptr: int
    shape: Tuple[int, ...]
    strides: Tuple[int, ...]  # in elements
    dtype: np.dtype
    device: int
    stream: int  # cudaStream_t of the producer's current stream on `device`; 0 = legacy

    @property
    def c_contiguous(self) -> bool:
        expect = 1
        for n, s in zip(reversed(self.shape), reversed(self.strides)):
            if n > 1 and s != expect:
                return False
            expect *= n
        return True


_TORCH_DTYPES = {
    "torch.float32": "float32",
    "torch.float64": "float64",
    "torch.int32": "int32",
    "torch.int64": "int64",
    "torch.uint8": "uint8",
    "torch.int8": "int8",
    "torch.float16": "float16",
    "torch.bfloat16": "bfloat16",
    "torch.complex64": "complex64",
    "torch.complex128": "complex128",
    "torch.bool": "bool",
}


def _is_torch(x: Any) -> bool:
    return type(x).__module__.startswith("torch") and "torch" in sys.modules


def _is_cupy(x: Any) -> bool:
    return type(x).__module__.startswith("cupy") and "cupy" in sys.modules


# torch.dtype → numpy dtype, and the raw current-stream query, of the torch module they were
# read from: filled on the first tensor seen (importing sigpu imports no torch).
_TORCH_NP: Dict[Any, Optional[np.dtype]] = {}
_torch_raw_stream: Any = None
_torch_seen: Any = None


def _torch_facts(torch: Any) -> None:
    global _TORCH_NP, _torch_raw_stream, _torch_seen
    table = {}
    for tname, npname in _TORCH_DTYPES.items():
        t = getattr(torch, tname[len("torch.") :], None)
        if t is not None:
            table[t] = np.dtype(npname) if npname != "bfloat16" else None
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is None:  # older torch: the same handle through the Stream object

        def raw(dev: int) -> int:
            return torch.cuda.current_stream(dev).cuda_stream

    _TORCH_NP, _torch_raw_stream, _torch_seen = table, raw, torch


def torch_stream(torch: Any, device: int) -> int:
    """The cudaStream_t of torch's current stream on ``device`` (0: the legacy default stream),
    read without building a torch.cuda.Stream object."""
    if torch is not _torch_seen:
        _torch_facts(torch)
    return int(_torch_raw_stream(device))


def torch_np_dtype(torch: Any, dtype: Any) -> Optional[np.dtype]:
    """numpy's dtype for a torch dtype; None for bfloat16 (and unknown types)."""
    if torch is not _torch_seen:
        _torch_facts(torch)
    return _TORCH_NP.get(dtype)


def gpu_array(x: Any) -> Optional[GpuArray]:
    """The description of ``x`` when it is a CUDA array, else None (numpy and the like)."""
    if _is_torch(x):
        torch = sys.modules["torch"]

        if not isinstance(x, torch.Tensor) or not x.is_cuda:
            return None
        dtype = torch_np_dtype(torch, x.dtype)
        if dtype is None:
            raise TypeError(f"sigpu does not take {x.dtype} tensors")
        dev = x.get_device()
        return GpuArray(
            obj=x,
            kind="torch",
            ptr=int(x.data_ptr()),
            shape=tuple(x.shape),
            strides=tuple(x.stride()),
            dtype=dtype,
            device=dev,
            stream=torch_stream(torch, dev),
        )
    cai = getattr(x, "__cuda_array_interface__", None)
    if cai is None:
        if hasattr(x, "__dlpack_device__"):
            kind, _ = x.__dlpack_device__()
            if kind in (2, 13):
                raise TypeError(
                    f"{type(x).__name__}: a CUDA array without __cuda_array_interface__; "
                    "pass it through torch.from_dlpack or cupy.from_dlpack"
                )
        return None
    if not _is_cupy(x):
        raise TypeError(
            f"{type(x).__name__}: sigpu returns GPU results as PyTorch tensors or CuPy arrays; "
            "wrap this array with cupy.asarray or torch.as_tensor"
        )
    import cupy

    dtype = np.dtype(cai["typestr"])
    shape = tuple(cai["shape"])
    if cai.get("strides") is None:
        strides = _c_strides(shape)
    else:
        strides = tuple(s // dtype.itemsize for s in cai["strides"])
    stream = cai.get("stream")
    if stream is None:
        stream = cupy.cuda.get_current_stream().ptr
    # The protocol's 1 is the legacy default stream (handle 0); 2 the per-thread one.
    stream = 0 if stream == 1 else int(stream)
    return GpuArray(
        obj=x,
        kind="cupy",
        ptr=int(cai["data"][0]),
        shape=shape,
        strides=strides,
        dtype=dtype,
        device=int(x.device.id),
        stream=stream,
    )


def _c_strides(shape: Tuple[int, ...]) -> Tuple[int, ...]:
    out = []
    acc = 1
    for n in reversed(shape):
        out.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(out))


def empty_like_kind(g: GpuArray, shape: Tuple[int, ...], dtype: str) -> Any:
    """A new C-contiguous array on ``g``'s device, of ``g``'s library."""
    if g.kind == "torch":
        import torch

        return torch.empty(shape, dtype=getattr(torch, dtype), device=g.obj.device)
    import cupy

    with cupy.cuda.Device(g.device):
        return cupy.empty(shape, dtype=dtype)


def data_ptr(x: Any, kind: str) -> int:
    """The device address of an array made here (``empty_like_kind``, ``contiguous_last``):
    read directly, without the array-interface round trip."""
    if kind == "torch":
        return int(x.data_ptr())
    return int(x.data.ptr)


def contiguous_last(g: GpuArray, axis: int, dtype: str) -> Any:
    """``g``'s array with ``axis`` moved last, as a C-contiguous array of ``dtype`` (a device
    copy only when it is not so already)."""
    x = g.obj
    if g.kind == "torch":
        import torch

        x = torch.movedim(x, axis, -1).to(getattr(torch, dtype)).contiguous()
        return x
    import cupy

    with cupy.cuda.Device(g.device):
        return cupy.ascontiguousarray(cupy.moveaxis(x, axis, -1), dtype=dtype)


def move_back(x: Any, kind: str, axis: int) -> Any:
    """The inverse of moving ``axis`` last: a view."""
    if kind == "torch":
        import torch

        return torch.movedim(x, -1, axis)
    import cupy

    return cupy.moveaxis(x, -1, axis)


def parse_device(device: Optional[str]) -> Optional[int]:
    """None → None (choose), "cpu" → -1, "cuda" → 0, "cuda:N" → N; any other name (also
    "gpu": sigpu names CUDA devices as PyTorch does) is refused, saying what is accepted."""
    if device is None:
        return None
    if not isinstance(device, str):
        raise TypeError(f"device must be None, 'cpu', 'cuda' or 'cuda:N', not {device!r}")
    d = device.strip().lower()
    if d == "cpu":
        return -1
    if d == "cuda":
        return 0
    if d.startswith("cuda:"):
        try:
            n = int(d[5:])
        except ValueError:
            n = -1
        if n >= 0:
            return n
    raise ValueError(
        f"device {device!r}: expected None, 'cpu', 'cuda' or 'cuda:N' (N a device number, "
        "e.g. 'cuda:0')"
    )


def axis_index(axis: Any, ndim: int) -> int:
    """``axis`` of an array of ``ndim`` dimensions as a non-negative index (numpy's rules),
    refused with the reason when it is not an integer or out of bounds."""
    if not isinstance(axis, (int, np.integer)):
        raise TypeError(f"axis must be an integer, not {type(axis).__name__}")
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for an array of {ndim} dimension(s)")
    return int(axis) % ndim
