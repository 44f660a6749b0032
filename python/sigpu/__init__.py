"""sigpu: signal-processing arithmetic on the CPU and CUDA GPUs.

- ``sigpu.lfilter``, ``lfilter_zi``, ``sosfilt``, ``sosfilt_zi``, ``filtfilt``,
  ``sosfiltfilt``: scipy.signal's IIR filters (same names, arguments and return shapes), on
  numpy arrays (multi-core CPU) or on PyTorch / CuPy CUDA arrays (on their device, on the
  caller's stream, returned as the same type).
- ``sigpu.allpole(x, A, zi)`` (alias ``sample_wise_lpc``): time-varying all-pole filters with
  coefficients per sample (torchlpc's interface), differentiable in PyTorch, CPU and CUDA.
- ``sigpu.Filter(b, a)`` and ``sigpu.Sos(sos)``: a filter set up once, called like lfilter /
  sosfilt, streaming block by block with ``.process(x)`` (state carried, ``.reset()``).
- ``sigpu.set_threads(n)``, ``sigpu.threads(n)`` (context manager), ``sigpu.get_threads()``:
  the CPU threads of calls that do not pass ``workers=``.
- ``sigpu.ldpc``: LDPC codes (DVB-T2 and alist), encoder, channel, decoders, simulations.
- ``sigpu.lns``: logarithmic-number-system arrays and the HMM forward algorithm.
- ``sigpu.approx``: fast float32 exp / log / sin / cos.

Importing sigpu touches no GPU: CUDA is initialised by the first call that uses one. Long
calls stop at Ctrl-C (KeyboardInterrupt within a fraction of a second, no partial output);
errors are ValueError (bad input), OSError (files) or RuntimeError (the device, or an
internal error), always with the reason.
"""

from __future__ import annotations

import json as _json
from typing import Any, Dict

from . import _native
from ._signal import filtfilt, lfilter, lfilter_zi, sosfilt, sosfilt_zi, sosfiltfilt
from ._filter import Filter, Sos
from ._allpole import allpole, sample_wise_lpc
from ._threads import get_threads, set_threads, threads
from . import approx, ldpc, lns

__version__: str = _native.__version__

__all__ = [
    "info",
    "cuda_available",
    "lfilter",
    "lfilter_zi",
    "sosfilt",
    "sosfilt_zi",
    "filtfilt",
    "sosfiltfilt",
    "allpole",
    "sample_wise_lpc",
    "Filter",
    "Sos",
    "set_threads",
    "get_threads",
    "threads",
    "ldpc",
    "lns",
    "approx",
]


def info() -> Dict[str, Any]:
    """The host, CUDA driver, NVRTC and devices: the document ``sigpu info --json`` prints."""
    return _json.loads(_native.info_json())


def cuda_available() -> bool:
    """Whether a CUDA driver, a device and NVRTC are usable (initialises the driver)."""
    return bool(_native.cuda_status()[0])
