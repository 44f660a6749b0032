"""Host plans of the differentiable torch filters (``_torch_filters``). A call reads its
coefficients to the host once — every CUDA coefficient tensor in one transfer, so at most one
synchronisation a call and none in the backward pass — checks and normalises them there, and
keeps what the binding needs for each planner call in a plan: per distinct filter of a bank,
the coefficient lists (trimmed for stateless calls), and the derived filters the backward pass
runs (the all-pole adjoint, the one-section steps of a cascade). The backward pass reads the
plan its forward kept: no device read, no re-planning.

Plans are kept in a bounded cache (least recently used first out) keyed by the normalised
values' bytes and shape — never by a tensor's identity or address: a tensor whose memory now
holds other values is read again and gets its own plan. A plan's content depends on nothing
else (dtype, options and device go with each binding call, whose planner keeps its compiled
filters per dtype, options, device and stream)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ._bank import distinct_filters, trimmed

# Plans kept; the least recently used goes first.
KEEP = 64
_CACHE: "OrderedDict[Tuple[Any, ...], Any]" = OrderedDict()
_LOCK = threading.Lock()


def _kept(key: Tuple[Any, ...], build: Any) -> Any:
    with _LOCK:
        hit = _CACHE.get(key)
        if hit is not None:
            _CACHE.move_to_end(key)
            return hit
    plan = build()  # outside the lock: may raise (non-finite values), caching nothing
    with _LOCK:
        _CACHE[key] = plan
        _CACHE.move_to_end(key)
        while len(_CACHE) > KEEP:
            _CACHE.popitem(last=False)
    return plan


def clear() -> None:
    """Drops every kept plan."""
    with _LOCK:
        _CACHE.clear()


def _finite(c: np.ndarray, what: str) -> None:
    if not np.all(np.isfinite(c)):
        raise ValueError(f"{what}: coefficients must be finite")


# A planner call's coefficients for one group of channels: (channel indices or None for all,
# b list, a list).
Call = Tuple[Optional[np.ndarray], List[float], List[float]]


class BaPlan:
    """A (b, a) bank normalised on the host: ``b``, ``a`` float64 (C, K), a[:, 0] = 1."""

    def __init__(self, b: np.ndarray, a: np.ndarray) -> None:
        _finite(b, "b")
        _finite(a, "a")
        self.b, self.a = b, a
        self.groups = distinct_filters(np.concatenate([b, a], axis=1))
        self._calls: Dict[bool, List[Call]] = {}
        self._unit: Optional[BaPlan] = None

    def calls(self, state: bool) -> List[Call]:
        """Per distinct filter: its channels and lists (trimmed without a state)."""
        got = self._calls.get(state)
        if got is None:
            if state:
                got = [(i, self.b[r].tolist(), self.a[r].tolist()) for i, r in self.groups]
            else:
                got = [
                    (i, trimmed(self.b[r]).tolist(), trimmed(self.a[r]).tolist())
                    for i, r in self.groups
                ]
            self._calls[state] = got
        return got

    def unit(self) -> "BaPlan":
        """The all-pole filter 1 / a of the same bank (the adjoint's poles)."""
        if self._unit is None:
            e = np.zeros_like(self.a)
            e[:, 0] = 1.0
            self._unit = ba_plan(e, self.a)
        return self._unit


class SosPlan:
    """A sections bank on the host: ``s`` float64 (C, S, 6), each section's a[0] = 1."""

    def __init__(self, s: np.ndarray) -> None:
        _finite(s, "sos")
        self.s = s
        self.groups = distinct_filters(s)
        self.shape = [s.shape[1], 6]
        self.calls: List[Tuple[Optional[np.ndarray], List[float]]] = [
            (i, s[r].ravel().tolist()) for i, r in self.groups
        ]
        self._sections: Dict[Any, Any] = {}

    def section(self, k: int) -> "SosPlan":
        """Section k alone, (C, 1, 6)."""
        key = ("sec", k)
        if key not in self._sections:
            self._sections[key] = sos_plan(np.ascontiguousarray(self.s[:, k : k + 1, :]))
        return self._sections[key]

    def section_ba(self, k: int) -> BaPlan:
        """Section k as a (b, a) bank, (C, 3) each."""
        key = ("ba", k)
        if key not in self._sections:
            sec = self.s[:, k, :]
            self._sections[key] = ba_plan(np.ascontiguousarray(sec[:, :3]),
                                          np.ascontiguousarray(sec[:, 3:]))
        return self._sections[key]

    def adjoint_step(self, k: int) -> "SosPlan":
        """One step of the cascade's adjoint: section k's poles after the next section's
        numerator (1 for the last section), (C, 1, 6)."""
        key = ("adj", k)
        if key not in self._sections:
            C, S = self.s.shape[:2]
            num = np.zeros((C, 3))
            if k == S - 1:
                num[:, 0] = 1.0
            else:
                num[:] = self.s[:, k + 1, :3]
            row = np.concatenate([num, self.s[:, k, 3:]], axis=-1)[:, None, :]
            self._sections[key] = sos_plan(np.ascontiguousarray(row))
        return self._sections[key]


def ba_plan(b: np.ndarray, a: np.ndarray) -> BaPlan:
    """The kept plan of the normalised bank b, a (C, K) float64 (built and kept if new)."""
    b = np.ascontiguousarray(b, dtype=np.float64)
    a = np.ascontiguousarray(a, dtype=np.float64)
    key = ("ba", b.shape, b.tobytes(), a.tobytes())
    return _kept(key, lambda: BaPlan(b, a))


def sos_plan(s: np.ndarray) -> SosPlan:
    """The kept plan of the sections bank s (C, S, 6) float64 (built and kept if new)."""
    s = np.ascontiguousarray(s, dtype=np.float64)
    key = ("sos", s.shape, s.tobytes())
    return _kept(key, lambda: SosPlan(s))


_NP = {"float32": np.float32, "float64": np.float64, "float16": np.float16}


def host_values(tm: Any, ts: Sequence[Any]) -> List[Any]:
    """Host copies of coefficient tensors, dtype kept, with one synchronisation for all of
    those on a GPU (asynchronous copies into pinned memory, then one wait for the current
    stream of their device; none when every one is already on the host). Returns numpy arrays
    where numpy has the dtype, else CPU tensors."""
    host, devices = [], []
    for t in ts:
        t = t.detach()
        if t.device.type == "cuda":
            host.append(t.to("cpu", non_blocking=True))  # pinned, copied in stream order
            if t.device not in devices:
                devices.append(t.device)
        else:
            host.append(t.cpu())  # the host's own memory, or another backend's blocking copy
    for d in devices:
        tm.cuda.current_stream(d).synchronize()
    return [h.numpy() if str(h.dtype).replace("torch.", "") in _NP else h for h in host]


def _padded(c: np.ndarray, K: int) -> np.ndarray:
    if c.shape[1] == K:
        return c
    out = np.zeros((c.shape[0], K), dtype=c.dtype)
    out[:, : c.shape[1]] = c
    return out


def normalised_ba(tm: Any, bh: Any, ah: Any, K: int) -> Tuple[np.ndarray, np.ndarray]:
    """b and a (C, ≤K) host values padded to K taps and divided by a[:, 0] in their own dtypes
    (as the same torch operations give on any device: correctly rounded divisions), as float64.
    Refuses a[0] = 0."""
    if isinstance(bh, np.ndarray) and isinstance(ah, np.ndarray):
        a0 = ah[:, :1]
        if np.any(a0 == 0):
            raise ValueError("a[0] must be nonzero (the filter is normalised by it)")
        with np.errstate(all="ignore"):  # non-finite results are refused by the plan
            bn, an = _padded(bh, K) / a0, _padded(ah, K) / a0
        return bn.astype(np.float64), an.astype(np.float64)
    bt = bh if isinstance(bh, tm.Tensor) else tm.from_numpy(bh)
    at = ah if isinstance(ah, tm.Tensor) else tm.from_numpy(ah)
    a0 = at[:, :1]
    if bool((a0 == 0).any()):
        raise ValueError("a[0] must be nonzero (the filter is normalised by it)")
    bn = tm.nn.functional.pad(bt, (0, K - bt.shape[1])) / a0
    an = tm.nn.functional.pad(at, (0, K - at.shape[1])) / a0
    return bn.to(tm.float64).numpy(), an.to(tm.float64).numpy()


def _raw_key(c: Any) -> Optional[Tuple[Any, ...]]:
    """A host array's value key (dtype, shape, bytes); None for a CPU tensor of a dtype
    numpy lacks (planned without the shortcut)."""
    if not isinstance(c, np.ndarray):
        return None
    return (c.dtype.str, c.shape, np.ascontiguousarray(c).tobytes())


def ba_plan_of(tm: Any, bh: Any, ah: Any, C: int, K: int) -> BaPlan:
    """The plan of the host (1 or C, ≤K) b, a as given (before padding and normalisation):
    kept by their values and dtypes too, so a repeated call skips the normalisation."""
    kb, ka = _raw_key(bh), _raw_key(ah)
    build = lambda: ba_plan(*normalised_ba(tm, _bcast(tm, bh, C), _bcast(tm, ah, C), K))
    if kb is None or ka is None:
        return build()
    return _kept(("raw-ba", C, K, kb, ka), build)


def _bcast(tm: Any, c: Any, C: int) -> Any:
    """A host (1, K) or (C, K) bank as (C, K)."""
    if c.shape[0] == C:
        return c
    return np.broadcast_to(c, (C, c.shape[1])) if isinstance(c, np.ndarray) else c.expand(C, -1)


def sos_plan_of(tm: Any, sh: Any) -> SosPlan:
    """The plan of the host sections bank (C, S, 6) as given: each section's a[0] must be 1
    (dividing by it then changes no value); kept by the values and dtype too."""
    def build() -> SosPlan:
        if isinstance(sh, np.ndarray):
            if np.any(sh[..., 3] != 1):
                raise ValueError("each section of sos must have a[0] = 1 (column 3)")
            return sos_plan(np.array(sh, dtype=np.float64))
        if bool((sh[..., 3] != 1).any()):  # a dtype numpy lacks: compared in its own
            raise ValueError("each section of sos must have a[0] = 1 (column 3)")
        return sos_plan(sh.to(tm.float64).numpy().copy())

    key = _raw_key(sh)
    return build() if key is None else _kept(("raw-sos", key), build)
