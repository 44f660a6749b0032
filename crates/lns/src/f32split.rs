//! `f32split`: a faithful s_b / d_b for lns32 in f32 arithmetic alone (no FP64), and the CPU
//! twin of its GPU kernel (`kernels/lns.cu`, `split_*`), bit for bit.
//!
//! f32 cannot hold s_b(z) · 2^F to within half a code once the value passes 2^22 codes (its
//! ulp there is half a code), so the f32 Horner methods stay ~1 ulp off at F = 23. Here each
//! segment's polynomial is split: its constant term c0, in codes, is held as the integer
//! K = round(128 · c0), i.e. an exact integer part C = ⌊K / 128⌋ and a fraction
//! a0 = (K mod 128) / 128 (within 2^-8 codes of c0), so the f32 part only carries the variation
//! within the segment (≤ 2^18 codes at F = 23, where the f32 ulp is 2^-6 codes):
//!
//!   code = C + round(a0 + s·(a1 + s·(a2 + s·a3))),   s ∈ [0, 1) the local variable,
//!
//! three FMAs in f32 (a0 enters as the f32 1 + a0, built from K's low bits, and the 1 is taken
//! back from C), the rounding to an integer by adding 1.5 · 2^23 (exact round-to-nearest-even
//! for |p| < 2^22), and one integer add. Every f32 operation is a correctly rounded IEEE
//! operation (fmaf, add), and the local variable is exact (built from the code's bits), so the
//! CPU reproduces the kernel bit for bit and certifies it over every input.
//!
//! Geometry (as [`crate::tables`]): far segments of 2^(F−5) codes (32 per unit of z) from below
//! the essential zero to 0 for s_b and for d_b at z ≤ −1, plus one extra segment past the end
//! so z = 0 (s_b) needs no clamp; near the pole, −1 < z < 0, d_b(z) = (e − F) + log2 m + h(z)
//! with |z| = 2^(e−F)·m, the integer e − F exact, log2 m from 64 segments of [1, 2) and h from
//! 32 segments of [−1, 0]: both split the same way, their residual polynomials added in f32
//! before the one rounding. Degree 3 everywhere: degree 2 would need 256 segments per unit near
//! z = −1, where d_b''' ≈ 3.
//!
//! A segment is 4 words, `[K as i32, a1, a2, a3]`: 16 bytes, one vector load on the GPU (a
//! layout with C and an f32 a0 apart took two loads: 958 against 1,045 G evals/s on the H100).
//!
//! Certified over every lns32 input (CPU and H100 alike, the same codes): s_b within 0.5131
//! ulp, d_b within 0.5405 ulp, 99.8% correctly rounded (a fit above 0.05 codes is refused;
//! the f32 roundings of the residual and a0's 2^-8 codes add to it).

use crate::arith::{db_f64, AddSub};
use crate::error::LnsError;
use crate::format::Format;
use sigpu_fnapprox::{minimax, FitError};

/// Words per segment record.
pub const RECORD: usize = 4;
/// Degree of every segment polynomial.
const DEGREE: usize = 3;
/// log2 of far (and h) segments per unit of z.
const PER_UNIT_BITS: u32 = 5;
/// log2 of the log2 m segments over [1, 2).
pub const LOG2M_BITS: u32 = 6;
/// 1.5 · 2^23: adding it rounds an f32 of magnitude < 2^22 to an integer (ties to even),
/// which then sits in the low mantissa bits.
const MAGIC: f32 = 12_582_912.0;

/// The split tables of one format.
#[derive(Clone, Debug)]
pub struct F32Split {
    format: Format,
    /// Codes per far (and near h) segment: 2^shift.
    pub shift: u32,
    /// Far segments ending at z = 0 (the tables hold one more).
    pub far_segments: usize,
    /// s_b, d_b (z ≤ −1), h(z) on [−1, 0], log2 m on [1, 2): records of [`RECORD`] words.
    pub tables: [Vec<u32>; 4],
}

/// (x mod 2^b) · 2^-b as the kernel builds it: the bits as an f32 mantissa, minus 1 (exact).
#[inline(always)]
fn unit_frac(x: u32, b: u32) -> f32 {
    let mantissa = if b == 0 {
        0
    } else {
        (x << (23 - b)) & 0x7f_ffff
    };
    f32::from_bits(0x3f80_0000 | mantissa) - 1.0
}

/// The record's integer part and f32 residual polynomial at s (what the kernel's
/// `split_read` returns).
#[inline(always)]
fn read(table: &[u32], w: usize, s: f32) -> (i32, f32) {
    let r = &table[w * RECORD..(w + 1) * RECORD];
    let a = |j: usize| f32::from_bits(r[j]);
    let k = r[0] as i32;
    // 1 + (K mod 128) / 128, exact; its 1 comes off the integer part.
    let one_a0 = f32::from_bits(0x3f80_0000 | ((r[0] << 16) & 0x7f_0000));
    let p = a(3).mul_add(s, a(2)).mul_add(s, a(1)).mul_add(s, one_a0);
    ((k >> 7) - 1, p)
}

/// round(p), ties to even, for |p| < 2^22, by the kernel's magic add.
#[inline(always)]
fn round_small(p: f32) -> i32 {
    ((p + MAGIC).to_bits() as i32) - 0x4b40_0000
}

/// One segment record for g on [0, 1] (g in codes).
fn record(g: &dyn Fn(f64) -> f64) -> Result<[u32; RECORD], FitError> {
    let fit = minimax(g, DEGREE);
    // A NaN error (a failed fit) is refused too.
    if fit.max_error.is_nan() || fit.max_error >= 0.05 {
        return Err(FitError::Invalid(format!(
            "f32split segment fit error {:e} codes",
            fit.max_error
        )));
    }
    // |c0| ≤ 2^23 codes (s_b(0) = 1 at F = 23), so 128 · c0 fits an i32.
    let k = (fit.coeffs[0] * 128.0).round_ties_even();
    if k.abs() >= 2_147_483_648.0 {
        return Err(FitError::Invalid(format!(
            "f32split constant {k} / 128 codes"
        )));
    }
    let mut r = [0u32; RECORD];
    r[0] = (k as i32) as u32;
    for (slot, c) in r[1..].iter_mut().zip(&fit.coeffs[1..=DEGREE]) {
        *slot = (*c as f32).to_bits();
    }
    Ok(r)
}

impl F32Split {
    /// Whether `format` has tables: 5 ≤ F ≤ 23 (the local variables and m are built from f32
    /// mantissa bits, and far segments hold 2^(F − 5) codes).
    pub fn takes(format: Format) -> bool {
        (PER_UNIT_BITS..=23).contains(&format.frac_bits)
    }

    /// The tables for `format`, one that [`F32Split::takes`].
    pub fn new(format: Format) -> Result<F32Split, LnsError> {
        let f = format.frac_bits;
        if !F32Split::takes(format) {
            return Err(LnsError::Unsupported(format!(
                "f32split takes formats with 5 ≤ F ≤ 23, not {format}"
            )));
        }
        let shift = f - PER_UNIT_BITS;
        let ulp = format.ulp();
        let unit = 1.0 / ulp;
        let far_segments = ((-format.essential_zero_code()) as usize).div_ceil(1 << shift);
        let seg = (1u64 << shift) as f64 * ulp;
        let far_lo = -(far_segments as f64) * seg;
        let per_unit = 1usize << PER_UNIT_BITS;
        let mut sb = Vec::with_capacity((far_segments + 1) * RECORD);
        let mut db = Vec::with_capacity((far_segments + 1) * RECORD);
        for w in 0..=far_segments {
            let lo = far_lo + w as f64 * seg;
            sb.extend(record(&|s| crate::arith::sb_f64(lo + s * seg) * unit)?);
            // d_b far is read for z ≤ −1 only: segments starting at or below −1.
            if w <= far_segments - per_unit {
                db.extend(record(&|s| db_f64(lo + s * seg) * unit)?);
            } else {
                db.extend([0u32; RECORD]);
            }
        }
        let h = |z: f64| {
            if z == 0.0 {
                std::f64::consts::LN_2.log2()
            } else {
                db_f64(z) - (-z).log2()
            }
        };
        let mut near = Vec::with_capacity(per_unit * RECORD);
        for w in 0..per_unit {
            let lo = -1.0 + w as f64 / per_unit as f64;
            near.extend(record(&|s| h(lo + s / per_unit as f64) * unit)?);
        }
        let m_segments = 1usize << LOG2M_BITS;
        let mut log2m = Vec::with_capacity(m_segments * RECORD);
        for w in 0..m_segments {
            let lo = 1.0 + w as f64 / m_segments as f64;
            log2m.extend(record(&|s| (lo + s / m_segments as f64).log2() * unit)?);
        }
        Ok(F32Split {
            format,
            shift,
            far_segments,
            tables: [sb, db, near, log2m],
        })
    }

    /// s_b (db false) or far d_b at z0 ≤ z ≤ 0 (z ≤ −2^F for d_b).
    fn far(&self, z: i32, db: bool) -> i32 {
        let u = (z + ((self.far_segments as i32) << self.shift)) as u32;
        let w = (u >> self.shift) as usize;
        let (c, p) = read(&self.tables[db as usize], w, unit_frac(u, self.shift));
        c + round_small(p)
    }

    /// d_b at −2^F < z < 0: (e − F)·2^F + log2 m + h(z).
    fn near(&self, z: i32) -> i32 {
        let f = self.format.frac_bits;
        let k = (-z) as u32;
        let e = 31 - k.leading_zeros();
        // m's 23 fraction bits (exact: k < 2^F ≤ 2^23).
        let mant = (k << (23 - e)) & 0x7f_ffff;
        let mw = (mant >> (23 - LOG2M_BITS)) as usize;
        let ms = unit_frac(mant, 23 - LOG2M_BITS);
        let u = (z + (1 << f)) as u32;
        let hw = (u >> self.shift) as usize;
        let hs = unit_frac(u, self.shift);
        let (cm, pm) = read(&self.tables[3], mw, ms);
        let (ch, ph) = read(&self.tables[2], hw, hs);
        ((e as i32 - f as i32) << f) + cm + ch + round_small(pm + ph)
    }

    fn eval(&self, z: i64, db: bool) -> i64 {
        if z < self.format.essential_zero_code() {
            return 0;
        }
        let z = z as i32;
        (if db && z > -(1 << self.format.frac_bits) {
            self.near(z)
        } else {
            self.far(z, db)
        }) as i64
    }
}

impl AddSub for F32Split {
    fn format(&self) -> Format {
        self.format
    }

    fn sb(&self, z: i64) -> i64 {
        self.eval(z, false)
    }

    fn db(&self, z: i64) -> i64 {
        self.eval(z, true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::certify::{certify, Which};
    use rand::{Rng, SeedableRng};

    #[test]
    fn faithful_on_lns16_over_every_input() {
        let m = F32Split::new(Format::LNS16).unwrap();
        for func in [Which::Sb, Which::Db] {
            let c = certify(&m, func, "f32split", &|_| {});
            assert!(c.faithful, "{c:?}");
        }
    }

    /// lns32 over a stratified sample: both ends, every segment boundary ± 2 codes, the
    /// near/far switch, and random codes (the exhaustive certificate is `sigpu lns certify
    /// --format lns32 --method f32split`, or the ignored test below).
    #[test]
    fn within_the_faithful_budget_on_lns32_samples() {
        let format = Format::LNS32;
        let m = F32Split::new(format).unwrap();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        for func in [Which::Sb, Which::Db] {
            let inputs = func.inputs(format);
            let (lo, hi) = (*inputs.start(), *inputs.end());
            let mut zs: Vec<i64> = (0..200_000).map(|_| rng.random_range(lo..=hi)).collect();
            let mut b = hi;
            while b > lo {
                zs.extend((b - 2..=b + 2).filter(|z| inputs.contains(z)));
                b -= 1 << m.shift;
            }
            zs.extend((0..64).map(|i| -(1i64 << 23) + i - 32));
            zs.extend(hi - 4096..=hi);
            zs.extend(lo..lo + 4096);
            let mut worst: f64 = 0.0;
            for &z in &zs {
                let got = func.eval(&m, z) as f64;
                worst = worst.max((got - func.exact(format, z)).abs());
            }
            assert!(worst < 0.75, "{func:?}: {worst} ulp");
        }
    }

    #[test]
    #[ignore = "exhaustive lns32 certificate: ~411 M inputs, minutes on 2 cores"]
    fn faithful_on_lns32_over_every_input() {
        let m = F32Split::new(Format::LNS32).unwrap();
        for func in [Which::Sb, Which::Db] {
            let c = certify(&m, func, "f32split", &|_| {});
            eprintln!("{c:?}");
            assert!(c.faithful, "{c:?}");
        }
    }

    #[test]
    fn refuses_formats_beyond_its_bit_tricks() {
        assert!(F32Split::new(Format::new(4, 27).unwrap()).is_err());
        assert!(F32Split::new(Format::new(3, 2).unwrap()).is_err());
    }
}

#[cfg(test)]
mod export_for_harness {
    use super::*;
    use crate::certify::Which;
    use std::io::Write;

    fn mix(i: u64) -> u64 {
        let mut z = i.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn put(dir: &str, name: &str, words: &[u32]) {
        let mut f = std::fs::File::create(format!("{dir}/{name}")).unwrap();
        for w in words {
            f.write_all(&w.to_le_bytes()).unwrap();
        }
    }

    #[test]
    #[ignore = "writes the standalone GPU harness's inputs"]
    fn export() {
        let dir = std::env::var("F32SPLIT_EXPORT").unwrap();
        let format = Format::LNS32;
        let m = F32Split::new(format).unwrap();
        let geo = [
            format.frac_bits,
            m.shift,
            m.far_segments as u32,
            m.shift,
            LOG2M_BITS,
            format.essential_zero_code() as i32 as u32,
            format.log_bits(),
        ];
        put(&dir, "geo.bin", &geo);
        for (i, t) in m.tables.iter().enumerate() {
            put(&dir, &format!("t{i}.bin"), t);
        }
        let mut sums = Vec::new();
        for func in [Which::Sb, Which::Db] {
            let inputs = func.inputs(format);
            let start = *inputs.start();
            let h = inputs
                .clone()
                .map(|z| {
                    let c = func.eval(&m, z) as i32 as u32 as u64;
                    c.wrapping_mul(mix((z - start) as u64))
                })
                .fold(0u64, u64::wrapping_add);
            sums.push(start as u64);
            sums.push(inputs.count() as u64);
            sums.push(h);
        }
        let words: Vec<u32> = sums
            .iter()
            .flat_map(|&s| [s as u32, (s >> 32) as u32])
            .collect();
        put(&dir, "sums.bin", &words);
        let (a, b) = crate::poly::tests::pairs(format, (1 << 18) + 3, 11);
        let add: Vec<u32> = a
            .iter()
            .zip(&b)
            .map(|(&x, &y)| format.add(&m, x, y))
            .collect();
        let sub: Vec<u32> = a
            .iter()
            .zip(&b)
            .map(|(&x, &y)| format.sub(&m, x, y))
            .collect();
        let mul: Vec<u32> = a.iter().zip(&b).map(|(&x, &y)| format.mul(x, y)).collect();
        for (name, v) in [
            ("a", &a),
            ("b", &b),
            ("add", &add),
            ("sub", &sub),
            ("mul", &mul),
        ] {
            put(&dir, &format!("{name}.bin"), v);
        }
    }
}
