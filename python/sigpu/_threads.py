"""How many CPU threads sigpu's calls use: ``workers=`` on a call (as scipy.fft takes it),
else the value set by ``sigpu.set_threads`` or the ``sigpu.threads`` context manager (per
thread and per asyncio task: a context variable), else every core the process may use."""

from __future__ import annotations

import contextlib
import contextvars
import operator
from typing import Iterator, Optional

from . import _native

_DEFAULT: contextvars.ContextVar[Optional[int]] = contextvars.ContextVar(
    "sigpu_threads", default=None
)


def _count(n: object, name: str) -> Optional[int]:
    """``n`` as a thread count: None (every core), a positive int, or a negative one counted
    back from every core as scipy.fft does (-1: all, -2: all but one)."""
    if n is None:
        return None
    if isinstance(n, bool):
        raise TypeError(f"{name} must be an integer or None, not a bool")
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(f"{name} must be an integer or None, not {type(n).__name__}") from None
    cores = _native.host_threads()
    if n < 0:
        if n < -cores:
            raise ValueError(
                f"{name}={n}: a negative count is taken from the {cores} cores "
                f"(-1 is all of them), so it must be at least -{cores}"
            )
        return cores + 1 + n
    if n == 0:
        raise ValueError(f"{name}=0: give a positive thread count, or None for every core")
    return n


def set_threads(n: Optional[int]) -> None:
    """Sets how many CPU threads later calls in this thread (and context) use where they do
    not pass ``workers=``: a positive count, a negative one counted back from every core
    (-1: all), or None for every core (the default)."""
    _DEFAULT.set(_count(n, "n"))


def get_threads() -> int:
    """The CPU threads a call without ``workers=`` uses here."""
    n = _DEFAULT.get()
    return _native.host_threads() if n is None else n


@contextlib.contextmanager
def threads(n: Optional[int]) -> Iterator[None]:
    """``with sigpu.threads(4): ...``: calls inside the block use 4 CPU threads where they do
    not pass ``workers=`` (the same counts as ``set_threads``); the previous setting is back
    after the block."""
    token = _DEFAULT.set(_count(n, "n"))
    try:
        yield
    finally:
        _DEFAULT.reset(token)


def workers(n: Optional[int]) -> Optional[int]:
    """The thread count a call passes to the native module: its ``workers=``, else the
    context's, None meaning every core."""
    if n is None:
        return _DEFAULT.get()
    return _count(n, "workers")
