//! Inputs and references for the complex-coefficient checks and tests: random stable filters
//! with complex poles, and the serial loop run in double-double.

use super::c64::C64;
use super::chunked::dd_step;
use super::ComplexSpec;
use crate::dd::{Cdd, Dd};
use crate::elem::Element;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A random filter with complex poles of radius 0.3 … 0.97: `(b, a)` of `order` (a scaled
/// by a complex a[0] ≠ 1, so normalisation is exercised), or `sections` sections.
pub fn random_spec(seed: u64, order: usize, sections: Option<usize>) -> ComplexSpec {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut c = |scale: f64| {
        C64::new(
            rng.random_range(-scale..scale),
            rng.random_range(-scale..scale),
        )
    };
    let pole = |rng: &mut ChaCha8Rng| {
        let r = rng.random_range(0.3..0.97);
        let t = rng.random_range(-std::f64::consts::PI..std::f64::consts::PI);
        C64::new(r * t.cos(), r * t.sin())
    };
    let mut rng2 = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed);
    match sections {
        Some(s) => ComplexSpec::Sos(
            (0..s)
                .map(|_| {
                    let (p, q) = (pole(&mut rng2), pole(&mut rng2));
                    [c(1.0), c(1.0), c(1.0), C64::ONE, -(p + q), p * q]
                })
                .collect(),
        ),
        None => {
            let mut a = vec![C64::ONE];
            for _ in 0..order {
                let p = pole(&mut rng2);
                let mut next = vec![C64::ZERO; a.len() + 1];
                for (i, &v) in a.iter().enumerate() {
                    next[i] = next[i] + v;
                    next[i + 1] = next[i + 1] - v * p;
                }
                a = next;
            }
            let a0 = C64::new(1.25, -0.5);
            ComplexSpec::Ba {
                b: (0..=order).map(|_| c(0.5)).collect(),
                a: a.into_iter().map(|v| v * a0).collect(),
            }
        }
    }
}

/// The same loop in double-double from a zero state: y of every channel (moduli of the
/// error against it are what the bound is for).
pub fn reference(spec: &ComplexSpec, x: &[f64], channels: usize) -> Vec<C64> {
    let n = x.len() / (2 * channels);
    let (serial, ..) = super::serial_of(spec);
    let mut out = Vec::with_capacity(channels * n);
    for ch in x.chunks(2 * n) {
        let mut z = vec![Cdd::default(); serial.state_len()];
        for p in ch.chunks_exact(2) {
            let xn = Cdd {
                re: Dd::new(p[0]),
                im: Dd::new(p[1]),
            };
            let y = dd_step(&serial, &mut z, xn);
            out.push(C64::new(y.re.to_f64(), y.im.to_f64()));
        }
    }
    out
}

/// max|y − reference| / max|x| over complex moduli.
pub fn relative_error<T: Element>(y: &[T], exact: &[C64], x: &[T]) -> f64 {
    let modulus = |v: &[T], i: usize| C64::new(v[2 * i].to_f64(), v[2 * i + 1].to_f64());
    let xmax = (0..x.len() / 2)
        .map(|i| modulus(x, i).abs())
        .fold(0.0, f64::max);
    let err = exact
        .iter()
        .enumerate()
        .map(|(i, e)| (modulus(y, i) - *e).abs())
        .fold(0.0, f64::max);
    err / xmax.max(f64::MIN_POSITIVE)
}
