//! Element types a recurrence runs in: f32, f64, i32 and i64. Integer arithmetic wraps like
//! two's complement (a prefix sum of i32 overflows the way a C `int32_t` sum on unsigned
//! hardware would), so integer results are exact modulo 2^32 / 2^64 on every path.

use crate::error::FilterError;
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
    type Err = FilterError;
    fn from_str(s: &str) -> Result<Self, FilterError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "f32" | "float32" | "float" => Ok(DType::F32),
            "f64" | "float64" | "double" => Ok(DType::F64),
            "i32" | "int32" => Ok(DType::I32),
            "i64" | "int64" => Ok(DType::I64),
            other => Err(FilterError::UnknownDType(other.to_owned())),
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
    fn from_coef(c: &Coef) -> Result<Self, FilterError>;
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
            fn from_coef(c: &Coef) -> Result<Self, FilterError> {
                let v = c.value as $t;
                if v.is_finite() {
                    Ok(v)
                } else {
                    Err(FilterError::Coefficients(format!(
                        "{} does not fit in {}",
                        c.text, $dtype
                    )))
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
            fn from_coef(c: &Coef) -> Result<Self, FilterError> {
                let Some(i) = c.int else {
                    return Err(FilterError::Coefficients(format!(
                        "{} is not an integer, and {} filters take integer coefficients",
                        c.text, $dtype
                    )));
                };
                <$t>::try_from(i).map_err(|_| {
                    FilterError::Coefficients(format!("{} does not fit in {}", c.text, $dtype))
                })
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

/// Values of `T` from their little-endian bytes (as .npy and raw files hold them); a
/// trailing partial value is ignored.
pub fn from_le_bytes<T: Element>(bytes: &[u8]) -> Vec<T> {
    let size = T::DTYPE.size();
    bytes
        .chunks_exact(size)
        .map(|c| {
            let mut b = [0u8; 8];
            b[..size].copy_from_slice(c);
            T::from_bits64(u64::from_le_bytes(b))
        })
        .collect()
}

/// The little-endian bytes of `values`.
pub fn to_le_bytes<T: Element>(values: &[T]) -> Vec<u8> {
    let size = T::DTYPE.size();
    values
        .iter()
        .flat_map(|v| v.to_bits64().to_le_bytes().into_iter().take(size))
        .collect()
}

/// Runs `$body` with `$T` bound to the element type of `$dtype`.
#[macro_export]
macro_rules! with_dtype {
    ($dtype:expr, $T:ident => $body:expr) => {
        $crate::__with_dtype_arms!($dtype, $T, $body, F32 f32, F64 f64, I32 i32, I64 i64)
    };
}

/// The arms of [`with_dtype!`]: one per element type.
#[doc(hidden)]
#[macro_export]
macro_rules! __with_dtype_arms {
    ($dtype:expr, $T:ident, $body:expr, $($variant:ident $t:ty),*) => {
        match $dtype {
            $($crate::DType::$variant => {
                type $T = $t;
                $body
            })*
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
    fn le_bytes_round_trip() {
        let v = [-1.5f64, 0.0, 3e300];
        assert_eq!(from_le_bytes::<f64>(&to_le_bytes(&v)), v);
        let w = [-7i32, i32::MIN, 5];
        assert_eq!(to_le_bytes(&w)[..4], (-7i32).to_le_bytes());
        assert_eq!(from_le_bytes::<i32>(&to_le_bytes(&w)), w);
    }

    #[test]
    fn dtype_parses() {
        assert_eq!("F32".parse::<DType>().unwrap(), DType::F32);
        let err = "f16".parse::<DType>().unwrap_err().to_string();
        assert!(err.contains("f16") && err.contains("expected f32"), "{err}");
    }
}
