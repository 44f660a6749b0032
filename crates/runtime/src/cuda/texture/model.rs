//! The texture unit's filtering, modelled on the CPU: the twins of every texture-based method.
//! Linear filtering rounds its weights as the hardware does (measured on an H100), so a
//! method's error can be certified on the CPU and confirmed on the GPU.

use super::{Coordinates, Texel};

/// How the texture unit's interpolation weights are formed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WeightRounding {
    /// Weights in full precision: ideal interpolation, what the hardware does *not* do.
    Exact,
    /// The filtering hardware as measured on an H100 (sm_90): each axis weight is rounded to
    /// the nearest 1/256, ties up (the Programming Guide's "9-bit fixed point with 8 bits of
    /// fractional value"), and in 2-D the corner product α·β is rounded to 1/256 again; the
    /// four bilinear weights are then α·β, α − α·β, β − α·β and 1 − α − β + α·β.
    Hardware,
}

/// Rounds to the nearest multiple of 1/256, ties up, as the filter does.
fn to_256ths(w: f64) -> f64 {
    (w * 256.0 + 0.5).floor() / 256.0
}

impl WeightRounding {
    fn axis(self, alpha: f64) -> f64 {
        match self {
            WeightRounding::Exact => alpha,
            WeightRounding::Hardware => to_256ths(alpha),
        }
    }

    /// Weights of the taps (i, j), (i+1, j), (i, j+1), (i+1, j+1) for axis weights a, b
    /// (already passed through [`axis`](Self::axis)).
    fn bilinear(self, a: f64, b: f64) -> [f64; 4] {
        let ab = match self {
            WeightRounding::Exact => a * b,
            WeightRounding::Hardware => to_256ths(a * b),
        };
        [1.0 - a - b + ab, a - ab, b - ab, ab]
    }
}

/// Texel-space position along one axis of `n` texels: normalised coordinates scale by `n`.
pub(crate) fn texel_position(x: f32, n: usize, coords: Coordinates) -> f64 {
    match coords {
        Coordinates::Unnormalized => x as f64,
        Coordinates::Normalized => x as f64 * n as f64,
    }
}

/// Lower texel index (clamped) and the interpolation weight towards the next one.
fn linear_tap(p: f64, n: usize, rounding: WeightRounding) -> (usize, usize, f64) {
    let pb = p - 0.5;
    let i = pb.floor();
    let alpha = rounding.axis(pb - i);
    let clamp = |k: f64| k.clamp(0.0, (n - 1) as f64) as usize;
    (clamp(i), clamp(i + 1.0), alpha)
}

/// CPU twin of a 1-D linear-filtered, clamp-addressed `tex1D` fetch of `table` at `x`.
pub fn emulate_linear_filter_1d<T: Texel>(
    table: &[T],
    coords: Coordinates,
    x: f32,
    rounding: WeightRounding,
) -> T {
    let (i0, i1, a) = linear_tap(
        texel_position(x, table.len(), coords),
        table.len(),
        rounding,
    );
    let (t0, t1) = (table[i0].channels(), table[i1].channels());
    let c: Vec<f32> = (0..T::CHANNELS as usize)
        .map(|c| ((1.0 - a) * t0[c] as f64 + a * t1[c] as f64) as f32)
        .collect();
    T::from_channels(&c)
}

/// CPU twin of a 2-D bilinear-filtered, clamp-addressed `tex2D` fetch of the row-major
/// `width × height` `table` at (`x`, `y`).
///
/// # Panics
/// If `table` does not hold exactly `width × height ≥ 1` texels, as [`Texture::new_2d`]
/// requires too.
pub fn emulate_linear_filter_2d<T: Texel>(
    table: &[T],
    width: usize,
    height: usize,
    coords: Coordinates,
    (x, y): (f32, f32),
    rounding: WeightRounding,
) -> T {
    assert!(
        width > 0 && height > 0 && width.checked_mul(height) == Some(table.len()),
        "a {width}×{height} texture needs {width}×{height} texels, not {}",
        table.len()
    );
    let (i0, i1, a) = linear_tap(texel_position(x, width, coords), width, rounding);
    let (j0, j1, b) = linear_tap(texel_position(y, height, coords), height, rounding);
    let w = rounding.bilinear(a, b);
    let taps =
        [(i0, j0), (i1, j0), (i0, j1), (i1, j1)].map(|(i, j)| table[j * width + i].channels());
    let c: Vec<f32> = (0..T::CHANNELS as usize)
        .map(|c| {
            w.iter()
                .zip(&taps)
                .map(|(w, t)| w * t[c] as f64)
                .sum::<f64>() as f32
        })
        .collect();
    T::from_channels(&c)
}

/// CPU twin of a point-filtered, clamp-addressed fetch (`height == 0` for 1-D).
pub(crate) fn emulate_point<T: Texel>(
    table: &[T],
    width: usize,
    height: usize,
    coords: Coordinates,
    (x, y): (f32, f32),
) -> T {
    let index = |p: f64, n: usize| p.floor().clamp(0.0, (n - 1) as f64) as usize;
    let i = index(texel_position(x, width, coords), width);
    let j = if height == 0 {
        0
    } else {
        index(texel_position(y, height, coords), height)
    };
    table[j * width + i]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_filter_hits_texels_at_centres_and_clamps() {
        let t = [1.0f32, 3.0, -2.0];
        for (i, &v) in t.iter().enumerate() {
            let x = i as f32 + 0.5;
            assert_eq!(
                emulate_linear_filter_1d(
                    &t,
                    Coordinates::Unnormalized,
                    x,
                    WeightRounding::Hardware
                ),
                v
            );
        }
        assert_eq!(
            emulate_linear_filter_1d(&t, Coordinates::Unnormalized, -7.0, WeightRounding::Exact),
            1.0
        );
        assert_eq!(
            emulate_linear_filter_1d(&t, Coordinates::Unnormalized, 9.0, WeightRounding::Exact),
            -2.0
        );
        // Normalised: the centre of texel 1 of 3 is at 1.5 / 3.
        assert_eq!(
            emulate_linear_filter_1d(&t, Coordinates::Normalized, 0.5, WeightRounding::Exact),
            3.0
        );
    }

    #[test]
    fn hardware_weights_are_multiples_of_1_256_ties_up() {
        let t = [0.0f32, 256.0];
        let at = |x: f32, r| emulate_linear_filter_1d(&t, Coordinates::Unnormalized, x, r);
        // Position 0.5 + 1/3 between the two centres: exact weight 1/3, hardware 85/256.
        assert!((at(0.5 + 1.0 / 3.0, WeightRounding::Exact) - 256.0 / 3.0).abs() < 1e-4);
        assert_eq!(at(0.5 + 1.0 / 3.0, WeightRounding::Hardware), 85.0);
        // Weight 0.71: 181.76/256 rounds to 182/256.
        assert_eq!(at(0.5 + 0.71, WeightRounding::Hardware), 182.0);
        // A tie, 0.5/256, goes up (seen on the H100).
        assert_eq!(at(0.5 + 0.5 / 256.0, WeightRounding::Hardware), 1.0);
    }

    #[test]
    fn bilinear_corner_weight_is_rounded_again() {
        // Only texel (1, 1) is set: the result is the corner weight α·β. With α = 100/256 and
        // β = 150/256, α·β = 58.59/256, which the H100 returns as 59/256.
        let t = [0.0f32, 0.0, 0.0, 256.0];
        let p = (0.5 + 100.0 / 256.0, 0.5 + 150.0 / 256.0);
        let hw = emulate_linear_filter_2d(
            &t,
            2,
            2,
            Coordinates::Unnormalized,
            p,
            WeightRounding::Hardware,
        );
        assert_eq!(hw, 59.0);
        let exact = emulate_linear_filter_2d(
            &t,
            2,
            2,
            Coordinates::Unnormalized,
            p,
            WeightRounding::Exact,
        );
        assert!((exact - 58.59375).abs() < 1e-5);
        // The four weights still sum to one: a constant table reads back unchanged.
        let c = [0.75f32; 4];
        assert_eq!(
            emulate_linear_filter_2d(
                &c,
                2,
                2,
                Coordinates::Unnormalized,
                p,
                WeightRounding::Hardware
            ),
            0.75
        );
    }

    #[test]
    fn bilinear_is_separable_on_float2() {
        // 2×2 table: channel 0 varies with x, channel 1 with y.
        let t = [[0.0f32, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]];
        let v = emulate_linear_filter_2d(
            &t,
            2,
            2,
            Coordinates::Unnormalized,
            (0.75, 1.25),
            WeightRounding::Hardware,
        );
        assert_eq!(v, [0.25, 0.75]);
    }
}
