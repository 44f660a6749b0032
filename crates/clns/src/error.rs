//! [`ClnsError`]: every way a CLNS call can fail, one type for the crate's public API.

use crate::certify::CertifyError;
use crate::fft::FftError;
use crate::format::ClnsFormatError;
use crate::sb::{Method, MethodError};
use sigpu_fnapprox::FitError;
use sigpu_runtime::cuda;

/// Why a CLNS operation, table or kernel launch failed.
#[derive(Debug, thiserror::Error)]
pub enum ClnsError {
    #[error(transparent)]
    Format(#[from] ClnsFormatError),
    #[error(transparent)]
    Method(#[from] MethodError),
    #[error(transparent)]
    Certify(#[from] CertifyError),
    #[error(transparent)]
    Fft(#[from] FftError),
    /// Fitting a table or polynomial (S_b table, 2^x) failed.
    #[error(transparent)]
    Table(#[from] FitError),
    /// A CUDA driver, NVRTC or launch error.
    #[error(transparent)]
    Gpu(#[from] cuda::Error),
    /// The kernels hold log codes in an i32.
    #[error("{format}: the kernels take log codes of ≤ 31 bits")]
    LogBits { format: String },
    /// `method` has no kernel (or no CPU twin) for `what`.
    #[error("{what}: {why}")]
    NoKernel { what: String, why: &'static str },
    /// The GPU FFT's shape limits.
    #[error(
        "GPU FFT of size {n} over {len} values: sizes are powers of two 2..=4096 dividing the data"
    )]
    FftShape { n: usize, len: usize },
    #[error("GPU FFT of size {n} by {method} in {format}")]
    FftMethod {
        n: usize,
        method: Method,
        format: String,
    },
    #[error("GPU FFT: {batch} transforms of {n} in one launch (at most 2^31 − 1)")]
    FftBatch { batch: usize, n: usize },
}

/// `Result` with [`ClnsError`].
pub type Result<T, E = ClnsError> = std::result::Result<T, E>;
