//! 2-D tables of a two-output function on a uniform grid, read by the texture unit's bilinear
//! filter (float2 texels: both outputs in one fetch) or interpolated in software with FMAs.
//!
//! A [`Grid2`] samples f(x, y) at x_i = x0 + i·hx (i < nx) and y_j = y0 + j·hy (j < ny); texel
//! (i, j) is `texels[j * nx + i]`. Readers take the position in cells, u = (x − x0)/hx and
//! v = (y − y0)/hy, computed by the caller in f32 exactly as its GPU kernel does, so the CPU
//! twins below see the same coordinates as the device:
//!
//! - [`Grid2::eval_texture`]: the H100's bilinear filter (axis weights rounded to 1/256, the
//!   corner weight re-rounded; `docs/texture-filtering.md`), read at (u + 0.5, v + 0.5);
//! - [`Grid2::eval_fma`]: three f32 FMA lerps with full-precision weights, bit for bit what the
//!   kernel's `fmaf` chain computes.

use crate::FitError;
use rayon::prelude::*;
use sigpu_runtime::cuda::{emulate_linear_filter_2d, Coordinates, WeightRounding};

/// A uniform nx × ny grid of float2 samples.
#[derive(Clone, Debug, PartialEq)]
pub struct Grid2 {
    /// Samples along x (≥ 2).
    pub nx: usize,
    /// Samples along y (≥ 2).
    pub ny: usize,
    /// x of the first column of samples.
    pub x0: f64,
    /// Spacing of the columns in x: (x1 − x0) / (nx − 1).
    pub hx: f64,
    /// y of the first row of samples.
    pub y0: f64,
    /// Spacing of the rows in y: (y1 − y0) / (ny − 1).
    pub hy: f64,
    /// Row-major (x fastest), as [`sigpu_runtime::cuda::Texture::new_2d`] takes them.
    pub texels: Vec<[f32; 2]>,
}

impl Grid2 {
    /// Samples `f` on nx × ny points spanning [x0, x1] × [y0, y1] (both ends included).
    /// A non-finite sample (a singular corner) is replaced by `f` a quarter cell inwards, so a
    /// read never meets NaN or ∞; callers route inputs near such a point elsewhere.
    pub fn sample(
        f: impl Fn(f64, f64) -> [f64; 2] + Sync,
        (x0, x1): (f64, f64),
        (y0, y1): (f64, f64),
        nx: usize,
        ny: usize,
    ) -> Result<Grid2, FitError> {
        let ok = |a: f64, b: f64| a.is_finite() && b.is_finite() && a < b;
        if nx < 2 || ny < 2 || !ok(x0, x1) || !ok(y0, y1) {
            return Err(FitError::Invalid(format!(
                "2-D table needs ≥ 2 × 2 points on a non-empty finite domain \
                 (got {nx} × {ny} on [{x0}, {x1}] × [{y0}, {y1}])"
            )));
        }
        let points = nx.checked_mul(ny).ok_or_else(|| {
            FitError::Invalid(format!("2-D table of {nx} × {ny} points: too many"))
        })?;
        let (hx, hy) = ((x1 - x0) / (nx - 1) as f64, (y1 - y0) / (ny - 1) as f64);
        let texels = (0..points)
            .into_par_iter()
            .map(|k| {
                let (i, j) = (k % nx, k / nx);
                let (x, y) = (x0 + i as f64 * hx, y0 + j as f64 * hy);
                let finite = |v: [f64; 2]| v[0].is_finite() && v[1].is_finite();
                let mut v = f(x, y);
                if !finite(v) {
                    let inward =
                        |p: f64, lo: f64, h: f64| if p > lo { p - h / 4.0 } else { p + h / 4.0 };
                    v = f(inward(x, x0, hx), inward(y, y0, hy));
                }
                // f32 overflow is as bad as a singular sample: a read would meet ∞.
                let t = [v[0] as f32, v[1] as f32];
                if finite(v) && t[0].is_finite() && t[1].is_finite() {
                    Ok(t)
                } else {
                    Err(FitError::Invalid(format!(
                        "2-D table: f is not finite at ({x}, {y}) nor a quarter cell inwards"
                    )))
                }
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Grid2 {
            nx,
            ny,
            x0,
            hx,
            y0,
            hy,
            texels,
        })
    }

    /// Bytes of the table as float2 texels.
    pub fn bytes(&self) -> usize {
        self.texels.len() * 8
    }

    /// CPU twin of `tex2D<float2>(tex, u + 0.5f, v + 0.5f)` (the kernel adds the 0.5 with the
    /// FMA that scales its coordinate, so `u_plus_half` is passed as computed there).
    pub fn eval_texture(&self, u_plus_half: f32, v_plus_half: f32) -> [f32; 2] {
        emulate_linear_filter_2d(
            &self.texels,
            self.nx,
            self.ny,
            Coordinates::Unnormalized,
            (u_plus_half, v_plus_half),
            WeightRounding::Hardware,
        )
    }

    /// Bilinear interpolation at cell position (u, v) with f32 FMAs, clamped to the grid:
    /// i = min(⌊u⌋, nx − 2), a = u − i (exact), and per channel
    /// lo = fma(a, t10 − t00, t00), hi = fma(a, t11 − t01, t01), result = fma(b, hi − lo, lo).
    pub fn eval_fma(&self, u: f32, v: f32) -> [f32; 2] {
        let cell = |p: f32, n: usize| -> (usize, f32) {
            // max then min, as the kernel's fmaxf / fminf: a NaN position reads cell 0 there.
            let p = p.max(0.0).min((n - 1) as f32);
            let i = (p as usize).min(n - 2);
            (i, p - i as f32)
        };
        let (i, a) = cell(u, self.nx);
        let (j, b) = cell(v, self.ny);
        let t = |di: usize, dj: usize| self.texels[(j + dj) * self.nx + i + di];
        let (t00, t10, t01, t11) = (t(0, 0), t(1, 0), t(0, 1), t(1, 1));
        let mut out = [0.0f32; 2];
        for c in 0..2 {
            let lo = a.mul_add(t10[c] - t00[c], t00[c]);
            let hi = a.mul_add(t11[c] - t01[c], t01[c]);
            out[c] = b.mul_add(hi - lo, lo);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plane(x: f64, y: f64) -> [f64; 2] {
        [0.25 + 0.5 * x - 0.125 * y, x * y]
    }

    #[test]
    fn readers_reproduce_bilinear_functions() {
        let g = Grid2::sample(plane, (0.0, 3.0), (-1.0, 1.0), 7, 5).unwrap();
        assert_eq!(g.texels.len(), 35);
        // On the 1/256 grid of positions the filter weights are exact, and x·y is bilinear.
        for (u, v) in [(0.0f32, 0.0f32), (1.5, 2.25), (5.5, 3.0), (2.125, 0.5)] {
            let (x, y) = (u as f64 * g.hx, -1.0 + v as f64 * g.hy);
            let want = plane(x, y);
            for got in [g.eval_fma(u, v), g.eval_texture(u + 0.5, v + 0.5)] {
                assert!(
                    (got[0] as f64 - want[0]).abs() < 1e-6,
                    "{got:?} vs {want:?}"
                );
                assert!(
                    (got[1] as f64 - want[1]).abs() < 1e-6,
                    "{got:?} vs {want:?}"
                );
            }
        }
        // Clamped outside the grid.
        assert_eq!(g.eval_fma(-3.0, 100.0), g.texels[4 * 7]);
        assert_eq!(g.eval_fma(f32::NAN, 0.0), g.texels[0]);
    }

    #[test]
    fn singular_samples_are_replaced_and_bad_grids_refused() {
        let f = |x: f64, y: f64| [(x + y).ln(), 0.0];
        let g = Grid2::sample(f, (0.0, 1.0), (0.0, 1.0), 3, 3).unwrap();
        assert!(g.texels.iter().all(|t| t[0].is_finite()));
        assert!(Grid2::sample(plane, (0.0, 1.0), (0.0, 1.0), 1, 3).is_err());
        assert!(Grid2::sample(plane, (1.0, 1.0), (0.0, 1.0), 3, 3).is_err());
        assert!(Grid2::sample(plane, (0.0, f64::NAN), (0.0, 1.0), 3, 3).is_err());
        // Singular along a whole line: no finite replacement, so an error rather than NaN.
        let g = |x: f64, _y: f64| [if (x - 0.5).abs() < 0.3 { f64::NAN } else { x }, 0.0];
        assert!(Grid2::sample(g, (0.0, 1.0), (0.0, 1.0), 3, 3).is_err());
        // Finite in f64 but not in f32.
        assert!(Grid2::sample(|_, _| [1e300, 0.0], (0.0, 1.0), (0.0, 1.0), 2, 2).is_err());
        assert!(Grid2::sample(plane, (0.0, 1.0), (0.0, 1.0), usize::MAX, 2).is_err());
    }
}
