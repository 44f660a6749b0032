//! Inputs for tests and checks: LPC-like coefficients from random stable polynomials (poles in
//! conjugate pairs at chosen radii, held for a frame of samples, as LPC synthesis holds a
//! frame's predictor), and white input.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The coefficients a[0..p] of A(z) = 1 + Σ a[k] z^{−k−1} with `order` poles of radius in
/// `radius` (pairs at random angles, a real pole for an odd order).
pub fn stable_polynomial(rng: &mut impl Rng, order: usize, radius: (f64, f64)) -> Vec<f64> {
    let mut poly = vec![1.0f64];
    let times = |poly: &[f64], factor: &[f64]| {
        let mut out = vec![0.0; poly.len() + factor.len() - 1];
        for (i, p) in poly.iter().enumerate() {
            for (j, f) in factor.iter().enumerate() {
                out[i + j] += p * f;
            }
        }
        out
    };
    let mut left = order;
    while left > 0 {
        let r = rng.random_range(radius.0..=radius.1);
        if left == 1 {
            let sign = if rng.random_bool(0.5) { 1.0 } else { -1.0 };
            poly = times(&poly, &[1.0, -sign * r]);
            left -= 1;
        } else {
            let theta = rng.random_range(0.0..std::f64::consts::PI);
            poly = times(&poly, &[1.0, -2.0 * r * theta.cos(), r * r]);
            left -= 2;
        }
    }
    poly[1..].to_vec()
}

/// A (channels × n × order): a new stable polynomial every `frame` samples.
pub fn lpc_coefficients(
    seed: u64,
    channels: usize,
    n: usize,
    order: usize,
    frame: usize,
    radius: (f64, f64),
) -> Vec<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut a = Vec::with_capacity(channels * n * order);
    for _ in 0..channels {
        let mut poly = Vec::new();
        for t in 0..n {
            if t % frame.max(1) == 0 {
                poly = stable_polynomial(&mut rng, order, radius);
            }
            a.extend_from_slice(&poly);
        }
    }
    a
}

/// Uniform values in [−1, 1).
pub fn white(seed: u64, len: usize) -> Vec<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..len).map(|_| rng.random_range(-1.0..1.0)).collect()
}
