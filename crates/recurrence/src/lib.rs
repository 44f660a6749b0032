//! Linear recurrences and IIR filters (PLR): a signature `(a0, a-1, … : b-1, …, b-k)` becomes a
//! map plus a recurrence parallelised with k-nacci correction factors, generated as CUDA C and
//! run in a single pass at memory-copy speed, with the same algorithm on CPU cores.
//!
//! Source: seed 002 (Maleki, Burtscher, "Automatic Generation of 1D Recursive Filter Code for
//! GPUs", ASPLOS'18).
//!
//! - [`Signature`]: the seed's notation and SciPy's `lfilter(b, a)` convention.
//! - [`Filter`]: a signature compiled for one element type (f32, f64, i32, i64; integers wrap),
//!   with zi/zf state, batches of channels and the multi-core CPU path; [`lfilter`] for one
//!   call.
//! - [`Factors`]: the correction factors, with the seed's optimisations and a switch for them.
//! - [`gpu`]: the CUDA code generator and the single-pass kernel it produces.

pub mod cpu;
mod elem;
mod factors;
mod filter;
pub mod gpu;
mod poles;
pub mod serial;
mod signature;
pub mod testing;

pub use elem::{DType, Element};
pub use factors::{mat_mul, Factors, TableKind};
pub use filter::{check_finite, lfilter, Filter, FilterError, FilterOptions, Strategy};
pub use gpu::{GpuConfig, GpuFilter};
pub use poles::{max_root_magnitude, STABILITY_SLACK};
pub use signature::{Coef, ParseError, Signature};
