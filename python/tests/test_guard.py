"""Errors reach Python as ordinary exceptions in the package's own words: a panic in native
code is a RuntimeError with its message (never pyo3's PanicException, which `except
Exception` misses), library messages name keyword arguments instead of command-line flags,
and device names other than the documented ones are refused with the accepted list."""

from __future__ import annotations

import numpy as np
import pytest

import sigpu
from sigpu import _native


def test_a_panic_is_a_runtime_error_with_its_message():
    with pytest.raises(RuntimeError, match="internal error in sigpu.*boom 42"):
        _native._panic_for_test("boom 42")
    try:
        _native._panic_for_test("caught")
    except Exception as e:  # noqa: BLE001 - the point: `except Exception` catches it
        assert "caught" in str(e)


def test_hmm_with_zero_states_is_a_value_error_at_both_halves():
    with pytest.raises(ValueError, match="at least one state"):
        sigpu.lns.hmm_forward(np.zeros(0), np.zeros((0, 0)), np.zeros((5, 0)))
    # The library refuses it too (it panicked on a chunk size of zero).
    with pytest.raises(ValueError, match="0 states"):
        _native.hmm_forward("lns32", [], [], np.zeros(0), 1)
    with pytest.raises(ValueError):
        _native.hmm_forward("lns32", [], [], np.zeros(0), 0)


def _entries(text: str):
    """(name, first line of the body) of every #[pyfunction] and #[pymethods] function."""
    import re

    lines = text.split("\n")
    in_methods = pending = False
    for i, line in enumerate(lines):
        if line.startswith("#[pymethods]"):
            in_methods = True
        elif in_methods and line == "}":
            in_methods = False
        if line.startswith("#[pyfunction]"):
            pending = True
        m = re.match(r"( *)(?:pub )?fn (\w+)", line)
        if m and ((pending and m.group(1) == "") or (in_methods and m.group(1) == "    ")):
            pending = False
            j = i
            while not lines[j].rstrip().endswith("{"):
                j += 1
            yield m.group(2), lines[j + 1].strip()


def test_every_native_entry_runs_inside_the_panic_guard():
    # Each #[pyfunction] and #[pymethods] function body starts with `catch(`: the rule the
    # guard depends on, checked on the source so a new entry point cannot skip it.
    from pathlib import Path

    src = Path(__file__).resolve().parents[1] / "src"
    seen, unguarded = 0, []
    for path in sorted(src.rglob("*.rs")):
        for name, first in _entries(path.read_text()):
            seen += 1
            if not first.startswith("catch("):
                unguarded.append(f"{path.name}: {name}: {first}")
    assert seen >= 30 and not unguarded, (seen, unguarded)


@pytest.mark.parametrize(
    "cli, python",
    [
        (
            "the filter (1 : 2) is unstable: a pole has magnitude 2.000000 > 1 (exact step-down "
            "test on the coefficients as they run), so its output grows without bound; pass "
            "--allow-unstable (library: FilterOptions.allow_unstable) to run it anyway",
            "the filter (1 : 2) is unstable: a pole has magnitude 2.000000 > 1 (exact step-down "
            "test on the coefficients as they run), so its output grows without bound; pass "
            "allow_unstable=True to run it anyway",
        ),
        ("sum-product runs in float only: use --precision float",
         "sum-product runs in float only: use precision='float'"),
        ("--schedule layered-compact is an 8-bit decoder: use --precision 8bit (or --schedule "
         "layered for float)",
         "schedule='layered-compact' is an 8-bit decoder: use precision='8bit' (or "
         "schedule='layered' for float)"),
        ("LLR scale (--scale) 1000 must be in [0.01, 100]", "LLR scale (scale) 1000 must be in "
         "[0.01, 100]"),
        ("--iterations 0 must be in 1..=10000", "iterations=0 must be in 1..=10000"),
        ("--min-errors and --max-frames must be at least 1",
         "min_errors and max_frames must be at least 1"),
        ("use --no-early-termination", "use early_termination=False"),
        ("x -- y and a--b stay", "x -- y and a--b stay"),
    ],
)
def test_library_messages_are_rendered_in_keyword_arguments(cli, python):
    assert _native._pythonic_for_test(cli) == python


def test_an_unstable_filter_names_the_keyword_that_runs_it():
    x = np.ones(8)
    with pytest.raises(ValueError) as e:
        sigpu.lfilter([1.0], [1.0, -2.0], x)
    assert "allow_unstable=True" in str(e.value) and "--" not in str(e.value)
    y = sigpu.lfilter([1.0], [1.0, -2.0], x, allow_unstable=True)
    np.testing.assert_allclose(y, 2.0 ** np.arange(1, 9) - 1)
    with pytest.raises(ValueError, match="allow_unstable=True"):
        sigpu.Sos([[1, 0, 0, 1, -2.5, 1]])(x)


def test_ldpc_messages_name_keywords_not_flags():
    with pytest.raises(ValueError) as e:
        sigpu.ldpc.simulate("dvbt2-short-1/2", 1.0, decoder="spa", precision="8bit",
                            max_frames=1)
    assert "precision='float'" in str(e.value) and "--" not in str(e.value)
    with pytest.raises(ValueError) as e:
        sigpu.ldpc.simulate("dvbt2-short-1/2", 1.0, scale=1e6, max_frames=1)
    assert "(scale)" in str(e.value) and "--" not in str(e.value)


@pytest.mark.parametrize("name", ["gpu", "GPU", "cuda:x", "tpu", "cuda:-1"])
def test_device_names_other_than_the_documented_ones_are_refused(name):
    with pytest.raises(ValueError, match="'cpu', 'cuda' or 'cuda:N'"):
        sigpu.lfilter([1.0], [1.0], np.ones(4), device=name)
