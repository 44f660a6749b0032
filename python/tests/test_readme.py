"""The README's Python examples run as written: every ```python block, each in a fresh
namespace, in a temporary folder. The markers are those of crates/cli/tests/readme.rs (which
runs the shell blocks): a block under `<!-- example: not-run -->` is left out, one under
`<!-- example: gpu -->` runs only where a GPU is usable (the `gpu` fixture's rule)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

FENCE = re.compile(r"^```(\w+)\s*$")
MARKER = re.compile(r"^<!-- example: ([\w-]+) -->$")


def blocks(text: str) -> list[tuple[str, str | None, int, str]]:
    """(language, marker or None, first line, code) of every fenced block."""
    out, previous, lines, i = [], "", text.splitlines(), 0
    while i < len(lines):
        fence = FENCE.match(lines[i])
        if fence:
            start, code = i + 1, []
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                code.append(lines[i])
                i += 1
            marker = MARKER.match(previous.strip())
            out.append((fence[1], marker[1] if marker else None, start, "\n".join(code)))
            previous = ""
        elif lines[i].strip():
            previous = lines[i]
        i += 1
    return out


PYTHON_BLOCKS = [b for b in blocks((ROOT / "README.md").read_text()) if b[0] == "python"]


def test_the_readme_has_python_examples():
    assert len(PYTHON_BLOCKS) >= 2


@pytest.mark.parametrize(
    "block", PYTHON_BLOCKS, ids=[f"line{b[2]}" for b in PYTHON_BLOCKS]
)
def test_readme_python_example_runs(block, tmp_path, monkeypatch, request):
    _, marker, line, code = block
    if marker == "not-run":
        pytest.skip(f"README line {line}: marked not-run")
    if marker == "gpu":
        request.getfixturevalue("gpu")
        if "import torch" in code:
            pytest.importorskip("torch")
    monkeypatch.chdir(tmp_path)
    exec(compile(code, f"README.md:{line}", "exec"), {"__name__": "__readme__"})
