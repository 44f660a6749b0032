from typing import Any, Dict

from . import approx as approx, ldpc as ldpc, lns as lns
from ._signal import (
    filtfilt as filtfilt,
    lfilter as lfilter,
    lfilter_zi as lfilter_zi,
    sosfilt as sosfilt,
    sosfilt_zi as sosfilt_zi,
    sosfiltfilt as sosfiltfilt,
)

__version__: str
__all__: list[str]

def info() -> Dict[str, Any]: ...
def cuda_available() -> bool: ...
