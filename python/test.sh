#!/usr/bin/env bash
# Builds the sigpu Python package into a virtual environment under .cache/python and runs its
# pytest suite (scipy, numpy and mpmath as oracles, xlns for the LNS conversions, the CLI built
# by `cargo test` for the comparisons).
# Called by scripts/test; run it alone from the repository root after `cargo build -p sigpu-cli`.
# The environment is made once; later runs reuse it (offline once it exists).
set -euo pipefail
cd "$(dirname "$0")/.."

venv=.cache/python
py=$venv/bin/python
if [ ! -x "$py" ]; then
  python3 -m venv "$venv"
fi
if ! "$py" -c 'import maturin, numpy, scipy, pytest, mpmath, xlns' 2>/dev/null; then
  echo "installing maturin, numpy, scipy, pytest, mpmath and xlns from PyPI into $venv"
  "$py" -m pip install --quiet --disable-pip-version-check 'maturin>=1.16,<2' numpy scipy pytest \
    mpmath xlns
fi
# The `ci` profile (python/Cargo.toml): optimised like the Rust tests, quick to compile.
(cd python && VIRTUAL_ENV="$PWD/../$venv" PATH="$PWD/../$venv/bin:$PATH" \
  "../$py" -m maturin develop --quiet --profile ci --locked)
target=${CARGO_TARGET_DIR:-$PWD/target}
export SIGPU_CLI=${SIGPU_CLI:-$target/debug/sigpu} SIGPU_REQUIRE_CLI=${SIGPU_REQUIRE_CLI:-1}
"$py" -m pytest -q -rs python/tests "$@"
