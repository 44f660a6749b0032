use cudarc::driver::DriverError;
use serde::Serialize;
use std::fmt;

/// The GPU layer's result; the error defaults to [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Which piece of a working CUDA setup is missing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Missing {
    /// `libcuda.so` could not be opened: no NVIDIA driver on this machine.
    Driver,
    /// The driver is there but reports no usable device (or the requested ordinal is absent).
    Device,
    /// `libnvrtc.so.13` could not be opened: the CUDA toolkit's runtime compiler is missing.
    Nvrtc,
}

/// Why the GPU cannot be used, with what to do about it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, thiserror::Error)]
pub struct Unavailable {
    /// The piece that is missing.
    pub missing: Missing,
    /// What was found, in words; [`Unavailable::hint`] says what to do.
    pub reason: String,
}

impl Unavailable {
    pub(crate) fn new(missing: Missing, reason: impl Into<String>) -> Self {
        Unavailable {
            missing,
            reason: reason.into(),
        }
    }

    /// What a user should do about it.
    pub fn hint(&self) -> &'static str {
        match self.missing {
            Missing::Driver => "install the NVIDIA driver, or run on a machine with an NVIDIA GPU",
            Missing::Device => {
                "check `nvidia-smi` and CUDA_VISIBLE_DEVICES; the device ordinal must exist"
            }
            Missing::Nvrtc => {
                "add the CUDA toolkit's lib64 to LD_LIBRARY_PATH \
                 (e.g. LD_LIBRARY_PATH=/usr/local/cuda/lib64), or point SIGPU_NVRTC_DIR at a \
                 directory holding libnvrtc.so.13 (pip install nvidia-cuda-nvrtc==13.0.*)"
            }
        }
    }
}

impl fmt::Display for Unavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}; {}", self.reason, self.hint())
    }
}

/// Everything the GPU layer can fail with.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The driver, a device or NVRTC is missing or unusable.
    #[error(transparent)]
    Unavailable(#[from] Unavailable),
    /// A driver call failed.
    #[error("CUDA driver error while {context}: {source}")]
    Driver {
        /// What was being done, e.g. "copying host to device".
        context: String,
        /// The driver's own error.
        #[source]
        source: DriverError,
    },
    /// NVRTC rejected a kernel's source.
    #[error(transparent)]
    Compile(#[from] super::CompileError),
    /// A launch refused before it reached the device: arguments that do not match the
    /// kernel's parameters, or an empty grid.
    #[error("cannot launch {kernel}: {reason}")]
    Launch {
        /// The kernel's name.
        kernel: String,
        /// What does not match, e.g. which argument has the wrong size.
        reason: String,
    },
    /// A request refused before any driver call: an unknown kernel name, unequal buffer lengths,
    /// a bad texture shape, a NUL byte in a name.
    #[error("invalid argument: {0}")]
    Invalid(String),
}

/// Attaches what was being done to a driver error, for every crate that calls the driver.
pub trait DriverContext<T> {
    /// `self`'s driver error as [`Error::Driver`], with `what` as its context.
    fn context(self, what: impl fmt::Display) -> Result<T>;
}

impl<T> DriverContext<T> for std::result::Result<T, DriverError> {
    fn context(self, what: impl fmt::Display) -> Result<T> {
        self.map_err(|source| Error::Driver {
            context: what.to_string(),
            source,
        })
    }
}
