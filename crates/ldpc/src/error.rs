//! Every way LDPC input can be wrong, each naming the file, line or parameter at fault.

use std::path::PathBuf;

/// The crate's results.
pub type Result<T, E = LdpcError> = std::result::Result<T, E>;

/// What went wrong, with the file, line or parameter at fault.
#[derive(Debug, thiserror::Error)]
pub enum LdpcError {
    /// A DVB parity table that does not parse or does not match its header.
    #[error("{file}:{line}: {message}")]
    Table {
        /// The table's file name.
        file: String,
        /// The line at fault (1-based).
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A malformed alist file.
    #[error("{}:{line}: {message}", file.display())]
    Alist {
        /// The alist file.
        file: PathBuf,
        /// The line at fault (1-based).
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A malformed or unsupported `.npy` file.
    #[error("{}: {message}", file.display())]
    Npy {
        /// The `.npy` file.
        file: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A code name that is neither a standard code nor an alist file.
    #[error("unknown code {name:?}; known codes: {known}, or a path to an alist file")]
    UnknownCode {
        /// The name given.
        name: String,
        /// The standard codes' names, comma-separated.
        known: String,
    },
    /// A parameter out of range, a buffer of the wrong length, and the like.
    #[error("{0}")]
    Invalid(String),
    /// The OS error is the source (printed once, after the path, by `{:#}` or a report).
    #[error("{}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// A sweep file that cannot be read or resumed.
    #[error("{}: {message}", path.display())]
    Sweep {
        /// The sweep file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A device error (driver, launch, NVRTC).
    #[error(transparent)]
    Gpu(#[from] sigpu_runtime::cuda::Error),
    /// The work was stopped by its [`sigpu_runtime::cancel::Cancel`] token.
    #[error(transparent)]
    Cancelled(#[from] sigpu_runtime::cancel::Cancelled),
    /// A failure on one rank of a run spread over several (MPI), returned by every rank.
    #[error(transparent)]
    Ranks(#[from] sigpu_runtime::ranks::RankFailure),
}

impl LdpcError {
    /// `local` on every rank of `ranks` when it is `Ok` everywhere, else every rank's
    /// [`LdpcError::Ranks`] naming the first rank that failed and its error. Collective.
    pub(crate) fn agree<T>(ranks: &dyn sigpu_runtime::ranks::Ranks, local: Result<T>) -> Result<T> {
        sigpu_runtime::ranks::agree(ranks, local, |e| sigpu_runtime::ranks::error_chain(e))
            .map_err(|e| e.unwrap_or_else(LdpcError::Ranks))
    }

    pub(crate) fn invalid(message: impl Into<String>) -> Self {
        LdpcError::Invalid(message.into())
    }
}
