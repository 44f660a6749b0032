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
    /// An invalid CLNS format name or shape.
    #[error(transparent)]
    Format(#[from] ClnsFormatError),
    /// An unknown S_b method name.
    #[error(transparent)]
    Method(#[from] MethodError),
    /// Certificate inputs or results that do not fit together.
    #[error(transparent)]
    Certify(#[from] CertifyError),
    /// A CPU FFT's size, length or word size refused.
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
    LogBits {
        /// The format's name.
        format: String,
    },
    /// `method` has no kernel (or no CPU twin) for `what`.
    #[error("{what}: {why}")]
    NoKernel {
        /// The operation asked for, e.g. "S_b of the blend".
        what: String,
        /// Why there is none, and what to use instead.
        why: &'static str,
    },
    /// The GPU FFT's shape limits.
    #[error(
        "GPU FFT of size {n} over {len} values: sizes are powers of two 2..=4096 dividing the data"
    )]
    FftShape {
        /// Transform length asked for.
        n: usize,
        /// Values in the buffer.
        len: usize,
    },
    /// The GPU FFT cannot run this size by this method in this format: a size-n transform needs
    /// log2 n ≤ P angle bits for its twiddles, and the blend has no FFT kernel.
    #[error("GPU FFT of size {n} by {method} in {format}")]
    FftMethod {
        /// Transform length.
        n: usize,
        /// The S_b method asked for.
        method: Method,
        /// The format's name.
        format: String,
    },
    /// More transforms than one launch's grid holds.
    #[error("GPU FFT: {batch} transforms of {n} in one launch (at most 2^31 − 1)")]
    FftBatch {
        /// Transforms asked for.
        batch: usize,
        /// Transform length.
        n: usize,
    },
}

/// `Result` with [`ClnsError`].
pub type Result<T, E = ClnsError> = std::result::Result<T, E>;
