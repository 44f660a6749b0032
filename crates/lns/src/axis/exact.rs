//! The arithmetic of the along-axis reductions, written once for the CPU and mirrored operation
//! for operation by `kernels/axis.cu`: every term is an f64 from a table built here (uploaded
//! to the device, so both read the same entries) and correctly rounded operations (`mul_add`,
//! `*`, `+`: `__fma_rn`, `__dmul_rn`, `__dadd_rn` in the kernel, which NVRTC never contracts),
//! then turned into a 128-bit fixed-point integer and summed exactly. Integer sums do not
//! depend on their order, so a GPU that splits a row over a warp and the CPU that runs it in
//! one loop reach the same integer, and the same word, by construction; and x + (−x) cancels
//! to exactly zero wherever the two terms sit.
//!
//! Error contract of a fused sum of terms v_i = ±2^(d_i·2^-F) (d_i ≤ 0 code differences from
//! the row's largest log code M): each term is within 2 f64 ulps of its exact value (table
//! entry from `exp2`, ≤ 1 ulp; degree-3 polynomial in the low fraction bits, truncation
//! < 0.16 ulp; the final FMA 0.5 ulp) and loses < 2^-[`FIX_BITS`] more to the fixed point;
//! the sum is exact; |S| converts to f64 within 2^-53 relative; log2 of it is within
//! 2^-50 absolute (table of 128 centres, degree-8 polynomial, one f64 add). So the log2 that
//! is rounded once to a code is within δ = 2^F·(2^-50·(κ + 1) + n·2^-FIX_BITS/|S|)/ln 2 codes
//! of the exact log2|Σ v_i|, κ = Σ|v_i| / |Σ v_i| (1 for terms of one sign): the word is the
//! correctly rounded one unless the exact value lies within δ of a tie, and is never more
//! than 0.5 + δ codes away.

use crate::format::Format;

/// Fraction bits of the fixed point: a term 2^(d·2^-F) ≤ 1 becomes round-down(v · 2^88), so
/// a row of up to 2^38 terms sums in a 128-bit integer without overflow.
pub const FIX_BITS: i32 = 88;

/// Fraction bits of a code looked up in the table of 2^(j/4096).
pub const EXP_TABLE_BITS: u32 = 12;

/// log2 centres: the top 7 mantissa bits of m ∈ [1, 2) pick c = 1 + (i + 1/2)/128.
pub const LOG_TABLE_BITS: u32 = 7;

/// Coefficients of log2(1 + r) = r·(p0 + r·(p1 + … + r·p7)), |r| < 2^-8: the series'
/// (−1)^(k)/((k+1)·ln 2), truncation r^9/(9 ln 2) < 2^-71.
const LOG_POLY: usize = 8;

/// Everything the kernel reads besides the data, built on the host and uploaded as one
/// array of f64 ([`Consts::flat`]), so CPU and GPU read the same bits.
#[derive(Clone, Debug)]
pub struct Consts {
    /// Fraction bits F of the format.
    pub f: u32,
    /// 2^(j / 2^tb), tb = min(F, 12), for j < 2^tb.
    pub exp: Vec<f64>,
    /// c1, c2, c3 of 2^(r·2^-F) − 1 = r·(c1 + r·(c2 + r·c3)).
    pub exp_poly: [f64; 3],
    /// 1 / c_i rounded to f64, i < 128.
    pub inv: Vec<f64>,
    /// −log2(inv_i), i < 128.
    pub log_inv: Vec<f64>,
    /// The degree-8 log2(1 + r) polynomial, lowest first.
    pub log_poly: [f64; LOG_POLY],
    /// 2^F / ln 2: natural logs to codes (logsumexp).
    pub codes_per_nat: f64,
    /// ln 2 · 2^-F: codes to natural logs.
    pub nats_per_code: f64,
}

impl Consts {
    /// The constants of `format` (only F matters).
    pub fn new(format: Format) -> Consts {
        let f = format.frac_bits;
        let tb = f.min(EXP_TABLE_BITS);
        let exp = (0..1u32 << tb)
            .map(|j| (j as f64 / (1u64 << tb) as f64).exp2())
            .collect();
        let x = std::f64::consts::LN_2 * format.ulp();
        let mut exp_poly = [0.0; 3];
        let mut term = 1.0;
        for (k, c) in exp_poly.iter_mut().enumerate() {
            term *= x / (k + 1) as f64;
            *c = term;
        }
        let n = 1usize << LOG_TABLE_BITS;
        let inv: Vec<f64> = (0..n)
            .map(|i| 1.0 / (1.0 + (i as f64 + 0.5) / n as f64))
            .collect();
        let log_inv = inv.iter().map(|&v| -v.log2()).collect();
        let mut log_poly = [0.0; LOG_POLY];
        for (k, p) in log_poly.iter_mut().enumerate() {
            let sign = if k % 2 == 0 { 1.0 } else { -1.0 };
            *p = sign / ((k + 1) as f64 * std::f64::consts::LN_2);
        }
        Consts {
            f,
            exp,
            exp_poly,
            inv,
            log_inv,
            log_poly,
            codes_per_nat: (f as f64).exp2() / std::f64::consts::LN_2,
            nats_per_code: std::f64::consts::LN_2 * format.ulp(),
        }
    }

    /// The constants as the kernel reads them (`struct AxisConsts` offsets in axis.cu):
    /// [c1, c2, c3, codes_per_nat, nats_per_code, log_poly × 8, inv × 128, log_inv × 128,
    /// exp × 2^tb].
    pub fn flat(&self) -> Vec<f64> {
        let mut v = Vec::with_capacity(13 + 256 + self.exp.len());
        v.extend_from_slice(&self.exp_poly);
        v.push(self.codes_per_nat);
        v.push(self.nats_per_code);
        v.extend_from_slice(&self.log_poly);
        v.extend_from_slice(&self.inv);
        v.extend_from_slice(&self.log_inv);
        v.extend_from_slice(&self.exp);
        v
    }

    /// Bits of the fraction below the table index.
    fn rshift(&self) -> u32 {
        self.f.saturating_sub(EXP_TABLE_BITS)
    }

    /// 2^(frac·2^-F) ∈ [1, 2) for a fraction 0 ≤ frac < 2^F: table entry times 1 + r·q(r).
    pub fn exp_frac(&self, frac: u64) -> f64 {
        let sh = self.rshift();
        let t = self.exp[(frac >> sh) as usize];
        let r = (frac & ((1u64 << sh) - 1)) as f64;
        let [c1, c2, c3] = self.exp_poly;
        let q = r.mul_add(r.mul_add(c3, c2), c1);
        t.mul_add(r * q, t)
    }

    /// The term 2^(d·2^-F) for a code difference d ≤ 0 as fixed point: ⌊v · 2^FIX_BITS⌋ of
    /// the f64 v, exact for v ≥ 2^(52 − FIX_BITS) (< 2^(FIX_BITS + 1)).
    pub fn term_fixed(&self, d: i64) -> u128 {
        debug_assert!(d <= 0);
        let k = d >> self.f; // floor(d / 2^F) ≤ 0
        let frac = (d & ((1i64 << self.f) - 1)) as u64;
        let t = self.exp_frac(frac);
        // t ∈ [1, 2): its 53-bit significand as an integer, value mant·2^-52.
        let bits = t.to_bits();
        let e = ((bits >> 52) & 0x7ff) as i64 - 1023; // 0, or 1 if t rounded up to 2
        let mant = (bits & ((1u64 << 52) - 1)) | (1u64 << 52);
        let shift = k + e + FIX_BITS as i64 - 52;
        if shift >= 0 {
            (mant as u128) << shift
        } else if shift > -64 {
            (mant >> -shift) as u128
        } else {
            0
        }
    }

    /// log2(y) for a finite y > 0 in f64 split as (integer exponent, log2 of the significand
    /// in [0, 1]) — the second within 2^-50 of exact.
    pub fn log2_split(&self, y: f64) -> (i64, f64) {
        let bits = y.to_bits();
        let e = ((bits >> 52) & 0x7ff) as i64 - 1023;
        let m = f64::from_bits((bits & ((1u64 << 52) - 1)) | (1023u64 << 52));
        let i = ((bits >> (52 - LOG_TABLE_BITS)) & ((1 << LOG_TABLE_BITS) - 1)) as usize;
        let r = m.mul_add(self.inv[i], -1.0);
        let mut p = self.log_poly[LOG_POLY - 1];
        for k in (0..LOG_POLY - 1).rev() {
            p = r.mul_add(p, self.log_poly[k]);
        }
        (e, r.mul_add(p, self.log_inv[i]))
    }

    /// The log code of |s| · 2^-FIX_BITS · 2^(top·2^-F) for s ≠ 0, unbounded (the caller
    /// encodes it with its range): top + round_ties_even(2^F · log2(|s|·2^-FIX_BITS)).
    pub fn log_code(&self, s: i128, top: i64) -> i64 {
        let u = s.unsigned_abs();
        let lz = u.leading_zeros();
        let norm = u << lz;
        // The top 64 bits with a sticky bit for the rest: one correct rounding to 53 bits.
        let hi = (norm >> 64) as u64 | ((norm as u64 != 0) as u64);
        let y = hi as f64; // correctly rounded, as __ull2double_rn
        let (e, lm) = self.log2_split(y);
        // |s| = y·2^(64 − lz) (to rounding): log2 = e + lm + 64 − lz − FIX_BITS.
        let int = e + 64 - lz as i64 - FIX_BITS as i64;
        let frac_codes = (lm * (self.f as f64).exp2()).round_ties_even() as i64;
        top + (int << self.f) + frac_codes
    }
}

impl Consts {
    /// The unbounded log code of a finite x ≠ 0: e·2^F + round_ties_even(2^F · log2 m) for
    /// |x| = m·2^e. Correctly rounded unless log2|x|·2^F lies within 2^(F−50) of a tie
    /// (never more than 0.5 + 2^(F−50) codes away); every binary32 input rounds correctly
    /// for F ≤ 23 (checked over all 2^23 significands in the Python tests, against mpmath
    /// near ties).
    pub fn code_of(&self, x: f64) -> i64 {
        let mut y = x.abs();
        let mut shift = 0i64;
        if y < f64::MIN_POSITIVE {
            // Subnormal: scale into the normal range exactly.
            y *= pow2_f64(64);
            shift = 64;
        }
        let (e, lm) = self.log2_split(y);
        ((e - shift) << self.f) + (lm * pow2_f64(self.f as i32)).round_ties_even() as i64
    }

    /// ±2^(log·2^-F) in f64 for a finite code: the term's table and polynomial, then exact
    /// powers of two (a subnormal or zero result rounds once, at the last multiply). Within 2
    /// f64 ulps of exact where the result is normal.
    pub fn value_of(&self, log: i64) -> f64 {
        let k = log >> self.f;
        let t = self.exp_frac((log & ((1i64 << self.f) - 1)) as u64);
        if k > 1023 {
            f64::INFINITY
        } else if k >= -1022 {
            t * pow2_f64(k as i32)
        } else if k >= -1200 {
            t * pow2_f64(k as i32 + 600) * pow2_f64(-600)
        } else {
            0.0
        }
    }
}

/// 2^k for −1022 ≤ k ≤ 1023, exactly, from the exponent bits (the kernel's
/// `__longlong_as_double`).
fn pow2_f64(k: i32) -> f64 {
    f64::from_bits(((1023 + k) as u64) << 52)
}

/// An exact signed sum of fixed-point terms (the kernel keeps it as two 64-bit halves).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Acc(pub i128);

impl Acc {
    /// Adds ±t.
    pub fn add(&mut self, t: u128, negative: bool) {
        let t = t as i128;
        self.0 = if negative {
            self.0.wrapping_sub(t)
        } else {
            self.0.wrapping_add(t)
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_are_within_two_f64_ulps_of_exp2() {
        for format in [Format::LNS16, Format::LNS32, Format::new(2, 29).unwrap()] {
            let c = Consts::new(format);
            let f = format.frac_bits;
            let step = (1u64 << f).div_ceil(1 << 18).max(1);
            let mut worst = 0.0f64;
            for frac in (0..1u64 << f)
                .step_by(step as usize)
                .chain([(1u64 << f) - 1])
            {
                let exact = (frac as f64 * format.ulp()).exp2();
                worst = worst.max((c.exp_frac(frac) - exact).abs() / (exact * f64::EPSILON));
            }
            assert!(worst <= 2.0, "{format}: {worst} f64 ulps");
        }
    }

    #[test]
    fn fixed_point_terms_scale_exactly() {
        let c = Consts::new(Format::LNS32);
        assert_eq!(c.term_fixed(0), 1u128 << FIX_BITS);
        assert_eq!(c.term_fixed(-(5 << 23)), 1u128 << (FIX_BITS - 5));
        assert_eq!(c.term_fixed(-(89 << 23)), 0);
        assert_eq!(c.term_fixed(-(60 << 23)), 1u128 << (FIX_BITS - 60));
    }

    #[test]
    fn log2_is_within_2_pow_minus_50() {
        let c = Consts::new(Format::LNS32);
        let mut worst = 0.0f64;
        for i in 0..200_000u64 {
            let y = 1.0 + (i as f64 + 0.37) / 200_000.0;
            let (e, lm) = c.log2_split(y * 8.0);
            assert_eq!(e, 3);
            worst = worst.max((lm - y.log2()).abs());
        }
        assert!(worst < 2f64.powi(-50), "{worst:e}");
    }

    #[test]
    fn log_codes_of_powers_of_two_are_exact() {
        let c = Consts::new(Format::LNS16);
        for k in [0i32, 1, 7, 30, 80, 100] {
            let s = 1i128 << k;
            assert_eq!(c.log_code(s, 0), ((k - FIX_BITS) as i64) << 10);
            assert_eq!(c.log_code(-s, 5), 5 + (((k - FIX_BITS) as i64) << 10));
        }
    }
}
