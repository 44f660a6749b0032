"""sigpu against scipy.signal, case by case: every case either gives scipy's result (shape,
dtype, values within the filter contract's tolerance) or is refused by both, or differs in a
documented way (sigpu refuses where scipy returns something doubtful, or accepts what scipy
refuses). The table in docs/reference/scipy-conformance.md is generated from CASES
(``python python/tests/test_scipy_conformance.py > docs/reference/scipy-conformance.md``) and
a test checks that the page is up to date. The GPU column is checked by the CUDA test at the
end (torch and CuPy CUDA arrays; SIGPU_REQUIRE_GPU=1 makes a missing GPU a failure)."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, Optional, Tuple

import numpy as np
import pytest
import scipy.signal as ss

import sigpu

RNG = np.random.default_rng(2028)
B2, A2 = ss.butter(2, 0.2)
SOS = ss.butter(4, 0.2, output="sos")
X = RNG.standard_normal(64)
X2 = RNG.standard_normal((3, 64))
X3 = RNG.standard_normal((4, 5, 48))
FIR = RNG.standard_normal(256)
XC = X + 1j * RNG.standard_normal(64)
XC3 = X3 + 1j * RNG.standard_normal((4, 5, 48))
# A complex two-pole filter (poles 0.9·e^{±0.5i}·e^{0.3i}, rotated off the real axis) and its
# sections: complex coefficients.
BC, AC = np.array([0.2, 0.1j, -0.05]), np.poly(0.9 * np.exp(1j * np.array([0.8, -0.2])))
SOSC = np.array([[0.2, 0.1j, -0.05, 1.0, AC[1], AC[2]], [1.0, 0.5, 0.0, 1.0, -0.5j, 0.0]])
PAGE = Path(__file__).resolve().parents[2] / "docs/reference/scipy-conformance.md"

SAME = "same"  # scipy's result: shape, dtype and values
BOTH_REFUSE = "both refuse"  # scipy raises; sigpu raises ValueError or TypeError
SIGPU_REFUSES = "sigpu refuses"  # scipy returns; sigpu raises, saying why and the way out
SIGPU_EXTENDS = "sigpu extends"  # scipy raises; sigpu returns the documented result
SCIPY_WRONG = "scipy is wrong"  # scipy returns a wrong result; sigpu the right one


def _unaligned(a: np.ndarray) -> np.ndarray:
    raw = np.zeros(a.nbytes + 1, dtype=np.uint8)
    view = np.frombuffer(raw.data, dtype=a.dtype, count=a.size, offset=1).reshape(a.shape)
    view[...] = a
    assert not view.flags.aligned
    return view


@dataclass
class Case:
    """One row of the table: the call (a function name of scipy.signal and sigpu, and its
    arguments), what is expected, and the words of the table."""

    name: str
    fn: str
    args: Tuple[Any, ...]
    expect: str
    scipy: str
    sigpu: str
    kwargs: Dict[str, Any] = field(default_factory=dict)
    # Where x is among args, for the GPU run (None: not run on the GPU).
    gpu_x: Optional[int] = None
    # For SIGPU_EXTENDS: a check of sigpu's result.
    check: Optional[Callable[[Any], None]] = None
    rtol: float = 1e-10


def _shape_dtype(shape, dtype):
    def check(r):
        y = r[0] if isinstance(r, tuple) else r
        assert y.shape == shape and y.dtype == dtype

    return check


CASES = [
    # --- empty input and length 1
    Case("lfilter, empty x", "lfilter", (B2, A2, np.zeros(0)), SAME,
         "empty float64 result", "same"),
    Case("lfilter, empty x with zi", "lfilter", (B2, A2, np.zeros((2, 0))), SCIPY_WRONG,
         "empty y, zf uninitialised memory", "empty y, zf = zi",
         kwargs=dict(zi=np.array([[0.5, -1.0], [2.0, 3.0]])),
         check=lambda r: np.testing.assert_array_equal(r[1], [[0.5, -1.0], [2.0, 3.0]])),
    Case("lfilter, (0, 3) along axis 0", "lfilter", (B2, A2, np.zeros((0, 3))), SAME,
         "empty (0, 3)", "same", kwargs=dict(axis=0)),
    Case("sosfilt, empty x", "sosfilt", (SOS, np.zeros(0)), SIGPU_EXTENDS,
         "ValueError (cannot reshape: a scipy bug)", "empty float64 result",
         check=_shape_dtype((0,), np.float64)),
    Case("filtfilt, empty x", "filtfilt", (B2, A2, np.zeros(0)), BOTH_REFUSE,
         "ValueError: longer than padlen", "ValueError, same reason"),
    Case("lfilter, length 1", "lfilter", (B2, A2, np.array([2.0])), SAME, "b[0]/a[0]·x", "same",
         gpu_x=2),
    Case("sosfilt, length 1", "sosfilt", (SOS, np.array([2.0])), SAME, "one sample", "same",
         gpu_x=1),
    Case("filtfilt, length 1, padlen=0", "filtfilt", (B2, A2, np.array([2.0])), SAME,
         "one sample", "same", kwargs=dict(padlen=0)),
    # --- sos shapes
    Case("sosfilt, 1-D sos of 6", "sosfilt", (SOS[0], X), SAME,
         "taken as one section (atleast_2d)", "same"),
    Case("sosfilt, 1-D sos of 5", "sosfilt", (np.ones(5), X), BOTH_REFUSE,
         "ValueError: shape (n_sections, 6)", "ValueError, same"),
    Case("sosfilt, sos[:, 3] != 1", "sosfilt", (np.array([[1, 0, 0, 2, 0.5, 0]]), X),
         BOTH_REFUSE, "ValueError", "ValueError"),
    Case("sosfilt, 3-D sos with a 1-D x", "sosfilt", (np.ones((2, 2, 6)), X), BOTH_REFUSE,
         "ValueError: sos must be 2D",
         "ValueError: a filter bank needs x of shape (..., channels, n)"),
    # --- zi shapes and broadcasting
    Case("lfilter, zi (1, 2) on x (3, 64)", "lfilter", (B2, A2, X2), SAME,
         "broadcast to (3, 2)", "same", kwargs=dict(zi=np.ones((1, 2))), gpu_x=2),
    Case("lfilter, zi (3, 2) on x (3, 64)", "lfilter", (B2, A2, X2), SAME, "per row", "same",
         kwargs=dict(zi=RNG.standard_normal((3, 2))), gpu_x=2),
    Case("lfilter, zi (2,) on x (3, 64)", "lfilter", (B2, A2, X2), SIGPU_EXTENDS,
         "ValueError: too small depth", "broadcast to (3, 2) (numpy's rule)",
         kwargs=dict(zi=np.ones(2)), check=_shape_dtype((3, 64), np.float64)),
    Case("lfilter, zi (3, 1) on x (3, 64)", "lfilter", (B2, A2, X2), BOTH_REFUSE,
         "ValueError: unexpected shape", "ValueError: zi has shape …; it must be (3, 2)",
         kwargs=dict(zi=np.ones((3, 1)))),
    Case("lfilter, zi (2, 1) on x (64, 3), axis 0", "lfilter", (B2, A2, X2.T), SAME,
         "broadcast along axis 1", "same", kwargs=dict(axis=0, zi=np.ones((2, 1)))),
    Case("lfilter, zi of the wrong length", "lfilter", (B2, A2, X), BOTH_REFUSE,
         "ValueError", "ValueError", kwargs=dict(zi=np.ones(3))),
    Case("sosfilt, zi (2, 2) on 1-D x", "sosfilt", (SOS, X), SAME, "per section", "same",
         kwargs=dict(zi=RNG.standard_normal((2, 2))), gpu_x=1),
    Case("sosfilt, zi (2, 1, 2) on x (3, 64)", "sosfilt", (SOS, X2), BOTH_REFUSE,
         "ValueError: invalid zi shape", "ValueError: zi has shape …",
         kwargs=dict(zi=np.ones((2, 1, 2)))),
    # --- axis on N-D arrays
    Case("lfilter, axis 1 of (4, 5, 48)", "lfilter", (B2, A2, X3), SAME, "", "same",
         kwargs=dict(axis=1), gpu_x=2),
    Case("lfilter, axis -3 with zi", "lfilter", (B2, A2, X3), SAME, "", "same",
         kwargs=dict(axis=-3, zi=RNG.standard_normal((2, 5, 48))), gpu_x=2),
    Case("sosfilt, axis 0 of (4, 5, 48)", "sosfilt", (SOS, X3), SAME, "", "same",
         kwargs=dict(axis=0), gpu_x=1),
    Case("filtfilt, axis 2", "filtfilt", (B2, A2, X3), SAME, "", "same", kwargs=dict(axis=2)),
    Case("sosfiltfilt, axis 0", "sosfiltfilt", (SOS, X3[:, :, 0].T.copy()), SAME, "", "same",
         kwargs=dict(axis=0, padlen=3)),
    Case("lfilter, axis out of range", "lfilter", (B2, A2, X2), BOTH_REFUSE, "ValueError",
         "ValueError", kwargs=dict(axis=2)),
    Case("lfilter, 0-d x", "lfilter", (B2, A2, np.float64(1.0)), BOTH_REFUSE, "ValueError",
         "ValueError"),
    # --- input types and scipy's promotions
    Case("lfilter, float32 x, float64 b, a", "lfilter", (B2, A2, X.astype(np.float32)), SAME,
         "float64 result (result_type)", "same", gpu_x=2),
    Case("lfilter, float32 x, b, a", "lfilter",
         (B2.astype(np.float32), A2.astype(np.float32), X.astype(np.float32)), SAME,
         "float32 result", "same", rtol=1e-5, gpu_x=2),
    Case("sosfilt, float32 x, float64 sos", "sosfilt", (SOS, X.astype(np.float32)), SAME,
         "float64 result", "same", gpu_x=1),
    Case("sosfilt, float32 x and sos", "sosfilt",
         (SOS.astype(np.float32), X.astype(np.float32)), SAME, "float32 result", "same",
         rtol=1e-5),
    Case("filtfilt, float32 x, b, a", "filtfilt",
         (B2.astype(np.float32), A2.astype(np.float32), X.astype(np.float32)), SAME,
         "float32 result", "same", rtol=1e-5),
    # scipy extends the float32 x in float32 (its edge values rounded); sigpu in float64.
    Case("sosfiltfilt, float32 x", "sosfiltfilt", (SOS, X.astype(np.float32)), SAME,
         "float64 result (the padding rounded to float32)", "same (padding in float64)",
         rtol=1e-6),
    Case("lfilter, float16 x, float64 b, a", "lfilter", (B2, A2, X.astype(np.float16)), SAME,
         "float64 result", "same"),
    Case("lfilter, float16 x, b, a", "lfilter",
         (B2.astype(np.float16), A2.astype(np.float16), X.astype(np.float16)), BOTH_REFUSE,
         "NotImplementedError: float16", "TypeError: convert to float32"),
    Case("sosfilt, float16 x", "sosfilt", (SOS, X.astype(np.float16)), SAME,
         "float64 result", "same"),
    Case("lfilter, int64 x", "lfilter", (B2, A2, np.arange(20)), SAME, "float64 result",
         "same"),
    Case("lfilter, bool x", "lfilter", (B2, A2, np.ones(20, bool)), SAME, "float64 result",
         "same"),
    Case("lfilter, int x and int b, a", "lfilter", ([1, 2], [1, 1], np.arange(20)),
         SIGPU_EXTENDS, "NotImplementedError: int64", "filtered as float64",
         check=_shape_dtype((20,), np.float64)),
    Case("sosfilt, int x", "sosfilt", (SOS, np.arange(20)), SAME, "float64 result", "same"),
    Case("lfilter, long double x", "lfilter", (B2, A2, X.astype(np.longdouble)),
         SIGPU_REFUSES, "computed in long double",
         "TypeError: float32 or float64 only; .astype(np.float64)"),
    Case("lfilter, complex x", "lfilter", (B2, A2, XC), SAME, "complex128 result", "same",
         gpu_x=2),
    Case("lfilter, complex64 x, float64 b, a", "lfilter", (B2, A2, XC.astype(np.complex64)),
         SAME, "complex128 result (result_type)", "same", gpu_x=2),
    Case("lfilter, complex64 x, float32 b, a", "lfilter",
         (B2.astype(np.float32), A2.astype(np.float32), XC.astype(np.complex64)), SAME,
         "complex64 result", "same", rtol=1e-5, gpu_x=2),
    Case("lfilter, complex b, a", "lfilter", (BC, AC, XC), SAME, "complex128 result",
         "same (complex serial engine; CUDA arrays: its GPU kernel)", gpu_x=2),
    Case("lfilter, complex b, a, real x", "lfilter", (BC, AC, X), SAME, "complex128 result",
         "same"),
    Case("lfilter, complex64 b, a and x", "lfilter",
         (BC.astype(np.complex64), AC.astype(np.complex64), XC.astype(np.complex64)), SAME,
         "complex64 result", "same (computed in complex128, rounded once)", rtol=1e-5),
    Case("lfilter, complex zi on real x", "lfilter", (B2, A2, X), SAME, "complex result",
         "same", kwargs=dict(zi=np.array([1 + 2j, -1j]))),
    Case("lfilter, complex x, axis 1 with zi", "lfilter", (BC, AC, XC3), SAME, "", "same",
         kwargs=dict(axis=1, zi=RNG.standard_normal((4, 2, 48)) * 1j)),
    Case("sosfilt, complex x", "sosfilt", (SOS, XC), SAME, "complex128 result", "same",
         gpu_x=1),
    Case("sosfilt, complex sos with zi", "sosfilt", (SOSC, XC3), SAME, "", "same",
         kwargs=dict(axis=0, zi=np.ones((2, 2, 5, 48)) * (1 - 1j))),
    Case("filtfilt, complex x", "filtfilt", (B2, A2, XC), SAME, "", "same"),
    Case("filtfilt, complex b, a, padtype even", "filtfilt", (BC, AC, XC3), SAME, "", "same",
         kwargs=dict(axis=2, padtype="even")),
    Case("sosfiltfilt, complex sos", "sosfiltfilt", (SOSC, XC), SAME, "", "same"),
    Case("lfilter_zi, complex b, a", "lfilter_zi", (BC, AC), SAME, "", "same"),
    Case("sosfilt_zi, complex sos", "sosfilt_zi", (SOSC,), SAME, "", "same"),
    Case("lfilter, complex long double x", "lfilter", (B2, A2, XC.astype(np.clongdouble)),
         SIGPU_REFUSES, "computed in complex long double",
         "TypeError: complex64 or complex128 only; .astype(np.complex128)"),
    Case("lfilter, NaN in complex x", "lfilter", (BC, AC, np.r_[XC[:3], np.nan * 1j]),
         SIGPU_REFUSES, "NaN from the NaN on", "ValueError: non-finite at complex index 3"),
    Case("lfilter, big-endian float64", "lfilter", (B2, A2, X.astype(">f8")), SAME,
         "native float64 result", "same"),
    Case("lfilter, big-endian float32", "lfilter", (B2, A2, X.astype(">f4")), SAME,
         "float64 result", "same"),
    Case("lfilter, unaligned float64", "lfilter", (B2, A2, _unaligned(X)), SAME, "", "same"),
    Case("sosfilt, unaligned float64", "sosfilt", (SOS, _unaligned(X)), SAME, "", "same"),
    # --- padlen and method
    Case("filtfilt, padlen -1", "filtfilt", (B2, A2, X), SIGPU_REFUSES,
         "no padding (as padlen 0)", "ValueError: a non-negative integer or None",
         kwargs=dict(padlen=-1)),
    Case("sosfiltfilt, padlen -1", "sosfiltfilt", (SOS, X), SIGPU_REFUSES,
         "no padding (as padlen 0)", "ValueError: a non-negative integer or None",
         kwargs=dict(padlen=-1)),
    Case("filtfilt, padlen 2.5", "filtfilt", (B2, A2, X), BOTH_REFUSE,
         "TypeError: slice indices", "ValueError: a non-negative integer or None",
         kwargs=dict(padlen=2.5)),
    Case("filtfilt, padlen 2.0", "filtfilt", (B2, A2, X), BOTH_REFUSE,
         "TypeError: slice indices", "ValueError: a non-negative integer or None",
         kwargs=dict(padlen=2.0)),
    Case("filtfilt, padlen equal to the length", "filtfilt", (B2, A2, X[:9]), BOTH_REFUSE,
         "ValueError", "ValueError", kwargs=dict(padlen=9)),
    Case("filtfilt, method='gust'", "filtfilt", (B2, A2, X), SIGPU_REFUSES,
         "Gustafsson's initial conditions", "ValueError: only 'pad' is supported",
         kwargs=dict(method="gust")),
    # --- non-finite values
    Case("lfilter, NaN in x", "lfilter", (B2, A2, np.r_[1.0, np.nan, X[:10]]), SIGPU_REFUSES,
         "NaN from the NaN on", "ValueError: x[1] is NaN"),
    Case("lfilter, Inf in x", "lfilter", (B2, A2, np.r_[1.0, np.inf, X[:10]]), SIGPU_REFUSES,
         "inf, then NaN", "ValueError: x[1] is inf"),
    Case("sosfilt, NaN in x", "sosfilt", (SOS, np.r_[X[:5], np.nan]), SIGPU_REFUSES,
         "NaN from the NaN on", "ValueError: x[5] is NaN"),
    Case("lfilter, NaN in b", "lfilter", ([np.nan, 1.0], [1.0], X), SIGPU_REFUSES,
         "all NaN", "ValueError: b[0] is nan: coefficients must be finite"),
    # --- coefficients
    Case("lfilter, a[0] = 2", "lfilter", ([1.0, 0.5], [2.0, 0.5], X), SAME,
         "normalised by a[0]", "same", gpu_x=2),
    Case("lfilter, a[0] = 2 with zi", "lfilter", ([1.0, 0.5], [2.0, 0.5], X), SAME,
         "zi is the normalised filter's state", "same", kwargs=dict(zi=np.array([1.0])),
         gpu_x=2),
    Case("lfilter, a[0] = 0 (leading zero)", "lfilter", (B2, [0.0, 1.0, 0.5], X), BOTH_REFUSE,
         "ValueError: a[0] == 0 not supported", "ValueError: a[0] must be nonzero"),
    Case("lfilter, empty b", "lfilter", ([], [1.0], X), BOTH_REFUSE, "ValueError",
         "ValueError: b is empty"),
    Case("lfilter, FIR of 256 taps", "lfilter", (FIR, [1.0], X2), SAME, "convolution", "same",
         gpu_x=2),
    Case("lfilter, FIR of 256 taps with zi", "lfilter", (FIR, [1.0], X2), SAME, "", "same",
         kwargs=dict(zi=RNG.standard_normal((3, 255)))),
    Case("lfilter, FIR with a[0] = 4", "lfilter", (FIR[:16], [4.0], X), SAME, "b / 4",
         "same"),
    Case("lfilter, FIR of integer taps, float x", "lfilter", ([1, 2, 1], [1], X), SAME,
         "float64 result", "same"),
    Case("lfilter, scalar b and a", "lfilter", (2.0, 4.0, X), SAME, "x / 2", "same"),
    Case("lfilter, Python lists", "lfilter", ([0.5, 0.5], [1.0, -0.2], X.tolist()), SAME,
         "float64 result", "same"),
    Case("sosfilt, sos as nested lists", "sosfilt", (SOS.tolist(), X), SAME, "", "same"),
    # --- layouts
    Case("lfilter, strided view x[:, ::2]", "lfilter", (B2, A2, X2[:, ::2]), SAME, "", "same"),
    Case("lfilter, negative stride x[::-1]", "lfilter", (B2, A2, X[::-1]), SAME, "", "same"),
    Case("lfilter, Fortran order, axis 0", "lfilter", (B2, A2, np.asfortranarray(X2.T)), SAME,
         "", "same", kwargs=dict(axis=0)),
    Case("sosfilt, negative stride along axis 0", "sosfilt", (SOS, X2.T[::-1]), SAME, "",
         "same", kwargs=dict(axis=0)),
    # --- the steady-state helpers
    Case("sosfilt_zi, first-order Bessel", "sosfilt_zi", (ss.bessel(1, 0.2, output="sos"),),
         SAME, "finite [[0.755, 0]]", "same"),
    Case("lfilter_zi, butter(4)", "lfilter_zi", ss.butter(4, 0.1), SAME, "", "same"),
]


def _run(mod: Any, case: Case) -> Any:
    return getattr(mod, case.fn)(*case.args, **case.kwargs)


def _assert_same(got: Any, want: Any, rtol: float) -> None:
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            _assert_same(g, w, rtol)
        return
    got = np.asarray(got)
    assert got.shape == want.shape, f"shape {got.shape}, scipy {want.shape}"
    assert got.dtype == want.dtype, f"dtype {got.dtype}, scipy {want.dtype}"
    scale = float(np.max(np.abs(want))) if want.size else 1.0
    np.testing.assert_allclose(got, want, rtol=0, atol=rtol * max(scale, 1.0))


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case(case: Case) -> None:
    try:
        want = _run(ss, case)
        scipy_raised = None
    except Exception as e:  # noqa: BLE001 - scipy's many exception types
        want, scipy_raised = None, e
    if case.expect in (SAME, SIGPU_REFUSES, SCIPY_WRONG):
        assert scipy_raised is None, f"scipy raised {scipy_raised!r}"
    else:
        assert scipy_raised is not None, "scipy returned"
    if case.expect in (BOTH_REFUSE, SIGPU_REFUSES):
        with pytest.raises((ValueError, TypeError)):
            _run(sigpu, case)
        return
    got = _run(sigpu, case)
    if case.expect == SAME:
        _assert_same(got, want, case.rtol)
    else:
        assert case.check is not None
        case.check(got)


def table() -> str:
    """The reference page: what each case does in scipy and in sigpu."""
    rows = [
        "# SciPy conformance",
        "",
        "What `sigpu.lfilter`, `sosfilt`, `filtfilt`, `sosfiltfilt`, `lfilter_zi` and "
        "`sosfilt_zi` do, case by case, beside `scipy.signal` (1.17). Every row is a test of "
        "`python/tests/test_scipy_conformance.py`, which this page is generated from "
        "(`python python/tests/test_scipy_conformance.py > "
        "docs/reference/scipy-conformance.md`; a test fails when it is out of date).",
        "",
        "- **same**: scipy's shape, dtype and values (within 1e-10 of the output's scale; 1e-5 "
        "for float32 results).",
        "- **both refuse**: scipy raises; sigpu raises `ValueError` or `TypeError` with the "
        "reason.",
        "- **sigpu refuses**: scipy returns something; sigpu raises, naming the reason and the "
        "way out. Non-finite samples are refused, naming the first one's index: in the "
        "blocked parallel methods a NaN or an Inf would spread over its whole block instead of "
        "following scipy's serial pattern.",
        "- **sigpu extends**: scipy raises; sigpu returns the result stated.",
        "- **scipy is wrong**: scipy returns a wrong result; sigpu returns the one stated.",
        "",
        "dtype rule for numpy input: scipy's `result_type(b, a, x[, zi])` (float32 samples "
        "with float64 coefficients are filtered in float64); integer and boolean input is "
        "filtered as float64. torch and CuPy arrays keep their own float32 / float64 (the GPU "
        "column); their float32 results are float32 computations within the float32 contract. "
        "Complex data follows the same rule (complex64 x with float64 coefficients gives "
        "complex128 for numpy, complex64 for torch / CuPy); real coefficients filter the real "
        "and imaginary parts with the real filter (CPU and GPU), complex coefficients run "
        "scipy's serial loop in complex128 (on the CPU; on CUDA arrays its GPU kernel, bit "
        "for bit the CPU's result).",
        "",
        "| case | outcome | SciPy | sigpu (CPU) | sigpu (GPU: torch and CuPy CUDA arrays) |",
        "| --- | --- | --- | --- | --- |",
    ]
    for c in CASES:
        gpu = ("as the CPU, x's dtype kept (or refused naming the way out)"
               if c.gpu_x is not None else "not run")
        rows.append(f"| {c.name} | {c.expect} | {c.scipy or 'result'} | {c.sigpu} | {gpu} |")
    return "\n".join(rows) + "\n"


def test_the_reference_page_is_up_to_date() -> None:
    assert PAGE.is_file(), f"{PAGE} is missing: regenerate it (module notes)"
    assert PAGE.read_text() == table(), f"{PAGE} is out of date: regenerate it (module notes)"


def _gpu_lib(name: str) -> Any:
    try:
        return __import__(name)
    except ImportError:
        if os.environ.get("SIGPU_REQUIRE_GPU") == "1":
            pytest.fail(f"SIGPU_REQUIRE_GPU=1 but {name} is not installed")
        pytest.skip(f"{name} is not installed")


@pytest.mark.parametrize("lib", ["torch", "cupy"])
@pytest.mark.parametrize("case", [c for c in CASES if c.gpu_x is not None],
                         ids=[c.name for c in CASES if c.gpu_x is not None])
def test_case_on_cuda_arrays(gpu, case: Case, lib: str) -> None:
    """The GPU column: x as a torch / CuPy CUDA array (its float dtype kept; other types as
    float64) gives the CPU result within that dtype's tolerance, or a refusal naming the way
    out where the contract keeps the filter on the host."""
    mod = _gpu_lib(lib)
    x = np.asarray(case.args[case.gpu_x])
    dt = x.dtype.newbyteorder("=") if x.dtype.kind in "fc" else np.dtype(np.float64)
    xn = np.ascontiguousarray(x, dtype=dt)
    args = list(case.args)
    args[case.gpu_x] = mod.as_tensor(xn, device="cuda") if lib == "torch" else mod.asarray(xn)
    try:
        got = getattr(sigpu, case.fn)(*args, **case.kwargs)
    except ValueError as e:  # the contract keeps the filter on the host: the way out is named
        assert "host arrays" in str(e) or "second-order sections" in str(e), str(e)
        return
    args[case.gpu_x] = xn
    want = getattr(sigpu, case.fn)(*args, **case.kwargs)
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    tol = 1e-10 if dt in (np.float64, np.complex128) else 1e-5
    for g, w in zip(got, want):
        if lib == "torch":
            assert isinstance(g, mod.Tensor) and g.is_cuda
            h = g.cpu().numpy()
        else:
            assert isinstance(g, mod.ndarray)
            h = mod.asnumpy(g)
        assert h.dtype == dt, f"{h.dtype}: the array's dtype {dt} is kept"
        _assert_same(h.astype(w.dtype), np.asarray(w), tol)


if __name__ == "__main__":
    sys.stdout.write(table())
