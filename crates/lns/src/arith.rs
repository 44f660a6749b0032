//! LNS arithmetic on packed words. Products, quotients, roots and powers are exact integer
//! operations on the log codes; sums and differences go through s_b and d_b, evaluated by an
//! [`AddSub`] method.

use crate::format::Format;
use crate::value::Class;
use std::cmp::Ordering;

/// An evaluator of the LNS addition functions on codes of one format:
/// s_b(z) = log2(1 + 2^z) and d_b(z) = log2(1 − 2^z), z = code · 2^-F ≤ 0, each returned as a
/// code (rounded to F fractional bits by the method's own rule).
pub trait AddSub: Sync {
    /// The format whose codes this method takes and returns.
    fn format(&self) -> Format;
    /// s_b for `z` ≤ 0.
    fn sb(&self, z: i64) -> i64;
    /// d_b for `z` < 0 (d_b(0) = −∞ is handled by the caller: x − x = 0).
    fn db(&self, z: i64) -> i64;
    /// out[i] = s_b(zs[i]), or d_b(zs[i]) when `db` (equal lengths; every zs[i] ≤ 0, < 0 for
    /// d_b): a method with a vectorised evaluator overrides this, so that certificates check
    /// the code its adds run.
    fn eval_codes(&self, db: bool, zs: &[i64], out: &mut [i64]) {
        for (o, &z) in out.iter_mut().zip(zs) {
            *o = if db { self.db(z) } else { self.sb(z) };
        }
    }
    /// out[i] = a[i] + b[i] (equal lengths): a method with a vectorised path overrides this,
    /// and must give [`Format::add`]'s words.
    fn add_words(&self, a: &[u32], b: &[u32], out: &mut [u32]) {
        let f = self.format();
        for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
            *o = f.add(self, x, y);
        }
    }
}

/// s_b and d_b in f64, rounded to nearest: the reference, and the CPU's default method.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Accurate(pub Format);

/// s_b(z) in f64.
pub fn sb_f64(z: f64) -> f64 {
    z.exp2().ln_1p() / std::f64::consts::LN_2
}

/// d_b(z) = log2(1 − 2^z) in f64 for z < 0, accurate near 0 through expm1.
pub fn db_f64(z: f64) -> f64 {
    (-(z * std::f64::consts::LN_2).exp_m1()).ln() / std::f64::consts::LN_2
}

impl AddSub for Accurate {
    fn format(&self) -> Format {
        self.0
    }

    fn sb(&self, z: i64) -> i64 {
        if z < self.0.essential_zero_code() {
            return 0;
        }
        (sb_f64(z as f64 * self.0.ulp()) / self.0.ulp()).round() as i64
    }

    fn db(&self, z: i64) -> i64 {
        if z < self.0.essential_zero_code() {
            return 0;
        }
        (db_f64(z as f64 * self.0.ulp()) / self.0.ulp()).round() as i64
    }
}

fn finite(negative: bool, log: i64) -> Class {
    Class::Finite { negative, log }
}

/// x·y as a class, exactly: the log may leave the format's range, which `encode` maps to ±∞ or
/// zero (fused reductions sum such products before rounding).
pub(crate) fn product(x: Class, y: Class) -> Class {
    use Class::*;
    match (x, y) {
        (NaN, _) | (_, NaN) | (Zero, Inf { .. }) | (Inf { .. }, Zero) => NaN,
        (Zero, _) | (_, Zero) => Zero,
        (Inf { negative: p }, Inf { negative: q })
        | (Inf { negative: p }, Finite { negative: q, .. })
        | (Finite { negative: p, .. }, Inf { negative: q }) => Inf { negative: p != q },
        (
            Finite {
                negative: p,
                log: a,
            },
            Finite {
                negative: q,
                log: b,
            },
        ) => Finite {
            negative: p != q,
            log: a + b,
        },
    }
}

/// 1/x as a class, exactly: the log negates (0 and ∞ swap, the sign of ∞ is dropped as
/// 1/±∞ = 0).
fn reciprocal(x: Class) -> Class {
    match x {
        Class::Zero => Class::Inf { negative: false },
        Class::Inf { .. } => Class::Zero,
        Class::NaN => Class::NaN,
        Class::Finite { negative, log } => finite(negative, -log),
    }
}

impl Format {
    /// −a, exactly: the sign flips (of ±∞ too); zero and NaN stay as they are (LNS has no −0).
    pub fn neg(self, a: u32) -> u32 {
        match self.decode(a) {
            Class::Finite { negative, log } => self.encode(finite(!negative, log)),
            Class::Inf { negative } => self.encode(Class::Inf {
                negative: !negative,
            }),
            other => self.encode(other),
        }
    }

    /// |a|, exactly: the sign cleared; zero and NaN stay as they are.
    pub fn abs(self, a: u32) -> u32 {
        match self.decode(a) {
            Class::Finite { log, .. } => self.encode(finite(false, log)),
            Class::Inf { .. } => self.encode(Class::Inf { negative: false }),
            other => self.encode(other),
        }
    }

    /// a · b: the log codes add, exactly.
    pub fn mul(self, a: u32, b: u32) -> u32 {
        self.encode(product(self.decode(a), self.decode(b)))
    }

    /// 1 / a: the log code negates, exactly.
    pub fn recip(self, a: u32) -> u32 {
        self.encode(reciprocal(self.decode(a)))
    }

    /// a / b = a · (1 / b), exact: x · y / y = x whenever nothing overflows.
    pub fn div(self, a: u32, b: u32) -> u32 {
        self.encode(product(self.decode(a), reciprocal(self.decode(b))))
    }

    /// √a: the log code halves, an odd code rounding to even (the only rounding an LNS root
    /// needs). √(negative) is NaN.
    pub fn sqrt(self, a: u32) -> u32 {
        self.encode(match self.decode(a) {
            Class::Finite { negative: true, .. } | Class::Inf { negative: true } | Class::NaN => {
                Class::NaN
            }
            Class::Finite { log, .. } => {
                let half = log.div_euclid(2);
                // log odd: log/2 = half + 1/2 exactly, a tie: round to the even code.
                finite(
                    false,
                    if log % 2 != 0 && half % 2 != 0 {
                        half + 1
                    } else {
                        half
                    },
                )
            }
            other => other,
        })
    }

    /// a^n for an integer n, exact: the log code multiplies by n.
    pub fn powi(self, a: u32, n: i32) -> u32 {
        use Class::*;
        let odd = n % 2 != 0;
        self.encode(match self.decode(a) {
            NaN => NaN,
            _ if n == 0 => finite(false, 0),
            Zero if n > 0 => Zero,
            Zero => Inf { negative: false },
            Inf { negative } if n > 0 => Inf {
                negative: negative && odd,
            },
            Inf { .. } => Zero,
            Finite { negative, log } => {
                let log = (log as i128 * n as i128)
                    .clamp(i64::MIN as i128 / 2, i64::MAX as i128 / 2)
                    as i64;
                finite(negative && odd, log)
            }
        })
    }

    /// Orders two words as the numbers they denote; `None` when either is NaN.
    pub fn compare(self, a: u32, b: u32) -> Option<Ordering> {
        let key = |c: Class| -> Option<(i8, i64)> {
            // (side, magnitude key): negatives sort by decreasing magnitude.
            match c {
                Class::NaN => None,
                Class::Zero => Some((0, 0)),
                Class::Inf { negative: false } => Some((1, i64::MAX)),
                Class::Inf { negative: true } => Some((-1, i64::MIN)),
                Class::Finite {
                    negative: false,
                    log,
                } => Some((1, log)),
                Class::Finite {
                    negative: true,
                    log,
                } => Some((-1, -log)),
            }
        };
        Some(key(self.decode(a))?.cmp(&key(self.decode(b))?))
    }

    /// a + b with s_b / d_b from `m`. Exact cases: x + 0 = x, x + (−x) = 0.
    pub fn add(self, m: &(impl AddSub + ?Sized), a: u32, b: u32) -> u32 {
        use Class::*;
        debug_assert_eq!(m.format(), self);
        self.encode(match (self.decode(a), self.decode(b)) {
            (NaN, _) | (_, NaN) => NaN,
            (Inf { negative: p }, Inf { negative: q }) if p != q => NaN,
            (Inf { negative }, _) | (_, Inf { negative }) => Inf { negative },
            (Zero, other) | (other, Zero) => other,
            (
                Finite {
                    negative: p,
                    log: x,
                },
                Finite {
                    negative: q,
                    log: y,
                },
            ) => {
                let (big, z) = if x >= y { (x, y - x) } else { (y, x - y) };
                let sign = if x >= y { p } else { q };
                if p == q {
                    finite(sign, big + m.sb(z))
                } else if z == 0 {
                    Zero
                } else {
                    finite(sign, big + m.db(z))
                }
            }
        })
    }

    /// a − b = a + (−b).
    pub fn sub(self, m: &(impl AddSub + ?Sized), a: u32, b: u32) -> u32 {
        self.add(m, a, self.neg(b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const F: Format = Format::LNS16;

    fn w(x: f64) -> u32 {
        F.from_f64(x)
    }

    #[test]
    fn exact_identities_on_every_lns16_value() {
        let m = Accurate(F);
        let one = w(1.0);
        for a in 0..=u16::MAX as u32 {
            if F.decode(a) == Class::NaN {
                continue;
            }
            assert_eq!(F.add(&m, a, F.zero()), a, "x + 0");
            if let Class::Finite { log, negative } = F.decode(a) {
                assert_eq!(F.add(&m, a, F.neg(a)), F.zero(), "x + (−x)");
                assert_eq!(F.sub(&m, a, a), F.zero(), "x − x");
                assert_eq!(F.div(F.mul(a, one), one), a);
                // The range is one code wider below than above: 1/x of the smallest overflows.
                if -log <= F.max_code() {
                    assert_eq!(F.recip(F.recip(a)), a);
                } else {
                    assert_eq!(F.decode(F.recip(a)), Class::Inf { negative });
                }
                assert_eq!(F.compare(a, a), Some(Ordering::Equal));
            }
        }
    }

    #[test]
    fn specials_follow_ieee() {
        let m = Accurate(F);
        let (inf, ninf, nan, zero, two) = (
            w(f64::INFINITY),
            w(f64::NEG_INFINITY),
            F.nan(),
            F.zero(),
            w(2.0),
        );
        assert_eq!(F.decode(F.add(&m, inf, ninf)), Class::NaN);
        assert_eq!(F.add(&m, inf, two), inf);
        assert_eq!(F.decode(F.mul(zero, inf)), Class::NaN);
        assert_eq!(F.div(two, zero), inf);
        assert_eq!(F.div(F.neg(two), zero), ninf);
        assert_eq!(F.decode(F.div(zero, zero)), Class::NaN);
        assert_eq!(F.decode(F.sqrt(F.neg(two))), Class::NaN);
        assert_eq!(F.compare(nan, two), None);
        assert_eq!(F.compare(ninf, F.neg(two)), Some(Ordering::Less));
        assert_eq!(F.compare(F.neg(two), zero), Some(Ordering::Less));
        assert_eq!(F.mul(w(40000.0), w(40000.0)), inf, "overflow");
        assert_eq!(F.mul(w(1e-4), w(1e-4)), zero, "underflow");
        assert_eq!(F.powi(w(-2.0), 3), w(-8.0));
        assert_eq!(F.powi(w(-2.0), 2), w(4.0));
        assert_eq!(F.powi(zero, -1), inf);
        assert_eq!(F.sqrt(w(16.0)), w(4.0));
    }

    #[test]
    fn sqrt_rounds_ties_to_even() {
        let root = |log: i64| match F.decode(F.sqrt(F.encode(finite(false, log)))) {
            Class::Finite { log, .. } => log,
            c => panic!("{c:?}"),
        };
        assert_eq!(root(6), 3);
        assert_eq!(root(5), 2); // 2.5 → 2
        assert_eq!(root(7), 4); // 3.5 → 4
        assert_eq!(root(-5), -2); // −2.5 → −2
        assert_eq!(root(-7), -4); // −3.5 → −4
    }

    #[test]
    fn sums_are_within_half_an_ulp_of_the_exact_sum_in_the_log_domain() {
        let m = Accurate(F);
        let values = [1.0, 3.0, 0.001, 1000.0, -2.5, -0.75, 1.0001];
        for &x in &values {
            for &y in &values {
                let got = F.to_f64(F.add(&m, w(x), w(y)));
                let exact = F.to_f64(w(x)) + F.to_f64(w(y));
                if exact == 0.0 {
                    assert_eq!(got, 0.0);
                    continue;
                }
                let err_ulps = (got.abs().log2() - exact.abs().log2()).abs() / F.ulp();
                assert!(
                    err_ulps <= 0.5 + 1e-9 && got.signum() == exact.signum(),
                    "{x} + {y}: {got} vs {exact}"
                );
            }
        }
    }
}
