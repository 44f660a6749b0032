//! Input generation and error statistics for the catalog, on the CPU: values rounded to each
//! precision, and relative / ulp error against the f64 reference.

use crate::catalog::{Domain, Function, Precision};
use rand::{Rng, SeedableRng};
use serde::Serialize;

/// IEEE binary16 bits → f64 (exact).
pub fn f16_to_f64(bits: u16) -> f64 {
    let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = ((bits >> 10) & 0x1f) as i32;
    let m = (bits & 0x3ff) as f64;
    sign * match e {
        0 => m * 2f64.powi(-24),
        31 if m == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        _ => (1.0 + m / 1024.0) * 2f64.powi(e - 15),
    }
}

/// f64 → nearest binary16 bits (ties away from zero; inputs only need to be representable).
pub fn f64_to_f16(x: f64) -> u16 {
    let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
    let a = x.abs();
    if a.is_nan() {
        return 0x7e00;
    }
    if a >= 65520.0 {
        return sign | 0x7c00;
    }
    if a < 2f64.powi(-14) {
        return sign | (a / 2f64.powi(-24)).round() as u16;
    }
    let mut e = a.log2().floor() as i32;
    // log2 may land one off near powers of two.
    if 2f64.powi(e) > a {
        e -= 1;
    }
    let mut m = ((a / 2f64.powi(e) - 1.0) * 1024.0).round() as u32;
    if m == 1024 {
        m = 0;
        e += 1;
    }
    if e > 15 {
        return sign | 0x7c00;
    }
    sign | (((e + 15) as u16) << 10) | m as u16
}

/// bfloat16 bits → f64 (exact).
pub fn bf16_to_f64(bits: u16) -> f64 {
    f32::from_bits((bits as u32) << 16) as f64
}

/// f64 → nearest bfloat16 bits (via f32, ties to even).
pub fn f64_to_bf16(x: f64) -> u16 {
    let b = (x as f32).to_bits();
    if (x as f32).is_nan() {
        return 0x7fc0;
    }
    let round = 0x7fff + ((b >> 16) & 1);
    ((b + round) >> 16) as u16
}

/// Values of one argument, held in the precision's own representation.
#[derive(Clone, Debug)]
pub enum Values {
    /// f32 values.
    F32(Vec<f32>),
    /// f64 values.
    F64(Vec<f64>),
    /// Raw f16 or bf16 bits.
    Bits16(Precision, Vec<u16>),
}

impl Values {
    /// Number of values.
    pub fn len(&self) -> usize {
        match self {
            Values::F32(v) => v.len(),
            Values::F64(v) => v.len(),
            Values::Bits16(_, v) => v.len(),
        }
    }

    /// Whether there are no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The precision the values are held in.
    pub fn precision(&self) -> Precision {
        match self {
            Values::F32(_) => Precision::F32,
            Values::F64(_) => Precision::F64,
            Values::Bits16(p, _) => *p,
        }
    }

    /// Every element's bits, widened to 64: for comparing outputs bit for bit.
    pub fn bits(&self) -> Vec<u64> {
        match self {
            Values::F32(v) => v.iter().map(|x| x.to_bits() as u64).collect(),
            Values::F64(v) => v.iter().map(|x| x.to_bits()).collect(),
            Values::Bits16(_, v) => v.iter().map(|&x| x as u64).collect(),
        }
    }

    /// Element `i` as the exact f64 it represents.
    pub fn get(&self, i: usize) -> f64 {
        match self {
            Values::F32(v) => v[i] as f64,
            Values::F64(v) => v[i],
            Values::Bits16(Precision::Bf16, v) => bf16_to_f64(v[i]),
            Values::Bits16(_, v) => f16_to_f64(v[i]),
        }
    }

    /// `xs` rounded to `precision`.
    pub fn from_f64(precision: Precision, xs: &[f64]) -> Values {
        match precision {
            Precision::F32 => Values::F32(xs.iter().map(|&x| x as f32).collect()),
            Precision::F64 => Values::F64(xs.to_vec()),
            Precision::F16 => {
                Values::Bits16(precision, xs.iter().map(|&x| f64_to_f16(x)).collect())
            }
            Precision::Bf16 => {
                Values::Bits16(precision, xs.iter().map(|&x| f64_to_bf16(x)).collect())
            }
        }
    }
}

/// `n` random inputs for `f` over `domain`: x and (for two-argument functions) y.
pub fn inputs(f: &Function, domain: &Domain, n: usize, seed: u64) -> (Values, Option<Values>) {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut draw = |r: &crate::catalog::Range| -> Vec<f64> {
        (0..n)
            .map(|_| r.sample(rng.random(), rng.random()))
            .collect()
    };
    let x = Values::from_f64(f.precision, &draw(&domain.x));
    let y = domain
        .y
        .as_ref()
        .map(|r| Values::from_f64(f.precision, &draw(r)));
    (x, y)
}

/// Error of one version over one input set, against the f64 reference.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ErrorStats {
    /// Inputs evaluated.
    pub samples: usize,
    /// Mean of |got − ref| / |ref| over samples with a finite, non-zero reference.
    pub mean_rel: f64,
    /// Largest |got − ref| / |ref|, over the same samples as `mean_rel`.
    pub max_rel: f64,
    /// Largest error in units of the precision's last place at the reference.
    pub max_ulp: f64,
    /// Largest |got − ref| over outputs where both are finite.
    pub max_abs: f64,
    /// Outputs whose class (NaN / ±∞ / finite) differs from the reference rounded to the
    /// precision: a flush, an overflow or a NaN the reference does not have.
    pub class_mismatches: usize,
}

/// Spacing of `precision` values at magnitude |r| (its ulp), down to the subnormal spacing.
pub fn ulp(precision: Precision, r: f64) -> f64 {
    let (mant, min_exp) = match precision {
        Precision::F32 => (23, -126),
        Precision::F64 => (52, -1022),
        Precision::F16 => (10, -14),
        Precision::Bf16 => (7, -126),
    };
    let e = if r == 0.0 {
        min_exp
    } else {
        (r.abs().log2().floor() as i32).max(min_exp)
    };
    2f64.powi(e - mant)
}

/// The reference rounded to the precision (what a correctly rounded result would be).
fn round_to(precision: Precision, r: f64) -> f64 {
    match precision {
        Precision::F32 => r as f32 as f64,
        Precision::F64 => r,
        Precision::F16 => f16_to_f64(f64_to_f16(r)),
        Precision::Bf16 => bf16_to_f64(f64_to_bf16(r)),
    }
}

/// Error statistics of `got` (outputs of `f` on `x`, `y`).
pub fn error_stats(f: &Function, x: &Values, y: Option<&Values>, got: &Values) -> ErrorStats {
    let mut s = ErrorStats {
        samples: x.len(),
        ..Default::default()
    };
    let mut sum = 0.0;
    let mut counted = 0usize;
    for i in 0..x.len() {
        let yv = y.map_or(0.0, |y| y.get(i));
        let r = (f.reference)(x.get(i), yv);
        let rr = round_to(f.precision, r);
        let g = got.get(i);
        if !rr.is_finite() || !g.is_finite() {
            let same = (rr.is_nan() && g.is_nan()) || rr == g;
            if !same {
                s.class_mismatches += 1;
            }
            continue;
        }
        let abs = (g - r).abs();
        s.max_abs = s.max_abs.max(abs);
        s.max_ulp = s.max_ulp.max(abs / ulp(f.precision, r));
        if r != 0.0 {
            let rel = abs / r.abs();
            sum += rel;
            counted += 1;
            s.max_rel = s.max_rel.max(rel);
        }
    }
    s.mean_rel = if counted > 0 {
        sum / counted as f64
    } else {
        0.0
    };
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::find;

    #[test]
    fn f16_round_trips_every_finite_value() {
        for bits in 0u16..=0xffff {
            let v = f16_to_f64(bits);
            if v.is_finite() && bits != 0x8000 {
                assert_eq!(f64_to_f16(v), bits, "{bits:#x} = {v}");
            }
        }
        assert_eq!(f16_to_f64(0x3c00), 1.0);
        assert_eq!(f16_to_f64(0x0001), 2f64.powi(-24));
        assert_eq!(f64_to_f16(1e6), 0x7c00);
    }

    #[test]
    fn bf16_rounds_to_nearest() {
        assert_eq!(bf16_to_f64(f64_to_bf16(1.0)), 1.0);
        assert_eq!(
            bf16_to_f64(f64_to_bf16(1.0 + 2f64.powi(-8) * 1.5)),
            1.0078125
        );
        assert_eq!(bf16_to_f64(0x4049), 3.140625);
    }

    #[test]
    fn exact_outputs_have_zero_error_and_one_ulp_is_one_ulp() {
        let f = find("sqrt_f32").unwrap();
        let (x, _) = inputs(f, &f.domain, 1000, 1);
        let Values::F32(xs) = &x else { panic!() };
        let exact = Values::F32(xs.iter().map(|v| v.sqrt()).collect());
        let s = error_stats(f, &x, None, &exact);
        assert!(s.max_ulp <= 0.5 + 1e-9, "{s:?}");
        let off = Values::F32(
            xs.iter()
                .map(|v| f32::from_bits(v.sqrt().to_bits() + 1))
                .collect(),
        );
        let s = error_stats(f, &x, None, &off);
        assert!(s.max_ulp > 0.5 && s.max_ulp <= 1.5, "{s:?}");
        assert_eq!(s.class_mismatches, 0);
        let flushed = Values::F32(vec![f32::INFINITY; xs.len()]);
        assert_eq!(
            error_stats(f, &x, None, &flushed).class_mismatches,
            xs.len()
        );
    }
}
