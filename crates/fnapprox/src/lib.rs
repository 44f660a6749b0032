//! The function-approximation engine shared by sigpu's arithmetic crates.
//!
//! [`PiecewisePoly::fit`] approximates any `f64` closure on `[lo, hi)` by `k` polynomials of
//! degree `d`, each a minimax (Remez) fit whose coefficients are then rounded to f32 one at a
//! time, highest degree first, re-fitting the lower ones after each rounding; the error reported
//! is measured after rounding. From a fit, [`tables`] emits what each GPU method reads:
//!
//! - FMA Horner: the coefficient table itself ([`PiecewisePoly::coeffs`]);
//! - order 1: a 1-D texture read with linear filtering ([`tables::order1_texels`]);
//! - order 2: the 2k × 2 texture whose bilinear filtering evaluates a degree-2 polynomial
//!   (Arnold, Collange, Defour, ICASSP 2010, eq. 3–4; [`tables::order2_texels`]), also packed
//!   for up to four functions per float2/float4 texel, one fetch for all.
//!
//! - 2-D: a uniform grid of float2 samples of a two-output function, read by the bilinear
//!   filter or by FMA lerps ([`Grid2`]; the complex-LNS S_b table).
//!
//! Each table has a CPU evaluator that reproduces the GPU bit for bit where the hardware is
//! modelled exactly (FMA Horner in f32; the texture filter as measured on the H100), so the
//! error of a method is certified on the CPU and confirmed on the GPU.
//!
//! ```
//! use sigpu_fnapprox::PiecewisePoly;
//!
//! // log2(1 + x) on [0, 1) by 16 quadratics with f32 coefficients.
//! let fit = PiecewisePoly::fit(|x: f64| x.ln_1p() / std::f64::consts::LN_2, 0.0, 1.0, 16, 2)?;
//! assert_eq!(fit.coeffs.len(), 16 * 3);
//! // The error after rounding the coefficients, measured densely, is what the method gets.
//! assert!(fit.max_error < 1e-5, "{}", fit.max_error);
//! assert!((fit.eval(0.5) - 1.5f64.log2()).abs() <= fit.max_error + 1e-7);
//! # Ok::<(), sigpu_fnapprox::FitError>(())
//! ```

#![warn(missing_docs)]

pub mod grid2;
mod linalg;
mod piecewise;
mod remez;
pub mod tables;

pub use grid2::Grid2;
pub use piecewise::{Coefficient, Piecewise, PiecewisePoly, PiecewisePoly64};
pub use remez::{minimax, Minimax};

/// s_b(z) = log2(1 + 2^z), the function the tests fit.
#[cfg(test)]
fn test_sb(z: f64) -> f64 {
    (1.0 + z.exp2()).log2()
}

/// Why a fit or table cannot be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FitError {
    /// A parameter out of range or a function that cannot be tabulated (too few points or
    /// segments, an empty or non-finite domain, a non-finite sample); the message says which.
    #[error("invalid fit parameter: {0}")]
    Invalid(String),
}
