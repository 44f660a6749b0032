"""Where an LNS tensor's words live: a numpy array, a PyTorch tensor or a CuPy array of int32
(any format) or int16 (formats of at most 16 bits), the word's bits stored as they are. These
helpers widen, narrow, allocate and describe such arrays for the native calls, and do the exact
integer work (sign flips, comparison keys) with each library's own operators."""

from __future__ import annotations

import sys
from typing import Any, Optional, Tuple

import numpy as np

from ._arrays import torch_stream


def kind_of(a: Any) -> str:
    """``"numpy"``, ``"torch"`` (a CUDA or CPU tensor) or ``"cupy"``."""
    mod = type(a).__module__
    if mod.startswith("torch") and "torch" in sys.modules:
        return "torch"
    if mod.startswith("cupy") and "cupy" in sys.modules:
        return "cupy"
    return "numpy"


def on_gpu(a: Any, kind: str) -> bool:
    if kind == "torch":
        return bool(a.is_cuda)
    return kind == "cupy"


def device_of(a: Any, kind: str) -> Optional[int]:
    """The CUDA device ordinal of a GPU array, None on the host."""
    if kind == "torch":
        return a.get_device() if a.is_cuda else None
    if kind == "cupy":
        return int(a.device.id)
    return None


def stream_of(a: Any, kind: str) -> int:
    """The caller's current stream on the array's device (cudaStream_t; 0 the legacy one)."""
    if kind == "torch":
        return torch_stream(sys.modules["torch"], a.get_device())
    import cupy

    return int(cupy.cuda.get_current_stream().ptr)


def ptr_of(a: Any, kind: str) -> int:
    return int(a.data_ptr()) if kind == "torch" else int(a.data.ptr)


def dtype_name(a: Any, kind: str) -> str:
    """``int16``, ``int32``, ``float32`` …: the element type's numpy name."""
    if kind == "torch":
        return str(a.dtype).replace("torch.", "")
    return np.dtype(a.dtype).name


def contiguous(a: Any, kind: str) -> Any:
    if kind == "torch":
        return a.contiguous()
    if kind == "cupy":
        import cupy

        return cupy.ascontiguousarray(a)
    return np.ascontiguousarray(a)


def empty(like: Any, kind: str, shape: Tuple[int, ...], dtype: str) -> Any:
    """A new C-contiguous array of ``like``'s library and device."""
    if kind == "torch":
        import torch

        return torch.empty(shape, dtype=getattr(torch, dtype), device=like.device)
    if kind == "cupy":
        import cupy

        with cupy.cuda.Device(int(like.device.id)):
            return cupy.empty(shape, dtype=dtype)
    return np.empty(shape, dtype=dtype)


def full(like: Any, kind: str, shape: Tuple[int, ...], dtype: str, value: int) -> Any:
    out = empty(like, kind, shape, dtype)
    out[...] = value
    return out


def asarray_like(x: Any, like: Any, kind: str) -> Any:
    """``x`` (numbers, a numpy array) as an array of ``like``'s library and device."""
    if kind == "torch":
        import torch

        return torch.as_tensor(np.asarray(x), device=like.device)
    if kind == "cupy":
        import cupy

        with cupy.cuda.Device(int(like.device.id)):
            return cupy.asarray(np.asarray(x))
    return np.asarray(x)


def where(kind: str, cond: Any, a: Any, b: Any) -> Any:
    if kind == "torch":
        import torch

        return torch.where(cond, a, b)
    if kind == "cupy":
        import cupy

        return cupy.where(cond, a, b)
    return np.where(cond, a, b)


def full_like(v: Any, kind: str, value: Any) -> Any:
    """An array of ``v``'s shape, type and device filled with ``value``."""
    if kind == "torch":
        import torch

        return torch.full_like(v, value)
    if kind == "cupy":
        import cupy

        return cupy.full_like(v, value)
    return np.full_like(v, value)


def moveaxis(a: Any, kind: str, src: Any, dst: Any) -> Any:
    if kind == "torch":
        import torch

        return torch.movedim(a, src, dst)
    if kind == "cupy":
        import cupy

        return cupy.moveaxis(a, src, dst)
    return np.moveaxis(a, src, dst)


def broadcast(kind: str, *arrays: Any) -> Tuple[Any, ...]:
    if kind == "torch":
        import torch

        return tuple(torch.broadcast_tensors(*arrays))
    if kind == "cupy":
        import cupy

        return tuple(cupy.broadcast_arrays(*arrays))
    return tuple(np.broadcast_arrays(*arrays))


def widen(words: Any, kind: str) -> Any:
    """The words as non-negative int64 (their unsigned bit patterns)."""
    bits = 16 if dtype_name(words, kind) == "int16" else 32
    mask = (1 << bits) - 1
    if kind == "torch":
        import torch

        return words.to(torch.int64) & mask
    return words.astype(np.int64) & mask


def narrow(values: Any, kind: str, storage: str) -> Any:
    """int64 bit patterns back into ``storage`` (int32 or int16), bits kept."""
    bits = 16 if storage == "int16" else 32
    signed = values - ((values >> (bits - 1)) & 1) * (1 << bits)
    if kind == "torch":
        import torch

        return signed.to(getattr(torch, storage))
    return signed.astype(storage)


def to_host(a: Any, kind: str) -> np.ndarray:
    if kind == "torch":
        return a.detach().cpu().numpy()
    if kind == "cupy":
        return a.get()
    return np.asarray(a)
