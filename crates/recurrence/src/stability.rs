//! Exact stability test: the Schur–Cohn step-down recursion (Levinson run backwards) in exact
//! rational arithmetic on the coefficients exactly as the element type holds them.
//!
//! For a monic denominator A(z) = 1 + a1·z⁻¹ + … + aN·z⁻ᴺ, k_N = a_N and
//! a'_i = (a_i − k·a_{N−i}) / (1 − k²) gives the next lower order; A has every root strictly
//! inside the unit circle iff every |k_i| < 1. Root finders cannot decide this near the circle
//! (numpy's roots put a pole of butter(10, 0.02) at 0.99289 where it is 0.99023, and the f64
//! step-down errs in k by 4e-5 at order 10 with a margin of 6e-4), so it runs on rationals:
//! every f64 is a dyadic rational. The recursion runs fraction-free on integers (see
//! [`step_down`]): an order-64 denominator takes milliseconds.
//!
//! [`section_verdict`] is the one verdict on a second-order section, for the CPU and the GPU
//! cascades alike: scipy's (it runs marginal sections such as integrators and resonators; a
//! pole strictly outside the unit circle is refused), decided exactly in closed form.

use num_bigint::BigInt;
use num_rational::BigRational;

/// What the step-down found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Stability {
    /// Every pole strictly inside the unit circle. `max_k` is the largest |reflection
    /// coefficient| (rounded to f64): how close to the boundary the filter is.
    Stable { max_k: f64 },
    /// Some |k| = 1: a pole on the unit circle (prefix sums, accumulators) or outside; the
    /// recursion cannot go on, and the caller decides from the roots.
    Marginal,
    /// Some |k| > 1 (at the given order): a pole outside the unit circle.
    Unstable { k: f64, order: usize },
}

/// The step-down test on `a` = [a1, …, aN] of A(z) = 1 + a1·z⁻¹ + … (a0 = 1 implied).
///
/// Fraction-free: the polynomial is kept as integers p_0 … p_m (the coefficients times a
/// common scale; every f64 is an integer times a power of two), k_m = p_m / p_0, and the next
/// order is p'_i = p_0·p_i − p_m·p_(m−i) (which is (a_i − k·a_(m−i)) / (1 − k²) scaled by
/// p_0² − p_m² > 0). From the third step on, every p'_i is divisible by the p_0 of two orders
/// up (the Bareiss-style identity of this recursion), and that exact division keeps the
/// integers growing linearly with the order instead of doubling every step — no gcd, no
/// rational reduction (which took ~1 s for an order-32 denominator).
pub fn step_down(a: &[f64]) -> Stability {
    let Some(n) = a.iter().rposition(|&v| v != 0.0).map(|i| i + 1) else {
        return Stability::Stable { max_k: 0.0 };
    };
    if a[..n].iter().any(|v| !v.is_finite()) {
        return Stability::Unstable {
            k: f64::NAN,
            order: n,
        };
    }
    let mut p = scaled_integers(&a[..n]);
    let mut above: Option<BigInt> = None;
    let mut max_k = 0.0f64;
    for m in (1..=n).rev() {
        let (p0, pm) = (&p[0], &p[m]);
        let kf = ratio_f64(pm, p0);
        match pm.magnitude().cmp(p0.magnitude()) {
            std::cmp::Ordering::Greater => return Stability::Unstable { k: kf, order: m },
            std::cmp::Ordering::Equal => return Stability::Marginal,
            std::cmp::Ordering::Less => {}
        }
        max_k = max_k.max(kf.abs());
        let mut next: Vec<BigInt> = (0..m).map(|i| p0 * &p[i] - pm * &p[m - i]).collect();
        if m + 2 <= n {
            let d = above.as_ref().expect("set two orders up");
            for v in &mut next {
                *v /= d;
            }
        }
        above = Some(p.swap_remove(0));
        p = next;
    }
    Stability::Stable { max_k }
}

/// [1, a1, …, aN] as integers times one common power of two (exactly).
fn scaled_integers(a: &[f64]) -> Vec<BigInt> {
    let parts: Vec<(u64, i16, i8)> = std::iter::once(1.0)
        .chain(a.iter().copied())
        .map(num_traits::float::FloatCore::integer_decode)
        .collect();
    let low = parts
        .iter()
        .filter(|p| p.0 != 0)
        .map(|p| p.1)
        .min()
        .unwrap_or(0);
    parts
        .iter()
        .map(|&(m, e, s)| {
            let v = BigInt::from(m) << ((e - low) as usize);
            if s < 0 {
                -v
            } else {
                v
            }
        })
        .collect()
}

/// num / den (den > 0) to the nearest f64 or so (for reports and messages).
fn ratio_f64(num: &BigInt, den: &BigInt) -> f64 {
    to_f64(&BigRational::new_raw(num.clone(), den.clone()))
}

/// The verdict on one section 1 + a1·z⁻¹ + a2·z⁻² (both cascades take it): `Ok` when both
/// poles lie inside or on the unit circle — scipy runs marginal sections (an integrator
/// `[1, 0, 0, 1, -1, 0]`, a resonator with a2 = 1) — and `Err(largest pole magnitude)` when a
/// pole lies strictly outside.
///
/// The poles of z² + a1·z + a2 lie in the closed unit disc exactly when |a2| ≤ 1 and
/// |a1| ≤ 1 + a2 (the closed stability triangle), decided here without rounding for the given
/// doubles: 1 + a2 is kept as an exact sum of two doubles, and where |a1| is within a factor
/// of two of it the difference is exact (Sterbenz).
pub fn section_verdict(a1: f64, a2: f64) -> Result<(), f64> {
    let inside = a2.abs() <= 1.0 && {
        // 1 + a2 = s + e exactly.
        let (s, e) = crate::dd::two_sum(1.0, a2);
        let m = a1.abs();
        if m <= 0.5 * s {
            true
        } else if m > 2.0 * s {
            false
        } else {
            m - s <= e
        }
    };
    if inside {
        Ok(())
    } else {
        Err(crate::poles::max_root_magnitude(&[-a1, -a2]))
    }
}

fn to_f64(r: &BigRational) -> f64 {
    num_traits::ToPrimitive::to_f64(r).unwrap_or(f64::NAN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simple_cases() {
        assert_eq!(step_down(&[-0.5]), Stability::Stable { max_k: 0.5 });
        assert!(matches!(step_down(&[-1.5]), Stability::Unstable { .. }));
        assert_eq!(step_down(&[-1.0]), Stability::Marginal);
        // (1 - 0.9 z^-1)^2: stable, k2 = 0.81.
        assert!(matches!(step_down(&[-1.8, 0.81]), Stability::Stable { .. }));
        // (1 - 1.01 z^-1)(1 - 0.5 z^-1) = 1 - 1.51 z^-1 + 0.505 z^-2: unstable.
        assert!(matches!(
            step_down(&[-1.51, 0.505]),
            Stability::Unstable { .. }
        ));
        assert_eq!(step_down(&[0.0, 0.0]), Stability::Stable { max_k: 0.0 });
    }

    /// scipy.signal.butter(32, 0.3)'s denominator.
    macro_rules! butter_32_03 {
        () => {
            [
                1.0,
                -12.796112791076663,
                82.34936149969826,
                -353.15243648226436,
                1129.7837407780844,
                -2864.10396455657,
                5971.5605593318405,
                -10497.428603096616,
                15833.362024653332,
                -20753.59977328545,
                23864.751189052215,
                -24246.27393779555,
                21880.42188927303,
                -17606.218082936433,
                12666.027063645539,
                -8160.204787090717,
                4711.647193011596,
                -2437.845191799458,
                1129.2322227505394,
                -467.4192336571988,
                172.41278484748278,
                -56.45542748984758,
                16.32718327675839,
                -4.143123970672635,
                0.9146823035537475,
                -0.17376591573509256,
                0.027998948921633397,
                -0.00375294360197941,
                0.00040729236215365566,
                -3.4392614561166705e-05,
                2.120497350172492e-06,
                -8.492984710489088e-08,
                1.658660147389945e-09,
            ]
        };
    }

    /// The step-down on reduced rationals, as the recursion is written (the reference the
    /// fraction-free form must equal).
    fn rational_step_down(a: &[f64]) -> Stability {
        use num_traits::{One, Signed, Zero};
        let Some(n) = a.iter().rposition(|&v| v != 0.0).map(|i| i + 1) else {
            return Stability::Stable { max_k: 0.0 };
        };
        let mut c: Vec<BigRational> = a[..n]
            .iter()
            .map(|&v| BigRational::from_float(v).unwrap_or_else(BigRational::zero))
            .collect();
        let one = BigRational::one();
        let mut max_k = 0.0f64;
        for m in (1..=n).rev() {
            let k = c[m - 1].clone();
            let kf = to_f64(&k);
            if k.abs() > one {
                return Stability::Unstable { k: kf, order: m };
            }
            if k.abs() == one {
                return Stability::Marginal;
            }
            max_k = max_k.max(kf.abs());
            let denom = &one - &k * &k;
            c = (0..m - 1)
                .map(|i| (&c[i] - &k * &c[m - 2 - i]) / &denom)
                .collect();
        }
        Stability::Stable { max_k }
    }

    #[test]
    fn fraction_free_step_down_equals_the_rational_one() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for trial in 0..160 {
            let n = rng.random_range(1..11);
            let scale = [1.0, 1e-3, 1e5, 0.3][trial % 4];
            let mut a: Vec<f64> = (0..n)
                .map(|_| scale * (rng.random::<f64>() - 0.5))
                .collect();
            if trial % 7 == 0 {
                a[n - 1] = 0.0; // a trailing zero
            }
            assert_eq!(step_down(&a), rational_step_down(&a), "{a:?}");
        }
        // Products of stable and unstable real poles, including a pole on the circle.
        for poles in [
            vec![0.5, -0.9, 0.99, 0.2],
            vec![0.5, 1.0, 0.3],
            vec![0.5, 1.0 + 1e-12, 0.3],
            vec![0.999_999, 0.999_99, -0.999_9, 0.1, 0.0],
        ] {
            let mut c = vec![1.0f64];
            for p in &poles {
                let mut next = c.clone();
                next.push(0.0);
                for (i, v) in c.iter().enumerate() {
                    next[i + 1] -= p * v;
                }
                c = next;
            }
            assert_eq!(step_down(&c[1..]), rational_step_down(&c[1..]), "{poles:?}");
        }
        // A high-order design near the circle: butter(32, 0.3)'s denominator (scipy).
        #[allow(clippy::excessive_precision)]
        let a: [f64; 33] = butter_32_03!();
        // (The rational reference takes seconds on it; the fraction-free form milliseconds.)
        let start = std::time::Instant::now();
        let Stability::Stable { max_k } = step_down(&a[1..]) else {
            panic!("butter(32, 0.3) is stable")
        };
        assert!(max_k > 0.9 && max_k < 1.0, "{max_k}");
        assert!(start.elapsed().as_secs_f64() < 1.0);
        // Its coefficients rounded to f32 are not (scipy's f32 lfilter diverges on them).
        let a32: Vec<f64> = a[1..].iter().map(|&v| v as f32 as f64).collect();
        assert_eq!(step_down(&a32), rational_step_down(&a32));
    }

    #[test]
    fn section_verdict_is_exact_and_takes_the_unit_circle() {
        let ok = |a1: f64, a2: f64| section_verdict(a1, a2).is_ok();
        // Strictly inside.
        assert!(ok(-1.9936440506040927, 0.993890031869166));
        assert!(ok(-1.5 + 1e-15, 0.5));
        assert!(ok(0.3, -0.69));
        // On the unit circle, as scipy runs them: an integrator, a double pole at 1, poles at
        // ±i, a root at 1 and one at -1, the corners ±1 of a2 = -1.
        assert!(ok(-1.0, 0.0));
        assert!(ok(-2.0, 1.0));
        assert!(ok(0.0, 1.0));
        assert!(ok(-1.5, 0.5));
        assert!(ok(1.0, 0.0));
        assert!(ok(0.0, -1.0));
        // Strictly outside, by as little as a double can say.
        assert!(!ok(-2.0, 1.0 - f64::EPSILON / 2.0 - 1e-17 + 0.0));
        assert!(!ok(-(1.5 + f64::EPSILON), 0.5));
        assert!(!ok(1.0 + f64::EPSILON, 0.0));
        assert!(!ok(0.0, 1.0 + f64::EPSILON));
        assert!(!ok(1e-300, -1.0));
        assert!(!ok(0.32, -0.69)); // 1 + a2 = 0.31 < |a1|
        assert!(!ok(f64::NAN, 0.0));
        // The magnitude of the pole outside, for the message.
        let m = section_verdict(-2.5, 1.0).unwrap_err();
        assert!((m - 2.0).abs() < 1e-12, "{m}");
    }
}
