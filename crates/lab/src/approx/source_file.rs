//! `sigpu approx transform`'s input: a CUDA source file read (capped, refused when it is not
//! text) and its kernel transformed ([`sigpu_approx::transform::transform`]).

use anyhow::{Context, Result};
use sigpu_approx::transform::{transform, Transformed};
use std::path::Path;

/// The largest source read.
const MAX_SOURCE: usize = 16 << 20;

/// The λ-partitioned versions of `kernel` in the CUDA file `input`; errors name `--input`
/// (reading) or the file (transforming).
pub fn transform_file(input: &Path, kernel: &str) -> Result<Transformed> {
    let code = sigpu_runtime::input::read_text(input, MAX_SOURCE, "CUDA C source text")
        .with_context(|| format!("--input {}", input.display()))?;
    transform(&code, kernel).map_err(|e| anyhow::anyhow!("{}: {e}", input.display()))
}
