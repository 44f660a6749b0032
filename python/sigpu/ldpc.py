"""LDPC codes in the vocabulary of Sionna and AFF3CT: a code, its encoder, a DVB-T2 channel
(mapper, AWGN, demapper, bit interleaver), decoders on the CPU or a CUDA GPU, and resumable
BER/FER simulations with the same file format as ``sigpu ldpc simulate``.

LLRs are ln P(b = 0) / P(b = 1): positive means 0. Option strings (``decoder``, ``precision``,
``schedule``, ``modulation``, ``demapper``, ``bit_interleaver``) are parsed by the library, so
they accept exactly the spellings of the command line's flags.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _native
from ._arrays import data_ptr, empty_like_kind, gpu_array, parse_device
from ._threads import workers as _workers

__all__ = [
    "Code",
    "NrCode",
    "TransportBlock",
    "decode_blocks",
    "SweepPoint",
    "Sweep",
    "modulate",
    "awgn",
    "demap",
    "interleave",
    "deinterleave",
    "simulate",
    "standard_codes",
]


def standard_codes() -> List[str]:
    """Names of the built-in codes (DVB-T2 normal and short frames, all rates)."""
    return list(_native.Code.standard_names())


def _bits2d(bits: Any, width: int, what: str, label: str = "N") -> np.ndarray:
    arr = np.asarray(bits)
    if arr.dtype.kind not in "biu":
        raise TypeError(f"{what} must be integers 0/1 (uint8), not {arr.dtype}")
    if arr.ndim == 0:
        raise ValueError(f"{what} must have at least one dimension")
    if arr.shape[-1] != width:
        raise ValueError(f"{what}: the last axis must have {label} = {width} bits, got {arr.shape[-1]}")
    if arr.size and (arr.min() < 0 or arr.max() > 1):
        raise ValueError(f"{what} must be 0 or 1")
    return np.ascontiguousarray(arr, dtype=np.uint8).reshape(-1, width)


class Code:
    """An LDPC code: ``Code("dvbt2-normal-1/2")`` or ``Code("path/to/code.alist")``."""

    def __init__(self, spec: str) -> None:
        self._code = _native.Code(str(spec))
        #: The code's name: a standard name, or the alist file's.
        self.name: str = self._code.name
        #: Codeword length N.
        self.n: int = self._code.n
        #: Information bits K.
        self.k: int = self._code.k
        #: Parity checks (rows of H).
        self.m: int = self._code.m
        #: K / N.
        self.rate: float = self._code.rate

    @property
    def H(self) -> Any:
        """The parity-check matrix as a scipy.sparse CSR matrix (m × n, uint8)."""
        import scipy.sparse

        indptr, indices = self._code.h_csr()
        data = np.ones(len(indices), dtype=np.uint8)
        return scipy.sparse.csr_matrix((data, indices, indptr), shape=(self.m, self.n))

    def __repr__(self) -> str:
        return repr(self._code)

    def encode(self, bits: Any) -> np.ndarray:
        """Codewords (… × N, uint8) of information words (… × K, 0/1): systematic, the
        information bits first."""
        arr = np.asarray(bits)
        flat = _bits2d(arr, self.k, "bits", "K")
        words = self._code.encode(flat)
        return words.reshape(arr.shape[:-1] + (self.n,))

    def decode(
        self,
        llr: Any,
        decoder: str = "oms:0.5",
        precision: str = "8bit",
        schedule: str = "layered",
        iterations: int = 50,
        early_termination: bool = False,
        scale: float = 8.0,
        device: Optional[str] = None,
        threads: int = 0,
        return_stats: bool = False,
    ) -> Any:
        """Hard decisions (… × N, uint8, 0/1) of channel LLRs (… × N, float32).

        ``llr`` may be a numpy array or a PyTorch / CuPy CUDA array (the result is then of the
        same type, on the same device). ``decoder``: "minsum", "nms[:alpha]", "oms[:beta]",
        "aoms[:beta]" (adaptive offset: the offset shrinks with the gap between the two
        smallest messages; the CPU's 8-bit and float decoders only, refused on the GPU),
        "lmin[:beta]" (λ-min: the sum-product's pairwise rule on the three smallest messages,
        less β, default 0.125; CPU only, as aoms) or "spa"; ``precision``: "8bit" (the CPU SIMD and the GPU decoders) or "float" (CPU);
        ``device``: None (CUDA arrays on their GPU, numpy on the CPU), "cpu", "cuda[:N]".
        With ``return_stats``, also a dict of codewords, valid codewords (None when a CUDA
        array was decoded on the device: not counted there), iterations and batches.

        The defaults are the library's: 8-bit layered offset min-sum (β = 0.5, scale 8).

        CUDA arrays: the 8-bit flooding decoder reads the LLRs and writes the decisions on the
        device, ordered on the caller's current stream (the call returns once the work is
        queued); the layered (the default) and float decoders copy through the host.
        """
        if not isinstance(iterations, (int, np.integer)) or iterations < 1:
            raise ValueError(f"iterations must be a positive integer, not {iterations!r}")
        dev = parse_device(device)
        g = gpu_array(llr)
        cfg = _options(decoder, precision, schedule, iterations, early_termination, scale, threads)
        if g is not None:
            if dev == -1:
                raise ValueError("device='cpu' with a CUDA array: move it to the host first")
            if g.dtype != np.float32:
                raise TypeError(f"llr must be float32, not {g.dtype}")
            if len(g.shape) == 0 or g.shape[-1] != self.n:
                raise ValueError(f"llr: the last axis must have N = {self.n} values, got shape {g.shape}")
            if not g.c_contiguous:
                raise ValueError("llr: a CUDA array must be C-contiguous (call .contiguous())")
            frames = int(np.prod(g.shape[:-1], dtype=np.int64))
            out = empty_like_kind(g, g.shape, "uint8")
            st = (frames, 0, 0, 0)  # type: Sequence[Optional[int]]
            if frames > 0:
                st = self._code.decode_cuda(g.ptr, data_ptr(out, g.kind), frames, cfg, g.device, g.stream)
            return (out, _stats(st)) if return_stats else out
        arr = np.asarray(llr)
        if arr.dtype.kind not in "fiu":
            raise TypeError(f"llr must be real numbers (float32), not {arr.dtype}")
        if arr.ndim == 0 or arr.shape[-1] != self.n:
            raise ValueError(f"llr: the last axis must have N = {self.n} values, got shape {arr.shape}")
        flat = np.ascontiguousarray(arr, dtype=np.float32).reshape(-1, self.n)
        if not np.all(np.isfinite(flat)):
            i = int(np.flatnonzero(~np.isfinite(flat.ravel()))[0])
            raise ValueError(f"llr[{i}] (flattened) is not finite")
        gpu = None if dev is None or dev < 0 else dev
        bits, st = self._code.decode(flat, cfg, gpu)
        bits = bits.reshape(arr.shape)
        return (bits, _stats(st)) if return_stats else bits


def _rv_list(rv: Any) -> Tuple[List[int], bool]:
    """(versions, stacked): None → rv 0 without an axis; an int → that one without an axis;
    a list → one axis per version (Sionna's layout)."""
    if rv is None:
        return [0], False
    if isinstance(rv, (int, np.integer)):
        return [int(rv)], False
    rvs = [int(r) for r in rv]
    if not rvs:
        raise ValueError("rv: give at least one redundancy version (0, 1, 2 or 3)")
    return rvs, True


def _qm(bits_per_symbol: Optional[int]) -> Optional[int]:
    if bits_per_symbol is None:
        return None
    q = int(bits_per_symbol)
    if q not in (1, 2, 4, 6, 8, 10):
        raise ValueError(f"bits_per_symbol must be 1, 2, 4, 6, 8 or 10, not {bits_per_symbol!r}")
    return q


def _host(x: Any) -> Tuple[Any, Any]:
    """(a numpy view of x, a function that turns a numpy result back into x's kind): CUDA
    tensors and CuPy arrays are copied through the host (the NR decoders run on the CPU)."""
    g = gpu_array(x)
    if g is None:
        return x, lambda r: r
    if hasattr(x, "detach"):  # torch
        import torch

        dev = x.device
        return x.detach().cpu().numpy(), lambda r: torch.from_numpy(np.ascontiguousarray(r)).to(dev)
    import cupy  # type: ignore

    return cupy.asnumpy(x), lambda r: cupy.asarray(r)


class NrCode:
    """A 5G NR LDPC code block (3GPP TS 38.212): ``k`` information bits (with any CRC) sent as
    ``n`` bits, after Sionna's ``LDPC5GEncoder(k, n)`` / ``LDPC5GDecoder``.

    The base graph is §7.2.2's choice for A = k and R = k/n (BG2 when k ≤ 292, or k ≤ 3824
    and R ≤ 0.67, or R ≤ 0.25) unless ``bg`` is 1 or 2; Z is the smallest of the 51 lifting
    sizes with K_b·Z ≥ k and the K − k filler bits are zeros that are never sent. ``n`` may
    exceed the mother code (repetition: rates below 1/5 work); k/n above 0.95 is refused.

    LLR sign: sigpu's LLRs are ln P(b = 0) / P(b = 1) (positive means 0). Sionna's decoders
    take logits ln P(b = 1) / P(b = 0): pass ``-llr_sionna``.
    """

    def __init__(self, k: int, n: int, bg: Optional[int] = None) -> None:
        self._code = _native.NrCode(int(k), int(n), None if bg is None else int(bg))
        #: Information bits per block.
        self.k: int = self._code.k
        #: Bits sent per redundancy version.
        self.n: int = self._code.n
        #: The base graph, 1 or 2.
        self.bg: int = self._code.bg
        #: The lifting size.
        self.z: int = self._code.z
        #: K: k plus the filler bits.
        self.k_filled: int = self._code.k_filled
        #: Bits of the lifted code (68·Z or 52·Z), the first 2·Z never sent.
        self.n_full: int = self._code.n_full
        #: ``nr:k=…,n=…,bg=…``, as the command line spells it.
        self.name: str = self._code.name
        #: k / n.
        self.rate: float = self.k / self.n

    def __repr__(self) -> str:
        return repr(self._code)

    def encode(self, bits: Any, rv: Any = None, bits_per_symbol: Optional[int] = None) -> Any:
        """The rate-matched bits of information words ``bits`` (… × k, 0/1): ``rv=None`` or
        an int gives ``[…, n]`` (rv 0 by default), a list of versions ``[…, len(rv), n]``.
        ``bits_per_symbol`` applies the bit interleaver of §5.4.2.2 (n a multiple of it)."""
        rvs, stacked = _rv_list(rv)
        host, back = _host(bits)
        arr = np.asarray(host)
        flat = _bits2d(arr, self.k, "bits", "k")
        out = self._code.encode(flat, rvs, _qm(bits_per_symbol))
        tail = (len(rvs), self.n) if stacked else (self.n,)
        return back(out.reshape(arr.shape[:-1] + tail))

    def decode(
        self,
        llr: Any,
        rv: Any = None,
        iterations: int = 20,
        decoder: str = "oms:0.5",
        precision: str = "8bit",
        schedule: str = "layered",
        early_termination: bool = False,
        scale: float = 8.0,
        bits_per_symbol: Optional[int] = None,
        device: Optional[str] = None,
        threads: int = 0,
        return_stats: bool = False,
    ) -> Any:
        """The k decoded bits (… × k, uint8) of channel LLRs (ln P(0)/P(1)) laid out as
        :meth:`encode` writes bits: ``[…, n]`` for one version, ``[…, len(rv), n]`` for a list
        (the versions' LLRs are combined: HARQ incremental redundancy). Punctured and unsent
        bits enter as 0, filler bits as known zeros. Defaults: 20 iterations (Sionna's), the
        library's 8-bit layered offset min-sum (``decoder="aoms"``, adaptive offset, comes
        0.02–0.03 dB nearer sum-product on NR codes); ``decoder="spa", precision="float"`` is
        the sum-product reference. Runs on the CPU, or with ``device="cuda:N"`` on that GPU's
        quasi-cyclic kernel (8-bit layered offset / normalised / plain min-sum, bit for bit the
        CPU's); CUDA arrays are copied through the host and the result returned on their
        device."""
        if not isinstance(iterations, (int, np.integer)) or iterations < 1:
            raise ValueError(f"iterations must be a positive integer, not {iterations!r}")
        dev = parse_device(device)
        rvs, stacked = _rv_list(rv)
        host, back = _host(llr)
        arr = np.asarray(host)
        if arr.dtype.kind not in "fiu":
            raise TypeError(f"llr must be real numbers (float32), not {arr.dtype}")
        tail = (len(rvs), self.n) if stacked else (self.n,)
        if arr.ndim < len(tail) or tuple(arr.shape[arr.ndim - len(tail):]) != tail:
            raise ValueError(f"llr: the last axes must be {tail} (redundancy versions × n), got shape {arr.shape}")
        flat = np.ascontiguousarray(arr, dtype=np.float32).reshape(-1, len(rvs) * self.n)
        if not np.all(np.isfinite(flat)):
            i = int(np.flatnonzero(~np.isfinite(flat.ravel()))[0])
            raise ValueError(f"llr[{i}] (flattened) is not finite")
        cfg = _options(decoder, precision, schedule, iterations, early_termination, scale, threads)
        gpu = dev if dev is not None and dev >= 0 else None
        bits, st = self._code.decode(flat, rvs, _qm(bits_per_symbol), cfg, gpu)
        bits = back(bits.reshape(arr.shape[: arr.ndim - len(tail)] + (self.k,)))
        return (bits, _stats(st)) if return_stats else bits


def decode_blocks(
    blocks: Sequence[Any],
    iterations: int = 20,
    decoder: str = "oms:0.5",
    early_termination: bool = False,
    scale: float = 8.0,
    device: Optional[str] = None,
    threads: int = 0,
    return_stats: bool = False,
) -> Any:
    """Decodes a mixed batch — received transmissions of different 5G NR code blocks (any
    lifting size, base graph, rate or redundancy versions, as the code blocks of a slot are) —
    in one call: with ``device="cuda[:N]"`` in one launch of the GPU's quasi-cyclic kernel,
    on the CPU block by block with its twin (the same bits, iterations and validity).

    ``blocks``: a sequence of ``(code, llr)``, ``(code, llr, rv)`` or
    ``(code, llr, rv, bits_per_symbol)``: ``code`` an :class:`NrCode`, ``llr`` one word of
    LLRs laid out as :meth:`NrCode.decode` takes it (``[n]`` for one redundancy version,
    ``[len(rv), n]`` for a list, combined as HARQ incremental redundancy), ``rv`` as there
    (default 0), ``bits_per_symbol`` when the LLRs still carry the §5.4.2.2 interleaver.
    The decoder is the 8-bit layered min-sum (``decoder``: "oms[:beta]", "nms[:alpha]",
    "minsum"). Returns the list of each block's k decoded bits (uint8), and with
    ``return_stats`` a second list of ``(iterations, valid)``."""
    if not isinstance(iterations, (int, np.integer)) or iterations < 1:
        raise ValueError(f"iterations must be a positive integer, not {iterations!r}")
    dev = parse_device(device)
    items = []
    for i, b in enumerate(blocks):
        if not isinstance(b, (tuple, list)) or not 2 <= len(b) <= 4:
            raise TypeError(f"blocks[{i}]: give (code, llr), (code, llr, rv) or (code, llr, rv, bits_per_symbol)")
        code, llr = b[0], b[1]
        if not isinstance(code, NrCode):
            raise TypeError(f"blocks[{i}]: the code must be a sigpu.ldpc.NrCode, not {type(code).__name__}")
        rvs, stacked = _rv_list(b[2] if len(b) > 2 else None)
        host, _ = _host(llr)
        arr = np.asarray(host)
        if arr.dtype.kind not in "fiu":
            raise TypeError(f"blocks[{i}]: llr must be real numbers (float32), not {arr.dtype}")
        tail = (len(rvs), code.n) if stacked else (code.n,)
        if tuple(arr.shape) != tail:
            raise ValueError(f"blocks[{i}]: llr must have shape {tail} (redundancy versions × n), got {arr.shape}")
        flat = np.ascontiguousarray(arr, dtype=np.float32).ravel()
        if not np.all(np.isfinite(flat)):
            raise ValueError(f"blocks[{i}]: llr[{int(np.flatnonzero(~np.isfinite(flat))[0])}] (flattened) is not finite")
        items.append((code._code, flat, rvs, _qm(b[3] if len(b) > 3 else None)))
    cfg = _options(decoder, "8bit", "layered", iterations, early_termination, scale, threads)
    gpu = dev if dev is not None and dev >= 0 else None
    out = _native.nr_decode_blocks(items, cfg, gpu)
    bits = [o[0] for o in out]
    return (bits, [(int(o[1]), bool(o[2])) for o in out]) if return_stats else bits


class TransportBlock:
    """A 5G NR transport block of ``a`` bits sent as ``g`` coded bits of ``bits_per_symbol``-bit
    symbols (TS 38.212 §7.2): CRC24A (A > 3824) or CRC16, code-block segmentation with
    CRC24B, rate matching per block (E_r) with the §5.4.2.2 interleaver, concatenation."""

    def __init__(self, a: int, g: int, bits_per_symbol: int = 2, bg: Optional[int] = None) -> None:
        self._tb = _native.TransportBlock(int(a), int(g), int(bits_per_symbol), None if bg is None else int(bg))
        a_, g_, c, kp, z, bgn, e = self._tb.shape()
        #: A, G, code blocks C, bits per block K', lifting size, base graph, E of each block.
        self.a, self.g, self.blocks, self.k_prime, self.z, self.bg, self.block_lengths = a_, g_, c, kp, z, bgn, list(e)

    def encode(self, bits: Any, rv: int = 0) -> np.ndarray:
        """The G bits redundancy version ``rv`` sends for the A bits ``bits`` (1-D, 0/1)."""
        arr = np.ascontiguousarray(np.asarray(bits), dtype=np.uint8).ravel()
        return self._tb.encode(arr, int(rv))

    def decode(self, llr: Any, rv: Any = 0, iterations: int = 20, decoder: str = "oms:0.5",
               precision: str = "8bit", schedule: str = "layered", early_termination: bool = True,
               scale: float = 8.0, threads: int = 0) -> Tuple[np.ndarray, List[bool], bool]:
        """(A decoded bits, each code block's CRC passed, the transport block's CRC passed) of
        the LLRs of one transmission (G) or of several (``rv`` a list: len(rv) × G, combined)."""
        rvs, stacked = _rv_list(rv)
        arr = np.ascontiguousarray(np.asarray(llr), dtype=np.float32).reshape(len(rvs), -1)
        if arr.shape[1] != self.g:
            raise ValueError(f"llr: each transmission has G = {self.g} LLRs, got {arr.shape[1]}")
        cfg = _options(decoder, precision, schedule, iterations, early_termination, scale, threads)
        bits, blocks_ok, tb_ok = self._tb.decode(arr, rvs, cfg)
        return bits, list(blocks_ok), bool(tb_ok)


def _options(
    decoder: str, precision: str, schedule: str, iterations: int, early_termination: bool, scale: float, threads: int
) -> Dict[str, Any]:
    """The decoder options as the native module takes them (it parses the strings)."""
    return {
        "decoder": decoder,
        "precision": precision,
        "schedule": schedule,
        "iterations": int(iterations),
        "early_termination": bool(early_termination),
        "scale": float(scale),
        # 0: the context's count (sigpu.set_threads / sigpu.threads), else every core.
        "threads": int(threads) if threads else (_workers(None) or 0),
    }


def _stats(st: Sequence[Optional[int]]) -> Dict[str, Optional[int]]:
    # valid is None where the decoding stayed on the device (not counted there).
    return {"codewords": st[0], "valid": st[1], "iterations": st[2], "batches": st[3]}


def modulate(bits: Any, modulation: str = "qpsk") -> np.ndarray:
    """Complex cells (unit mean energy, DVB-T2 Gray mapping) of bits (0/1, any shape; the
    last axis is mapped, zero-padded to whole symbols)."""
    arr = np.asarray(bits)
    if arr.dtype.kind not in "biu":
        raise TypeError(f"bits must be integers 0/1, not {arr.dtype}")
    if arr.ndim == 0:
        raise ValueError("bits must have at least one dimension")
    rows = np.ascontiguousarray(arr, dtype=np.uint8).reshape(-1, arr.shape[-1])
    out = []
    for r in rows:
        iq = _native.modulate(r, modulation)
        out.append(iq[:, 0] + 1j * iq[:, 1])
    cells = np.stack(out) if out else np.zeros((0, 0), complex)
    return cells.reshape(arr.shape[:-1] + (cells.shape[-1],))


def awgn(x: Any, es_n0_db: float, seed: Optional[int] = None, *, real: bool = False) -> np.ndarray:
    """``x`` plus complex white Gaussian noise of variance N0 = 10^(-Es/N0 / 10) (N0/2 per
    real dimension; with ``real``, noise on the real axis only, as for BPSK)."""
    x = np.asarray(x)
    rng = np.random.default_rng(seed)
    sigma = np.sqrt(10 ** (-float(es_n0_db) / 10) / 2)
    noise = sigma * rng.standard_normal(x.shape)
    if not real:
        noise = noise + 1j * sigma * rng.standard_normal(x.shape)
    return x + noise


def demap(
    y: Any, es_n0_db: float, modulation: str = "qpsk", demapper: str = "exact", bits: Optional[int] = None
) -> np.ndarray:
    """Bit LLRs (float32) of received cells (complex, any shape; the last axis is demapped):
    ``bits`` per row (default: all the cells' bits)."""
    arr = np.asarray(y)
    if arr.ndim == 0:
        raise ValueError("y must have at least one dimension")
    rows = arr.reshape(-1, arr.shape[-1])
    per = _native.bits_per_symbol(modulation)
    nbits = arr.shape[-1] * per if bits is None else int(bits)
    out = []
    for r in rows:
        iq = np.ascontiguousarray(np.stack([r.real, r.imag], axis=-1), dtype=np.float64)
        out.append(_native.demap(iq, modulation, float(es_n0_db), demapper, nbits))
    llr = np.stack(out) if out else np.zeros((0, nbits), np.float32)
    return llr.reshape(arr.shape[:-1] + (nbits,))


def interleave(code: Code, words: Any, modulation: str) -> np.ndarray:
    """Codewords (… × N) in the DVB-T2 bit interleaver's cell order for ``modulation``."""
    arr = np.asarray(words)
    flat = _bits2d(arr, code.n, "words")
    return _native.interleave(code._code, flat, modulation).reshape(arr.shape)


def deinterleave(code: Code, llr: Any, modulation: str) -> np.ndarray:
    """LLRs (… × N) from the DVB-T2 cell order back to codeword order."""
    arr = np.asarray(llr)
    flat = np.ascontiguousarray(arr, dtype=np.float32).reshape(-1, code.n)
    return _native.deinterleave(code._code, flat, modulation).reshape(arr.shape)


@dataclasses.dataclass(frozen=True)
class SweepPoint:
    """One SNR point of a sweep, with the fields of a ``sigpu ldpc simulate`` results file's
    points: SNRs in dB, counts, BER / FER with 95% intervals (``ber_ci_method``: how the BER
    interval was made), mean iterations, seconds and rates."""

    es_n0_db: float
    eb_n0_db: float
    frames: int
    frame_errors: int
    bit_errors: int
    bit_errors_sq: int
    info_bits: int
    ber: float
    fer: float
    ber_ci: Tuple[float, float]
    fer_ci: Tuple[float, float]
    ber_ci_method: str
    mean_iterations: float
    seconds: float
    frames_per_s: float
    info_mbps: float
    coded_mbps: float


class Sweep(List[SweepPoint]):
    """The points of a sweep in SNR order: a list of :class:`SweepPoint`."""

    def to_pandas(self) -> Any:
        """The points as a pandas DataFrame, one row per point (needs pandas)."""
        import pandas

        return pandas.DataFrame([dataclasses.asdict(p) for p in self])


def simulate(
    code: Union[Code, "NrCode", str],
    snr_db: Optional[Any] = None,
    ebn0_db: Optional[Any] = None,
    *,
    modulation: str = "qpsk",
    demapper: str = "exact",
    bit_interleaver: str = "auto",
    decoder: str = "oms:0.5",
    precision: str = "8bit",
    schedule: str = "layered",
    iterations: int = 50,
    early_termination: bool = False,
    scale: float = 8.0,
    min_errors: int = 100,
    max_frames: int = 10000,
    batch: Optional[int] = None,
    seed: int = 1,
    threads: int = 0,
    device: Optional[str] = None,
    out: Optional[str] = None,
    resume: bool = False,
    rv: Any = None,
    fading: str = "awgn",
) -> Sweep:
    """BER / FER over an SNR sweep, as ``sigpu ldpc simulate`` (same defaults, same frames
    for a seed, same results file and resume rules). ``snr_db`` (Es/N0) or ``ebn0_db``: a
    number, a list, or "START:STOP:STEP". Returns a :class:`Sweep`: one :class:`SweepPoint`
    per point (``.to_pandas()`` for a DataFrame). ``threads``: CPU threads (0: those of
    ``sigpu.set_threads``, else every core). Ctrl-C stops the sweep between batches: the
    point under way is dropped, the points finished before it stay in ``out``.

    A :class:`NrCode` sweeps one 5G NR code block per frame as ``sigpu ldpc simulate --code
    nr:…`` does: rate matched, the redundancy versions ``rv`` (an int or a list, rv 0 by
    default) sent and combined, TS 38.211's constellation ``modulation`` (``bpsk``, ``qpsk``,
    ``16qam``, …) with the §5.4.2.2 interleaver, ``fading`` ``"awgn"`` or ``"rayleigh"``
    (block fading); on the CPU."""
    if isinstance(code, NrCode):
        return _simulate_nr(code, snr_db, ebn0_db, modulation, demapper, decoder, precision, schedule,
                            iterations, early_termination, scale, min_errors, max_frames, batch, seed,
                            threads, device, out, resume, rv, fading)
    if rv is not None or fading != "awgn":
        raise ValueError("rv and fading apply to 5G NR code blocks (sigpu.ldpc.NrCode)")
    if isinstance(code, str):
        code = Code(code)
    axis, points = _sweep_points(snr_db, ebn0_db)
    dev = parse_device(device)
    rows = _native.simulate(
        code._code,
        axis,
        points,
        {"modulation": modulation, "demapper": demapper, "bit_interleaver": bit_interleaver, "seed": int(seed)},
        {"min_errors": int(min_errors), "max_frames": int(max_frames), "batch": batch},
        _options(decoder, precision, schedule, iterations, early_termination, scale, threads),
        [] if dev is None or dev < 0 else [dev],
        out=None if out is None else str(out),
        resume=bool(resume),
    )
    return _sweep(rows)


def _sweep_points(snr_db: Any, ebn0_db: Any) -> Tuple[str, Any]:
    if (snr_db is None) == (ebn0_db is None):
        raise ValueError("give exactly one of snr_db (Es/N0) and ebn0_db")
    axis, pts = ("es-n0", snr_db) if snr_db is not None else ("eb-n0", ebn0_db)
    points = pts if isinstance(pts, str) else [float(p) for p in np.atleast_1d(np.asarray(pts, dtype=np.float64))]
    return axis, points


def _simulate_nr(code: "NrCode", snr_db: Any, ebn0_db: Any, modulation: str, demapper: str, decoder: str,
                 precision: str, schedule: str, iterations: int, early_termination: bool, scale: float,
                 min_errors: int, max_frames: int, batch: Optional[int], seed: int, threads: int,
                 device: Optional[str], out: Optional[str], resume: bool, rv: Any, fading: str) -> Sweep:
    """:func:`simulate` of a 5G NR code block (the CLI's ``--code nr:…`` sweep)."""
    axis, points = _sweep_points(snr_db, ebn0_db)
    dev = parse_device(device)
    if dev is not None and dev >= 0:
        raise ValueError("device: 5G NR sweeps run on the CPU for now; leave device out or give 'cpu'")
    rvs, _ = _rv_list(rv)
    rows = _native.simulate_nr(
        code._code,
        axis,
        points,
        {"modulation": modulation, "demapper": demapper, "seed": int(seed), "rvs": rvs, "fading": str(fading)},
        {"min_errors": int(min_errors), "max_frames": int(max_frames), "batch": batch},
        _options(decoder, precision, schedule, iterations, early_termination, scale, threads),
        out=None if out is None else str(out),
        resume=bool(resume),
    )
    return _sweep(rows)


def _sweep(rows: List[Dict[str, Any]]) -> Sweep:
    """The native sweep's point dicts as a :class:`Sweep`."""
    return Sweep(
        SweepPoint(**{**r, "ber_ci": tuple(r["ber_ci"]), "fer_ci": tuple(r["fer_ci"])}) for r in rows
    )
