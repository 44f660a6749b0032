"""Logarithmic number system arrays: each value is a sign and a fixed-point log2|x| packed in
a word (``lns16``: 5 integer + 10 fraction bits; ``lns32``: 8 + 23; ``i<I>f<F>``: any with
1 + I + F ≤ 32). Products and quotients are exact; sums are faithful (within one unit in the
last place of the log, certified over every input of lns16 and lns32); ``sum`` and ``dot`` are
fused, rounded once.

- :class:`Tensor`: words in a numpy array or a torch / CuPy tensor (int32 / int16), computed
  where they live — the GPU kernels on the caller's stream, bit for bit the CPU's — with
  broadcasting arithmetic, comparisons, reductions along axes and batched ``matmul``; each
  operation's error bound is in its docstring.
- :func:`logsumexp`, :func:`log_softmax`: drop-ins beside ``torch.logsumexp`` computed in LNS.
- :func:`from_xlnsnp`, :func:`to_xlnsnp`: exact conversion from and to xlns's arrays.
- :func:`ste_matmul`, :func:`ste_quantize`: LNS forward passes with straight-through
  gradients in a PyTorch training step.
- :class:`Array`: the host-only uint32 array (float64 in and out).
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Tuple, Union

import numpy as np

from . import _native
from ._arrays import gpu_array, parse_device
from ._lns_ste import ste_matmul, ste_quantize
from ._lns_tensor import Tensor, log_softmax, logsumexp
from ._lns_xlns import from_xlnsnp, to_xlnsnp
from ._threads import workers as _workers

__all__ = [
    "Array",
    "Tensor",
    "from_xlnsnp",
    "hmm_forward",
    "log_softmax",
    "logsumexp",
    "ste_matmul",
    "ste_quantize",
    "to_xlnsnp",
    "ulp",
]


def ulp(format: str = "lns32") -> float:
    """One unit in the last place of log2|x| of ``format``: 2^-F."""
    return _native.lns_format(format)[1]


def _operator(op: str, reverse: bool = False) -> Callable[["Array", Any], "Array"]:
    """The method ``self op other`` (``other op self`` when ``reverse``), element-wise with
    numpy broadcasting."""

    def method(self: "Array", other: Any) -> "Array":
        return self._binary(other, op, reverse)

    return method


class Array:
    """An array of LNS values in one format, held as raw words (uint32) on the host."""

    __array_priority__ = 1000
    format: str
    _words: np.ndarray

    def __init__(self, values: Any, format: str = "lns32") -> None:
        _native.lns_format(format)  # validates the name with the library's message
        self.format = format
        arr = np.asarray(values)
        if arr.dtype.kind == "c":
            raise TypeError("complex values cannot be held in LNS")
        if arr.dtype.kind not in "biuf":
            raise TypeError(f"LNS arrays hold numbers, not {arr.dtype}")
        flat = np.ascontiguousarray(arr, dtype=np.float64).ravel()
        self._words = _native.lns_from_f64(format, flat).reshape(arr.shape)

    @classmethod
    def from_words(cls, words: Any, format: str = "lns32") -> "Array":
        """An array of existing raw words (uint32)."""
        out = cls.__new__(cls)
        _native.lns_format(format)
        out.format = format
        w = np.asarray(words)
        if w.dtype != np.uint32:
            raise TypeError(f"words must be uint32, not {w.dtype}")
        out._words = w.copy(order="C")
        return out

    @property
    def words(self) -> np.ndarray:
        """The raw words as a read-only numpy view."""
        v = self._words.view()
        v.flags.writeable = False
        return v

    @property
    def shape(self) -> Tuple[int, ...]:
        """The array's shape."""
        return self._words.shape

    def __len__(self) -> int:
        return len(self._words)

    def to_numpy(self) -> np.ndarray:
        """The values as float64 (exact: every LNS value of F ≤ 52 bits is a float64... up to
        the rounding of 2^(log) to 53 bits)."""
        flat = _native.lns_to_f64(self.format, np.ascontiguousarray(self._words).ravel())
        return flat.reshape(self.shape)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        a = self.to_numpy()
        return a if dtype is None else a.astype(dtype)

    def __repr__(self) -> str:
        return f"sigpu.lns.Array({self.to_numpy()!r}, format={self.format!r})"

    def _other(self, other: Any) -> "Array":
        if isinstance(other, Array):
            if other.format != self.format:
                raise ValueError(f"formats differ: {self.format} and {other.format}")
            return other
        return Array(other, self.format)

    def _binary(self, other: Any, op: str, reverse: bool = False) -> "Array":
        o = self._other(other)
        a, b = (o, self) if reverse else (self, o)
        wa, wb = np.broadcast_arrays(a._words, b._words)
        shape = wa.shape
        out = _native.lns_binary(
            self.format,
            op,
            np.ascontiguousarray(wa).ravel(),
            np.ascontiguousarray(wb).ravel(),
        )
        return Array.from_words(out.reshape(shape), self.format)

    __add__ = _operator("add")
    __radd__ = _operator("add", reverse=True)
    __sub__ = _operator("sub")
    __rsub__ = _operator("sub", reverse=True)
    __mul__ = _operator("mul")
    __rmul__ = _operator("mul", reverse=True)
    __truediv__ = _operator("div")
    __rtruediv__ = _operator("div", reverse=True)

    def sum(self) -> "Array":
        """Σ of every element, fused: rounded once (a 0-d Array)."""
        w = _native.lns_sum(self.format, np.ascontiguousarray(self._words).ravel())
        return Array.from_words(np.array(w, dtype=np.uint32), self.format)

    def dot(self, other: Any) -> "Array":
        """Σ self·other of two 1-D arrays, fused (exact products, rounded once)."""
        o = self._other(other)
        if self._words.ndim != 1 or o._words.ndim != 1:
            raise ValueError("dot takes two 1-D arrays")
        if len(o) != len(self):
            raise ValueError(f"dot: lengths {len(self)} and {len(o)} differ")
        w = _native.lns_dot(self.format, self._words, np.ascontiguousarray(o._words))
        return Array.from_words(np.array(w, dtype=np.uint32), self.format)


def hmm_forward(
    log_pi: Any,
    log_A: Any,
    log_B: Any,
    format: str = "lns32",
    device: Optional[str] = None,
    *,
    workers: Optional[int] = None,
) -> Union[float, np.ndarray]:
    """ln P(observations) of an HMM by the forward algorithm computed in LNS.

    ``log_pi``: (S,) initial log-probabilities; ``log_A``: (S, S) transition log-probabilities
    (from row to column); ``log_B``: (T, S) emission log-probabilities of one sequence, or
    (batch, T, S) for a batch (natural logs). Returns a float, or an array of ``batch``.
    ``device``: None or "cpu" (all cores, or ``workers`` threads), "cuda[:N]" (one block
    per sequence; F ≤ 23). ``log_B`` may be a torch / CuPy CUDA tensor: it is then copied to
    the host (the kernel's emission words are built there) and ``device`` defaults to its
    GPU. A long call stops at Ctrl-C. Error: a log-likelihood within ~5e-8 of float64's for
    lns32 (one rounding per cell, exact rescaling).
    """
    pi = np.ascontiguousarray(np.asarray(log_pi, dtype=np.float64))
    A = np.ascontiguousarray(np.asarray(log_A, dtype=np.float64))
    g = gpu_array(log_B)
    if g is not None:
        if device is None:
            device = f"cuda:{g.device}"
        log_B = log_B.detach().cpu().numpy() if g.kind == "torch" else log_B.get()
    B = np.asarray(log_B, dtype=np.float64)
    if pi.ndim != 1:
        raise ValueError(f"log_pi must be 1-D (S,), got shape {pi.shape}")
    s = pi.shape[0]
    if s == 0:
        raise ValueError("log_pi is empty: the model needs at least one state")
    if A.shape != (s, s):
        raise ValueError(f"log_A must be (S, S) = ({s}, {s}), got shape {A.shape}")
    single = B.ndim == 2
    if B.ndim not in (2, 3) or B.shape[-1] != s:
        raise ValueError(f"log_B must be (T, {s}) or (batch, T, {s}), got shape {B.shape}")
    if single:
        B = B[None]
    if B.shape[1] == 0:
        raise ValueError("log_B has no time steps")
    for name, arr in (("log_pi", pi), ("log_A", A), ("log_B", B)):
        if np.any(np.isnan(arr)) or np.any(arr > 1e-12):
            raise ValueError(f"{name} must hold log-probabilities (≤ 0, not NaN)")
    dev = parse_device(device)
    gpu = None if dev is None or dev < 0 else dev
    ll = _native.hmm_forward(
        format, pi.tolist(), A.ravel().tolist(), np.ascontiguousarray(B).ravel(), B.shape[0], gpu,
        _workers(workers),
    )
    return float(ll[0]) if single else ll
