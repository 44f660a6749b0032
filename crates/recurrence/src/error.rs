//! The crate's errors: [`FilterError`] for everything a filter can refuse, and [`ParseError`]
//! for a signature that could not be read (also a [`FilterError`] through `?`).

/// Why a filter could not be built or run.
#[derive(Debug, thiserror::Error)]
pub enum FilterError {
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// A coefficient that the element type cannot hold, and the like.
    #[error("{0}")]
    Coefficients(String),
    /// A launch shape the GPU code generator cannot take.
    #[error("{0}")]
    Config(String),
    /// An element type name that is none of f32, f64, i32, i64.
    #[error("unknown element type {0:?} (expected f32, f64, i32 or i64)")]
    UnknownDType(String),
    #[error(
        "the filter {signature} is unstable: a pole has magnitude {magnitude:.6} > 1 (exact \
         step-down test on the coefficients as they run), so its output grows without bound; \
         pass --allow-unstable (library: FilterOptions.allow_unstable) to run it anyway"
    )]
    Unstable { signature: String, magnitude: f64 },
    /// Input, output or state of the wrong size, or input values the filter refuses.
    #[error("{0}")]
    Input(String),
    #[error(transparent)]
    Gpu(#[from] sigpu_runtime::cuda::Error),
}

/// A signature that could not be read: where and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("signature {input:?}, column {column}: {message}")]
pub struct ParseError {
    pub input: String,
    /// 1-based character column of the offending text.
    pub column: usize,
    pub message: String,
}
