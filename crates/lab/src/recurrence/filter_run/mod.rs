//! One `sigpu filter` run over files: the input read (a file, or stdin for `-`) and parsed
//! with its shape, the filter planned for the target, run along the axis (from `--zi`, or
//! zero-phase), the output and zf encoded and written (a file written atomically, or stdout
//! for `-`), and the [`FilterSummary`] of it. [`real`] runs real data with a real filter,
//! [`complex`] complex data or coefficients. The command line parses the flags into
//! [`FilterFiles`] and prints; errors name the flag each field came from, as the user
//! typed it.

pub mod complex;
pub mod real;

use anyhow::{Context, Result};
use sigpu_recurrence::io::Format;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

pub use super::summary::FilterSummary;

/// The files and the along-axis options of one run (`--input`, `--output`, `--format`,
/// `--channels`, `--axis`, `--zi`, `--zf`, `--filtfilt`, `--padlen`).
#[derive(Clone, Debug, Default)]
pub struct FilterFiles {
    /// The signal (`-`: stdin).
    pub input: PathBuf,
    /// Where the output goes (`-`: stdout).
    pub output: PathBuf,
    /// `npy`, `raw` or `wav` when given; else by extension.
    pub format: Option<String>,
    /// Channels in a raw input.
    pub channels: usize,
    /// The axis along which to filter (default: the input's).
    pub axis: Option<isize>,
    /// The initial state: values, or a file.
    pub zi: Option<String>,
    /// Where the final state goes.
    pub zf: Option<PathBuf>,
    /// Zero-phase filtering.
    pub filtfilt: bool,
    /// Padding for zero-phase filtering (default SciPy's).
    pub padlen: Option<usize>,
}

impl FilterFiles {
    /// The input as the user named it, for messages.
    pub fn shown(&self) -> String {
        self.input.display().to_string()
    }

    /// The input's bytes: the file's, or stdin's for `-`.
    pub fn read_bytes(&self) -> Result<Vec<u8>> {
        read_bytes(&self.input)
    }

    /// The input's format: `--format`, else by its extension.
    pub fn input_format(&self) -> Format {
        Format::of(&self.input, self.format.as_deref())
    }

    /// Whether the output goes to stdout (the summary then goes to stderr).
    pub fn output_to_stdout(&self) -> bool {
        self.output == Path::new("-")
    }
}

/// Refuses `--output -` with `--zf -`: both would go to stdout, one array after the other,
/// which no reader can take apart.
pub fn check_streams(output: Option<&Path>, zf: Option<&Path>) -> Result<()> {
    let stdout = Some(Path::new("-"));
    if output == stdout && zf == stdout {
        anyhow::bail!(
            "--output - and --zf - would both go to stdout, one array after the other, which \
             no reader can take apart: give --zf a file"
        );
    }
    Ok(())
}

/// The bytes of `input`: the file's, or stdin's for `-`; errors name `--input`.
pub fn read_bytes(input: &Path) -> Result<Vec<u8>> {
    if input == Path::new("-") {
        let mut bytes = Vec::new();
        std::io::stdin()
            .read_to_end(&mut bytes)
            .context("--input -: reading stdin")?;
        return Ok(bytes);
    }
    std::fs::read(input).with_context(|| format!("--input {}: cannot read", input.display()))
}

/// Writes `data` to `path` (atomically), or to stdout for `-`; errors name `flag`.
pub fn put(path: &Path, data: &[u8], flag: &str) -> Result<()> {
    if path == Path::new("-") {
        let mut out = std::io::stdout().lock();
        out.write_all(data)
            .and_then(|()| out.flush())
            .with_context(|| format!("{flag} -: writing stdout"))?;
        return Ok(());
    }
    sigpu_runtime::fs::write_atomic(path, data)
        .with_context(|| format!("{flag} {}: cannot write", path.display()))
}

/// `axis` (negative counts from the end) as an index into `shape`, refused when out of range;
/// `of` says which input in the error.
fn axis_index(axis: isize, shape: &[usize], of: &str) -> Result<usize> {
    let nd = shape.len() as isize;
    if axis >= nd || axis < -nd {
        anyhow::bail!("--axis {axis} is out of range for the {nd}-D input{of} of shape {shape:?}");
    }
    Ok(axis.rem_euclid(nd) as usize)
}
