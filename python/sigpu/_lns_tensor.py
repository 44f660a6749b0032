"""``sigpu.lns.Tensor``: LNS values whose words live where the researcher computes — a numpy
array on the host, a PyTorch tensor or a CuPy array on the host or a GPU — with the format
attached. Every operation runs where the words are: native CPU code on numpy words, sigpu's
kernels on the caller's device and current stream for CUDA tensors (no copy to the host),
the two agreeing bit for bit (f32split adds where it takes the format, 5 ≤ F ≤ 23; the
``sigpu_lns::axis`` arithmetic and its kernels for conversions and reductions).

Error bounds (ulp = 2^-F in log2|x|; δ = 2^(F−50)·(κ + 1)/ln 2 ulp with κ = Σ|t|/|Σt|, the
sum's condition number, 1 when the terms share a sign — about 2^-26 ulp for lns32):

- from_float: correctly rounded for every float32 input (checked over all 2^23 significands);
  within 0.5 + 2^(F−50) ulp for float64. to_float: within 2 float64 ulps (float32 output:
  that value rounded to nearest).
- ×, ÷, negation, abs, comparisons, prod, max, min, exp2 of multiples of 2^-F, log2: exact.
- +, −: faithful (< 1 ulp) by f32split, certified over every input of lns16 (0.504 ulp),
  lns32 (s_b 0.513 / d_b 0.541 ulp) and every format with F ≤ 16 (a test); formats with
  17 ≤ F ≤ 23 other than lns32 run the same construction, not certified exhaustively; other
  F use each side's default method (faithful, not bit-equal between CPU and GPU). x + (−x) =
  0 and x + 0 = x exactly.
- sum, dot, matmul: one rounding of an exact sum of terms each within 2 float64 ulps:
  ≤ 0.5 + δ ulp, correctly rounded unless within δ of a tie.
"""

from __future__ import annotations

import math
from typing import Any, Optional, Sequence, Tuple, Union

import numpy as np

from . import _lns_store as st
from . import _native

Axis = Union[None, int, Sequence[int]]


def _fmt(format: str) -> Tuple[int, int, int]:
    """(word bits, I, F) of a format name, validated by the library."""
    bits, _ulp, i, f = _native.lns_format(format)
    return bits, i, f


class Tensor:
    """LNS values in one format, held as raw words in a numpy array, a torch tensor or a CuPy
    array (int32, or int16 for formats of ≤ 16 bits: the word's bits as they are).

    Build one with :meth:`from_float` (rounded in the log domain, on the array's device),
    :meth:`from_words` (zero copy) or :meth:`from_xlnsnp`. Arithmetic broadcasts like numpy
    (broadcast operands are materialised once); operands are Tensors of the same format,
    storage and device, or numbers / float arrays, which are converted first.
    """

    __array_priority__ = 1000
    format: str
    words: Any

    def __init__(self, words: Any, format: str = "lns32") -> None:
        bits, _i, _f = _fmt(format)
        kind = st.kind_of(words)
        if kind == "numpy":
            words = np.asarray(words)
        dt = st.dtype_name(words, kind)
        if dt not in ("int32", "int16"):
            raise TypeError(f"LNS words are stored as int32 or int16, not {dt}")
        if dt == "int16" and bits > 16:
            raise ValueError(f"{format} has {bits}-bit words: store them as int32")
        self.format = format
        self.words = words

    # ---- construction and conversion

    @classmethod
    def from_words(cls, words: Any, format: str = "lns32") -> "Tensor":
        """A tensor over existing words (int32 / int16; uint32 / uint16 numpy arrays are
        viewed as signed): no copy."""
        if isinstance(words, np.ndarray) and words.dtype in (np.uint32, np.uint16):
            words = words.view(np.int32 if words.dtype == np.uint32 else np.int16)
        return cls(words, format)

    @classmethod
    def from_float(
        cls, x: Any, format: str = "lns32", storage: Optional[str] = None
    ) -> "Tensor":
        """The words nearest to ``x`` in the log domain (a float array of numpy, torch or
        CuPy; numbers and lists become numpy), computed where ``x`` lives. ``storage``:
        "int32" or "int16" (the default for formats of ≤ 16 bits). Correctly rounded for
        float32 (and float16, bfloat16, widened exactly) inputs; within 0.5 + 2^(F−50) ulp
        for float64. Beyond the range: ±∞ or zero, as IEEE overflow and underflow."""
        bits, _i, _f = _fmt(format)
        storage = storage or ("int16" if bits <= 16 else "int32")
        if storage not in ("int32", "int16"):
            raise ValueError(f"storage must be 'int32' or 'int16', not {storage!r}")
        if storage == "int16" and bits > 16:
            raise ValueError(f"{format} has {bits}-bit words: use storage='int32'")
        kind = st.kind_of(x)
        if kind == "numpy":
            x = np.asarray(x)
            if x.dtype.kind == "c":
                raise TypeError("complex values cannot be held in LNS")
            if x.dtype.kind not in "biuf":
                raise TypeError(f"LNS tensors hold numbers, not {x.dtype}")
        dt = st.dtype_name(x, kind)
        if dt.startswith("complex"):
            raise TypeError("complex values cannot be held in LNS")
        if st.on_gpu(x, kind):
            if dt not in ("float32", "float64"):
                x = x.float() if kind == "torch" else x.astype("float32")
                dt = "float32"
            x = st.contiguous(x, kind)
            out = st.empty(x, kind, tuple(x.shape), storage)
            _cuda(format, "from_float", [x, out], [_numel(x)], storage, dt)
            return cls(out, format)
        host = st.to_host(x, kind)
        if host.dtype.kind == "c":
            raise TypeError("complex values cannot be held in LNS")
        flat = np.ascontiguousarray(host, dtype=np.float64).ravel()
        w = _native.lns_words_of(format, flat).reshape(host.shape)
        words = w.view(np.int32) if storage == "int32" else w.astype(np.uint16).view(np.int16)
        if kind == "torch":
            import torch

            words = torch.from_numpy(words)
        return cls(words, format)

    def to_float(self, dtype: Optional[str] = None) -> Any:
        """The values as floats of the words' library and device: float64 on the host,
        float32 on a GPU unless ``dtype="float64"``. Within 2 float64 ulps of
        2^(log·2^-F) (a float32 result is that value rounded to nearest)."""
        kind = self._kind
        if st.on_gpu(self.words, kind):
            dt = dtype or "float32"
            if dt not in ("float32", "float64"):
                raise ValueError(f"dtype must be 'float32' or 'float64', not {dt!r}")
            w = st.contiguous(self.words, kind)
            out = st.empty(w, kind, tuple(w.shape), dt)
            _cuda(self.format, "to_float", [w, out], [_numel(w)], self._storage, dt)
            return out
        v = _native.lns_values_of(self.format, self._host_u32().ravel()).reshape(self.shape)
        if dtype is not None:
            v = v.astype(dtype)
        if kind == "torch":
            import torch

            return torch.from_numpy(v)
        return v

    def numpy(self) -> np.ndarray:
        """The values as a float64 numpy array (copied from the device if need be)."""
        return np.asarray(st.to_host(self.to_float("float64"), self._kind))

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        a = self.numpy()
        return a if dtype is None else a.astype(dtype)

    def __repr__(self) -> str:
        where = self.device
        return f"sigpu.lns.Tensor({self.numpy()!r}, format={self.format!r}, device={where!r})"

    # ---- facts

    @property
    def _kind(self) -> str:
        return st.kind_of(self.words)

    @property
    def _storage(self) -> str:
        return st.dtype_name(self.words, self._kind)

    @property
    def shape(self) -> Tuple[int, ...]:
        """The tensor's shape."""
        return tuple(self.words.shape)

    @property
    def ndim(self) -> int:
        """The number of axes."""
        return len(self.shape)

    @property
    def device(self) -> str:
        """``"cpu"`` or ``"cuda:N"``."""
        d = st.device_of(self.words, self._kind)
        return "cpu" if d is None else f"cuda:{d}"

    @property
    def is_cuda(self) -> bool:
        """Whether the words are on a GPU."""
        return st.on_gpu(self.words, self._kind)

    def __len__(self) -> int:
        return self.shape[0]

    def __getitem__(self, index: Any) -> "Tensor":
        return Tensor(self.words[index], self.format)

    def _host_u32(self) -> np.ndarray:
        """The words as a C-contiguous uint32 numpy array (a view for int32 numpy storage)."""
        w = st.to_host(self.words, self._kind)
        if w.dtype == np.int16:
            return w.view(np.uint16).astype(np.uint32)
        # ascontiguousarray makes 0-d arrays 1-d: keep the shape.
        return np.ascontiguousarray(w).reshape(w.shape).view(np.uint32)

    def _like(self, u32: np.ndarray) -> "Tensor":
        """A tensor of this one's storage and library from host uint32 words."""
        if self._storage == "int16":
            w: Any = u32.astype(np.uint16).view(np.int16)
        else:
            w = u32.view(np.int32)
        if self._kind == "torch":
            import torch

            w = torch.from_numpy(np.ascontiguousarray(w))
        return Tensor(w, self.format)

    # ---- element-wise

    def _operand(self, other: Any) -> "Tensor":
        if isinstance(other, Tensor):
            if other.format != self.format:
                raise ValueError(f"formats differ: {self.format} and {other.format}")
            if other._kind != self._kind or other.device != self.device:
                raise ValueError(
                    f"operands live apart ({self._kind} on {self.device}, {other._kind} on "
                    f"{other.device}): move one with Tensor.from_words(words.to(...))"
                )
            if other._storage != self._storage:
                raise ValueError(f"storages differ: {self._storage} and {other._storage}")
            return other
        kind = self._kind
        if st.kind_of(other) == "numpy":
            other = st.asarray_like(np.asarray(other, dtype=np.float64), self.words, kind)
        return Tensor.from_float(other, self.format, self._storage)

    def _binary(self, other: Any, op: str, reverse: bool = False) -> "Tensor":
        o = self._operand(other)
        a, b = (o, self) if reverse else (self, o)
        kind = self._kind
        wa, wb = st.broadcast(kind, a.words, b.words)
        shape = tuple(wa.shape)
        if self.is_cuda:
            wa, wb = st.contiguous(wa, kind), st.contiguous(wb, kind)
            storage = self._storage
            if op in ("mul", "div") and storage == "int16":
                # The exact kernels take u32 words: widen, multiply, narrow.
                wa32 = st.narrow(st.widen(wa, kind), kind, "int32")
                wb32 = st.narrow(st.widen(wb, kind), kind, "int32")
                out = st.empty(wa, kind, shape, "int32")
                _cuda(self.format, op, [wa32, wb32, out], [_numel(out)], "int32")
                return Tensor(st.narrow(st.widen(out, kind), kind, "int16"), self.format)
            out = st.empty(wa, kind, shape, storage)
            _cuda(self.format, op, [wa, wb, out], [_numel(out)], storage)
            return Tensor(out, self.format)
        ua = Tensor(wa, self.format)._host_u32().ravel()
        ub = Tensor(wb, self.format)._host_u32().ravel()
        if op in ("add", "sub"):
            r = _native.lns_tensor_add(self.format, op, ua, ub)
        else:
            r = _native.lns_binary(self.format, op, ua, ub)
        return self._like(r.reshape(shape))

    def __add__(self, o: Any) -> "Tensor":
        return self._binary(o, "add")

    def __radd__(self, o: Any) -> "Tensor":
        return self._binary(o, "add", True)

    def __sub__(self, o: Any) -> "Tensor":
        return self._binary(o, "sub")

    def __rsub__(self, o: Any) -> "Tensor":
        return self._binary(o, "sub", True)

    def __mul__(self, o: Any) -> "Tensor":
        return self._binary(o, "mul")

    def __rmul__(self, o: Any) -> "Tensor":
        return self._binary(o, "mul", True)

    def __truediv__(self, o: Any) -> "Tensor":
        return self._binary(o, "div")

    def __rtruediv__(self, o: Any) -> "Tensor":
        return self._binary(o, "div", True)

    def _fields(self) -> Tuple[Any, Any, Any, Any, int]:
        """(int64 words, sign, log code, special mask, log bits) with the library's ops."""
        bits, _i, _f = _fmt(self.format)
        lb = bits - 1
        w = st.widen(self.words, self._kind)
        sign = (w >> lb) & 1
        field = w & ((1 << lb) - 1)
        log = field - ((field >> (lb - 1)) & 1) * (1 << lb)
        special = log == -(1 << (lb - 1))
        return w, sign, log, special, lb

    def __neg__(self) -> "Tensor":
        """−x, exact: the sign flips (of ±∞ too); zero and NaN stay."""
        w, _s, _l, special, lb = self._fields()
        r = st.where(self._kind, special, w, w ^ (1 << lb))
        return Tensor(st.narrow(r, self._kind, self._storage), self.format)

    def __pos__(self) -> "Tensor":
        return self

    def __abs__(self) -> "Tensor":
        """|x|, exact: the sign cleared; zero and NaN stay."""
        w, _s, _l, special, lb = self._fields()
        r = st.where(self._kind, special, w, w & ~(1 << lb))
        return Tensor(st.narrow(r, self._kind, self._storage), self.format)

    def relu(self) -> "Tensor":
        """max(x, 0), exact: negative values (−∞ included) become zero; NaN stays."""
        w, sign, _l, special, lb = self._fields()
        zero = (-(1 << (lb - 1))) & ((1 << lb) - 1)
        r = st.where(self._kind, (sign == 1) & ~special, st.full_like(w, self._kind, zero), w)
        return Tensor(st.narrow(r, self._kind, self._storage), self.format)

    def isnan(self) -> Any:
        """A boolean array: where the value is NaN."""
        _w, sign, _l, special, _lb = self._fields()
        return special & (sign == 1)

    def _key(self) -> Tuple[Any, Any]:
        """(order key, NaN mask): the key orders values as the numbers they denote."""
        _w, sign, log, special, lb = self._fields()
        mag = log + (1 << (lb - 1)) + 1  # ≥ 2 for finite and ∞, 1 for the special code
        key = st.where(self._kind, special, st.full_like(mag, self._kind, 0), st.where(self._kind, sign == 1, -mag, mag))
        return key, special & (sign == 1)

    def _compare(self, other: Any, op: str) -> Any:
        o = self._operand(other)
        ka, na = self._key()
        kb, nb = o._key()
        nan = na | nb
        r = {"lt": ka < kb, "le": ka <= kb, "gt": ka > kb, "ge": ka >= kb, "eq": ka == kb,
             "ne": ka != kb}[op]
        return (r | nan) if op == "ne" else (r & ~nan)

    def __lt__(self, o: Any) -> Any:
        return self._compare(o, "lt")

    def __le__(self, o: Any) -> Any:
        return self._compare(o, "le")

    def __gt__(self, o: Any) -> Any:
        return self._compare(o, "gt")

    def __ge__(self, o: Any) -> Any:
        return self._compare(o, "ge")

    def __eq__(self, o: Any) -> Any:  # type: ignore[override]
        return self._compare(o, "eq")

    def __ne__(self, o: Any) -> Any:  # type: ignore[override]
        return self._compare(o, "ne")

    __hash__ = None  # type: ignore[assignment]

    def log2(self) -> Any:
        """log2|x| as float64, exactly (the log code times 2^-F): −∞ for zero, NaN for NaN
        and for negative values, +∞ for +∞."""
        _bits, _i, f = _fmt(self.format)
        _w, sign, log, special, lb = self._fields()
        kind = self._kind
        v = log.to(__import__("torch").float64) if kind == "torch" else log.astype(np.float64)
        v = v * (2.0**-f)
        inf = log == (1 << (lb - 1)) - 1
        v = st.where(kind, inf, st.full_like(v, kind, float("inf")), v)
        v = st.where(kind, special, st.full_like(v, kind, -float("inf")), v)
        return st.where(kind, (sign == 1), st.full_like(v, kind, float("nan")), v)

    @classmethod
    def exp2(cls, y: Any, format: str = "lns32", storage: Optional[str] = None) -> "Tensor":
        """2^y for float y (numpy, torch or CuPy), exact where y is a multiple of 2^-F (the
        log code is y·2^F), else rounded to the nearest code (0.5 ulp); beyond the range ±∞
        or zero."""
        bits, _i, f = _fmt(format)
        storage = storage or ("int16" if bits <= 16 else "int32")
        lb = bits - 1
        kind = st.kind_of(y)
        if kind == "torch":
            import torch

            code = torch.round(y.to(torch.float64) * 2.0**f)
            nan, pinf = torch.isnan(y), y == float("inf")
            code = torch.nan_to_num(code, nan=0.0, posinf=0.0, neginf=-(2.0**62)).to(torch.int64)
        else:
            mod = np if kind == "numpy" else __import__("cupy")
            yy = mod.asarray(y, dtype=mod.float64)
            code = mod.round(yy * 2.0**f)
            nan, pinf = mod.isnan(yy), yy == np.inf
            code = mod.nan_to_num(code, nan=0.0, posinf=0.0, neginf=-(2.0**62))
            code = code.clip(-(2.0**62), 2.0**62).astype(np.int64)
        special = -(1 << (lb - 1))
        code = code.clip(special, -special - 1) if kind != "torch" else code.clamp(special, -special - 1)
        mask = (1 << lb) - 1
        w = code & mask
        w = st.where(kind, pinf, st.full_like(w, kind, (-special - 1) & mask), w)
        w = st.where(kind, nan, st.full_like(w, kind, (special & mask) | (1 << lb)), w)
        return cls(st.narrow(w, kind, storage), format)

    # ---- reductions

    def _rows(self, axis: Axis) -> Tuple[Any, Tuple[int, ...], Tuple[int, ...], int]:
        """The words with ``axis`` moved last and flattened: (rows × len array, kept shape,
        keepdims shape, len)."""
        nd = self.ndim
        if axis is None:
            axes = tuple(range(nd))
        elif isinstance(axis, (int, np.integer)):
            axes = (int(axis),)
        else:
            axes = tuple(int(a) for a in axis)
        norm = []
        for a in axes:
            if not -nd <= a < nd:
                raise ValueError(f"axis {a} is out of bounds for a tensor of {nd} dimensions")
            norm.append(a % nd)
        if len(set(norm)) != len(norm):
            raise ValueError(f"repeated axis in {axis}")
        rest = [a for a in range(nd) if a not in norm]
        kept = tuple(self.shape[a] for a in rest)
        keep = tuple(1 if a in norm else self.shape[a] for a in range(nd))
        length = math.prod(int(self.shape[a]) for a in norm)
        to = list(range(nd - len(norm), nd))
        # Axes already last (sum(axis=-1)) need no moved view: movedim costs µs a call.
        w = st.moveaxis(self.words, self._kind, norm, to) if norm and norm != to else self.words
        w = st.contiguous(w, self._kind)
        return w.reshape(-1, max(length, 1)) if length else w, kept, keep, length

    def _reduce(self, op: str, axis: Axis, keepdims: bool) -> "Tensor":
        w, kept, keep, length = self._rows(axis)
        shape = keep if keepdims else kept
        rows = math.prod(int(d) for d in kept)
        if length == 0:
            word = int(_native.lns_reduce_empty(self.format, op))
            bits = 16 if self._storage == "int16" else 32
            fill = word - (1 << bits) if word >> (bits - 1) else word
            return Tensor(st.full(self.words, self._kind, shape, self._storage, fill), self.format)
        if self.is_cuda:
            out = st.empty(self.words, self._kind, (rows,), self._storage)
            _cuda(self.format, op, [w, out], [rows * length, length], self._storage)
            return Tensor(out.reshape(shape), self.format)
        u = Tensor(w, self.format)._host_u32().ravel()
        r = _native.lns_reduce(self.format, op, u, length)
        return self._like(r.reshape(shape))

    def sum(self, axis: Axis = None, keepdims: bool = False) -> "Tensor":
        """Σ along ``axis`` (None: all), fused: the exact sum of terms each within 2 float64
        ulps, rounded once — ≤ 0.5 + δ ulp (module notes), exact cancellation anywhere."""
        return self._reduce("sum", axis, keepdims)

    def prod(self, axis: Axis = None, keepdims: bool = False) -> "Tensor":
        """Π along ``axis``, exact (the log codes add; over- or underflow only at the end)."""
        return self._reduce("prod", axis, keepdims)

    def max(self, axis: Axis = None, keepdims: bool = False) -> "Tensor":
        """The largest value along ``axis``, exact; NaN if any is NaN (NaN for an empty
        axis)."""
        return self._reduce("max", axis, keepdims)

    def min(self, axis: Axis = None, keepdims: bool = False) -> "Tensor":
        """The smallest value along ``axis``, exact; NaN if any is NaN."""
        return self._reduce("min", axis, keepdims)

    # ---- products

    def matmul(self, other: Any) -> "Tensor":
        """The matrix product with numpy's rules (1-D operands, batch dimensions
        broadcast): every output a fused sum of exact products rounded once, ≤ 0.5 + δ ulp."""
        o = self._operand(other)
        if self.ndim == 0 or o.ndim == 0:
            raise ValueError("matmul: operands must have at least one dimension")
        kind = self._kind
        a, b = self.words, o.words
        a2 = a.reshape(1, -1) if self.ndim == 1 else a
        b2 = b.reshape(-1, 1) if o.ndim == 1 else b
        m, k = a2.shape[-2], a2.shape[-1]
        k2, n = b2.shape[-2], b2.shape[-1]
        if k != k2:
            raise ValueError(f"matmul: inner dimensions {k} and {k2} differ")
        batch = tuple(np.broadcast_shapes(tuple(a2.shape[:-2]), tuple(b2.shape[:-2])))
        nb = math.prod(int(d) for d in batch)
        if kind == "torch":
            a3 = a2.expand(*batch, m, k).reshape(nb, m, k).contiguous()
            b3 = b2.expand(*batch, k, n).reshape(nb, k, n).contiguous()
        else:
            mod = np if kind == "numpy" else __import__("cupy")
            a3 = mod.ascontiguousarray(mod.broadcast_to(a2, batch + (m, k))).reshape(nb, m, k)
            b3 = mod.ascontiguousarray(mod.broadcast_to(b2, batch + (k, n))).reshape(nb, k, n)
        shape = batch + (m, n)
        if self.is_cuda:
            out = st.empty(a, kind, (nb, m, n), self._storage)
            _cuda(self.format, "matmul", [a3, b3, out], [nb, m, k, n], self._storage)
        else:
            r = _native.lns_matmul(
                self.format,
                Tensor(a3, self.format)._host_u32().ravel(),
                Tensor(b3, self.format)._host_u32().ravel(),
                nb, m, k, n,
            )
            out = self._like(r.reshape(nb, m, n)).words
        out = out.reshape(shape)
        if self.ndim == 1:
            out = out.reshape(shape[:-2] + (n,))
        if o.ndim == 1:
            out = out.reshape(out.shape[:-1])
        return Tensor(out, self.format)

    __matmul__ = matmul

    def __rmatmul__(self, other: Any) -> "Tensor":
        return self._operand(other).matmul(self)

    def dot(self, other: Any) -> "Tensor":
        """Σ self·other of two 1-D tensors (a 0-d tensor), fused as :meth:`matmul`."""
        o = self._operand(other)
        if self.ndim != 1 or o.ndim != 1:
            raise ValueError("dot takes two 1-D tensors; use matmul for more dimensions")
        if self.shape != o.shape:
            raise ValueError(f"dot: lengths {self.shape[0]} and {o.shape[0]} differ")
        return self.matmul(o)


def _numel(a: Any) -> int:
    # math.prod of Python ints: np.prod of a tuple costs ~10 µs a call on the device path.
    return math.prod(int(d) for d in a.shape)


def _cuda(format: str, op: str, arrays: list, dims: list, storage: str, float_type: Optional[str] = None) -> None:
    """One device operation on C-contiguous arrays of one device, on the caller's stream."""
    first = arrays[0]
    kind = st.kind_of(first)
    dev = st.device_of(first, kind)
    for a in arrays[1:]:
        if st.device_of(a, kind) != dev:
            raise ValueError(f"{op}: operands on different devices")
    flt = None if float_type is None else {"float32": "f32", "float64": "f64"}[float_type]
    _native.lns_cuda(
        format, op, [st.ptr_of(a, kind) for a in arrays], [int(d) for d in dims],
        storage == "int16", int(dev), st.stream_of(first, kind), flt,
    )


def _log_rows(x: Any, axis: int, format: str, softmax: bool, keepdims: bool) -> Any:
    kind = st.kind_of(x)
    if kind == "numpy":
        x = np.asarray(x)
        if x.dtype.kind not in "biuf":
            raise TypeError(f"logsumexp takes real logs, not {x.dtype}")
    _fmt(format)
    nd = len(x.shape)
    if nd == 0:
        x = x.reshape(1)
        nd, axis = 1, 0
    if not -nd <= axis < nd:
        raise ValueError(f"axis {axis} is out of bounds for an array of {nd} dimensions")
    axis %= nd
    last = axis == nd - 1
    # The last axis (the usual case) needs no moved view: movedim costs several µs a call.
    xm = x if last else st.moveaxis(x, kind, axis, -1)
    moved = tuple(int(d) for d in xm.shape)
    length = moved[-1]
    rows = math.prod(moved[:-1])
    op = "log_softmax" if softmax else "logsumexp"
    if length == 0:
        raise ValueError(f"{op} over an empty axis")
    if st.on_gpu(x, kind):
        dt = st.dtype_name(x, kind)
        if dt not in ("float32", "float64"):
            xm = xm.float() if kind == "torch" else xm.astype("float32")
            dt = "float32"
        xm = st.contiguous(xm, kind)
        out = st.empty(xm, kind, moved if softmax else moved[:-1], dt)
        _cuda(format, op, [xm, out], [rows * length, length], "int32", dt)
    else:
        host = st.to_host(xm, kind)
        dt = host.dtype if host.dtype in (np.float32, np.float64) else np.float64
        r = _native.lns_log_rows(format, np.ascontiguousarray(host, dtype=np.float64).ravel(), length, softmax)
        out = r.reshape(moved if softmax else moved[:-1]).astype(dt, copy=False)
        if kind == "torch":
            import torch

            out = torch.from_numpy(np.ascontiguousarray(out))
    if softmax:
        return out if last else st.moveaxis(out, kind, -1, axis)
    if keepdims:
        out = out.reshape(moved[:-1] + (1,))
        return out if last else st.moveaxis(out, kind, -1, axis)
    return out


def logsumexp(x: Any, axis: int = -1, keepdims: bool = False, format: str = "lns32") -> Any:
    """ln Σ exp(x) along ``axis`` of natural logs ``x`` (numpy, torch or CuPy; computed
    where x lives): a drop-in for ``torch.logsumexp(x, dim)`` / ``scipy.special.logsumexp``
    computed as LNS does it — each x rounded to a code of F = ``format``'s fraction bits
    (without its range limits), the fused sum rounded once. Error ≤ ln 2 · 2^-F · (1 + δ)
    absolute (half a code from the inputs, half from the output): 8.3e-8 for lns32, 6.8e-4
    for lns16; a float32 result adds its own rounding. −∞ entries are zeros; any NaN, or +∞,
    gives NaN or +∞."""
    return _log_rows(x, axis, format, False, keepdims)


def log_softmax(x: Any, axis: int = -1, format: str = "lns32") -> Any:
    """x − logsumexp(x) along ``axis``, as LNS does it (the inputs' codes minus the sum's
    code, exact): within ln 2 · 2^-F · (1 + δ) of the exact log_softmax (plus the float32
    result's rounding)."""
    return _log_rows(x, axis, format, True, False)
