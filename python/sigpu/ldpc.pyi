from typing import Any, Dict, List, Optional, Union

import numpy as np

__all__: list[str]

def standard_codes() -> List[str]: ...

class Code:
    def __init__(self, spec: str) -> None: ...
    @property
    def name(self) -> str: ...
    @property
    def n(self) -> int: ...
    @property
    def k(self) -> int: ...
    @property
    def m(self) -> int: ...
    @property
    def rate(self) -> float: ...
    @property
    def H(self) -> Any: ...
    def encode(self, bits: Any) -> np.ndarray: ...
    def decode(
        self,
        llr: Any,
        decoder: str = "minsum",
        precision: str = "8bit",
        schedule: str = "flooding",
        iterations: int = 50,
        early_termination: bool = False,
        scale: float = 4.0,
        device: Optional[str] = None,
        threads: int = 0,
        return_stats: bool = False,
    ) -> Any: ...

def modulate(bits: Any, modulation: str = "qpsk") -> np.ndarray: ...
def awgn(x: Any, es_n0_db: float, seed: Optional[int] = None, *, real: bool = False) -> np.ndarray: ...
def demap(
    y: Any,
    es_n0_db: float,
    modulation: str = "qpsk",
    demapper: str = "exact",
    bits: Optional[int] = None,
) -> np.ndarray: ...
def interleave(code: Code, words: Any, modulation: str) -> np.ndarray: ...
def deinterleave(code: Code, llr: Any, modulation: str) -> np.ndarray: ...
def simulate(
    code: Union[Code, str],
    snr_db: Optional[Any] = None,
    ebn0_db: Optional[Any] = None,
    *,
    modulation: str = "qpsk",
    demapper: str = "exact",
    bit_interleaver: str = "auto",
    decoder: str = "minsum",
    precision: str = "8bit",
    schedule: str = "flooding",
    iterations: int = 50,
    early_termination: bool = False,
    scale: float = 4.0,
    min_errors: int = 100,
    max_frames: int = 10000,
    batch: Optional[int] = None,
    seed: int = 1,
    threads: int = 0,
    device: Optional[str] = None,
    out: Optional[str] = None,
    resume: bool = False,
) -> Any: ...
