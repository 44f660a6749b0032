//! The crate's error: what a caller can get wrong (names, ratios, argument shapes), what the
//! transformation refuses, and the runtime's GPU errors, wrapped rather than flattened.

use crate::precision::Precision;
use sigpu_runtime::cuda;

/// Everything `sigpu-approx` can fail with.
#[derive(Debug, thiserror::Error)]
pub enum ApproxError {
    /// A driver, compiler or launch error from the runtime.
    #[error(transparent)]
    Gpu(#[from] cuda::Error),
    /// A kernel source the λ transformation cannot rewrite; `file` names where it came from.
    #[error("{file}: {source}")]
    Transform {
        file: String,
        #[source]
        source: TransformError,
    },
    #[error("no function {key:?} in the catalog (known: {known})")]
    UnknownFunction { key: String, known: String },
    #[error("no app named {name:?} (the suite: {known}, or all)")]
    UnknownApp { name: String, known: String },
    #[error("unknown warp index {0:?} (expected slot or block)")]
    UnknownPartition(String),
    #[error("unknown search {0:?} (expected smp, heu or omg)")]
    UnknownMethod(String),
    #[error(
        "QoS ratio must be a number in (0, 1] (a fraction of the all-SFU version's error); got {0}"
    )]
    Ratio(f64),
    /// A λ search that could not start (its measurements fail as [`ApproxError::Gpu`]).
    #[error("{app}: {what}")]
    Search { app: String, what: String },
    /// Inputs to an element-wise catalog kernel of the wrong type or length.
    #[error("{key}: {what} holds {len} {got:?} values, the kernel takes {want_len} {want:?}")]
    EvalArgs {
        key: &'static str,
        what: &'static str,
        len: usize,
        got: Precision,
        want_len: usize,
        want: Precision,
    },
    /// A λ-kernel check whose two ends are the same output, so it proves nothing.
    #[error("{0}: the all-SFU output equals the accurate one, so the check proves nothing")]
    VacuousCheck(String),
}

/// Why a source could not be transformed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TransformError {
    #[error("{0}")]
    Lex(String),
    #[error("no extern \"C\" __global__ kernel named {name:?} in the source (it has: {known})")]
    NoKernel { name: String, known: String },
    #[error("kernel {0:?} calls no standard function and divides nothing: nothing to approximate")]
    NothingToApproximate(String),
    #[error("line {line}: {what}")]
    Syntax { line: usize, what: String },
    #[error("kernel {kernel:?} uses {what}, which has no form that warps running different bodies can share")]
    Unsupported { kernel: String, what: String },
}

/// The crate's result.
pub type Result<T, E = ApproxError> = std::result::Result<T, E>;
