//! The complex number the complex engines compute with: two f64, SciPy's operation order
//! (`(ar·br − ai·bi, ar·bi + ai·br)`, no fused multiply-add), so that the serial engine
//! rounds as `scipy.signal.lfilter` does on complex128.

use std::ops::{Add, Div, Mul, Neg, Sub};

/// A complex value in f64.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct C64 {
    /// Real part.
    pub re: f64,
    /// Imaginary part.
    pub im: f64,
}

impl C64 {
    /// Zero.
    pub const ZERO: C64 = C64 { re: 0.0, im: 0.0 };
    /// One.
    pub const ONE: C64 = C64 { re: 1.0, im: 0.0 };

    /// `re + i·im`.
    pub const fn new(re: f64, im: f64) -> C64 {
        C64 { re, im }
    }

    /// A real value.
    pub const fn real(re: f64) -> C64 {
        C64 { re, im: 0.0 }
    }

    /// The complex conjugate.
    pub fn conj(self) -> C64 {
        C64::new(self.re, -self.im)
    }

    /// |z| (without overflow in the squares).
    pub fn abs(self) -> f64 {
        self.re.hypot(self.im)
    }

    /// Whether both parts are finite.
    pub fn is_finite(self) -> bool {
        self.re.is_finite() && self.im.is_finite()
    }

    /// The value with both parts rounded to f32 and back (what a complex64 holds).
    pub fn to_f32_precision(self) -> C64 {
        C64::new(self.re as f32 as f64, self.im as f32 as f64)
    }
}

impl Add for C64 {
    type Output = C64;
    fn add(self, r: C64) -> C64 {
        C64::new(self.re + r.re, self.im + r.im)
    }
}

impl Sub for C64 {
    type Output = C64;
    fn sub(self, r: C64) -> C64 {
        C64::new(self.re - r.re, self.im - r.im)
    }
}

impl Neg for C64 {
    type Output = C64;
    fn neg(self) -> C64 {
        C64::new(-self.re, -self.im)
    }
}

impl Mul for C64 {
    type Output = C64;
    fn mul(self, r: C64) -> C64 {
        C64::new(
            self.re * r.re - self.im * r.im,
            self.re * r.im + self.im * r.re,
        )
    }
}

impl Mul<f64> for C64 {
    type Output = C64;
    fn mul(self, r: f64) -> C64 {
        C64::new(self.re * r, self.im * r)
    }
}

impl Div for C64 {
    type Output = C64;
    /// Smith's algorithm: no overflow for large divisors.
    fn div(self, r: C64) -> C64 {
        if r.re.abs() >= r.im.abs() {
            let q = r.im / r.re;
            let d = r.re + r.im * q;
            C64::new((self.re + self.im * q) / d, (self.im - self.re * q) / d)
        } else {
            let q = r.re / r.im;
            let d = r.re * q + r.im;
            C64::new((self.re * q + self.im) / d, (self.im * q - self.re) / d)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_follows_the_textbook() {
        let (a, b) = (C64::new(1.0, 2.0), C64::new(3.0, -4.0));
        assert_eq!(a * b, C64::new(11.0, 2.0));
        assert_eq!(a + b, C64::new(4.0, -2.0));
        assert_eq!(a - b, C64::new(-2.0, 6.0));
        let q = (a * b) / b;
        assert!((q - a).abs() < 1e-15);
        let q = C64::new(1.0, 0.0) / C64::new(0.0, 2.0);
        assert_eq!(q, C64::new(0.0, -0.5));
        assert_eq!(b.abs(), 5.0);
        assert_eq!(b.conj(), C64::new(3.0, 4.0));
    }
}
