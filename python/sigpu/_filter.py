"""Filter objects that keep what a filter costs to set up: ``sigpu.Filter(b, a)`` and
``sigpu.Sos(sos)`` check and convert their coefficients once and hold the filters the planner
built for them (one per element type and thread count), so a stream of short calls pays for
filtering only. Calling one is ``lfilter`` / ``sosfilt`` with the coefficients bound;
``process`` carries the state from block to block (``reset`` starts over)."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from . import _native
from ._arrays import gpu_array
from ._signal import (
    _any_torch,
    _axis,
    _given_dtype,
    _host,
    _padded,
    _sos_validated,
    _sos_zf,
    _sos_zi_rows,
    _result_dtype,
    _validated,
    _zi_rows,
    lfilter,
    sosfilt,
)
from ._threads import workers as _workers

ArrayLike = Any



def _host_rows(
    x: np.ndarray, axis: int, workers: Optional[int], coefs: np.dtype, zi: Any
) -> tuple:
    """A host array as the native rows call takes it: the work dtype (scipy's result type
    with the coefficients' dtype ``coefs`` and ``zi``), the axis, the thread count, the shape
    around the filtered axis and the (rows, n) contiguous copy."""
    if x.ndim == 0:
        raise ValueError("x must have at least one dimension")
    dtype = _result_dtype(coefs, x.dtype, zi)
    ax = _axis(axis, x.ndim)
    w = _workers(workers)
    xm = np.moveaxis(x, ax, -1)
    lead, n = xm.shape[:-1], xm.shape[-1]
    rows = int(np.prod(lead, dtype=np.int64))
    return dtype, ax, w, lead, n, rows, _host(xm, dtype).reshape(rows, n)

class _Stream:
    """The state ``process`` carries between blocks, and its shape rule."""

    _state: Any = None
    _dtype: np.dtype = np.dtype(np.float64)  # the coefficients' dtype, as given

    def _state_shape(self, shape: tuple, ax: int) -> tuple:
        raise NotImplementedError

    def __call__(self, x: ArrayLike, zi: Optional[ArrayLike] = None, axis: int = -1,
                 *, workers: Optional[int] = None) -> Any:
        raise NotImplementedError

    def process(self, x: ArrayLike, axis: int = -1, *, workers: Optional[int] = None) -> Any:
        """Filters the next block of a stream along ``axis`` and keeps the final state for the
        next block (a zero state before the first block and after ``reset``): the blocks'
        outputs joined equal one call on the joined input. Returns the block's output, of the
        input's type (numpy, or torch / CuPy on their device)."""
        zi = self._state
        if zi is None:
            # A zero state of the block's own type: it does not promote the result.
            if _any_torch(x):
                shape = tuple(x.shape)
                zi = x.new_zeros(self._state_shape(shape, _axis(axis, len(shape))),
                                 dtype=x.dtype if x.is_floating_point() else None)
            else:
                g = gpu_array(x)
                shape = tuple(np.shape(x)) if g is None else tuple(g.shape)
                dt = np.asarray(x).dtype if g is None else g.dtype
                zi = np.zeros(self._state_shape(shape, _axis(axis, len(shape))),
                              dtype=dt if dt.kind == "f" else np.float64)
        y, self._state = self(x, zi=zi, axis=axis, workers=workers)
        return y

    def reset(self, zi: Optional[ArrayLike] = None) -> None:
        """Starts the stream over: from a zero state, or from ``zi`` (the shape ``__call__``
        takes)."""
        self._state = zi

    @property
    def zi(self) -> Any:
        """The state the next ``process`` call starts from (None: zero, not yet started)."""
        return self._state


class Filter(_Stream):
    """The IIR filter ``b / a``, set up once: ``f(x)`` is ``lfilter(b, a, x)``,
    ``f(x, zi)`` returns ``(y, zf)``, ``f.process(block)`` streams with the state carried.

    ``allow_unstable``: accept a pole outside the unit circle (refused otherwise).
    ``workers`` (per call): CPU threads, as for ``lfilter``. numpy arrays are filtered on the
    CPU; torch / CuPy CUDA arrays on their device and current stream (the planner keeps the
    compiled GPU filter per device and stream)."""

    def __init__(self, b: ArrayLike, a: ArrayLike, *, allow_unstable: bool = False) -> None:
        ba = _validated(b, a)
        self.b, self.a = ba.b, ba.a
        self._dtype = ba.dtype
        self.allow_unstable = bool(allow_unstable)
        self.state_len = max(len(self.a), len(self.b)) - 1
        self._plain = _native.PlannedFilter(ba.bl, ba.al, None, self.allow_unstable)
        bl, al = _padded(self.b, self.a)
        # With a state: b and a of equal length (scipy's state size).
        same = len(self.a) == len(self.b)
        self._with_state = (
            self._plain if same else _native.PlannedFilter(bl, al, None, self.allow_unstable)
        )

    def __repr__(self) -> str:
        return f"sigpu.Filter(b={self.b.tolist()!r}, a={self.a.tolist()!r})"

    def _state_shape(self, shape: tuple, ax: int) -> tuple:
        return shape[:ax] + (self.state_len,) + shape[ax + 1 :]

    def __call__(self, x: ArrayLike, zi: Optional[ArrayLike] = None, axis: int = -1,
                 *, workers: Optional[int] = None) -> Any:
        """``lfilter(b, a, x, axis, zi)``: y, or (y, zf) with ``zi``."""
        if gpu_array(x) is not None or _any_torch(x, zi):
            return lfilter(self.b, self.a, x, axis, zi, allow_unstable=self.allow_unstable)
        x = np.asarray(x)
        dtype, ax, w, lead, n, rows, x2 = _host_rows(x, axis, workers, self._dtype, zi)
        if zi is None:
            y2, _ = self._plain.rows(x2, None, w)
            return np.moveaxis(y2.reshape(lead + (n,)), -1, ax)
        k = self.state_len
        zi2 = _zi_rows(zi, x.shape, ax, k, dtype, rows)
        y2, zf2 = self._with_state.rows(x2, zi2, w)
        y = np.moveaxis(y2.reshape(lead + (n,)), -1, ax)
        return y, np.moveaxis(zf2.reshape(lead + (k,)), -1, ax)


class Sos(_Stream):
    """Cascaded second-order sections ``sos`` (n_sections, 6), set up once: ``f(x)`` is
    ``sosfilt(sos, x)``, ``f(x, zi)`` returns ``(y, zf)`` (zi of shape (n_sections, ..., 2,
    ...)), ``f.process(block)`` streams with the state carried. ``allow_unstable`` and
    ``workers`` as for ``Filter``."""

    def __init__(self, sos: ArrayLike, *, allow_unstable: bool = False) -> None:
        s, flat, shape = _sos_validated(sos)
        self.sos = s
        self._dtype = _given_dtype(sos)
        self.allow_unstable = bool(allow_unstable)
        self.sections = s.shape[0]
        self._native = _native.PlannedFilter(flat, [], shape, self.allow_unstable)

    def __repr__(self) -> str:
        return f"sigpu.Sos({self.sections} sections)"

    def _state_shape(self, shape: tuple, ax: int) -> tuple:
        return (self.sections,) + shape[:ax] + (2,) + shape[ax + 1 :]

    def __call__(self, x: ArrayLike, zi: Optional[ArrayLike] = None, axis: int = -1,
                 *, workers: Optional[int] = None) -> Any:
        """``sosfilt(sos, x, axis, zi)``: y, or (y, zf) with ``zi``."""
        if gpu_array(x) is not None or _any_torch(x, zi):
            return sosfilt(self.sos, x, axis, zi, allow_unstable=self.allow_unstable)
        x = np.asarray(x)
        dtype, ax, w, lead, n, rows, x2 = _host_rows(x, axis, workers, self._dtype, zi)
        zi2 = None if zi is None else _sos_zi_rows(zi, x.shape, ax, self.sections, dtype, rows)
        y2, zf2 = self._native.rows(x2, zi2, w)
        y = np.moveaxis(y2.reshape(lead + (n,)), -1, ax)
        if zi is None:
            return y
        return y, _sos_zf(zf2, lead, self.sections, ax)
