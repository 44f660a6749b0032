"""Conversion between sigpu's LNS words and the ``xlnsnp`` arrays of xlns, the reference LNS
library of the LNS papers (Arnold et al.; ``pip install xlns``).

xlnsnp packs each value in an int64 ``nd = 2·x + s``: x = round(log_B |v|) with B = 2^(2^-F)
(F = ``xlns.xlnsF``, global, 23 by default), so x is the log2 code with F fraction bits, the
sign s in the lowest bit (1: negative); zero is −2^63 (−2^63 + 1 with the sign bit, a "negative
zero"). Where the two differ:

- Range: xlns codes are int64, unbounded; a sigpu format has I integer bits, so codes beyond
  [min_code, max_code] become ±∞ or zero going in (IEEE overflow / underflow). xlns has no ∞
  and no NaN, so those (and their words) are refused going out.
- Rounding of conversions: xlns rounds log(|v|)/log(B) computed in float64 (two roundings
  before the last, so it may miss the nearest code by one near a tie); sigpu's
  ``Tensor.from_float`` rounds log2|v| correctly for float32 inputs.
- Addition: xlns's default ``sbdb_ufunc_ideal`` rounds log_B|1 ± B^z| in float64 to nearest
  (its own method); sigpu's tensor add is f32split, certified faithful (< 1 ulp, 99.8% of
  inputs correctly rounded). Both are exact for ×, ÷.
- Sums: ``xlnsnp.sum`` folds pairwise adds, rounding at each step; sigpu's ``sum`` rounds
  once, so long sums differ by the fold's accumulated error (the fused one is the closer).
"""

from __future__ import annotations

import sys
from typing import Any, Optional

import numpy as np

from ._lns_tensor import Tensor, _fmt

_ZERO = -(1 << 63)


def _xlns() -> Any:
    mod = sys.modules.get("xlns")
    if mod is None:
        try:
            import xlns as mod  # type: ignore[import-not-found, no-redef]
        except ImportError as e:  # pragma: no cover - depends on the environment
            raise ImportError("xlns is not installed: pip install xlns") from e
    return mod


def _check_f(format: str, xlns: Any) -> int:
    _bits, _i, f = _fmt(format)
    if int(xlns.xlnsF) != f:
        raise ValueError(
            f"{format} has F = {f} fraction bits, xlns has xlnsF = {xlns.xlnsF}: call "
            f"xlns.xlnssetF({f}) before making the xlnsnp arrays, or pick a format with "
            f"F = {xlns.xlnsF} (e.g. i8f{xlns.xlnsF})"
        )
    return f


def from_xlnsnp(a: Any, format: str = "lns32", storage: Optional[str] = None) -> Tensor:
    """A numpy-held :class:`Tensor` of the values of an ``xlns.xlnsnp`` array, exactly: the
    codes are the same (``format``'s F must equal ``xlns.xlnsF``), signs and zeros kept;
    codes beyond the format's range become ±∞ (above) or zero (below)."""
    xlns = _xlns()
    if not isinstance(a, xlns.xlnsnp):
        raise TypeError(f"expected an xlns.xlnsnp array, not {type(a).__name__}")
    _check_f(format, xlns)
    bits, _i, _f = _fmt(format)
    storage = storage or ("int16" if bits <= 16 else "int32")
    lb = bits - 1
    nd = np.asarray(a.nd, dtype=np.int64)
    zero = (nd | 1) == _ZERO + 1
    sign = nd & 1
    code = nd >> 1
    special = -(1 << (lb - 1))
    over = code > -special - 2
    under = code < special + 1
    mask = (1 << lb) - 1
    w = (np.clip(code, special, -special - 1) & mask) | (sign << lb)
    w = np.where(over, ((-special - 1) & mask) | (sign << lb), w)
    w = np.where(zero | under, special & mask, w)
    words = w.astype(np.uint32)
    if storage == "int16":
        return Tensor(words.astype(np.uint16).view(np.int16), format)
    return Tensor(words.view(np.int32), format)


def to_xlnsnp(t: Tensor) -> Any:
    """An ``xlns.xlnsnp`` array of the tensor's values, exactly (same codes; the tensor's F
    must equal ``xlns.xlnsF``). ∞ and NaN have no xlnsnp form and are refused."""
    xlns = _xlns()
    _check_f(t.format, xlns)
    w, sign, log, special, lb = t._fields()
    from . import _lns_store as st

    w, sign, log, special = (st.to_host(v, t._kind) for v in (w, sign, log, special))
    inf = log == (1 << (lb - 1)) - 1
    if np.any(special & (sign == 1)) or np.any(inf):
        raise ValueError("xlnsnp has no ∞ or NaN: the tensor holds some")
    nd = np.where(special, _ZERO, 2 * log + sign).astype(np.int64)
    out = xlns.xlnsnp("")
    out.nd = nd
    return out
