//! Every way LDPC input can be wrong, each naming the file, line or parameter at fault.

use std::path::PathBuf;

pub type Result<T, E = LdpcError> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum LdpcError {
    /// A DVB parity table that does not parse or does not match its header.
    #[error("{file}:{line}: {message}")]
    Table {
        file: String,
        line: usize,
        message: String,
    },
    /// A malformed alist file.
    #[error("{}:{line}: {message}", file.display())]
    Alist {
        file: PathBuf,
        line: usize,
        message: String,
    },
    /// A malformed or unsupported `.npy` file.
    #[error("{}: {message}", file.display())]
    Npy { file: PathBuf, message: String },
    #[error("unknown code {name:?}; known codes: {known}, or a path to an alist file")]
    UnknownCode { name: String, known: String },
    /// A parameter out of range, a buffer of the wrong length, and the like.
    #[error("{0}")]
    Invalid(String),
    /// The OS error is the source (printed once, after the path, by `{:#}` or a report).
    #[error("{}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A sweep file that cannot be read or resumed.
    #[error("{}: {message}", path.display())]
    Sweep { path: PathBuf, message: String },
    #[error(transparent)]
    Gpu(#[from] sigpu_runtime::cuda::Error),
}

impl LdpcError {
    pub(crate) fn invalid(message: impl Into<String>) -> Self {
        LdpcError::Invalid(message.into())
    }
}
