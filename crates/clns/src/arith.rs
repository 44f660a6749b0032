//! Conversions and arithmetic. Products, quotients, integer powers, conjugates and negations
//! are exact (integer adds on the log code, wrapping adds on the angle); sums go through
//! S_b(Z) = log(1 + Z) evaluated by an [`Sb`] method: X + Y = Y·(1 + X/Y) with |X| ≤ |Y|.

use crate::format::{Class, Clns, ClnsFormat, HALF_TURN};
use crate::sb::Sb;
use num_complex::Complex;
use std::f64::consts::TAU;

/// x · y as a class, exactly (∞ and zero as IEEE: 0 · ∞ is NaN); the log may leave the
/// range, which `encode` maps to ∞ or zero.
fn product(x: Class, y: Class) -> Class {
    use Class::*;
    match (x, y) {
        (NaN, _) | (_, NaN) | (Zero, Inf) | (Inf, Zero) => NaN,
        (Zero, _) | (_, Zero) => Zero,
        (Inf, _) | (_, Inf) => Inf,
        (Finite { log: a, angle: p }, Finite { log: b, angle: q }) => Finite {
            log: a + b,
            angle: p.wrapping_add(q),
        },
    }
}

/// 1 / x as a class, exactly: the log negates, the angle turns back; x / y is x · (1 / y).
fn reciprocal(x: Class) -> Class {
    match x {
        Class::Zero => Class::Inf,
        Class::Inf => Class::Zero,
        Class::NaN => Class::NaN,
        Class::Finite { log, angle } => Class::Finite {
            log: -log,
            angle: angle.wrapping_neg(),
        },
    }
}

impl ClnsFormat {
    /// The nearest CLNS value to `x`: log2|x| rounded to F bits and arg x to P bits (each
    /// correctly rounded in f64 away from ~1e-16 of a tie). NaN parts give NaN; an infinite
    /// part gives ∞.
    pub fn from_complex(self, x: Complex<f64>) -> Clns {
        if x.re.is_nan() || x.im.is_nan() {
            return self.nan();
        }
        if x.re.is_infinite() || x.im.is_infinite() {
            return self.inf();
        }
        if x.re == 0.0 && x.im == 0.0 {
            return self.zero();
        }
        let log = self.round_log(x.re.hypot(x.im).log2());
        let angle = self.round_angle(x.im.atan2(x.re) / TAU);
        self.encode(Class::Finite { log, angle })
    }

    /// As [`from_complex`](Self::from_complex), from f32 parts (widened exactly).
    pub fn from_complex32(self, x: Complex<f32>) -> Clns {
        self.from_complex(Complex::new(x.re as f64, x.im as f64))
    }

    /// The value of `x` in f64 (NaN for NaN, ∞ + 0i for ∞).
    pub fn to_complex(self, x: Clns) -> Complex<f64> {
        match self.class(x) {
            Class::Zero => Complex::new(0.0, 0.0),
            Class::NaN => Complex::new(f64::NAN, f64::NAN),
            Class::Inf => Complex::new(f64::INFINITY, 0.0),
            Class::Finite { log, angle } => {
                let m = (log as f64 * self.log.ulp()).exp2();
                Complex::from_polar(m, angle_radians(angle))
            }
        }
    }

    /// As [`to_complex`](Self::to_complex), each part rounded to f32.
    pub fn to_complex32(self, x: Clns) -> Complex<f32> {
        let c = self.to_complex(x);
        Complex::new(c.re as f32, c.im as f32)
    }

    /// x · y, exact (∞ and zero as IEEE: 0 · ∞ is NaN).
    pub fn mul(self, x: Clns, y: Clns) -> Clns {
        self.encode(product(self.class(x), self.class(y)))
    }

    /// x · y for operands the caller knows are finite with a product inside the range (an
    /// FFT's data times a unit twiddle, a gain within bounds): the two adds alone, no class or
    /// range test — the GPU fast path `clns_mul_finite`. Equal to [`ClnsFormat::mul`] under
    /// that contract; outside it the word is unnormalised (read by [`ClnsFormat::class`] as
    /// its nearest class, or NaN/zero on the special code) but never undefined.
    pub fn mul_finite(self, x: Clns, y: Clns) -> Clns {
        Clns {
            log: x.log.wrapping_add(y.log),
            angle: x.angle.wrapping_add(y.angle),
        }
    }

    /// x / y, exact: (x·y)/y = x whenever nothing overflows.
    pub fn div(self, x: Clns, y: Clns) -> Clns {
        self.encode(product(self.class(x), reciprocal(self.class(y))))
    }

    /// x^n, exact: the log multiplies by n and the angle by n mod 2^32 (angles wrap exactly).
    pub fn powi(self, x: Clns, n: i32) -> Clns {
        use Class::*;
        match self.class(x) {
            NaN => self.nan(),
            _ if n == 0 => self.one(),
            Zero if n > 0 => self.zero(),
            Zero => self.inf(),
            Inf if n > 0 => self.inf(),
            Inf => self.zero(),
            Finite { log, angle } => self.encode(Finite {
                log: (log as i128 * n as i128).clamp(-(1 << 40), 1 << 40) as i64,
                angle: angle.wrapping_mul(n as u32),
            }),
        }
    }

    /// The complex conjugate: the angle negates.
    pub fn conj(self, x: Clns) -> Clns {
        match self.class(x) {
            Class::Finite { log, angle } => self.encode(Class::Finite {
                log,
                angle: angle.wrapping_neg(),
            }),
            _ => x,
        }
    }

    /// −x: half a turn more.
    pub fn neg(self, x: Clns) -> Clns {
        match self.class(x) {
            Class::Finite { log, angle } => self.encode(Class::Finite {
                log,
                angle: angle.wrapping_add(HALF_TURN),
            }),
            _ => x,
        }
    }

    /// x + y with S_b from `m`. Exact cases: x + 0 = x, x + (−x) = 0.
    pub fn add(self, m: &(impl Sb + ?Sized), x: Clns, y: Clns) -> Clns {
        use Class::*;
        match (self.class(x), self.class(y)) {
            (NaN, _) | (_, NaN) | (Inf, Inf) => self.nan(),
            (Inf, _) | (_, Inf) => self.inf(),
            (Zero, _) => y,
            (_, Zero) => x,
            (Finite { log: a, angle: p }, Finite { log: b, angle: q }) => {
                // T = big·(1 + Z), Z = small/big: z = log2|Z| ≤ 0, θ = arg Z.
                let ((big, big_angle), (small, small_angle)) = if a >= b {
                    ((a, p), (b, q))
                } else {
                    ((b, q), (a, p))
                };
                let z = small - big;
                let theta = small_angle.wrapping_sub(big_angle);
                // S_b(z, −θ) = conj S_b(z, θ): reduce to θ ∈ [0, π].
                let (theta, mirrored) = if theta > HALF_TURN {
                    (theta.wrapping_neg(), true)
                } else {
                    (theta, false)
                };
                if z == 0 && theta == HALF_TURN {
                    return self.zero();
                }
                let (re, im) = m.sb(z, theta);
                let im = if mirrored { im.wrapping_neg() } else { im };
                self.encode(Finite {
                    log: big + re,
                    angle: big_angle.wrapping_add(im),
                })
            }
        }
    }

    /// x − y = x + (−y).
    pub fn sub(self, m: &(impl Sb + ?Sized), x: Clns, y: Clns) -> Clns {
        self.add(m, x, self.neg(y))
    }
}

/// A u32 angle in radians, [0, 2π).
pub fn angle_radians(angle: u32) -> f64 {
    angle as f64 * (TAU / 4_294_967_296.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::certify::{certify, Inputs};
    use crate::sb::{Geometry, Method, SbF64};
    use rand::{Rng, SeedableRng};

    const F: ClnsFormat = ClnsFormat::CLNS16;

    fn random_values(n: usize, seed: u64) -> Vec<Clns> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        (0..n)
            .map(|_| {
                let x = Complex::new(rng.random_range(-8.0..8.0), rng.random_range(-8.0..8.0));
                F.from_complex(x)
            })
            .collect()
    }

    #[test]
    fn exact_identities() {
        let m = SbF64(F);
        let v = random_values(2000, 1);
        for w in v.windows(2) {
            let (x, y) = (w[0], w[1]);
            assert_eq!(F.div(F.mul(x, y), y), x);
            assert_eq!(F.mul(F.div(x, y), y), x);
            assert_eq!(F.conj(F.conj(x)), x);
            assert_eq!(F.neg(F.neg(x)), x);
            assert_eq!(F.mul(x, F.conj(x)).angle, 0, "x·x̄ is real");
            assert_eq!(
                F.mul_finite(x, y),
                F.mul(x, y),
                "finite operands, product in range"
            );
            assert_eq!(F.powi(x, 3), F.mul(F.mul(x, x), x));
            assert_eq!(F.powi(x, -1), F.div(F.one(), x));
            assert_eq!(F.add(&m, x, F.neg(x)), F.zero());
            assert_eq!(F.sub(&m, x, x), F.zero());
            assert_eq!(F.add(&m, x, F.zero()), x);
            assert_eq!(F.add(&m, x, y), F.add(&m, y, x), "commutative");
            assert_eq!(F.conj(F.add(&m, x, y)), F.add(&m, F.conj(x), F.conj(y)));
        }
        // i^4 = 1 and i^2 = −1 exactly: the angle wraps in integers.
        let i = F.from_complex(Complex::new(0.0, 1.0));
        assert_eq!(F.powi(i, 4), F.one());
        assert_eq!(F.powi(i, 2), F.neg(F.one()));
    }

    /// Each method's sums against num_complex in f64, within the bound its certificate gives
    /// (operands are exact CLNS values, so S_b's rounding is the only error of one add).
    #[test]
    fn sums_match_num_complex_within_the_certified_bound() {
        let g = Geometry::default_for(F);
        let inputs = Inputs::standard(F, 61, 20_000, 5);
        let v = random_values(4001, 2);
        for method in [Method::F64, Method::Tex, Method::Fma] {
            let m = method.cpu(F, g).unwrap().unwrap();
            let cert = certify(&m, &method.to_string(), &inputs);
            // The strided certificate may miss the worst input of a table method by a little.
            let margin = if method == Method::F64 {
                1.0 + 1e-9
            } else {
                1.5
            };
            let bound = cert.add_relative_bound * margin;
            let mut worst = 0.0f64;
            for w in v.windows(2) {
                let exact = F.to_complex(w[0]) + F.to_complex(w[1]);
                let got = F.to_complex(F.add(&m, w[0], w[1]));
                worst = worst.max((got - exact).norm() / exact.norm());
            }
            assert!(worst <= bound, "{method}: {worst:e} > bound {bound:e}");
            assert!(
                worst > bound / 20.0,
                "{method}: the bound should be near-tight"
            );
        }
    }

    #[test]
    fn conversion_rounds_to_nearest() {
        for &(re, im) in &[(1.0, 0.0), (-3.0, 4.0), (1e-3, -2e-3), (0.0, -7.5)] {
            let x = Complex::new(re, im);
            let got = F.to_complex(F.from_complex(x));
            let bound =
                std::f64::consts::LN_2 * F.log.ulp() / 2.0 + TAU * F.angle_ulp_turns() / 2.0;
            assert!((got - x).norm() / x.norm() <= bound * 1.001, "{x}");
        }
        assert_eq!(F.from_complex32(Complex::new(1.0, 0.0)), F.one());
        assert_eq!(F.to_complex32(F.one()), Complex::new(1.0f32, 0.0));
    }

    #[test]
    fn bad_input_gives_ieee_like_specials() {
        let m = SbF64(F);
        let two = F.from_complex(Complex::new(2.0, 0.0));
        let nan = F.from_complex(Complex::new(f64::NAN, 1.0));
        let inf = F.from_complex(Complex::new(1.0, f64::INFINITY));
        assert_eq!(F.class(nan), crate::Class::NaN);
        assert_eq!(F.class(inf), crate::Class::Inf);
        assert_eq!(F.from_complex(Complex::new(0.0, -0.0)), F.zero());
        assert_eq!(F.class(F.mul(F.zero(), inf)), crate::Class::NaN);
        assert_eq!(F.div(two, F.zero()), F.inf());
        assert_eq!(F.class(F.div(F.zero(), F.zero())), crate::Class::NaN);
        assert_eq!(F.class(F.add(&m, nan, two)), crate::Class::NaN);
        assert_eq!(F.class(F.add(&m, inf, inf)), crate::Class::NaN);
        assert_eq!(F.add(&m, inf, two), F.inf());
        assert_eq!(F.powi(F.zero(), -2), F.inf());
        assert!(F.to_complex(nan).re.is_nan());
        // Overflow and underflow of products and sums.
        let big = F.from_complex(Complex::new(60000.0, 0.0));
        assert_eq!(F.mul(big, big), F.inf());
        assert_eq!(F.add(&m, big, big), F.inf());
        let tiny = F.from_complex(Complex::new(1e-4, 0.0));
        assert_eq!(F.mul(tiny, tiny), F.zero());
        // Unnormalised words (a log beyond the range) read as their nearest class, never panic.
        assert_eq!(
            F.class(Clns {
                log: i32::MAX,
                angle: 5
            }),
            crate::Class::Inf
        );
        assert_eq!(
            F.class(Clns {
                log: i32::MIN,
                angle: 0
            }),
            crate::Class::Zero
        );
    }
}
