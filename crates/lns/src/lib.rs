//! Real logarithmic number system (LNS): numbers as sign + fixed-point log2|x|, with addition
//! and subtraction through s_b(z) = log2(1 + 2^z) and d_b(z) = log2|1 − 2^z| evaluated by
//! several GPU units (SFU, FMA polynomials, texture filtering) and certified exhaustively.
//!
//! - [`Format`]: any (I, F) that fits 32 bits, with presets [`Format::LNS16`] and
//!   [`Format::LNS32`]; words are `u32` (the low 1 + I + F bits).
//! - Conversions: [`Format::from_f64`] (correctly rounded in the log domain), [`Format::to_f64`].
//! - Exact operations: mul, div, recip, sqrt, powi, neg, abs, compare.
//! - Sums: [`Format::add`] / [`Format::sub`] through an [`AddSub`] method; [`Accurate`] (f64)
//!   is the reference.
//!
//! Source: seed 000 (Arnold, Collange, Defour, ICASSP 2010).

mod arith;
mod array;
pub mod bench;
mod certify;
mod fast;
pub mod fig3;
pub mod fig3_gpu;
mod format;
pub mod gpu;
pub mod gpu_fused;
pub mod hmm;
mod method;
mod poly;
mod tables;
mod value;

pub use arith::{db_f64, sb_f64, Accurate, AddSub};
pub use array::LengthError;
pub use certify::{certify, certify_results, Certificate, Which};
pub use fast::F64Tables;
pub use format::{Format, FormatError};
pub use method::{Method, MethodError};
pub use poly::F64Poly;
pub use tables::{Func, Geometry, Local, Reader, Site, Tables};
pub use value::Class;
