//! Piecewise polynomials on uniform segments, with f32 or f64 coefficients.

use crate::remez::{minimax, minimax_sampled, sample_points};
use crate::FitError;
use rayon::prelude::*;

/// `segments` polynomials of `degree` on uniform segments of `[lo, hi)`; on segment w,
/// f(lo + (w + s)·h) ≈ Σ c_{w,j} s^j for s ∈ [0, 1), h = (hi − lo) / segments. The
/// coefficient type `C` says how each segment is fitted ([`Coefficient`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Piecewise<C> {
    /// Start of the domain; segment 0 begins here.
    pub lo: f64,
    /// End of the domain (excluded).
    pub hi: f64,
    /// Number of uniform segments (≥ 1).
    pub segments: usize,
    /// Degree of every segment's polynomial (≤ 8): `degree + 1` coefficients per segment.
    pub degree: usize,
    /// Segment-major, ascending degree: `coeffs[w * (degree + 1) + j]`.
    pub coeffs: Vec<C>,
    /// Largest |f − p| over a dense sampling of every segment, with the coefficients evaluated
    /// exactly (approximation and coefficient rounding, not evaluation rounding).
    pub max_error: f64,
}

/// f32 coefficients: each segment's minimax fit is rounded to f32 highest degree first,
/// re-fitting the lower ones each time (the GPU tables' coefficients).
pub type PiecewisePoly = Piecewise<f32>;

/// f64 coefficients (the plain minimax fit, nothing rounded): for CPU evaluators in f64,
/// where f32 would leave too little precision.
pub type PiecewisePoly64 = Piecewise<f64>;

/// A coefficient type of [`Piecewise`], and how one segment is fitted in it.
pub trait Coefficient: Copy + Into<f64> + Send + Sync {
    /// The coefficients (ascending degree) of a fit of `f` on [0, 1] of `degree`.
    fn fit_segment(f: &dyn Fn(f64) -> f64, degree: usize) -> Vec<Self>;
}

impl Coefficient for f32 {
    fn fit_segment(f: &dyn Fn(f64) -> f64, degree: usize) -> Vec<f32> {
        fit_f32(f, degree)
    }
}

impl Coefficient for f64 {
    fn fit_segment(f: &dyn Fn(f64) -> f64, degree: usize) -> Vec<f64> {
        minimax(f, degree).coeffs
    }
}

/// Dense samples per segment for measuring the error after rounding.
const CHECK_SAMPLES: usize = 128;

impl<C: Coefficient> Piecewise<C> {
    /// Fits `f` on `[lo, hi)` with `segments` polynomials of `degree` (0..=8), each fitted by
    /// [`Coefficient::fit_segment`] (in parallel), and measures the largest error of the
    /// result over a dense sampling.
    pub fn fit(
        f: impl Fn(f64) -> f64 + Sync,
        lo: f64,
        hi: f64,
        segments: usize,
        degree: usize,
    ) -> Result<Piecewise<C>, FitError> {
        if !(lo.is_finite() && hi.is_finite() && lo < hi) {
            return Err(FitError::Invalid(format!(
                "domain [{lo}, {hi}) is empty or not finite"
            )));
        }
        if segments == 0 || degree > 8 {
            return Err(FitError::Invalid(format!(
                "need at least 1 segment and degree ≤ 8 (got {segments} segments, degree {degree})"
            )));
        }
        let h = (hi - lo) / segments as f64;
        let fitted: Vec<(Vec<C>, f64)> = (0..segments)
            .into_par_iter()
            .map(|w| {
                let local = |s: f64| f(lo + (w as f64 + s) * h);
                let c = C::fit_segment(&local, degree);
                let err = (0..=CHECK_SAMPLES)
                    .map(|i| i as f64 / CHECK_SAMPLES as f64)
                    .map(|s| (local(s) - horner_exact(&c, s)).abs())
                    .fold(0.0, f64::max);
                (c, err)
            })
            .collect();
        let max_error = fitted.iter().map(|(_, e)| *e).fold(0.0, f64::max);
        Ok(Piecewise {
            lo,
            hi,
            segments,
            degree,
            coeffs: fitted.into_iter().flat_map(|(c, _)| c).collect(),
            max_error,
        })
    }

    /// Segment width h.
    pub fn h(&self) -> f64 {
        (self.hi - self.lo) / self.segments as f64
    }

    /// The coefficients of segment `w`, ascending degree.
    pub fn segment(&self, w: usize) -> &[C] {
        &self.coeffs[w * (self.degree + 1)..(w + 1) * (self.degree + 1)]
    }

    /// Segment index and local variable s ∈ [0, 1) of `x` (clamped into the domain).
    pub fn locate(&self, x: f64) -> (usize, f64) {
        let u = ((x - self.lo) / self.h()).clamp(0.0, self.segments as f64);
        let w = (u.floor() as usize).min(self.segments - 1);
        (w, u - w as f64)
    }

    /// p(x) with the coefficients evaluated in f64: the approximation alone.
    pub fn eval(&self, x: f64) -> f64 {
        let (w, s) = self.locate(x);
        horner_exact(self.segment(w), s)
    }
}

impl Piecewise<f32> {
    /// Segment `w` at `s` by f32 Horner with fused multiply-adds, exactly as the GPU's
    /// `fmaf` chain computes it.
    pub fn eval_horner_f32(&self, w: usize, s: f32) -> f32 {
        self.segment(w)
            .iter()
            .rev()
            .fold(0.0f32, |acc, &c| acc.mul_add(s, c))
    }
}

impl Piecewise<f64> {
    /// Segment `w` at local variable `s` ∈ [0, 1], Horner with fused multiply-adds.
    pub fn eval_segment(&self, w: usize, s: f64) -> f64 {
        self.segment(w)
            .iter()
            .rev()
            .fold(0.0, |acc, &c| acc.mul_add(s, c))
    }
}

/// Σ c_j s^j by Horner in f64 without fused multiply-adds.
fn horner_exact<C: Coefficient>(c: &[C], s: f64) -> f64 {
    c.iter().rev().fold(0.0, |acc, &c| acc * s + c.into())
}

/// Minimax fit of `f` on [0, 1] with f32 coefficients: round c_d, re-fit degree d − 1 to what
/// remains, and so on down to c_0. `f` is sampled once; the re-fits work on the residuals.
fn fit_f32(f: &dyn Fn(f64) -> f64, degree: usize) -> Vec<f32> {
    let xs = sample_points(degree);
    let mut residual: Vec<f64> = xs.iter().map(|&s| f(s)).collect();
    let mut fixed = vec![0.0f32; degree + 1];
    for j in (0..=degree).rev() {
        let m = minimax_sampled(&xs, &residual, j);
        fixed[j] = m.coeffs[j] as f32;
        for (r, &s) in residual.iter_mut().zip(&xs) {
            *r -= fixed[j] as f64 * s.powi(j as i32);
        }
    }
    fixed
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_sb as sb;

    #[test]
    fn sb_degree2_64_segments_per_unit_is_accurate() {
        // s_b on [-1, 0) with 64 segments: h = 1/64, error ≈ h³·|s_b'''|/(4·2·... ) ≪ 2^-23.
        let p = PiecewisePoly::fit(sb, -1.0, 0.0, 64, 2).unwrap();
        assert!(p.max_error < 2f64.powi(-24), "{}", p.max_error);
        let x = -0.3;
        assert!((p.eval(x) - sb(x)).abs() <= p.max_error * 1.001);
        let (w, s) = p.locate(x);
        assert!((p.eval_horner_f32(w, s as f32) as f64 - sb(x)).abs() < 2e-7);
    }

    #[test]
    fn error_falls_with_degree_and_segments() {
        let e = |k, d| PiecewisePoly::fit(sb, -8.0, 0.0, k, d).unwrap().max_error;
        assert!(e(16, 3) < e(16, 2) && e(16, 2) < e(16, 1));
        assert!(
            e(32, 2) < e(16, 2) / 4.0,
            "degree 2 error should fall like h^3"
        );
    }

    #[test]
    fn rejects_bad_parameters() {
        assert!(PiecewisePoly::fit(sb, 0.0, 0.0, 4, 2).is_err());
        assert!(PiecewisePoly::fit(sb, 0.0, f64::NAN, 4, 2).is_err());
        assert!(PiecewisePoly::fit(sb, -1.0, 0.0, 0, 2).is_err());
        assert!(PiecewisePoly::fit(sb, -1.0, 0.0, 4, 9).is_err());
    }

    #[test]
    fn locate_clamps_to_the_domain() {
        let p = PiecewisePoly::fit(sb, -4.0, 0.0, 4, 1).unwrap();
        assert_eq!(p.locate(-10.0), (0, 0.0));
        assert_eq!(p.locate(0.0), (3, 1.0));
        assert_eq!(p.locate(-2.5), (1, 0.5));
    }
}
