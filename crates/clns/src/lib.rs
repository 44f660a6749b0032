//! Complex LNS (CLNS): complex values as (log2 magnitude, angle), with multiplication as two
//! integer additions and addition through S_b(Z) = log(1 + Z), read from a 2-D table by the
//! texture unit's bilinear filter (float2 texels: real and imaginary parts in one fetch).
//!
//! - [`ClnsFormat`]: a real-LNS log format plus a P-bit angle (fraction of a turn); presets
//!   [`ClnsFormat::CLNS16`] and [`ClnsFormat::CLNS32`]; values are [`Clns`].
//! - Exact: mul, div, powi, conj, neg. Rounded: from/to `num_complex`, add, sub.
//! - S_b methods ([`Method`]): f64, f32 libdevice, bilinear texture, FMA lerps from the same
//!   table, and a blend; the cancellation near Z = −1 is handled in closed form ([`sb`]).
//! - [`ClnsF32`] ([`radian`]): the paper's own representation (log2|X| and the angle in
//!   radians, both f32), for comparison, with the same S_b tables.
//! - [`certify`]: error statistics of S_b methods over dense grids and random inputs;
//!   [`fft`]: radix-2 FFTs in CLNS (and in fixed point, f16 and bf16 for comparison).
//! - [`gpu`]: the tables on a GPU ([`gpu::GpuClns`]): S_b, element-wise add and mul, the
//!   batched FFT, and the self-checks against the CPU twins.
//! - Errors: [`ClnsError`].
//!
//! The experiments around this crate (the paper's Table I and Fig. 4/5, the FFT comparison)
//! live in `sigpu-lab`.
//!
//! Source: Vouzis, Arnold, a GPU implementation of the complex logarithmic number system
//! (the CLNS paper).
//!
//! ```
//! use num_complex::Complex;
//! use sigpu_clns::{ClnsFormat, Method, SbF64};
//!
//! let f = ClnsFormat::CLNS16;
//! let (x, y) = (Complex::new(1.5, -0.25), Complex::new(-0.75, 2.0));
//! let (a, b) = (f.from_complex(x), f.from_complex(y));
//!
//! // A product is exact on the codes: the logs add, the angles add modulo a turn.
//! let p = f.mul(a, b);
//! assert_eq!(p.log, a.log + b.log);
//! assert_eq!(p.angle, a.angle.wrapping_add(b.angle));
//! let want = f.to_complex(a) * f.to_complex(b);
//! assert!((f.to_complex(p) - want).norm() <= 1e-12 * want.norm());
//!
//! // A sum goes through S_b, here by the f64 method (correctly rounded): within a few units
//! // of clns16's 2^-11 relative precision of the exact sum.
//! assert_eq!(Method::cpu_default(), Method::F64);
//! let s = f.add(&SbF64(f), a, b);
//! let exact = x + y;
//! assert!((f.to_complex(s) - exact).norm() < 4e-3 * exact.norm());
//! ```

#![warn(missing_docs)]

mod arith;
pub mod certify;
mod error;
pub mod fft;
mod format;
pub mod gpu;
pub mod radian;
pub mod sb;

pub use arith::angle_radians;
pub use error::{ClnsError, Result};
pub use format::{Class, Clns, ClnsFormat, ClnsFormatError, HALF_TURN};
pub use radian::ClnsF32;
pub use sb::{
    essential_zero_code, Geometry, Method, MethodError, Reader, Sb, SbF64, SbTable, TableSizeError,
};
