//! A host model of the exact f64 accumulation of the short-row and matmul kernels
//! (`ax_fast_add` / `ax_fast_flush` in kernels/lns_exact.cuh), tested against the 128-bit sum
//! of [`Consts::term_fixed`] that the CPU twins use: the claim that lets those kernels add most
//! terms in f64 and still give the CPU's words.

#[cfg(test)]
mod tests {
    use crate::axis::exact::{Acc, Consts, FIX_BITS};
    use crate::format::Format;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// `AX_FAST_KK`, `AX_FAST_H`, `AX_FAST_TERMS`.
    const FAST_KK: i64 = 52 - FIX_BITS as i64;
    const H: f64 = 128.0;
    const TERMS: usize = 64;

    /// v·2^FIX_BITS for v on the 2^-FIX_BITS grid (`ax_fixed_of`).
    fn fixed_of(v: f64) -> i128 {
        if v == 0.0 {
            return 0;
        }
        let bits = v.to_bits();
        let e = ((bits >> 52) & 0x7ff) as i64 - 1023;
        let mant = ((bits & ((1u64 << 52) - 1)) | (1u64 << 52)) as i128;
        let shift = e + FIX_BITS as i64 - 52;
        let m = if shift >= 0 {
            mant << shift
        } else {
            assert_eq!(mant & ((1 << -shift) - 1), 0, "{v} is off the grid");
            mant >> -shift
        };
        if v < 0.0 {
            -m
        } else {
            m
        }
    }

    /// The kernels' sum of the terms of code differences `ds` (d ≤ 0, with signs).
    fn fast_sum(c: &Consts, f: u32, ds: &[(i64, bool)]) -> i128 {
        let (mut hi, mut lo, mut tiny) = (H, 0.0f64, Acc::default());
        for (i, &(d, neg)) in ds.iter().enumerate() {
            let kk = d >> f;
            let t = c.exp_frac((d & ((1i64 << f) - 1)) as u64);
            if kk >= FAST_KK {
                // t·2^kk by an exponent add, exact.
                let v = f64::from_bits((t.to_bits() as i64 + (kk << 52)) as u64);
                let v = if neg { -v } else { v };
                // Fast2Sum: |hi| ≥ 64 ≥ |v|.
                let s = hi + v;
                let z = s - hi;
                lo += v - z;
                hi = s;
            } else {
                tiny.add(c.term_fixed(d), neg);
            }
            if (i + 1) % TERMS == 0 || i + 1 == ds.len() {
                tiny.0 += fixed_of(hi - H) + fixed_of(lo);
                hi = H;
                lo = 0.0;
            }
        }
        tiny.0
    }

    fn exact_sum(c: &Consts, ds: &[(i64, bool)]) -> i128 {
        let mut acc = Acc::default();
        for &(d, neg) in ds {
            acc.add(c.term_fixed(d), neg);
        }
        acc.0
    }

    #[test]
    fn the_kernels_f64_sums_are_the_cpus_integers() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        for format in [Format::LNS16, Format::LNS32, Format::new(6, 13).unwrap()] {
            let f = format.frac_bits;
            let c = Consts::new(format);
            let one = 1i64 << f;
            for case in 0..400 {
                let n = rng.random_range(1..300);
                // Spreads from a few binades to far below 2^-36 (the 128-bit path).
                let spread = [2, 20, 36, 40, 120][case % 5] * one;
                let signed = case % 2 == 1;
                let ds: Vec<(i64, bool)> = (0..n)
                    .map(|i| {
                        let d = if i == 0 {
                            0
                        } else {
                            -rng.random_range(0..spread)
                        };
                        (d, signed && rng.random_bool(0.5))
                    })
                    .collect();
                assert_eq!(
                    fast_sum(&c, f, &ds),
                    exact_sum(&c, &ds),
                    "{format:?} case {case}"
                );
            }
            // The extremes of the bounds: 64 terms of ±1 between flushes, and terms just
            // above and below kk = −36.
            for neg in [false, true] {
                let ds = vec![(0i64, neg); 200];
                assert_eq!(fast_sum(&c, f, &ds), exact_sum(&c, &ds));
            }
            let edge: Vec<(i64, bool)> = (0..130)
                .map(|i| (-36 * one - 2 + i % 4, i % 3 == 0))
                .collect();
            assert_eq!(fast_sum(&c, f, &edge), exact_sum(&c, &edge));
        }
    }
}
