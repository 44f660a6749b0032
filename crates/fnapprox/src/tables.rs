//! Tables that GPU methods read, and CPU evaluators that reproduce the GPU's result.
//!
//! The texture evaluators use the filter model measured on the H100
//! ([`sigpu_runtime::cuda::WeightRounding::Hardware`]): axis weights rounded to 1/256 and, in
//! 2-D, the corner weight α·β rounded to 1/256 again. For the order-2 trick that means the
//! texture returns a0 + a1·γ_q + a2·q(γ_q²), not a0 + a1·γ + a2·γ².

use crate::{FitError, PiecewisePoly};
use sigpu_runtime::cuda::{
    emulate_linear_filter_1d, emulate_linear_filter_2d, Coordinates, Texel, WeightRounding,
};

/// Texels of a 1-D linear-filtered texture approximating `f` on `[lo, hi]` with `n` texels
/// (n − 1 intervals). Texel i sits at x_i = lo + i·h and holds f(x_i) minus half the local
/// chord error h²·f''(x_i)/8, which centres the interpolation error of a convex or concave f.
pub fn order1_texels(
    f: impl Fn(f64) -> f64,
    lo: f64,
    hi: f64,
    n: usize,
) -> Result<Vec<f32>, FitError> {
    if n < 2 || lo.partial_cmp(&hi) != Some(std::cmp::Ordering::Less) {
        return Err(FitError::Invalid(format!(
            "order-1 table needs n ≥ 2 texels on a non-empty domain (n = {n})"
        )));
    }
    let h = (hi - lo) / (n - 1) as f64;
    let x = |i: usize| lo + i as f64 * h;
    Ok((0..n)
        .map(|i| {
            // Second difference centred inside [lo, hi] (one-sided at the ends): f may not
            // exist outside its domain.
            let c = i.clamp(1, n.saturating_sub(2).max(1));
            let curvature = if n >= 3 {
                (f(x(c + 1)) - 2.0 * f(x(c)) + f(x(c - 1))) / (h * h)
            } else {
                0.0
            };
            (f(x(i)) - h * h * curvature / 16.0) as f32
        })
        .collect())
}

/// The unnormalised texture coordinate at which an order-1 table of `n` texels on `[lo, hi]`
/// is read for `x`: texel i's centre is at i + 0.5.
pub fn order1_coordinate(lo: f64, hi: f64, n: usize, x: f64) -> f32 {
    ((x - lo) / (hi - lo) * (n - 1) as f64 + 0.5) as f32
}

/// CPU twin of an order-1 texture read.
pub fn order1_eval(texels: &[f32], lo: f64, hi: f64, x: f64) -> f32 {
    let u = order1_coordinate(lo, hi, texels.len(), x);
    emulate_linear_filter_1d(
        texels,
        Coordinates::Unnormalized,
        u,
        WeightRounding::Hardware,
    )
}

/// The 2k × 2 texture (row-major, width 2k) whose bilinear filter evaluates the degree-2
/// polynomials of `p` (the texture-LNS paper, eq. 3–4): for segment w with coefficients (a0, a1, a2),
/// T[2w, 0] = a0, T[2w+1, 0] + T[2w, 1] = 2·a0 + a1, T[2w+1, 1] = a0 + a1 + a2.
pub fn order2_texels(p: &PiecewisePoly) -> Result<Vec<f32>, FitError> {
    order2_texels_packed::<f32>(&[p])
}

/// As [`order2_texels`] for up to four fits on the same segments, one per channel of a
/// float2/float4 texel: one fetch evaluates them all.
pub fn order2_texels_packed<T: Texel>(fits: &[&PiecewisePoly]) -> Result<Vec<T>, FitError> {
    if fits.len() != T::CHANNELS as usize {
        return Err(FitError::Invalid(format!(
            "{} fits for {}-channel texels",
            fits.len(),
            T::CHANNELS
        )));
    }
    let k = fits[0].segments;
    if fits.iter().any(|p| p.degree != 2 || p.segments != k) {
        return Err(FitError::Invalid(
            "order-2 tables need degree-2 fits on the same segments".into(),
        ));
    }
    let corner = |w: usize| -> [[f32; 4]; 4] {
        let mut c = [[0.0f32; 4]; 4]; // [tap][channel]: (2w,0), (2w+1,0), (2w,1), (2w+1,1)
        for (ch, p) in fits.iter().enumerate() {
            let a = p.segment(w);
            let (a0, a1, a2) = (a[0] as f64, a[1] as f64, a[2] as f64);
            let mid = (a0 + 0.5 * a1) as f32;
            c[0][ch] = a[0];
            c[1][ch] = mid;
            // The two middle taps share one weight: put the rounding of the first into the second.
            c[2][ch] = (2.0 * a0 + a1 - mid as f64) as f32;
            c[3][ch] = (a0 + a1 + a2) as f32;
        }
        c
    };
    let corners: Vec<[[f32; 4]; 4]> = (0..k).map(corner).collect();
    let texel = |tap: usize, w: usize| T::from_channels(&corners[w][tap][..T::CHANNELS as usize]);
    let row0 = (0..k).flat_map(|w| [texel(0, w), texel(1, w)]);
    let row1 = (0..k).flat_map(|w| [texel(2, w), texel(3, w)]);
    Ok(row0.chain(row1).collect())
}

/// The texture coordinates (u, v) that read segment `w` at local variable `s` ∈ [0, 1) from an
/// order-2 table: (2w + s + 0.5, s + 0.5). On the GPU, s + 0.5 is one FMA from the integer
/// offset within the segment, with the 0.5 bias as its addend: the bias costs no instruction.
pub fn order2_coordinates(w: usize, s: f32) -> (f32, f32) {
    let v = s + 0.5;
    (2.0 * w as f32 + v, v)
}

/// CPU twin of an order-2 texture read of segment `w` at `s`.
pub fn order2_eval<T: Texel>(texels: &[T], segments: usize, w: usize, s: f32) -> T {
    emulate_linear_filter_2d(
        texels,
        2 * segments,
        2,
        Coordinates::Unnormalized,
        order2_coordinates(w, s),
        WeightRounding::Hardware,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_sb as sb;

    #[test]
    fn order2_texture_evaluates_the_polynomial_on_the_256_grid() {
        let p = PiecewisePoly::fit(sb, -4.0, 0.0, 64, 2).unwrap();
        let t = order2_texels(&p).unwrap();
        assert_eq!(t.len(), 4 * 64);
        let mut worst = 0.0f64;
        for w in [0, 17, 63] {
            for i in 0..256 {
                let s = i as f32 / 256.0;
                let a = p.segment(w);
                // What the H100 computes: a0 + a1·s + a2·q(s²), q rounding to 1/256 ties up.
                let q = ((s as f64 * s as f64) * 256.0 + 0.5).floor() / 256.0;
                let want = a[0] as f64 + a[1] as f64 * s as f64 + a[2] as f64 * q;
                worst = worst.max((order2_eval(&t, 64, w, s) as f64 - want).abs());
            }
        }
        assert!(worst < 3e-7, "{worst}");
    }

    #[test]
    fn packed_channels_match_single_tables() {
        let sb_fit = PiecewisePoly::fit(sb, -4.0, 0.0, 16, 2).unwrap();
        let exp_fit = PiecewisePoly::fit(f64::exp2, -4.0, 0.0, 16, 2).unwrap();
        let packed: Vec<[f32; 2]> = order2_texels_packed(&[&sb_fit, &exp_fit]).unwrap();
        let single = order2_texels(&exp_fit).unwrap();
        assert!(packed.iter().zip(&single).all(|(p, s)| p[1] == *s));
        let v = order2_eval(&packed, 16, 5, 0.375);
        assert_eq!(v[1], order2_eval(&single, 16, 5, 0.375));
        assert!(order2_texels_packed::<[f32; 4]>(&[&sb_fit, &exp_fit]).is_err());
        let linear = PiecewisePoly::fit(sb, -4.0, 0.0, 16, 1).unwrap();
        assert!(order2_texels(&linear).is_err());
    }

    #[test]
    fn order1_error_is_centred_and_small() {
        let n = 1025;
        let t = order1_texels(sb, -8.0, 0.0, n).unwrap();
        let h = 8.0 / (n - 1) as f64;
        let mut worst = 0.0f64;
        // On the 1/256-of-a-texel grid the filter weight is exact: the error is the table's own.
        for i in 0..(n - 1) * 256 {
            let x = -8.0 + i as f64 * h / 256.0;
            worst = worst.max((order1_eval(&t, -8.0, 0.0, x) as f64 - sb(x)).abs());
        }
        // Chord error of s_b (|s_b''| ≤ ln2/4) is h²·ln2/32; centring halves it.
        let chord = h * h * std::f64::consts::LN_2 / 4.0 / 8.0;
        assert!(worst < 0.75 * chord, "{worst} vs chord {chord}");
    }
}
