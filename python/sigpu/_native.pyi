"""The compiled module: arrays arrive checked and laid out by the Python half."""

from typing import Any, Dict, List, Optional, Tuple, Union

import numpy as np

__version__: str

def info_json() -> str: ...
def cuda_status() -> Tuple[bool, Optional[str]]: ...
def host_threads() -> int: ...
def _panic_for_test(message: str) -> None: ...
def _pythonic_for_test(message: str) -> str: ...
class Code:
    def __init__(self, spec: str) -> None: ...
    @staticmethod
    def standard_names() -> List[str]: ...
    name: str
    n: int
    k: int
    m: int
    rate: float
    def h_csr(self) -> Tuple[np.ndarray, np.ndarray]: ...
    def encode(self, info: np.ndarray) -> np.ndarray: ...
    def decode(
        self, llr: np.ndarray, options: Dict[str, Any], device: Optional[int]
    ) -> Tuple[np.ndarray, Tuple[int, Optional[int], int, int]]: ...
    def decode_cuda(
        self, llr: int, out: int, frames: int, options: Dict[str, Any], device: int, stream: int
    ) -> Tuple[int, Optional[int], int, int]: ...

def modulate(bits: np.ndarray, modulation: str) -> np.ndarray: ...
def bits_per_symbol(modulation: str) -> int: ...
def demap(cells: np.ndarray, modulation: str, es_n0_db: float, demapper: str, bits: int) -> np.ndarray: ...
def interleave(code: Code, words: np.ndarray, modulation: str) -> np.ndarray: ...
def deinterleave(code: Code, llr: np.ndarray, modulation: str) -> np.ndarray: ...
def simulate(
    code: Code,
    axis: str,
    points: Union[str, List[float]],
    link: Dict[str, Any],
    stop: Dict[str, Any],
    options: Dict[str, Any],
    devices: List[int],
    out: Optional[str] = None,
    resume: bool = False,
) -> List[Dict[str, Any]]: ...
def simulate_nr(
    code: "NrCode",
    axis: str,
    points: Union[str, List[float]],
    link: Dict[str, Any],
    stop: Dict[str, Any],
    options: Dict[str, Any],
    out: Optional[str] = None,
    resume: bool = False,
) -> List[Dict[str, Any]]: ...
def nr_decode_blocks(
    blocks: List[Tuple["NrCode", np.ndarray, List[int], Optional[int]]],
    options: Dict[str, Any],
    device: Optional[int] = None,
) -> List[Tuple[np.ndarray, int, bool]]: ...
def lns_format(format: str) -> Tuple[int, float, int, int]: ...
def lns_from_f64(format: str, x: np.ndarray) -> np.ndarray: ...
def lns_to_f64(format: str, w: np.ndarray) -> np.ndarray: ...
def lns_binary(format: str, op: str, a: np.ndarray, b: np.ndarray) -> np.ndarray: ...
def lns_sum(format: str, w: np.ndarray) -> int: ...
def lns_dot(format: str, a: np.ndarray, b: np.ndarray) -> int: ...
def lns_tensor_method(format: str) -> Tuple[str, bool]: ...
def lns_tensor_add(format: str, op: str, a: np.ndarray, b: np.ndarray) -> np.ndarray: ...
def lns_reduce(format: str, op: str, w: np.ndarray, len: int) -> np.ndarray: ...
def lns_reduce_empty(format: str, op: str) -> int: ...
def lns_matmul(
    format: str, a: np.ndarray, b: np.ndarray, batch: int, m: int, k: int, n: int
) -> np.ndarray: ...
def lns_log_rows(format: str, x: np.ndarray, len: int, softmax: bool) -> np.ndarray: ...
def lns_words_of(format: str, x: np.ndarray) -> np.ndarray: ...
def lns_values_of(format: str, w: np.ndarray) -> np.ndarray: ...
def lns_cuda(
    format: str,
    op: str,
    ptrs: List[int],
    dims: List[int],
    word16: bool,
    device: int,
    stream: int,
    float: Optional[str] = None,
) -> None: ...
def hmm_forward(
    format: str,
    log_pi: List[float],
    log_a: List[float],
    log_b: np.ndarray,
    batch: int,
    device: Optional[int] = None,
    workers: Optional[int] = None,
) -> np.ndarray: ...
def approx_f32(function: str, x: np.ndarray, workers: Optional[int] = None) -> np.ndarray: ...
def signal_run(
    kind: str,
    b: List[float],
    a: List[float],
    x: np.ndarray,
    axis: int,
    zi: Optional[np.ndarray] = None,
    padlen: Optional[int] = None,
    sos_shape: Optional[List[int]] = None,
    allow_unstable: bool = False,
    workers: Optional[int] = None,
) -> Tuple[np.ndarray, Optional[np.ndarray], str]: ...
def signal_lfilter_zi(b: List[float], a: List[float]) -> List[float]: ...
def signal_sosfilt_zi(sos: List[float], shape: List[int]) -> List[float]: ...
def complex_rows(
    b_re: List[float],
    b_im: List[float],
    a_re: List[float],
    a_im: List[float],
    x: np.ndarray,
    zi: Optional[np.ndarray] = None,
    sos: bool = False,
    allow_unstable: bool = False,
    workers: Optional[int] = None,
    device: Optional[int] = None,
) -> Tuple[np.ndarray, Optional[np.ndarray], str]: ...
def complex_cuda(
    b_re: List[float],
    b_im: List[float],
    a_re: List[float],
    a_im: List[float],
    dtype: str,
    x: int,
    y: int,
    channels: int,
    n: int,
    device: int,
    stream: int,
    zi: Optional[int] = None,
    zf: Optional[int] = None,
    sos: bool = False,
    allow_unstable: bool = False,
    sync: bool = False,
) -> str: ...
def complex_lfilter_zi(
    b_re: List[float], b_im: List[float], a_re: List[float], a_im: List[float]
) -> Tuple[List[float], List[float]]: ...
def complex_sosfilt_zi(re: List[float], im: List[float]) -> Tuple[List[float], List[float]]: ...
def filter_rows(
    b: List[float],
    a: List[float],
    x: np.ndarray,
    zi: Optional[np.ndarray] = None,
    sos_shape: Optional[List[int]] = None,
    allow_unstable: bool = False,
    device: Optional[int] = None,
    workers: Optional[int] = None,
) -> Tuple[np.ndarray, Optional[np.ndarray]]: ...
class PlannedFilter:
    """A CPU filter planned once, kept per element type and thread count."""
    def __init__(
        self,
        b: List[float],
        a: List[float],
        sos_shape: Optional[List[int]] = None,
        allow_unstable: bool = False,
    ) -> None: ...
    def state_len(self) -> int: ...
    def rows(
        self, x: np.ndarray, zi: Optional[np.ndarray] = None, workers: Optional[int] = None
    ) -> Tuple[np.ndarray, Optional[np.ndarray]]: ...
def filter_cuda(
    b: List[float],
    a: List[float],
    dtype: str,
    x: int,
    y: int,
    channels: int,
    n: int,
    device: int,
    stream: int,
    zi: Optional[int] = None,
    zf: Optional[int] = None,
    sos_shape: Optional[List[int]] = None,
    allow_unstable: bool = False,
    sync: bool = False,
    sample_stride: int = 1,
    channel_stride: Optional[int] = None,
) -> bool: ...

# Time-varying all-pole filters (src/allpole.rs): flattened rows on the host, or device
# addresses of float32 tensors on the caller's stream.
def allpole_rows(
    x: np.ndarray,
    a: np.ndarray,
    channels: int,
    order: int,
    zi: Optional[np.ndarray] = None,
    workers: Optional[int] = None,
) -> np.ndarray: ...
def allpole_rows_backward(
    a: np.ndarray,
    y: np.ndarray,
    g: np.ndarray,
    channels: int,
    order: int,
    zi: Optional[np.ndarray] = None,
    workers: Optional[int] = None,
) -> Tuple[np.ndarray, np.ndarray, Optional[np.ndarray]]: ...
def allpole_cuda(
    x: int,
    a: int,
    zi: Optional[int],
    y: int,
    channels: int,
    n: int,
    order: int,
    device: int,
    stream: int,
) -> None: ...
def allpole_cuda_backward(
    a: int,
    y: int,
    zi: Optional[int],
    g: int,
    gx: int,
    ga: int,
    gzi: Optional[int],
    channels: int,
    n: int,
    order: int,
    device: int,
    stream: int,
) -> None: ...
