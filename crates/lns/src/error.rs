//! The crate's error type.

use crate::format::FormatError;
use sigpu_fnapprox::FitError;
use sigpu_runtime::cuda;

/// Why an LNS operation, table build or GPU launch could not be done.
#[derive(Debug, thiserror::Error)]
pub enum LnsError {
    /// A table or polynomial fit failed, or its parameters are out of range.
    #[error(transparent)]
    Fit(#[from] FitError),
    /// A format that does not exist (`i9f23`: more than 32 bits).
    #[error(transparent)]
    Format(#[from] FormatError),
    /// Slices of an element-wise operation whose lengths differ.
    #[error(transparent)]
    Length(#[from] LengthError),
    /// HMM inputs whose shape does not match the model (states, steps, batch).
    #[error("HMM shape: {0}")]
    HmmShape(String),
    /// What this method, format or device cannot do (a format too wide for the GPU kernels,
    /// a method without a CPU evaluator, words too narrow for the format, ...).
    #[error("{0}")]
    Unsupported(String),
    /// An argument no operation takes (an empty output buffer, a batch beyond the grid).
    #[error("invalid argument: {0}")]
    Invalid(String),
    /// The work was stopped by its [`sigpu_runtime::cancel::Cancel`] token.
    #[error(transparent)]
    Cancelled(#[from] sigpu_runtime::cancel::Cancelled),
    /// The GPU: driver, compilation or launch.
    #[error(transparent)]
    Gpu(#[from] cuda::Error),
}

/// Two slices that should have matched in length did not.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("slice lengths differ: {what} has {got} elements, expected {expected}")]
pub struct LengthError {
    /// The slice that differs, by its argument name (`b`, `out`, `ys`).
    pub what: &'static str,
    /// Its length.
    pub got: usize,
    /// The length it should have had (that of the first operand).
    pub expected: usize,
}
