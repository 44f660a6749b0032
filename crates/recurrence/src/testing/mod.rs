//! Random stable filters and inputs, shared by the tests, the GPU self-checks and the lab's
//! benchmarks; [`sos`]: scipy's designs as sections and the cascade's accuracy contract.

mod sos;

pub use sos::{
    random_values, sos_emulation_keeps_contract, SosReference, BUTTER3_HIGH, BUTTER8_0005,
    BUTTER8_002, BUTTER8_01,
};

use crate::signature::{Coef, Signature};
use rand::Rng;

/// A random recurrence of order `k` whose poles all lie within `max_radius`: real poles and
/// complex-conjugate pairs multiplied out into the feed-back coefficients (seed convention).
pub fn random_feedback(rng: &mut impl Rng, k: usize, max_radius: f64) -> Vec<f64> {
    // poly = Π (z - p), lowest power last; start with "1".
    let mut poly = vec![1.0f64];
    let mut left = k;
    while left > 0 {
        let r = rng.random_range(0.0..max_radius);
        if left >= 2 && rng.random_bool(0.5) {
            let theta: f64 = rng.random_range(0.0..std::f64::consts::PI);
            poly = poly_mul(&poly, &[1.0, -2.0 * r * theta.cos(), r * r]);
            left -= 2;
        } else {
            let sign = if rng.random_bool(0.5) { 1.0 } else { -1.0 };
            poly = poly_mul(&poly, &[1.0, -sign * r]);
            left -= 1;
        }
    }
    poly[1..].iter().map(|c| -c).collect()
}

fn poly_mul(a: &[f64], b: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; a.len() + b.len() - 1];
    for (i, x) in a.iter().enumerate() {
        for (j, y) in b.iter().enumerate() {
            out[i + j] += x * y;
        }
    }
    out
}

/// A random stable signature: order 1..=max_k, 1..=max_taps non-recursive taps.
pub fn random_signature(
    rng: &mut impl Rng,
    max_k: usize,
    max_taps: usize,
    max_radius: f64,
) -> Signature {
    let k = rng.random_range(1..=max_k);
    let taps = rng.random_range(1..=max_taps);
    let ff = (0..taps)
        .map(|_| Coef::from_f64(rng.random_range(-1.0..1.0)))
        .collect();
    let fb = random_feedback(rng, k, max_radius)
        .into_iter()
        .map(Coef::from_f64)
        .collect();
    Signature::new(ff, fb)
}

/// max |got − want| / max |want| (0 when both are all zero).
pub fn relative_error(got: &[f64], want: &[f64]) -> f64 {
    assert_eq!(got.len(), want.len(), "lengths differ");
    let scale = want.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let err = got.iter().zip(want).fold(0.0f64, |m, (g, w)| {
        m.max(if g.is_nan() {
            f64::INFINITY
        } else {
            (g - w).abs()
        })
    });
    if scale == 0.0 {
        err
    } else {
        err / scale
    }
}

/// Signal lengths around a kernel's chunk of `chunk` values, where chunk and channel ends meet
/// (1, 2, a warp ± 1, chunk ± 1, three chunks and a bit), then long odd lengths.
pub fn lengths_around(chunk: usize) -> [usize; 10] {
    [
        1,
        2,
        31,
        33,
        chunk - 1,
        chunk,
        chunk + 1,
        3 * chunk + 7,
        65_537,
        1_000_003,
    ]
}

/// A check report with nothing counted yet, at relative tolerance `rel`: what a check over many
/// lengths adds its runs to.
pub fn empty_report(rel: f64) -> sigpu_runtime::cuda::CheckReport {
    sigpu_runtime::cuda::CheckReport {
        elements: 0,
        mismatches: 0,
        max_error: 0.0,
        tolerance: sigpu_runtime::cuda::Tolerance { abs: 0.0, rel },
        note: String::new(),
    }
}
