from typing import Any, Optional

import numpy as np

ArrayLike = Any

def lfilter(
    b: ArrayLike,
    a: ArrayLike,
    x: ArrayLike,
    axis: int = -1,
    zi: Optional[ArrayLike] = None,
    *,
    device: Optional[str] = None,
) -> Any: ...
def lfilter_zi(b: ArrayLike, a: ArrayLike) -> np.ndarray: ...
def sosfilt(
    sos: ArrayLike,
    x: ArrayLike,
    axis: int = -1,
    zi: Optional[ArrayLike] = None,
    *,
    device: Optional[str] = None,
) -> Any: ...
def sosfilt_zi(sos: ArrayLike) -> np.ndarray: ...
def filtfilt(
    b: ArrayLike,
    a: ArrayLike,
    x: ArrayLike,
    axis: int = -1,
    padtype: Optional[str] = "odd",
    padlen: Optional[int] = None,
    method: str = "pad",
    irlen: Optional[int] = None,
) -> np.ndarray: ...
def sosfiltfilt(
    sos: ArrayLike,
    x: ArrayLike,
    axis: int = -1,
    padtype: Optional[str] = "odd",
    padlen: Optional[int] = None,
) -> np.ndarray: ...
