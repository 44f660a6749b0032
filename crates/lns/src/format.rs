//! LNS formats: a sign bit and a two's-complement fixed-point log2|x| with I integer and F
//! fractional bits, packed in a word of 1 + I + F ≤ 32 bits.
//!
//! Two codes of the log field are reserved, so no extra flag bit is spent:
//! - the most negative code is *special*: with the sign clear it is the one zero, with the sign
//!   set it is NaN (LNS has no −0: a negative result that underflows becomes +0);
//! - the most positive code is ±infinity.
//!
//! Finite values have log codes in `[min_code, max_code]` = `[−2^(I+F−1) + 1, 2^(I+F−1) − 2]`.
//! Overflow and underflow follow IEEE round-to-nearest in the log domain: a result whose
//! rounded log code is above `max_code` is ±∞, below `min_code` is zero (there are no
//! subnormals, so LNS underflows at 2^min rather than gradually).

use serde::Serialize;
use std::fmt;
use std::str::FromStr;

/// An LNS format: a sign bit and a two's-complement log2|x| of `int_bits` + `frac_bits` bits,
/// in the low 1 + I + F bits of a `u32` (the module notes give the reserved codes).
///
/// Build one with [`Format::new`] or parse a name (`lns16`, `lns32`, `i<I>f<F>`), which check
/// 1 + I + F ≤ 32 and I ≥ 1; a value built from the public fields must keep both. Displays as
/// its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Format {
    /// Integer bits of log2|x|, sign of the log included (two's complement).
    pub int_bits: u32,
    /// Fractional bits F: one ulp is 2^-F in the log domain, a relative step of 2^(2^-F) − 1.
    pub frac_bits: u32,
}

impl Format {
    /// 16-bit word, F = 10: log2|x| ∈ [−16, 16), range like binary16 (2^-16 … 2^16).
    pub const LNS16: Format = Format {
        int_bits: 5,
        frac_bits: 10,
    };
    /// 32-bit word, F = 23: log2|x| ∈ [−128, 128), range like binary32.
    pub const LNS32: Format = Format {
        int_bits: 8,
        frac_bits: 23,
    };

    /// A format with `int_bits` + `frac_bits` log bits; the word (with the sign) must fit 32
    /// bits and hold at least one integer bit.
    pub fn new(int_bits: u32, frac_bits: u32) -> Result<Format, FormatError> {
        // Each field below 32 first, so the sums cannot overflow (i8f4294967295).
        if int_bits == 0
            || int_bits >= 32
            || frac_bits >= 32
            || int_bits + frac_bits + 1 > 32
            || int_bits + frac_bits < 3
        {
            return Err(FormatError(format!(
                "i{int_bits}f{frac_bits}: need I ≥ 1, I + F ≥ 3 and 1 + I + F ≤ 32 bits"
            )));
        }
        Ok(Format {
            int_bits,
            frac_bits,
        })
    }

    /// Bits in the packed word: sign + log field.
    pub fn word_bits(self) -> u32 {
        1 + self.int_bits + self.frac_bits
    }

    /// Bits of the log field.
    pub fn log_bits(self) -> u32 {
        self.int_bits + self.frac_bits
    }

    /// The reserved code for zero (sign clear) and NaN (sign set).
    pub fn special_code(self) -> i64 {
        -(1i64 << (self.log_bits() - 1))
    }

    /// The reserved code for ±infinity.
    pub fn inf_code(self) -> i64 {
        (1i64 << (self.log_bits() - 1)) - 1
    }

    /// Smallest log code of a finite nonzero value.
    pub fn min_code(self) -> i64 {
        self.special_code() + 1
    }

    /// Largest log code of a finite value.
    pub fn max_code(self) -> i64 {
        self.inf_code() - 1
    }

    /// One ulp in the log domain, 2^-F (built from the exponent bits: this sits on hot paths).
    pub fn ulp(self) -> f64 {
        pow2(-(self.frac_bits as i32))
    }

    /// The most negative z (in codes) for which s_b or d_b rounds to something other than
    /// zero: below it, x + y = max(x, y) exactly ("essential zero"). |s_b(z)| < 2^-(F+1) when
    /// 2^z/ln 2 < 2^-(F+1), i.e. z < −(F + 1) − log2(1/ln 2); one code of margin is kept.
    pub fn essential_zero_code(self) -> i64 {
        /// log2(1 / ln 2).
        const LOG2_INV_LN2: f64 = 0.528_766_372_944_897_7;
        let z = -(self.frac_bits as f64 + 1.0) - LOG2_INV_LN2;
        ((z / self.ulp()).floor() as i64 - 1).max(self.min_code() - self.max_code())
    }
}

/// 2^k for |k| < 1023, exactly, from the exponent bits.
pub(crate) fn pow2(k: i32) -> f64 {
    f64::from_bits(((1023 + k) as u64) << 52)
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Format::LNS16 => f.write_str("lns16"),
            Format::LNS32 => f.write_str("lns32"),
            Format {
                int_bits,
                frac_bits,
            } => write!(f, "i{int_bits}f{frac_bits}"),
        }
    }
}

/// A format name that does not parse, or a shape that does not fit ([`Format::new`]); the
/// message says what is expected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid LNS format {0}")]
pub struct FormatError(String);

impl FromStr for Format {
    type Err = FormatError;

    /// `lns16`, `lns32` or `i<I>f<F>` (e.g. `i6f13`).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if let Some(preset) = by_name(s, [Format::LNS16, Format::LNS32]) {
            return Ok(preset);
        }
        let bad = || {
            FormatError(format!(
                "{s:?}: expected lns16, lns32 or i<I>f<F> such as i6f13"
            ))
        };
        let lower = s.trim().to_ascii_lowercase();
        let rest = lower.strip_prefix('i').ok_or_else(bad)?;
        let (i, f) = rest.split_once('f').ok_or_else(bad)?;
        Format::new(i.parse().map_err(|_| bad())?, f.parse().map_err(|_| bad())?)
    }
}

/// The value among `named` whose name (its `Display`) is `s`, trimmed and in any case: how
/// presets and methods parse, so that a name always reads back as what it prints.
pub fn by_name<T: fmt::Display>(s: &str, named: impl IntoIterator<Item = T>) -> Option<T> {
    let s = s.trim().to_ascii_lowercase();
    named.into_iter().find(|v| v.to_string() == s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_have_the_documented_ranges() {
        assert_eq!(Format::LNS16.word_bits(), 16);
        assert_eq!(Format::LNS32.word_bits(), 32);
        assert_eq!(
            Format::LNS16.max_code() as f64 * Format::LNS16.ulp(),
            16.0 - 2.0 / 1024.0
        );
        assert_eq!(
            Format::LNS16.min_code() as f64 * Format::LNS16.ulp(),
            -16.0 + 1.0 / 1024.0
        );
        assert!(
            (Format::LNS32.essential_zero_code() as f64 * Format::LNS32.ulp() + 24.53).abs() < 0.01
        );
    }

    #[test]
    fn powers_of_two_are_exact() {
        for k in [-60, -23, -1, 0, 1, 23, 60] {
            assert_eq!(pow2(k), (k as f64).exp2());
        }
        // The constant in essential_zero_code, to within an ulp of the library's log2.
        assert!(((1.0f64 / std::f64::consts::LN_2).log2() - 0.528_766_372_944_897_7).abs() < 1e-15);
    }

    #[test]
    fn parses_and_rejects() {
        assert_eq!("lns16".parse(), Ok(Format::LNS16));
        assert_eq!(
            "i6f13".parse(),
            Ok(Format {
                int_bits: 6,
                frac_bits: 13
            })
        );
        assert_eq!("i8f23".parse::<Format>().unwrap().to_string(), "lns32");
        for bad in ["", "lns8", "i0f10", "i9f23", "i3", "f10", "ixf3"] {
            assert!(bad.parse::<Format>().is_err(), "{bad}");
        }
    }
}
