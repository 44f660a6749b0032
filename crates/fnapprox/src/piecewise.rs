//! Piecewise polynomials with f32 coefficients on uniform segments.

use crate::remez::{minimax_sampled, sample_points};
use crate::FitError;
use rayon::prelude::*;

/// `segments` polynomials of `degree` on uniform segments of `[lo, hi)`; on segment w,
/// f(lo + (w + s)·h) ≈ Σ c_{w,j} s^j for s ∈ [0, 1), h = (hi − lo) / segments.
#[derive(Clone, Debug, PartialEq)]
pub struct PiecewisePoly {
    pub lo: f64,
    pub hi: f64,
    pub segments: usize,
    pub degree: usize,
    /// Segment-major, ascending degree: `coeffs[w * (degree + 1) + j]`.
    pub coeffs: Vec<f32>,
    /// Largest |f − p| over a dense sampling of every segment, with the f32 coefficients
    /// evaluated exactly (approximation and coefficient rounding, not evaluation rounding).
    pub max_error: f64,
}

/// Dense samples per segment for measuring the error after rounding.
const CHECK_SAMPLES: usize = 128;

impl PiecewisePoly {
    /// Fits `f` on `[lo, hi)` with `segments` minimax polynomials of `degree` (0..=8), rounding
    /// the coefficients to f32 highest degree first and re-fitting the lower ones each time.
    pub fn fit(
        f: impl Fn(f64) -> f64 + Sync,
        lo: f64,
        hi: f64,
        segments: usize,
        degree: usize,
    ) -> Result<PiecewisePoly, FitError> {
        let (coeffs, max_error) = fit_segments(&f, lo, hi, segments, degree, fit_f32)?;
        Ok(PiecewisePoly {
            lo,
            hi,
            segments,
            degree,
            coeffs,
            max_error,
        })
    }

    /// Segment width h.
    pub fn h(&self) -> f64 {
        (self.hi - self.lo) / self.segments as f64
    }

    /// The coefficients of segment `w`, ascending degree.
    pub fn segment(&self, w: usize) -> &[f32] {
        &self.coeffs[w * (self.degree + 1)..(w + 1) * (self.degree + 1)]
    }

    /// Segment index and local variable s ∈ [0, 1) of `x` (clamped into the domain).
    pub fn locate(&self, x: f64) -> (usize, f64) {
        let u = ((x - self.lo) / self.h()).clamp(0.0, self.segments as f64);
        let w = (u.floor() as usize).min(self.segments - 1);
        (w, u - w as f64)
    }

    /// p(x) with the f32 coefficients evaluated in f64: the approximation alone.
    pub fn eval(&self, x: f64) -> f64 {
        let (w, s) = self.locate(x);
        horner_f32_exact(self.segment(w), s)
    }

    /// Segment `w` at `s` by f32 Horner with fused multiply-adds, exactly as the GPU's
    /// `fmaf` chain computes it.
    pub fn eval_horner_f32(&self, w: usize, s: f32) -> f32 {
        self.segment(w)
            .iter()
            .rev()
            .fold(0.0f32, |acc, &c| acc.mul_add(s, c))
    }
}

fn horner_f32_exact(c: &[f32], s: f64) -> f64 {
    c.iter().rev().fold(0.0, |acc, &c| acc * s + c as f64)
}

/// Fits every segment with `fit_one` (in parallel) and measures the largest error of the
/// result over a dense sampling; returns the coefficients, segment-major.
fn fit_segments<C: Copy + Into<f64> + Send>(
    f: &(dyn Fn(f64) -> f64 + Sync),
    lo: f64,
    hi: f64,
    segments: usize,
    degree: usize,
    fit_one: fn(&dyn Fn(f64) -> f64, usize) -> Vec<C>,
) -> Result<(Vec<C>, f64), FitError> {
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
            let c = fit_one(&local, degree);
            let err = (0..=CHECK_SAMPLES)
                .map(|i| i as f64 / CHECK_SAMPLES as f64)
                .map(|s| (local(s) - c.iter().rev().fold(0.0, |acc, &c| acc * s + c.into())).abs())
                .fold(0.0, f64::max);
            (c, err)
        })
        .collect();
    let max_error = fitted.iter().map(|(_, e)| *e).fold(0.0, f64::max);
    Ok((fitted.into_iter().flat_map(|(c, _)| c).collect(), max_error))
}

/// As [`PiecewisePoly`] with f64 coefficients (the plain minimax fit, nothing rounded): for
/// CPU evaluators in f64, where f32 would leave too little precision.
#[derive(Clone, Debug, PartialEq)]
pub struct PiecewisePoly64 {
    pub lo: f64,
    pub hi: f64,
    pub segments: usize,
    pub degree: usize,
    /// Segment-major, ascending degree: `coeffs[w * (degree + 1) + j]`.
    pub coeffs: Vec<f64>,
    /// Largest |f − p| over a dense sampling of every segment.
    pub max_error: f64,
}

impl PiecewisePoly64 {
    pub fn fit(
        f: impl Fn(f64) -> f64 + Sync,
        lo: f64,
        hi: f64,
        segments: usize,
        degree: usize,
    ) -> Result<PiecewisePoly64, FitError> {
        let fit_one = |g: &dyn Fn(f64) -> f64, d: usize| crate::remez::minimax(g, d).coeffs;
        let (coeffs, max_error) = fit_segments(&f, lo, hi, segments, degree, fit_one)?;
        Ok(PiecewisePoly64 {
            lo,
            hi,
            segments,
            degree,
            coeffs,
            max_error,
        })
    }

    /// Segment `w` at local variable `s` ∈ [0, 1], Horner with fused multiply-adds.
    pub fn eval_segment(&self, w: usize, s: f64) -> f64 {
        let c = &self.coeffs[w * (self.degree + 1)..(w + 1) * (self.degree + 1)];
        c.iter().rev().fold(0.0, |acc, &c| acc.mul_add(s, c))
    }
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

    fn sb(z: f64) -> f64 {
        (1.0 + z.exp2()).log2()
    }

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
