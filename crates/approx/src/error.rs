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
        /// The kernel's file name.
        file: String,
        /// What the transformation refused.
        #[source]
        source: TransformError,
    },
    /// A catalog key that names no function.
    #[error("no function {key:?} in the catalog (known: {known})")]
    UnknownFunction {
        /// The key as given.
        key: String,
        /// Every key of the catalog, comma-separated.
        known: String,
    },
    /// An app name that is not in the suite.
    #[error("no app named {name:?} (the suite: {known}, or all)")]
    UnknownApp {
        /// The name as given.
        name: String,
        /// Every app's name, comma-separated.
        known: String,
    },
    /// A warp index other than `slot` or `block`; holds the word as given.
    #[error("unknown warp index {0:?} (expected slot or block)")]
    UnknownPartition(String),
    /// A search other than `smp`, `heu` or `omg`; holds the word as given.
    #[error("unknown search {0:?} (expected smp, heu or omg)")]
    UnknownMethod(String),
    /// A QoS ratio that is not a number in (0, 1].
    #[error(
        "QoS ratio must be a number in (0, 1] (a fraction of the all-SFU version's error); got {0}"
    )]
    Ratio(f64),
    /// A λ search that could not start (its measurements fail as [`ApproxError::Gpu`]).
    #[error("{app}: {what}")]
    Search {
        /// The app's name.
        app: String,
        /// Why the search could not start.
        what: String,
    },
    /// Inputs to an element-wise catalog kernel of the wrong type or length.
    #[error("{key}: {what} holds {len} {got:?} values, the kernel takes {want_len} {want:?}")]
    EvalArgs {
        /// The catalog function's key.
        key: &'static str,
        /// Which argument: `x` or `y`.
        what: &'static str,
        /// How many values it holds.
        len: usize,
        /// Their precision.
        got: Precision,
        /// How many values `x` holds: every argument must hold as many.
        want_len: usize,
        /// The function's precision.
        want: Precision,
    },
    /// A user kernel's argument that cannot be parsed or loaded (`index` is 0-based; the
    /// message counts from 1).
    #[error("argument {} ({text:?}): {what}", index + 1)]
    Arg {
        /// Position in the argument list.
        index: usize,
        /// The argument as written.
        text: String,
        /// What is wrong with it.
        what: String,
    },
    /// A quality metric that cannot be parsed or evaluated (an external command that failed or
    /// printed no number).
    #[error("metric: {0}")]
    Metric(String),
    /// A user kernel that cannot be tuned as asked (launch shape, a written input, a bound);
    /// the message says what and the way out.
    #[error("{0}")]
    User(String),
    /// A λ-kernel check whose two ends are the same output, so it proves nothing.
    #[error("{0}: the all-SFU output equals the accurate one, so the check proves nothing")]
    VacuousCheck(String),
}

/// Why a source could not be transformed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TransformError {
    /// The source does not split into CUDA C tokens (an unterminated comment or literal); the
    /// message says where.
    #[error("{0}")]
    Lex(String),
    /// The kernel to transform is not in the source.
    #[error("no extern \"C\" __global__ kernel named {name:?} in the source (it has: {known})")]
    NoKernel {
        /// The kernel name asked for.
        name: String,
        /// The `extern "C" __global__` kernels the source has, comma-separated.
        known: String,
    },
    /// The kernel (and what it calls) has nothing an SFU could approximate; holds its name.
    #[error("kernel {0:?} calls no standard function and divides nothing: nothing to approximate")]
    NothingToApproximate(String),
    /// Source the rewrite cannot parse: an operand of `/` not found, a `__shared__`
    /// declaration without `;`.
    #[error("line {line}: {what}")]
    Syntax {
        /// 1-based line of the source.
        line: usize,
        /// What is wrong there.
        what: String,
    },
    /// A construct the λ kernels cannot keep while warps of one block run different copies.
    #[error("kernel {kernel:?} uses {what}, which has no form that warps running different bodies can share")]
    Unsupported {
        /// The kernel's name.
        kernel: String,
        /// The construct, e.g. `__syncthreads_or` or a `__shared__` declaration inside a block.
        what: String,
    },
}

/// The crate's result.
pub type Result<T, E = ApproxError> = std::result::Result<T, E>;
