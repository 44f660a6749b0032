//! Random stable filters and inputs, shared by the tests, the GPU self-checks and the lab's
//! benchmarks; [`sos`]: scipy's designs as sections and the cascade's accuracy contract; and
//! [`stopband_sections`] / [`stopband_signal`]: cascades and inputs with the energy in the
//! stopband; the (b, a) accuracy contract's hard cases with their exact reference (every face's
//! acceptance test).

mod sos;
mod stopband;

pub use sos::{
    random_values, sos_emulation_keeps_contract, SosReference, BUTTER3_HIGH, BUTTER8_0005,
    BUTTER8_002, BUTTER8_01,
};
pub use stopband::{chirp, resonator, stopband_sections, stopband_signal, CHEBY1_BP};

use crate::dd::Dd;
use crate::elem::Element;
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

/// scipy.signal.butter(order, 0.02) as (b, a) for order 8, 6 or 4, printed by scipy with repr
/// (full precision): the filters whose (b, a) form is hard enough that the accuracy contract
/// must pick the method (the PLR factors of butter(8) grow to ~3e9; butter(8) and butter(6)
/// rounded to f32 are unstable).
#[allow(clippy::excessive_precision)]
pub fn butter_0_02(order: usize) -> Option<(Vec<f64>, Vec<f64>)> {
    let (b, a): (&[f64], &[f64]) = match order {
        8 => (
            &[
                8.098259786747707e-13,
                6.478607829398165e-12,
                2.267512740289358e-11,
                4.535025480578716e-11,
                5.6687818507233944e-11,
                4.535025480578716e-11,
                2.267512740289358e-11,
                6.478607829398165e-12,
                8.098259786747707e-13,
            ],
            &[
                1.0,
                -7.677940205392836,
                25.797219528171233,
                -49.54122563778755,
                59.47613197003973,
                -45.7087344779167,
                21.960120132116103,
                -6.0301722352443194,
                0.7246009262216517,
            ],
        ),
        6 => (
            &[
                8.53159525744206e-10,
                5.118957154465236e-09,
                1.279739288616309e-08,
                1.7063190514884117e-08,
                1.279739288616309e-08,
                5.118957154465236e-09,
                8.53159525744206e-10,
            ],
            &[
                1.0,
                -5.757244186246572,
                13.815510806058006,
                -17.68737617989399,
                12.741617329229193,
                -4.896924891433727,
                0.7844171768892996,
            ],
        ),
        4 => (
            &[
                8.984861463970648e-07,
                3.593944585588259e-06,
                5.390916878382389e-06,
                3.593944585588259e-06,
                8.984861463970648e-07,
            ],
            &[
                1.0,
                -3.835825540647348,
                5.520819136622229,
                -3.5335352194630145,
                0.848555999266477,
            ],
        ),
        _ => return None,
    };
    Some((b.to_vec(), a.to_vec()))
}

/// A (b, a) filter against the accuracy contract on one channel at a time: the exact output
/// (SciPy's transposed direct form II in double-double, far below either dtype's rounding)
/// and the error the contract allows, 4× SciPy's own at dtype `T` (its algorithm run in `T`),
/// at least 8 ε of `T`; where SciPy's own run is not finite (coefficients unstable once
/// rounded to `T`), 1e-3, so that a finite but wrong answer still fails.
pub struct Contract {
    /// The exact output, channel after channel.
    pub exact: Vec<f64>,
    /// The largest max|y − exact| / max|exact| the contract allows.
    pub allowed: f64,
}

impl Contract {
    /// The reference for `channels` channels of `x` (one after another) filtered by (b, a).
    pub fn new<T: Element>(b: &[f64], a: &[f64], x: &[T], channels: usize) -> Contract {
        let n = x.len() / channels.max(1);
        let (a0, k) = (a[0], b.len().max(a.len()) - 1);
        let pad = |v: &[f64]| -> Vec<f64> {
            let mut p: Vec<f64> = v.iter().map(|c| c / a0).collect();
            p.resize(k + 1, 0.0);
            p
        };
        let (b, a) = (pad(b), pad(a));
        let mut exact = Vec::with_capacity(x.len());
        let mut scipy = vec![T::ZERO; x.len()];
        let (bt, at): (Vec<T>, Vec<T>) = (
            b.iter().map(|&v| T::from_f64(v)).collect(),
            a.iter().map(|&v| T::from_f64(v)).collect(),
        );
        for (c, y) in x.chunks(n.max(1)).zip(scipy.chunks_mut(n.max(1))) {
            let mut z = vec![Dd::ZERO; k];
            for &xi in c {
                let xi = Dd::new(xi.to_f64());
                let out = z.first().copied().unwrap_or(Dd::ZERO).add(xi.mul_f64(b[0]));
                for m in 0..k {
                    let next = z.get(m + 1).copied().unwrap_or(Dd::ZERO);
                    z[m] = next.add(xi.mul_f64(b[m + 1])).sub(out.mul_f64(a[m + 1]));
                }
                exact.push(out.to_f64());
            }
            crate::design::tdf2(&bt, &at, c, y, &mut vec![T::ZERO; k]);
        }
        let eps = if T::DTYPE.size() == 4 {
            f32::EPSILON as f64
        } else {
            f64::EPSILON
        };
        let scipy_error = relative_error_to(&scipy, &exact);
        let allowed = match scipy_error.is_finite() {
            true => (4.0 * scipy_error).max(8.0 * eps),
            false => 1e-3,
        };
        Contract { exact, allowed }
    }

    /// max|y − exact| / max|exact|: infinite when y holds a NaN or an infinity.
    pub fn error<T: Element>(&self, y: &[T]) -> f64 {
        relative_error_to(y, &self.exact)
    }
}

fn relative_error_to<T: Element>(y: &[T], exact: &[f64]) -> f64 {
    if y.len() != exact.len() || y.iter().any(|v| !v.is_finite()) {
        return f64::INFINITY;
    }
    let peak = exact.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let worst = y
        .iter()
        .zip(exact)
        .fold(0.0f64, |m, (v, r)| m.max((v.to_f64() - r).abs()));
    worst / peak.max(f64::MIN_POSITIVE)
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
