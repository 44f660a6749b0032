//! Element types a recurrence runs in: f32, f64, i32 and i64. Integer arithmetic wraps like
//! two's complement (a prefix sum of i32 overflows the way a C `int32_t` sum on unsigned
//! hardware would), so integer results are exact modulo 2^32 / 2^64 on every path.

use crate::signature::Coef;
use std::fmt;

/// The element type of a filter's input, output, state and coefficients.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DType {
    F32,
    F64,
    I32,
    I64,
}

impl DType {
    pub const ALL: [DType; 4] = [DType::F32, DType::F64, DType::I32, DType::I64];

    pub fn name(self) -> &'static str {
        match self {
            DType::F32 => "f32",
            DType::F64 => "f64",
            DType::I32 => "i32",
            DType::I64 => "i64",
        }
    }

    pub fn size(self) -> usize {
        match self {
            DType::F32 | DType::I32 => 4,
            DType::F64 | DType::I64 => 8,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, DType::F32 | DType::F64)
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for DType {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "f32" | "float32" | "float" => Ok(DType::F32),
            "f64" | "float64" | "double" => Ok(DType::F64),
            "i32" | "int32" => Ok(DType::I32),
            "i64" | "int64" => Ok(DType::I64),
            other => Err(format!(
                "unknown element type {other:?} (expected f32, f64, i32 or i64)"
            )),
        }
    }
}

/// One element type. The arithmetic is the recurrence's own: wrapping for integers, IEEE for
/// floats, so the factors, the CPU path and the GPU code all compute in the same type.
pub trait Element:
    sigpu_runtime::cuda::Plain
    + Copy
    + Send
    + Sync
    + PartialEq
    + PartialOrd
    + fmt::Debug
    + Default
    + 'static
{
    const DTYPE: DType;
    const ZERO: Self;
    const ONE: Self;
    fn add(self, rhs: Self) -> Self;
    fn mul(self, rhs: Self) -> Self;
    /// `self · a + b` rounded once (floats; compiles to an FMA instruction where the caller
    /// was compiled with FMA enabled, a slow library call otherwise).
    fn fused_mul_add(self, a: Self, b: Self) -> Self;
    /// The coefficient in this type: exact for integers (a fraction or an out-of-range value is
    /// an error), rounded to nearest for floats.
    fn from_coef(c: &Coef) -> Result<Self, String>;
    /// An `as` conversion (saturating for integers): for test inputs and plots.
    fn from_f64(v: f64) -> Self;
    fn to_f64(self) -> f64;
    /// Below the smallest normal magnitude (floats); never for integers.
    fn below_min_normal(self) -> bool;
    fn is_finite(self) -> bool;
    /// The value's bits, zero-extended: how carries travel between threads in atomics.
    fn to_bits64(self) -> u64;
    fn from_bits64(bits: u64) -> Self;
    /// The value as a CUDA C literal of the generated code's element type `T`.
    fn c_literal(self) -> String;
}

/// `a · b + c`, fused or not: the fused form is chosen by callers compiled with FMA.
#[inline(always)]
pub(crate) fn madd<T: Element, const FMA: bool>(a: T, b: T, c: T) -> T {
    if FMA {
        a.fused_mul_add(b, c)
    } else {
        a.mul(b).add(c)
    }
}

macro_rules! float_element {
    ($t:ty, $dtype:expr, $bits:ty, $suffix:expr) => {
        impl Element for $t {
            const DTYPE: DType = $dtype;
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            #[inline(always)]
            fn add(self, rhs: Self) -> Self {
                self + rhs
            }
            #[inline(always)]
            fn mul(self, rhs: Self) -> Self {
                self * rhs
            }
            #[inline(always)]
            fn fused_mul_add(self, a: Self, b: Self) -> Self {
                self.mul_add(a, b)
            }
            fn from_coef(c: &Coef) -> Result<Self, String> {
                let v = c.value as $t;
                if v.is_finite() {
                    Ok(v)
                } else {
                    Err(format!("{} does not fit in {}", c.text, $dtype))
                }
            }
            fn from_f64(v: f64) -> Self {
                v as $t
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
            fn below_min_normal(self) -> bool {
                self.abs() < <$t>::MIN_POSITIVE
            }
            fn is_finite(self) -> bool {
                <$t>::is_finite(self)
            }
            fn to_bits64(self) -> u64 {
                self.to_bits() as u64
            }
            fn from_bits64(bits: u64) -> Self {
                <$t>::from_bits(bits as $bits)
            }
            fn c_literal(self) -> String {
                // Debug prints the shortest text that reads back to the same value, with a
                // '.' or an exponent, so it is a valid C floating literal.
                format!("{:?}{}", self, $suffix)
            }
        }
    };
}

float_element!(f32, DType::F32, u32, "f");
float_element!(f64, DType::F64, u64, "");

macro_rules! int_element {
    ($t:ty, $dtype:expr, $unsigned:ty) => {
        impl Element for $t {
            const DTYPE: DType = $dtype;
            const ZERO: Self = 0;
            const ONE: Self = 1;
            #[inline(always)]
            fn add(self, rhs: Self) -> Self {
                self.wrapping_add(rhs)
            }
            #[inline(always)]
            fn mul(self, rhs: Self) -> Self {
                self.wrapping_mul(rhs)
            }
            #[inline(always)]
            fn fused_mul_add(self, a: Self, b: Self) -> Self {
                self.wrapping_mul(a).wrapping_add(b)
            }
            fn from_coef(c: &Coef) -> Result<Self, String> {
                let Some(i) = c.int else {
                    return Err(format!(
                        "{} is not an integer, and {} filters take integer coefficients",
                        c.text, $dtype
                    ));
                };
                <$t>::try_from(i).map_err(|_| format!("{} does not fit in {}", c.text, $dtype))
            }
            fn from_f64(v: f64) -> Self {
                v as $t
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
            fn below_min_normal(self) -> bool {
                false
            }
            fn is_finite(self) -> bool {
                true
            }
            fn to_bits64(self) -> u64 {
                self as $unsigned as u64
            }
            fn from_bits64(bits: u64) -> Self {
                bits as $unsigned as $t
            }
            fn c_literal(self) -> String {
                // The generated code computes in the unsigned type of the same width (signed
                // overflow is undefined in C); a negative value is written as its conversion.
                if self < 0 {
                    format!("(T)({})", self)
                } else {
                    format!("{}u", self)
                }
            }
        }
    };
}

int_element!(i32, DType::I32, u32);
int_element!(i64, DType::I64, u64);

/// Runs `$body` with `$T` bound to the element type of `$dtype`.
#[macro_export]
macro_rules! with_dtype {
    ($dtype:expr, $T:ident => $body:expr) => {
        match $dtype {
            $crate::DType::F32 => {
                type $T = f32;
                $body
            }
            $crate::DType::F64 => {
                type $T = f64;
                $body
            }
            $crate::DType::I32 => {
                type $T = i32;
                $body
            }
            $crate::DType::I64 => {
                type $T = i64;
                $body
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_wrap() {
        assert_eq!(i32::MAX.add(1), i32::MIN);
        assert_eq!(65536i32.mul(65536), 0);
        assert_eq!(i64::MIN.add(-1), i64::MAX);
    }

    #[test]
    fn bits_round_trip() {
        for v in [-1.5f32, 0.0, f32::MIN_POSITIVE, 3e38] {
            assert_eq!(f32::from_bits64(v.to_bits64()), v);
        }
        for v in [-7i32, i32::MIN, 0, i32::MAX] {
            assert_eq!(i32::from_bits64(v.to_bits64()), v);
        }
        for v in [-7i64, i64::MIN] {
            assert_eq!(i64::from_bits64(v.to_bits64()), v);
        }
    }

    #[test]
    fn literals_are_c() {
        assert_eq!(0.8f32.c_literal(), "0.8f");
        assert_eq!(1.0f32.c_literal(), "1.0f");
        assert_eq!((-0.64f64).c_literal(), "-0.64");
        assert_eq!(1e-40f64.c_literal(), "1e-40");
        assert_eq!((-1i32).c_literal(), "(T)(-1)");
        assert_eq!(2i64.c_literal(), "2u");
    }

    #[test]
    fn dtype_parses() {
        assert_eq!("F32".parse::<DType>(), Ok(DType::F32));
        assert!("f16".parse::<DType>().unwrap_err().contains("f16"));
    }
}
