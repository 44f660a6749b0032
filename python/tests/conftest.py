"""Shared fixtures: the GPU gate (SIGPU_REQUIRE_GPU=1 turns a skip into a failure, as in the
Rust suite) and the `sigpu` command-line tool the package is compared with."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

import sigpu

ROOT = Path(__file__).resolve().parents[2]


def _gpu_usable() -> bool:
    try:
        return sigpu.cuda_available()
    except Exception:
        return False


@pytest.fixture(scope="session")
def gpu() -> int:
    """Device 0, or a skip (a failure with SIGPU_REQUIRE_GPU=1) when no GPU is usable."""
    if not _gpu_usable():
        why = sigpu.info()["cuda"].get("reason", "no GPU")
        if os.environ.get("SIGPU_REQUIRE_GPU") == "1":
            pytest.fail(f"SIGPU_REQUIRE_GPU=1 but no GPU is usable: {why}")
        pytest.skip(f"no GPU: {why}")
    return 0


@pytest.fixture(scope="session")
def cli() -> str:
    """The sigpu binary: $SIGPU_CLI, else the workspace's release or debug build."""
    for c in (
        os.environ.get("SIGPU_CLI"),
        str(ROOT / "target/release/sigpu"),
        str(ROOT / "target/debug/sigpu"),
        shutil.which("sigpu"),
    ):
        if c and Path(c).is_file():
            return c
    if os.environ.get("SIGPU_REQUIRE_CLI") == "1":
        pytest.fail("SIGPU_REQUIRE_CLI=1 but no sigpu binary was found")
    pytest.skip("no sigpu binary (cargo build -p sigpu-cli)")
