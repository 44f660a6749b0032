//! The CPU's fast add/sub without big tables: s_b and d_b through 1 ± 2^z and a logarithm,
//! both range-reduced so that three 16-entry tables (held in vector registers by the AVX-512
//! path, no gathers) and two short polynomials in f64 (degrees 3 and 4) suffice.
//!
//! With z = code · 2^-F ≤ 0, j = ⌈16 z⌉ and u = j − 16 z ∈ [0, 1) (both exact, from integer
//! shifts of the code):
//!
//! - 2^z = Y · (1 − π(u)), Y = 2^(j/16) = 2^⌊j/16⌋ · T[j mod 16] (exact: an exponent add),
//!   π(u) = 1 − 2^(−u/16) = u · q(u) with q a degree-3 minimax polynomial (relative error
//!   2^-32);
//! - v = 1 ± 2^z = (1 ± Y) ∓ Y · π(u), one rounding for 1 ± Y and one fused multiply-add.
//!   For d_b the two terms are 1 − Y ≥ 0 and Y·π ≥ 0, so nothing cancels, even at the pole:
//!   for −1/16 < z < 0, Y = 1 and v = π(u) exactly as accurate as q. This is why j is the
//!   ceiling: u ≥ 0 keeps π ≥ 0.
//! - log2 v = e + log2 m (v = 2^e · m, m ∈ [1, 2), from the bits), and with i the top four
//!   bits of m's fraction and R[i] = 1/(1 + i/16) in f64, t = m · R[i] − 1 ∈ [0, 1/16) (one
//!   fused multiply-add) and log2 m = −log2 R[i] + t · P(t), P a degree-4 minimax polynomial
//!   (absolute error 2^-35 in log2 m).
//! - The code is round(e · 2^F + 2^F · log2 m), ties to even: the tables and P are stored
//!   scaled by 2^F (exact) and e · 2^F is added by a fused multiply-add, so one rounding is the
//!   only one after the polynomial.
//!
//! Together the fits leave under 2^-31 in the log domain (checked when the tables are built),
//! so at F = 23 every result is within 0.503 ulp (certified over every input: `sigpu lns
//! certify --method f64poly`; degree 4 for q would give 0.5002 ulp for 5% more time). The scalar code here is the reference; the AVX-512 and AVX2 paths do the
//! same f64 operations in the same order, so their words are equal (tested).

use crate::arith::AddSub;
use crate::error::LnsError;
use crate::format::{pow2, Format};
use sigpu_fnapprox::{minimax, FitError};
use sigpu_runtime::host::{CpuArch, Isa};

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;

/// The instruction set [`F64Poly`] adds and evaluates with, chosen from a [`CpuArch`] and the
/// format: the widest the CPU runs (never more than it has, whatever `arch` describes) among
/// those this module has code for, each offered only where its module's own feature test
/// holds, and only for a format the vector paths take.
fn best_isa(arch: &CpuArch, vector_format: bool) -> Isa {
    let arch = arch.within_host();
    let mut offered = vec![Isa::Scalar];
    #[cfg(target_arch = "x86_64")]
    if vector_format {
        offered.extend(avx512::available(&arch).then_some(Isa::Avx512));
        offered.extend(avx2::available(&arch).then_some(Isa::Avx2Fma));
    }
    let _ = vector_format;
    Isa::best_of(&arch, &offered)
}

/// Redoes with the scalar add the lanes a block of vectors flagged (specials, exact
/// cancellation, out-of-range results): bit j of `flags[g]` marks word `start + width·g + j`.
#[cfg(target_arch = "x86_64")]
fn redo_flagged(
    m: &F64Poly,
    a: &[u32],
    b: &[u32],
    out: &mut [u32],
    start: usize,
    width: usize,
    flags: &[u8],
) {
    for (g, &lanes) in flags.iter().enumerate() {
        let mut lanes = lanes;
        while lanes != 0 {
            let k = start + width * g + lanes.trailing_zeros() as usize;
            out[k] = m.format.add(m, a[k], b[k]);
            lanes &= lanes - 1;
        }
    }
}

/// Degrees of q and P (module notes): the lowest that keep the error under 2^-31.
const Q_DEGREE: usize = 3;
const P_DEGREE: usize = 4;

/// Tables and coefficients for one format.
#[derive(Clone, Debug)]
pub struct F64Poly {
    format: Format,
    /// Fraction bits of 16 z: u = (−z mod 2^split) · 2^-split (F − 4; 0 when F < 4).
    split: u32,
    /// 2^F: the scale of codes.
    unit: f64,
    /// T[k] = 2^(k/16).
    exp2_sixteenths: [f64; 16],
    /// R[i] = 1 / (1 + i/16).
    recip: [f64; 16],
    /// −log2(R[i]) · 2^F.
    log2_start: [f64; 16],
    /// q(u) ≈ (1 − 2^(−u/16)) / u on [0, 1], ascending degree, with u's scale folded in:
    /// coefficient j times 2^(−split·(j + 1)), so π = w · Q(w) for the integer w = u · 2^split
    /// (powers of two: the same bits as u · q(u)).
    q: [f64; Q_DEGREE + 1],
    /// P(t) · 2^F ≈ 2^F · log2(1 + t) / t on [0, 1/16], ascending degree.
    p: [f64; P_DEGREE + 1],
    /// The vector path (or none) adds and batches of codes run on.
    path: Isa,
}

/// Horner with fused multiply-adds, highest degree first (the order every path uses).
#[inline(always)]
fn horner<const N: usize>(c: &[f64; N], x: f64) -> f64 {
    let mut acc = c[N - 1];
    for &cj in c[..N - 1].iter().rev() {
        acc = acc.mul_add(x, cj);
    }
    acc
}

/// The mantissa and exponent fields of an f64.
const FRACTION: u64 = (1 << 52) - 1;
const EXP_ONE: u64 = 1023 << 52;

impl F64Poly {
    /// The tables for `format` (fits two degree-4 polynomials: microseconds), with the vector
    /// path this CPU has.
    pub fn new(format: Format) -> Result<F64Poly, LnsError> {
        F64Poly::with_arch(format, CpuArch::host())
    }

    /// The tables for `format`, with the vector path `arch` has ([`CpuArch::scalar`]: none).
    pub fn with_arch(format: Format, arch: CpuArch) -> Result<F64Poly, LnsError> {
        use std::f64::consts::LN_2;
        let f = format.frac_bits as i32;
        let q_fit = minimax(
            &|u: f64| {
                if u == 0.0 {
                    LN_2 / 16.0
                } else {
                    -(-u * LN_2 / 16.0).exp_m1() / u
                }
            },
            Q_DEGREE,
        );
        // P in s = 16 t on [0, 1], then rescaled to t (powers of two: exact).
        let p_fit = minimax(
            &|s: f64| {
                if s == 0.0 {
                    1.0 / LN_2
                } else {
                    (s / 16.0).ln_1p() / (s / 16.0) / LN_2
                }
            },
            P_DEGREE,
        );
        // The error both fits leave in log2 v: q's relative error (q ≥ ln2/16 · 2^(−1/16))
        // times 1/ln 2, and P's times |t| < 1/16. A failed fit would leave far more.
        let q_min = LN_2 / 16.0 * (-1.0f64 / 16.0).exp2();
        let log_error = q_fit.max_error / q_min / LN_2 + p_fit.max_error / 16.0;

        if log_error > pow2(-31) {
            return Err(FitError::Invalid(format!(
                "f64poly fits: q error {:e}, P error {:e}",
                q_fit.max_error, p_fit.max_error
            ))
            .into());
        }
        let split = format.frac_bits.saturating_sub(4);
        let q = std::array::from_fn(|j| q_fit.coeffs[j] * pow2(-(split as i32) * (j as i32 + 1)));
        let p = std::array::from_fn(|j| p_fit.coeffs[j] * pow2(4 * j as i32 + f));
        let exp2_sixteenths = std::array::from_fn(|k| (k as f64 / 16.0).exp2());
        let recip: [f64; 16] = std::array::from_fn(|i| 16.0 / (16.0 + i as f64));
        let log2_start = std::array::from_fn(|i| -recip[i].log2() * pow2(f));
        Ok(F64Poly {
            format,
            split,
            unit: pow2(f),
            exp2_sixteenths,
            recip,
            log2_start,
            q,
            p,
            path: best_isa(&arch, vector_format(format)),
        })
    }

    /// s_b (`negate` false) or d_b (true) at code z, z0 ≤ z ≤ 0 (z < 0 for d_b), as a code.
    #[inline(always)]
    fn eval(&self, z: i64, negate: bool) -> i64 {
        self.eval_unrounded(z, negate).round_ties_even() as i64
    }

    /// `eval` before its final rounding, in codes (what the vector paths' tests compare bit
    /// for bit: a difference there would rarely show in the rounded code).
    #[inline(always)]
    fn eval_unrounded(&self, z: i64, negate: bool) -> f64 {
        // 16·|z| = −j + u: j = ⌈16 z⌉, and u · 2^split = w, an integer.
        let neg = -z;
        let (jn, w) = match self.format.frac_bits.checked_sub(4) {
            Some(split) => (-(neg >> split), (neg & ((1 << split) - 1)) as f64),
            None => (-(neg << (4 - self.format.frac_bits)), 0.0),
        };
        let y = f64::from_bits(
            self.exp2_sixteenths[(jn & 15) as usize]
                .to_bits()
                .wrapping_add(((jn >> 4) << 52) as u64),
        );
        let s = if negate { -y } else { y };
        let pi = w * horner(&self.q, w);
        let v = (-s).mul_add(pi, 1.0 + s);
        let bits = v.to_bits();
        let e = (bits >> 52) as i64 - 1023;
        let m = f64::from_bits(bits & FRACTION | EXP_ONE);
        let i = ((bits >> 48) & 15) as usize;
        let t = m.mul_add(self.recip[i], -1.0);
        let frac = horner(&self.p, t).mul_add(t, self.log2_start[i]);
        // e · 2^F is exact: one rounding of the sum, then `eval` rounds it to a code.
        (e as f64).mul_add(self.unit, frac)
    }
}

/// Whether the vector paths take `format`: 32-bit lanes hold every code and result
/// (|d_b| < 2^(F + 5) ≤ 2^29 for F ≤ 24), and F ≥ 4 (16 z has fraction bits).
fn vector_format(format: Format) -> bool {
    format.log_bits() <= 31 && (4..=24).contains(&format.frac_bits)
}

/// Runs the instruction-set module's `$f` for the path chosen at construction, or `$scalar`.
///
/// SAFETY: `self.path` is a vector path only where `available` held for the `CpuArch` it was
/// chosen from, and only for a format `vector_format` takes: the one place the vector entry
/// points are called.
macro_rules! on_path {
    ($self:ident, $f:ident($($arg:expr),*), $scalar:block) => {
        match $self.path {
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => unsafe { avx512::$f($self, $($arg),*) },
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2Fma => unsafe { avx2::$f($self, $($arg),*) },
            _ => $scalar,
        }
    };
}

impl AddSub for F64Poly {
    fn format(&self) -> Format {
        self.format
    }

    fn sb(&self, z: i64) -> i64 {
        if z < self.format.essential_zero_code() {
            0
        } else {
            self.eval(z, false)
        }
    }

    fn db(&self, z: i64) -> i64 {
        if z < self.format.essential_zero_code() {
            0
        } else {
            self.eval(z, true)
        }
    }

    fn eval_codes(&self, db: bool, zs: &[i64], out: &mut [i64]) {
        on_path!(self, eval_codes(db, zs, out), {
            for (o, &z) in out.iter_mut().zip(zs) {
                *o = if db { self.db(z) } else { self.sb(z) };
            }
        })
    }

    fn add_words(&self, a: &[u32], b: &[u32], out: &mut [u32]) {
        on_path!(self, add_words(a, b, out), {
            for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
                *o = self.format.add(self, x, y);
            }
        })
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::certify::{certify, Which};
    use crate::value::Class;
    use rand::{Rng, SeedableRng};

    /// Random add operands with specials, range ends, x + (−x), x + x and d_b at the pole
    /// (shared with the f64-table tests).
    pub(crate) fn pairs(format: Format, n: usize, seed: u64) -> (Vec<u32>, Vec<u32>) {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let specials = [
            format.zero(),
            format.nan(),
            format.encode(Class::Inf { negative: false }),
            format.encode(Class::Inf { negative: true }),
        ];
        let f = format.frac_bits;
        let mut word = || -> u32 {
            let log = match rng.random_range(0..10) {
                0 => return specials[rng.random_range(0..4)],
                1 => format.max_code() - rng.random_range(0..4i64 << f),
                2 => format.min_code() + rng.random_range(0..4i64 << f),
                3 => rng.random_range(-8..8) << f,
                _ => rng.random_range(-(6i64 << f)..6i64 << f),
            };
            format.encode(Class::Finite {
                negative: rng.random(),
                log,
            })
        };
        let a: Vec<u32> = (0..n).map(|_| word()).collect();
        let mut b: Vec<u32> = (0..n).map(|_| word()).collect();
        for i in (0..n).step_by(13) {
            b[i] = format.neg(a[i]); // x + (−x)
        }
        for i in (5..n).step_by(17) {
            b[i] = a[i]; // x + x: z = 0
        }
        for i in (7..n).step_by(19) {
            // d_b right at the pole: |x| and |y| one to a few codes apart.
            let x = format.decode(a[i]);
            if let Class::Finite { negative, log } = x {
                b[i] = format.encode(Class::Finite {
                    negative: !negative,
                    log: log - 1 - (i as i64 % 5),
                });
            }
        }
        (a, b)
    }

    fn formats() -> [Format; 4] {
        [
            Format::LNS32,
            Format::LNS16,
            Format::new(7, 16).unwrap(),
            Format::new(3, 2).unwrap(),
        ]
    }

    /// Each vector path the CPU has gives the scalar `Format::add`'s word for every pair.
    #[test]
    fn vector_adds_equal_the_scalar_reference() {
        for format in formats() {
            let m = F64Poly::new(format).unwrap();
            let (a, b) = pairs(format, 20_003, 7);
            let want: Vec<u32> = a
                .iter()
                .zip(&b)
                .map(|(&x, &y)| format.add(&m, x, y))
                .collect();
            let mut paths: Vec<(&str, Vec<u32>)> = Vec::new();
            let mut out = vec![0; a.len()];
            m.add_words(&a, &b, &mut out);
            paths.push(("dispatch", out.clone()));
            #[cfg(target_arch = "x86_64")]
            if vector_format(format) {
                if avx512::available(&CpuArch::host()) {
                    // SAFETY: checked just above.
                    unsafe { avx512::add_words(&m, &a, &b, &mut out) };
                    paths.push(("avx512", out.clone()));
                }
                if avx2::available(&CpuArch::host()) {
                    // SAFETY: checked just above.
                    unsafe { avx2::add_words(&m, &a, &b, &mut out) };
                    paths.push(("avx2", out.clone()));
                }
            }
            for (path, got) in paths {
                for i in 0..a.len() {
                    assert_eq!(got[i], want[i], "{path} {format} {:#x} + {:#x}", a[i], b[i]);
                }
            }
        }
    }

    /// The batch evaluator (what certificates run) equals `sb`/`db` on every path, including
    /// codes below the essential zero and far beyond 32 bits.
    #[test]
    fn vector_evaluators_equal_the_scalar_reference() {
        for format in formats() {
            let m = F64Poly::new(format).unwrap();
            let z0 = format.essential_zero_code();
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
            let mut zs: Vec<i64> = (0..4099).map(|_| rng.random_range(z0 - 3..0)).collect();
            zs.extend([-1, -2, z0, z0 - 1, i64::MIN / 2, -(1 << 40)]);
            zs.extend((1..64).map(|k| -(k << format.frac_bits.saturating_sub(4)).max(1)));
            for db in [false, true] {
                let want: Vec<i64> = zs
                    .iter()
                    .map(|&z| if db { m.db(z) } else { m.sb(z) })
                    .collect();
                let mut got = vec![0; zs.len()];
                m.eval_codes(db, &zs, &mut got);
                assert_eq!(got, want, "{format} db={db} dispatch");
                #[cfg(target_arch = "x86_64")]
                if vector_format(format) {
                    if avx512::available(&CpuArch::host()) {
                        // SAFETY: checked just above.
                        unsafe { avx512::eval_codes(&m, db, &zs, &mut got) };
                        assert_eq!(got, want, "{format} db={db} avx512");
                    }
                    if avx2::available(&CpuArch::host()) {
                        // SAFETY: checked just above.
                        unsafe { avx2::eval_codes(&m, db, &zs, &mut got) };
                        assert_eq!(got, want, "{format} db={db} avx2");
                    }
                }
            }
        }
    }

    /// The vector evaluators' values before the final rounding equal the scalar's, bit for bit,
    /// for both functions over a spread of lns32 and lns16 inputs (the rounded codes alone
    /// would hide most differences in the last bits).
    #[test]
    fn vector_values_before_rounding_equal_the_scalar_reference() {
        #[cfg(target_arch = "x86_64")]
        for format in [Format::LNS32, Format::LNS16] {
            let m = F64Poly::new(format).unwrap();
            let far = -format.essential_zero_code();
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
            let mut negs: Vec<i32> = (0..20_000)
                .map(|_| rng.random_range(1..=far) as i32)
                .collect();
            negs.extend((1..2000).chain(far as i32 - 100..=far as i32));
            negs.truncate(negs.len() / 8 * 8);
            for db in [false, true] {
                let want: Vec<u64> = negs
                    .iter()
                    .map(|&n| m.eval_unrounded(-(n as i64), db).to_bits())
                    .collect();
                let mut got = vec![0.0; negs.len()];
                if avx512::available(&CpuArch::host()) {
                    // SAFETY: checked just above.
                    unsafe { avx512::unrounded(&m, db, &negs, &mut got) };
                    assert!(
                        got.iter().map(|g| g.to_bits()).eq(want.iter().copied()),
                        "avx512"
                    );
                }
                if avx2::available(&CpuArch::host()) {
                    // SAFETY: checked just above.
                    unsafe { avx2::unrounded(&m, db, &negs, &mut got) };
                    assert!(
                        got.iter().map(|g| g.to_bits()).eq(want.iter().copied()),
                        "avx2"
                    );
                }
            }
        }
    }

    /// Exhaustive on small formats: faithful and almost always correctly rounded.
    #[test]
    fn faithful_on_every_input_of_small_formats() {
        for format in [
            Format::LNS16,
            Format::new(4, 12).unwrap(),
            Format::new(3, 2).unwrap(),
        ] {
            let m = F64Poly::new(format).unwrap();
            for func in [Which::Sb, Which::Db] {
                let c = certify(&m, func, "f64poly", &|_| {});
                assert!(c.faithful && c.max_error_ulps < 0.5 + 1e-6, "{c:?}");
            }
        }
    }

    /// lns32 sampled (the exhaustive certificate is `sigpu lns certify --format lns32
    /// --method f64poly`): every 97th input, plus the 2^16 inputs nearest the pole of d_b.
    #[test]
    fn lns32_sampled_errors_stay_within_the_fits_bound() {
        let format = Format::LNS32;
        let m = F64Poly::new(format).unwrap();
        for func in [Which::Sb, Which::Db] {
            let inputs = func.inputs(format);
            let zs: Vec<i64> = inputs
                .clone()
                .step_by(97)
                .chain((*inputs.end() - (1 << 16)).max(*inputs.start())..=*inputs.end())
                .collect();
            let mut got = vec![0; zs.len()];
            m.eval_codes(func == Which::Db, &zs, &mut got);
            let worst = zs
                .iter()
                .zip(&got)
                .map(|(&z, &g)| (g as f64 - func.exact(format, z)).abs())
                .fold(0.0, f64::max);
            // The fits' bound, 2^-31 in the log domain, is 2^-8 ulp at F = 23.
            assert!(worst < 0.5 + pow2(-8), "{func:?}: {worst} ulp");
        }
    }
}
