//! Real logarithmic number system (LNS): numbers as sign + fixed-point log2|x|, with addition
//! and subtraction through s_b(z) = log2(1 + 2^z) and d_b(z) = log2|1 − 2^z| evaluated by
//! several GPU units (SFU, FMA polynomials, texture filtering) and certified exhaustively.
//!
//! - [`Format`]: any (I, F) that fits 32 bits, with presets [`Format::LNS16`] and
//!   [`Format::LNS32`]; words are `u32` (the low 1 + I + F bits).
//! - Conversions: [`Format::from_f64`] (correctly rounded in the log domain), [`Format::to_f64`].
//! - Exact operations: mul, div, recip, sqrt, powi, neg, abs, compare.
//! - Sums: [`Format::add`] / [`Format::sub`] through an [`AddSub`] method; [`Accurate`] (f64)
//!   is the reference, [`Method`] names every method ([`Method::cpu`] builds its CPU
//!   evaluator: [`F64Poly`] and [`F64Tables`] are the fast ones, vectorised with AVX2 /
//!   AVX-512 where the CPU has them).
//! - Slices and fused reductions: [`Format::add_slices`], [`Format::sum`], [`Format::dot`].
//! - Certificates: [`certify`] a method's s_b or d_b at every input of a format.
//! - On a GPU ([`gpu`]): [`gpu::GpuMethod`] (s_b, d_b, element-wise add/sub and their
//!   certificates by any method), [`gpu::mul`] / [`gpu::div`], [`gpu::fused`] sum and dot,
//!   and the self-checks [`gpu::checks`].
//! - [`hmm`]: the HMM forward algorithm in LNS, on the CPU and a GPU.
//! - [`calc`]: a calculator over LNS words, one `a op b` per line of text.
//!
//! Errors are [`LnsError`]. Source: texture-LNS (Arnold, Collange & Defour, ICASSP 2010).
//!
//! ```
//! use sigpu_lns::{Accurate, Format};
//!
//! let f = Format::LNS32;
//! let (a, b) = (f.from_f64(3.0), f.from_f64(-0.5));
//! // The sum goes through d_b (the signs differ), evaluated in f64 and rounded once.
//! let sum = f.add(&Accurate(f), a, b);
//! assert!((f.to_f64(sum) - 2.5).abs() < 2.5 * 1e-6);
//! // Products are exact: the log codes add.
//! assert_eq!(f.to_f64(f.mul(a, f.from_f64(2.0))), f.to_f64(a) * 2.0);
//! ```

#![warn(missing_docs)]

mod arith;
mod array;
pub mod axis;
pub mod calc;
mod certify;
mod error;
mod f32split;
mod fast;
mod format;
pub mod gpu;
pub mod hmm;
mod method;
mod poly;
mod tables;
mod value;

pub use arith::{db_f64, sb_f64, Accurate, AddSub};
pub use certify::{
    certify, certify_part, certify_results, part_of_results, Certificate, Part, Which,
};
pub use error::LengthError;
pub use error::LnsError;
pub use f32split::F32Split;
pub use fast::F64Tables;
pub use format::{by_name, Format, FormatError};
pub use method::{Method, MethodError};
pub use poly::F64Poly;
pub use tables::{Func, Geometry, Local, Reader, Site, Tables};
pub use value::Class;
