//! Complex LNS (CLNS): complex values as (log2 magnitude, angle), with multiplication as two
//! integer additions and addition through S_b(Z) = log(1 + Z), read from a 2-D table by the
//! texture unit's bilinear filter (float2 texels: real and imaginary parts in one fetch).
//!
//! - [`ClnsFormat`]: a real-LNS log format plus a P-bit angle (fraction of a turn); presets
//!   [`ClnsFormat::CLNS16`] and [`ClnsFormat::CLNS32`]; values are [`Clns`].
//! - Exact: mul, div, powi, conj, neg. Rounded: from/to `num_complex`, add, sub.
//! - S_b methods ([`Method`]): f64, f32 libdevice, bilinear texture, FMA lerps from the same
//!   table, and a blend; the cancellation near Z = −1 is handled in closed form ([`sb`]).
//! - [`ClnsF32`] ([`radian`]): the seed's own representation (log2|X| and the angle in
//!   radians, both f32), for comparison, with the same S_b tables.
//! - [`certify`]: error statistics over dense grids and random inputs; [`fig45`]: the seed's
//!   Fig. 4/5; [`fft`]: radix-2 FFTs in CLNS, fixed point, f16 and bf16 vs f64.
//!
//! Source: seed 001 (Vouzis, Arnold: a GPU implementation of CLNS).

mod arith;
pub mod bench;
pub mod certify;
pub mod fft;
pub mod fig45;
mod format;
pub mod gpu;
pub mod radian;
pub mod sb;

pub use arith::angle_radians;
pub use format::{Class, Clns, ClnsFormat, ClnsFormatError, HALF_TURN};
pub use radian::ClnsF32;
pub use sb::{essential_zero_code, Geometry, Method, MethodError, Reader, Sb, SbF64, SbTable};
