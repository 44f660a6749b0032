//! Elementary functions written only with IEEE-754 basic operations (+, −, ×, /, √, floor and
//! bit manipulation), each correctly rounded on every conforming machine: the same f64
//! operations in the same order give the same bits on an x86 CPU and on a CUDA GPU.
//!
//! libm's `exp`, `ln`, `sin` and `cos` differ between the CPU's libm and CUDA's (both are
//! faithful, neither is correctly rounded), so a frame made with them on the GPU would not be
//! the CPU's frame. These replacements are the frame chain's only transcendental functions;
//! `kernels/ldpc_portable_math.cuh` is the same code line for line, written with
//! `__dadd_rn` / `__dsub_rn` / `__dmul_rn` / `__ddiv_rn` / `__dsqrt_rn`, which the CUDA
//! compiler never contracts into fused multiply-adds (Rust never contracts either). No
//! fused multiply-add is used, on purpose: without hardware FMA the CPU would call a slow
//! software `fma`.
//!
//! Accuracy against f64 libm on dense grids (errors in units of 2⁻⁵² relative; the unit tests
//! assert the bounds, the measured worst case in brackets): [`exp`] on [−708, 0] within 2
//! (1.0), [`ln`] over [2⁻⁵³, 8) within 2.5 (2.0; absolute near 1), [`ln_1p`] on [0, 8] within
//! 3.5 (2.7), [`sincos_turns`] within 1e-15 absolute (7.2e-16, most of it the rounding of
//! libm's own argument 2πt). Gaussian samples ([`gauss_pair`]) agree with libm's Box–Muller
//! to 1e-14 relative; the LLRs with the libm demapper to 1e-12 (tested in `sim::chain`).

/// ln 2 split in two: `LN2_HI` has 32 significant bits, so k · LN2_HI is exact for |k| < 2²¹
/// (fdlibm's split).
const LN2_HI: u64 = 0x3FE6_2E42_FEE0_0000;
const LN2_LO: u64 = 0x3DEA_39EF_3579_3C76;
// std's constants; the kernel spells them 1.4426950408889634 and 1.5707963267948966 (the
// same doubles, a unit test checks).
use std::f64::consts::{FRAC_PI_2, LOG2_E};
/// Below this, [`exp`] returns 0 (e^−708 ≈ 3e-308, the bottom of the normal numbers): the
/// frame chain only adds these to 1 or larger.
pub const EXP_UNDERFLOW: f64 = -708.0;

/// e^x for x ≤ 0 (0 below [`EXP_UNDERFLOW`]; positive x are outside the contract).
pub fn exp(x: f64) -> f64 {
    if x < EXP_UNDERFLOW {
        return 0.0;
    }
    // x = k ln 2 + r, |r| ≤ ln 2 / 2 (+ rounding).
    let k = (x * LOG2_E + 0.5).floor();
    let r = (x - k * f64::from_bits(LN2_HI)) - k * f64::from_bits(LN2_LO);
    // Taylor to r¹³: the remainder is below 0.347¹⁴/14! ≈ 4e-18.
    let mut p = 1.0 / 6_227_020_800.0;
    for d in [
        479_001_600.0,
        39_916_800.0,
        3_628_800.0,
        362_880.0,
        40_320.0,
        5_040.0,
        720.0,
        120.0,
        24.0,
        6.0,
        2.0,
        1.0,
        1.0,
    ] {
        p = p * r + 1.0 / d;
    }
    // 2^k for k ≥ −1022 (x ≥ −708 gives k ≥ −1021).
    let scale = f64::from_bits(((k as i64 + 1023) as u64) << 52);
    p * scale
}

/// ln x for positive normal x (0 and subnormals are outside the contract).
pub fn ln(x: f64) -> f64 {
    let bits = x.to_bits();
    let mut e = ((bits >> 52) & 0x7ff) as i64 - 1023;
    let mut m = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000);
    // m in [√½, √2).
    if m > std::f64::consts::SQRT_2 {
        m *= 0.5;
        e += 1;
    }
    // ln m = 2 atanh s, s = (m − 1)/(m + 1), |s| ≤ 0.1716: 2(s + s³/3 + … + s²³/23), the
    // remainder below 0.0295¹²/25 ≈ 2e-20.
    let s = (m - 1.0) / (m + 1.0);
    let z = s * s;
    let mut p = 1.0 / 23.0;
    for d in [21.0, 19.0, 17.0, 15.0, 13.0, 11.0, 9.0, 7.0, 5.0, 3.0, 1.0] {
        p = p * z + 1.0 / d;
    }
    let ef = e as f64;
    ef * f64::from_bits(LN2_HI) + (2.0 * s * p + ef * f64::from_bits(LN2_LO))
}

/// ln(1 + z) for z ≥ 0, without the cancellation of ln(1 + z) for small z (the
/// rounding of 1 + z is corrected by z / (u − 1)).
pub fn ln_1p(z: f64) -> f64 {
    let u = 1.0 + z;
    if u == 1.0 {
        return z;
    }
    ln(u) * (z / (u - 1.0))
}

/// (cos 2πt, sin 2πt) for t in [0, 1).
pub fn sincos_turns(t: f64) -> (f64, f64) {
    // Quadrant and the fraction f in [0, 1) of a quarter turn: both exact.
    let t4 = t * 4.0;
    let q = t4.floor();
    let f = t4 - q;
    // Fold f to h in [0, ½]: sin(π/2 f) = cos(π/2 (1 − f)), 1 − f exact for f ≥ ½.
    let upper = f > 0.5;
    let h = if upper { 1.0 - f } else { f };
    let a = h * FRAC_PI_2;
    let a2 = a * a;
    // a ≤ π/4: Taylor to a¹⁷ (sin) and a¹⁸ (cos), remainders below 2e-19.
    let mut s = 1.0 / 355_687_428_096_000.0;
    for d in [
        -1_307_674_368_000.0,
        6_227_020_800.0,
        -39_916_800.0,
        362_880.0,
        -5_040.0,
        120.0,
        -6.0,
        1.0,
    ] {
        s = s * a2 + 1.0 / d;
    }
    let sin_a = s * a;
    let mut c = -1.0 / 6_402_373_705_728_000.0;
    for d in [
        20_922_789_888_000.0,
        -87_178_291_200.0,
        479_001_600.0,
        -3_628_800.0,
        40_320.0,
        -720.0,
        24.0,
        -2.0,
        1.0,
    ] {
        c = c * a2 + 1.0 / d;
    }
    let cos_a = c;
    // (cos, sin) of π/2 f.
    let (cf, sf) = if upper {
        (sin_a, cos_a)
    } else {
        (cos_a, sin_a)
    };
    match q as u32 {
        0 => (cf, sf),
        1 => (-sf, cf),
        2 => (-cf, -sf),
        _ => (sf, -cf),
    }
}

/// Two independent standard normal samples from four 32-bit words (Box–Muller): u1 in
/// (0, 1] from words 0–1, u2 in [0, 1) from words 2–3, each with 53 random bits;
/// r = √(−2 ln u1), (r cos 2πu2, r sin 2πu2).
pub fn gauss_pair(w: [u32; 4]) -> (f64, f64) {
    const INV_2_53: f64 = 1.0 / 9_007_199_254_740_992.0;
    let a = (((w[1] as u64) << 32) | w[0] as u64) >> 11;
    let b = (((w[3] as u64) << 32) | w[2] as u64) >> 11;
    let u1 = (a + 1) as f64 * INV_2_53;
    let u2 = b as f64 * INV_2_53;
    let r = (-2.0 * ln(u1)).sqrt();
    let (c, s) = sincos_turns(u2);
    (r * c, r * s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ulps(a: f64, b: f64) -> f64 {
        ((a - b) / f64::EPSILON / b.abs().max(f64::MIN_POSITIVE)).abs()
    }

    #[test]
    fn the_kernel_spells_the_same_constants() {
        assert_eq!(LOG2_E, "1.4426950408889634".parse::<f64>().unwrap());
        assert_eq!(FRAC_PI_2, "1.5707963267948966".parse::<f64>().unwrap());
        assert_eq!(
            std::f64::consts::SQRT_2,
            "1.4142135623730951".parse::<f64>().unwrap()
        );
        let kernel = include_str!("../../kernels/ldpc_portable_math.cuh");
        for literal in [
            "1.4426950408889634",
            "1.5707963267948966",
            "1.4142135623730951",
        ] {
            assert!(kernel.contains(literal), "{literal}");
        }
    }

    #[test]
    fn exp_is_within_2_ulp_of_libm() {
        let mut worst: f64 = 0.0;
        let n = 2_000_000;
        for i in 0..=n {
            let x = EXP_UNDERFLOW * i as f64 / n as f64;
            worst = worst.max(ulps(exp(x), x.exp()));
        }
        // Small arguments densely, where the LLR sums spend their time.
        for i in 0..=n {
            let x = -(i as f64) * 1e-6;
            worst = worst.max(ulps(exp(x), x.exp()));
        }
        println!("exp: worst error {worst:e}");
        assert!(worst <= 2.0, "exp: {worst} ulp");
        assert_eq!(exp(-709.0), 0.0);
        assert_eq!(exp(0.0), 1.0);
        assert_eq!(exp(f64::NEG_INFINITY), 0.0);
    }

    #[test]
    fn ln_is_within_2_5_ulp_of_libm() {
        let mut worst: f64 = 0.0;
        // Every binade of (0, 1] that Box–Muller's u1 reaches, and around 1 densely.
        for e in -53..=2 {
            for i in 0..20_000 {
                let x = 2f64.powi(e) * (1.0 + i as f64 / 20_000.0);
                let want = x.ln();
                let err = if want.abs() < 1e-3 {
                    // Near 1 ln is tiny: absolute error in ulp of 1.
                    (ln(x) - want).abs() / f64::EPSILON
                } else {
                    ulps(ln(x), want)
                };
                worst = worst.max(err);
            }
        }
        println!("ln: worst error {worst:e}");
        assert!(worst <= 2.5, "ln: {worst} ulp");
        assert_eq!(ln(1.0), 0.0);
    }

    #[test]
    fn ln_1p_is_within_3_5_ulp_of_libm() {
        let mut worst: f64 = 0.0;
        // [0, 8]: the demapper's sums of up to 7 terms of at most 1.
        for i in 0..=1_000_000 {
            let z = 8.0 * i as f64 / 1_000_000.0;
            worst = worst.max(ulps(ln_1p(z), z.ln_1p()));
            let tiny = 1e-18 * (1.0 + i as f64);
            worst = worst.max(ulps(ln_1p(tiny), tiny.ln_1p()));
        }
        println!("ln_1p: worst error {worst:e}");
        assert!(worst <= 3.5, "ln_1p: {worst} ulp");
        assert_eq!(ln_1p(0.0), 0.0);
    }

    #[test]
    fn sincos_is_within_1e_15_of_libm() {
        let mut worst: f64 = 0.0;
        let n = 4_000_000;
        for i in 0..n {
            let t = i as f64 / n as f64;
            let (c, s) = sincos_turns(t);
            let a = std::f64::consts::TAU * t;
            worst = worst.max((c - a.cos()).abs()).max((s - a.sin()).abs());
            assert!(c * c + s * s - 1.0 < 1e-15);
        }
        // libm's own argument 2πt carries up to 4.4e-16 · t of rounding: the bound allows it.
        println!("sincos: worst error {worst:e}");
        assert!(worst <= 1e-15, "sincos: {worst}");
        assert_eq!(sincos_turns(0.0), (1.0, 0.0));
        assert_eq!(sincos_turns(0.25), (0.0, 1.0));
        assert_eq!(sincos_turns(0.5), (-1.0, 0.0));
    }

    #[test]
    fn gauss_pair_is_box_muller_with_libm_to_1e_14() {
        let mut state = 1u64;
        let mut next = || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 32) as u32
        };
        for _ in 0..200_000 {
            let w = [next(), next(), next(), next()];
            let (g0, g1) = gauss_pair(w);
            let a = (((w[1] as u64) << 32) | w[0] as u64) >> 11;
            let b = (((w[3] as u64) << 32) | w[2] as u64) >> 11;
            let u1 = (a + 1) as f64 / 2f64.powi(53);
            let u2 = b as f64 / 2f64.powi(53);
            let r = (-2.0 * u1.ln()).sqrt();
            let t = std::f64::consts::TAU * u2;
            assert!((g0 - r * t.cos()).abs() < 1e-14 * r.max(1.0), "{w:?}");
            assert!((g1 - r * t.sin()).abs() < 1e-14 * r.max(1.0), "{w:?}");
        }
    }
}
