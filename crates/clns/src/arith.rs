//! Conversions and arithmetic. Products, quotients, integer powers, conjugates and negations
//! are exact (integer adds on the log code, wrapping adds on the angle); sums go through
//! S_b(Z) = log(1 + Z) evaluated by an [`Sb`] method: X + Y = Y·(1 + X/Y) with |X| ≤ |Y|.

use crate::format::{Class, Clns, ClnsFormat, HALF_TURN};
use crate::sb::Sb;
use num_complex::Complex;
use std::f64::consts::TAU;

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

    pub fn to_complex32(self, x: Clns) -> Complex<f32> {
        let c = self.to_complex(x);
        Complex::new(c.re as f32, c.im as f32)
    }

    /// x · y, exact (∞ and zero as IEEE: 0 · ∞ is NaN).
    pub fn mul(self, x: Clns, y: Clns) -> Clns {
        use Class::*;
        match (self.class(x), self.class(y)) {
            (NaN, _) | (_, NaN) | (Zero, Inf) | (Inf, Zero) => self.nan(),
            (Zero, _) | (_, Zero) => self.zero(),
            (Inf, _) | (_, Inf) => self.inf(),
            (Finite { log: a, angle: p }, Finite { log: b, angle: q }) => self.encode(Finite {
                log: a + b,
                angle: p.wrapping_add(q),
            }),
        }
    }

    /// x / y, exact: (x·y)/y = x whenever nothing overflows.
    pub fn div(self, x: Clns, y: Clns) -> Clns {
        use Class::*;
        match (self.class(x), self.class(y)) {
            (NaN, _) | (_, NaN) | (Zero, Zero) | (Inf, Inf) => self.nan(),
            (Zero, _) | (_, Inf) => self.zero(),
            (Inf, _) | (_, Zero) => self.inf(),
            (Finite { log: a, angle: p }, Finite { log: b, angle: q }) => self.encode(Finite {
                log: a - b,
                angle: p.wrapping_sub(q),
            }),
        }
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
