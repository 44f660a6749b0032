//! CLNS formats and values: X = 2^(log·2^-F) · e^(2πi·angle/2^32).
//!
//! The log magnitude is a two's-complement fixed-point code of a real-LNS [`Format`] (I integer
//! and F fractional bits; its reserved codes mark zero and infinity). The angle is an unsigned
//! fraction of a full turn with P bits, kept in the top P bits of a `u32`: angles wrap mod 2π
//! by plain integer wrap-around, so products, quotients, powers, conjugates and negations are
//! exact integer operations.

use serde::Serialize;
use sigpu_lns::Format;
use std::fmt;
use std::str::FromStr;

/// A CLNS format: log-magnitude format and angle bits P (1..=32).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct ClnsFormat {
    /// The log-magnitude format: I integer and F fractional bits.
    pub log: Format,
    /// Angle bits P: the angle is a multiple of 2^-P turns.
    pub angle_bits: u32,
}

/// A CLNS value as stored in arrays and on the GPU (`struct Clns { int log; unsigned angle; }`).
///
/// `log` is the sign-extended code; the log format's special code is zero (angle 0) or NaN
/// (angle ≠ 0); its infinity code is complex infinity (whatever the angle).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct Clns {
    /// The log2-magnitude code (units of 2^-F), sign-extended; special codes mark zero, NaN and
    /// infinity.
    pub log: i32,
    /// The angle in units of 2^-32 turns; only the top P bits are used.
    pub angle: u32,
}

impl Clns {
    /// As the GPU buffers hold it: `[log bits, angle]`.
    pub fn to_pair(self) -> [u32; 2] {
        [self.log as u32, self.angle]
    }

    /// The inverse of [`to_pair`](Self::to_pair).
    pub fn from_pair([log, angle]: [u32; 2]) -> Clns {
        Clns {
            log: log as i32,
            angle,
        }
    }
}

/// What a CLNS value denotes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Zero (of any angle).
    Zero,
    /// Not a number.
    NaN,
    /// Complex infinity.
    Inf,
    /// A nonzero finite value.
    Finite {
        /// The log code, units of 2^-F.
        log: i64,
        /// The angle, in 2^-32 turns.
        angle: u32,
    },
}

/// Half a turn (π) in angle units.
pub const HALF_TURN: u32 = 1 << 31;

impl ClnsFormat {
    /// 16-bit log (i5f11: |X| from 2^-16 to 2^16, relative step 2^-11·ln 2) and a 16-bit angle:
    /// 16 bits per component, a 32-bit word.
    pub const CLNS16: ClnsFormat = ClnsFormat {
        log: Format {
            int_bits: 5,
            frac_bits: 11,
        },
        angle_bits: 16,
    };
    /// The lns32 log (i8f23, range like binary32) and a 24-bit angle (an f32 significand).
    pub const CLNS32: ClnsFormat = ClnsFormat {
        log: Format::LNS32,
        angle_bits: 24,
    };

    /// A format of `log` and `angle_bits` P; an error unless 2 ≤ P ≤ 32 and the log code fits 31
    /// bits.
    pub fn new(log: Format, angle_bits: u32) -> Result<ClnsFormat, ClnsFormatError> {
        if !(2..=32).contains(&angle_bits) || log.log_bits() > 31 {
            return Err(ClnsFormatError(format!(
                "{log}p{angle_bits}: need 2 ≤ P ≤ 32 angle bits and at most 31 log bits"
            )));
        }
        Ok(ClnsFormat { log, angle_bits })
    }

    /// A format with `bits` bits per component: log i5f(bits − 5), angle `bits` (8 ≤ bits ≤ 28).
    pub fn with_bits(bits: u32) -> Result<ClnsFormat, ClnsFormatError> {
        if !(8..=28).contains(&bits) {
            return Err(ClnsFormatError(format!(
                "{bits} bits per component: expected 8..=28"
            )));
        }
        let log = Format::new(5, bits - 5).map_err(|e| ClnsFormatError(e.to_string()))?;
        ClnsFormat::new(log, bits)
    }

    /// F: fractional bits of the log code.
    pub fn frac_bits(self) -> u32 {
        self.log.frac_bits
    }

    /// One angle ulp in turns: 2^-P.
    pub fn angle_ulp_turns(self) -> f64 {
        (-(self.angle_bits as f64)).exp2()
    }

    /// Low bits of the u32 angle that are always zero.
    pub fn angle_shift(self) -> u32 {
        32 - self.angle_bits
    }

    /// The code of zero (the log format's special code, angle 0).
    pub fn zero(self) -> Clns {
        Clns {
            log: self.log.special_code() as i32,
            angle: 0,
        }
    }

    /// The code of NaN (the special log code with a nonzero angle).
    pub fn nan(self) -> Clns {
        Clns {
            log: self.log.special_code() as i32,
            angle: 1 << self.angle_shift(),
        }
    }

    /// The code of complex infinity.
    pub fn inf(self) -> Clns {
        Clns {
            log: self.log.inf_code() as i32,
            angle: 0,
        }
    }

    /// 1 (log 0, angle 0).
    pub fn one(self) -> Clns {
        Clns { log: 0, angle: 0 }
    }

    /// What `x` denotes; a log code below the format's range reads as zero, above it as ∞.
    pub fn class(self, x: Clns) -> Class {
        let log = x.log as i64;
        if log == self.log.special_code() {
            if x.angle == 0 {
                Class::Zero
            } else {
                Class::NaN
            }
        } else if log >= self.log.inf_code() {
            Class::Inf
        } else if log < self.log.min_code() {
            Class::Zero
        } else {
            Class::Finite {
                log,
                angle: x.angle,
            }
        }
    }

    /// The value of a class; a finite log above the range is ∞, below it zero.
    pub fn encode(self, c: Class) -> Clns {
        match c {
            Class::Zero => self.zero(),
            Class::NaN => self.nan(),
            Class::Inf => self.inf(),
            Class::Finite { log, .. } if log > self.log.max_code() => self.inf(),
            Class::Finite { log, .. } if log < self.log.min_code() => self.zero(),
            Class::Finite { log, angle } => Clns {
                log: log as i32,
                angle,
            },
        }
    }

    /// An angle in turns rounded to P bits (ties to even), as a u32 angle.
    pub fn round_angle(self, turns: f64) -> u32 {
        let q = (turns * (self.angle_bits as f64).exp2()).round_ties_even();
        let q = q.rem_euclid((self.angle_bits as f64).exp2()) as u64;
        (q << self.angle_shift()) as u32
    }

    /// A log2 magnitude rounded to F fractional bits (ties to even), as a code.
    pub fn round_log(self, log2: f64) -> i64 {
        let scaled = (log2 * (self.frac_bits() as f64).exp2()).round_ties_even();
        scaled.clamp(-(1i64 << 40) as f64, (1i64 << 40) as f64) as i64
    }
}

impl fmt::Display for ClnsFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ClnsFormat::CLNS16 => f.write_str("clns16"),
            ClnsFormat::CLNS32 => f.write_str("clns32"),
            ClnsFormat { log, angle_bits } => {
                write!(f, "i{}f{}p{angle_bits}", log.int_bits, log.frac_bits)
            }
        }
    }
}

/// A CLNS format name or shape that is not valid; the message says what is expected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid CLNS format {0}")]
pub struct ClnsFormatError(String);

impl FromStr for ClnsFormat {
    type Err = ClnsFormatError;

    /// `clns16`, `clns32` or `i<I>f<F>p<P>` (e.g. `i5f11p16`).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if let Some(preset) = sigpu_lns::by_name(s, [ClnsFormat::CLNS16, ClnsFormat::CLNS32]) {
            return Ok(preset);
        }
        let bad = || {
            ClnsFormatError(format!(
                "{s:?}: expected clns16, clns32 or i<I>f<F>p<P> such as i5f11p16"
            ))
        };
        let lower = s.trim().to_ascii_lowercase();
        let (log, p) = lower.split_once('p').ok_or_else(bad)?;
        let log: Format = log.parse().map_err(|_| bad())?;
        ClnsFormat::new(log, p.parse().map_err(|_| bad())?)
    }
}

/// clns16, clns32 and the format of `bits` bits per component: the sizes tests sweep.
#[cfg(test)]
pub(crate) fn presets_and(bits: u32) -> [ClnsFormat; 3] {
    [
        ClnsFormat::CLNS16,
        ClnsFormat::CLNS32,
        ClnsFormat::with_bits(bits).unwrap(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_bad_names_are_refused() {
        for f in presets_and(12) {
            assert_eq!(f.to_string().parse(), Ok(f));
        }
        assert_eq!("i5f11p16".parse(), Ok(ClnsFormat::CLNS16));
        for bad in [
            "", "clns8", "i5f11", "i5f11p0", "i5f11p33", "i9f23p8", "i5f11px",
        ] {
            assert!(bad.parse::<ClnsFormat>().is_err(), "{bad}");
        }
        assert!(ClnsFormat::with_bits(40).is_err());
    }

    #[test]
    fn classes_and_angle_rounding() {
        let f = ClnsFormat::CLNS16;
        assert_eq!(f.class(f.zero()), Class::Zero);
        assert_eq!(f.class(f.nan()), Class::NaN);
        assert_eq!(f.class(f.inf()), Class::Inf);
        assert_eq!(f.round_angle(0.5), HALF_TURN);
        assert_eq!(f.round_angle(-0.25), 3 << 30);
        assert_eq!(f.round_angle(1.0), 0);
        assert_eq!(f.round_angle(1.0 / 65536.0), 1 << 16);
        assert_eq!(
            f.encode(Class::Finite {
                log: 1 << 20,
                angle: 0
            }),
            f.inf()
        );
        assert_eq!(
            f.encode(Class::Finite {
                log: -(1 << 20),
                angle: 7
            }),
            f.zero()
        );
    }
}
