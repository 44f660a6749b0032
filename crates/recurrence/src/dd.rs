//! Double-double arithmetic (about 106 significant bits from pairs of f64): how correction
//! factors, impulse responses and root residuals are computed, so that they are exact to f64
//! rounding even where the f64 recurrence itself loses most of its digits (the factor table of
//! a high-order direct-form filter computed in precision ε is off by about ε·max|F|²).

/// hi + lo with |lo| ≤ ulp(hi)/2.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Dd {
    pub hi: f64,
    pub lo: f64,
}

/// a + b = s + e exactly (Knuth's two-sum), for any two doubles.
#[inline]
pub(crate) fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// a·b = p + e exactly. With FMA compiled in, one fused multiply-add; otherwise Dekker's
/// product of split halves, inline (a call to the library's fma per product took a third of
/// the set-up time), falling back to the library's fma where a split would overflow.
#[inline]
fn two_prod(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    if cfg!(target_feature = "fma") {
        return (p, a.mul_add(b, -p));
    }
    const SPLIT: f64 = 134_217_729.0; // 2^27 + 1
                                      // Inside these bounds neither the split overflows nor the partial products underflow.
    const SAFE: f64 = 1e300;
    const TINY: f64 = 1e-270;
    if a == 0.0 || b == 0.0 {
        return (p, 0.0);
    }
    if !(a.abs() < SAFE && b.abs() < SAFE && p.abs() < SAFE && p.abs() > TINY) {
        return (p, a.mul_add(b, -p));
    }
    let split = |v: f64| {
        let t = SPLIT * v;
        let hi = t - (t - v);
        (hi, v - hi)
    };
    let ((ah, al), (bh, bl)) = (split(a), split(b));
    (p, ((ah * bh - p) + ah * bl + al * bh) + al * bl)
}

impl Dd {
    pub const ZERO: Dd = Dd { hi: 0.0, lo: 0.0 };

    pub fn new(v: f64) -> Dd {
        Dd { hi: v, lo: 0.0 }
    }

    pub fn add(self, o: Dd) -> Dd {
        let (s, e) = two_sum(self.hi, o.hi);
        let (t, f) = two_sum(self.lo, o.lo);
        let (s, e) = quick(s, e + t);
        let (hi, lo) = quick(s, e + f);
        Dd { hi, lo }
    }

    pub fn neg(self) -> Dd {
        Dd {
            hi: -self.hi,
            lo: -self.lo,
        }
    }

    pub fn sub(self, o: Dd) -> Dd {
        self.add(o.neg())
    }

    pub fn mul(self, o: Dd) -> Dd {
        let (p, e) = two_prod(self.hi, o.hi);
        let e = e + (self.hi * o.lo + self.lo * o.hi);
        let (hi, lo) = quick(p, e);
        Dd { hi, lo }
    }

    pub fn mul_f64(self, o: f64) -> Dd {
        let (p, e) = two_prod(self.hi, o);
        let (hi, lo) = quick(p, e + self.lo * o);
        Dd { hi, lo }
    }

    /// Rounded to the nearest f64 (to within the last bit).
    pub fn to_f64(self) -> f64 {
        self.hi + self.lo
    }
}

#[inline]
fn quick(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    (s, b - (s - a))
}

/// A complex number in double-double.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Cdd {
    pub re: Dd,
    pub im: Dd,
}

impl Cdd {
    pub fn add_f64(self, v: f64) -> Cdd {
        Cdd {
            re: self.re.add(Dd::new(v)),
            im: self.im,
        }
    }

    /// self · (zr + i·zi) for an f64 complex z.
    pub fn mul_c(self, zr: f64, zi: f64) -> Cdd {
        Cdd {
            re: self.re.mul_f64(zr).sub(self.im.mul_f64(zi)),
            im: self.re.mul_f64(zi).add(self.im.mul_f64(zr)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_bits_f64_loses() {
        // (1 + 2^-60) - 1 = 2^-60 exactly in double-double.
        let x = Dd::new(1.0).add(Dd::new(2f64.powi(-60)));
        assert_eq!(x.sub(Dd::new(1.0)).to_f64(), 2f64.powi(-60));
        // (1 + 2^-30)^2 = 1 + 2^-29 + 2^-60.
        let y = Dd::new(1.0 + 2f64.powi(-30));
        let sq = y.mul(y).sub(Dd::new(1.0 + 2f64.powi(-29)));
        assert_eq!(sq.to_f64(), 2f64.powi(-60));
    }

    #[test]
    fn products_are_exact_split_or_fused() {
        let mut s = 0x9e3779b97f4a7c15u64;
        for i in 0..10_000 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let a = f64::from_bits((s >> 12) | 0x3ff0_0000_0000_0000) * 2f64.powi(i % 80 - 40);
            let b = -f64::from_bits((s >> 20) | 0x3fe0_0000_0000_0000) * 2f64.powi(i % 61);
            let (p, e) = two_prod(a, b);
            assert_eq!((p, e), (a * b, a.mul_add(b, -(a * b))), "{a} {b}");
        }
        // Beyond the split's range, the fused product; zeros exactly.
        for (a, b) in [
            (1e301, 3.0 + f64::EPSILON),
            (1e-200, 3e-100 + 1e-116),
            (0.0, 2.0),
        ] {
            let (p, e) = two_prod(a, b);
            assert_eq!((p, e), (a * b, a.mul_add(b, -(a * b))), "{a} {b}");
        }
    }
}
