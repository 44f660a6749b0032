//! Argument reduction modulo π/2 for any finite f32 (Payne–Hanek): the slow path of sin / cos
//! beyond [`FAST_LIMIT`](super::FAST_LIMIT), where the three-part Cody–Waite constant of the
//! fast path no longer multiplies exactly.
//!
//! x = m · 2^k with m a 24-bit integer. x · 2/π mod 4 needs only the bits of 2/π from bit
//! k − 1 on (earlier bits give multiples of 4·m): 128 of them times m, exact in integers,
//! give the quadrant and a fraction of ≥ 62 bits, far more than the worst cancellation of an
//! f32 argument needs.

/// Bits 1..=352 of 2/π after the binary point, 32 per word (computed from π by Machin's
/// formula in integers; the first words match every published table).
const TWO_OVER_PI: [u32; 11] = [
    0xA2F9836E, 0x4E441529, 0xFC2757D1, 0xF534DDC0, 0xDB629599, 0x3C439041, 0xFE5163AB, 0xDEBBC561,
    0xB7246E3A, 0x424DD2E0, 0x06492EEA,
];

/// The 128 bits of 2/π starting at bit `first` (1-based), as an integer.
fn window(first: usize) -> u128 {
    let (w, o) = ((first - 1) / 32, (first - 1) % 32);
    let mut v: u128 = 0;
    for i in 0..4 {
        v = (v << 32) | TWO_OVER_PI[w + i] as u128;
    }
    if o > 0 {
        v = (v << o) | (TWO_OVER_PI[w + 4] >> (32 - o)) as u128;
    }
    v
}

/// The quadrant q (0..4) and the remainder r (|r| ≤ π/4, f64) with x = (4j + q)·π/2 + r for
/// a finite x of magnitude at least 2^-126 (a normal number).
pub(super) fn rem_pio2(x: f32) -> (i32, f64) {
    let bits = x.to_bits();
    let e = ((bits >> 23) & 0xff) as i32;
    let m = ((bits & 0x007f_ffff) | 0x0080_0000) as u128;
    let k = e - 150; // |x| = m · 2^k
    let first = (k - 1).max(1);
    let w = window(first as usize);
    // |x|·2/π ≈ m·w·2^(k − first − 127): the product as hi·2^64 + lo.
    let lo = m * (w & u64::MAX as u128);
    let hi = m * (w >> 64) + (lo >> 64);
    let t = (first + 127 - k) as u32 - 64; // the binary point within `hi`: 62..=74
    let mut q = ((hi >> t) & 3) as i32;
    let frac_bits = hi & ((1u128 << t) - 1);
    let mut frac = (frac_bits as f64 + (lo as u64) as f64 / 18_446_744_073_709_551_616.0)
        / (1u128 << t) as f64;
    if frac >= 0.5 {
        q += 1;
        frac -= 1.0;
    }
    let r = frac * std::f64::consts::FRAC_PI_2;
    if x < 0.0 {
        ((4 - q) & 3, -r)
    } else {
        (q & 3, r)
    }
}

/// sin (`shift` 0) or cos (`shift` 1) of any f32, through [`rem_pio2`] and the f64
/// functions on the remainder: within half an ulp of f32 but for the f64 rounding (NaN for
/// ±∞ and NaN).
pub(super) fn sin_cos_any(x: f32, shift: i32) -> f32 {
    if !x.is_finite() {
        return f32::NAN;
    }
    if x.abs() < 1.0 {
        let v = x as f64;
        return if shift == 0 { v.sin() } else { v.cos() } as f32;
    }
    let (q, r) = rem_pio2(x);
    let q = (q + shift) & 3;
    let v = if q & 1 == 0 { r.sin() } else { r.cos() };
    (if q & 2 == 0 { v } else { -v }) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_arguments_reduce_as_f64_libm_does() {
        // f64's sin of an f32 value is correctly reduced by the platform libm; rounded to f32
        // it is the answer within half an ulp.
        let mut worst = 0u32;
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        for i in 0..200_000u32 {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let bits = if i < 1000 {
                // Every exponent from 2^0 to the largest, both signs.
                (127 + i % 128) << 23 | (i * 7919) & 0x7f_ffff | (i & 1) << 31
            } else {
                (state >> 32) as u32
            };
            let x = f32::from_bits(bits);
            if !x.is_finite() || x.abs() < 1.0 {
                continue;
            }
            for shift in [0, 1] {
                let want = if shift == 0 {
                    (x as f64).sin()
                } else {
                    (x as f64).cos()
                } as f32;
                let got = sin_cos_any(x, shift);
                let ulps = (got.to_bits() as i64 - want.to_bits() as i64).unsigned_abs() as u32;
                assert!(
                    ulps <= 1 || (got - want).abs() < 1e-30,
                    "x = {x:e} shift {shift}: {got} vs {want}"
                );
                worst = worst.max(ulps);
            }
        }
        assert!(worst <= 1, "{worst}");
        assert!(sin_cos_any(f32::INFINITY, 0).is_nan());
        assert!(sin_cos_any(f32::NAN, 1).is_nan());
        assert_eq!(sin_cos_any(f32::MAX, 0), (f32::MAX as f64).sin() as f32);
    }
}
