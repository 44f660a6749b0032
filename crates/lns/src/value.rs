//! Packing, unpacking and conversion of LNS words.

use crate::format::Format;

/// What an LNS word denotes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Zero; LNS has one (no −0).
    Zero,
    /// Not a number.
    NaN,
    /// Infinity.
    Inf {
        /// −∞ rather than +∞.
        negative: bool,
    },
    /// ±2^(log · 2^-F), `log` in [min_code, max_code].
    Finite {
        /// A negative value.
        negative: bool,
        /// The log code: log2|x| in units of 2^-F.
        log: i64,
    },
}

impl Class {
    /// The class's value as f64, with `magnitude(log)` = 2^(log·2^-F) for finite ones.
    pub(crate) fn to_f64_with(self, magnitude: impl Fn(i64) -> f64) -> f64 {
        match self {
            Class::Zero => 0.0,
            Class::NaN => f64::NAN,
            Class::Inf { negative: true } => f64::NEG_INFINITY,
            Class::Inf { negative: false } => f64::INFINITY,
            Class::Finite { negative, log } => {
                let m = magnitude(log);
                if negative {
                    -m
                } else {
                    m
                }
            }
        }
    }
}

impl Format {
    fn sign_bit(self) -> u32 {
        1 << (self.word_bits() - 1)
    }

    fn log_mask(self) -> u32 {
        ((1u64 << self.log_bits()) - 1) as u32
    }

    /// The value a word denotes. Bits above the format's word are ignored.
    pub fn decode(self, word: u32) -> Class {
        let negative = word & self.sign_bit() != 0;
        let field = (word & self.log_mask()) as i64;
        // Sign-extend the log field.
        let log = (field << (64 - self.log_bits())) >> (64 - self.log_bits());
        if log == self.special_code() {
            if negative {
                Class::NaN
            } else {
                Class::Zero
            }
        } else if log == self.inf_code() {
            Class::Inf { negative }
        } else {
            Class::Finite { negative, log }
        }
    }

    /// The word for a class; a finite log outside [min_code, max_code] becomes ±∞ (above) or
    /// zero (below), as IEEE overflow and underflow do.
    pub fn encode(self, class: Class) -> u32 {
        let pack = |negative: bool, log: i64| {
            (if negative { self.sign_bit() } else { 0 }) | (log as u32 & self.log_mask())
        };
        match class {
            Class::Zero => pack(false, self.special_code()),
            Class::NaN => pack(true, self.special_code()),
            Class::Inf { negative } => pack(negative, self.inf_code()),
            Class::Finite { negative, log } if log > self.max_code() => {
                pack(negative, self.inf_code())
            }
            Class::Finite { log, .. } if log < self.min_code() => pack(false, self.special_code()),
            Class::Finite { negative, log } => pack(negative, log),
        }
    }

    /// The word of zero: the special code with the sign clear.
    pub fn zero(self) -> u32 {
        self.encode(Class::Zero)
    }

    /// The word of NaN: the special code with the sign set.
    pub fn nan(self) -> u32 {
        self.encode(Class::NaN)
    }

    /// The word nearest to `x` in the log domain: log2|x| rounded to F fractional bits (ties
    /// to even), computed in f64 (correctly rounded except within ~1e-16 of a tie, which a
    /// binary32 or binary64 input never is unless it is a power of two, handled exactly).
    pub fn from_f64(self, x: f64) -> u32 {
        if x.is_nan() {
            return self.nan();
        }
        if x == 0.0 {
            return self.zero();
        }
        let negative = x < 0.0;
        if x.is_infinite() {
            return self.encode(Class::Inf { negative });
        }
        let scaled = x.abs().log2() * (self.frac_bits as f64).exp2();
        let log = scaled.round_ties_even();
        // Beyond i64 is beyond every format: saturate and let encode map it to ∞ or zero.
        let log = log.clamp(-(1i64 << 40) as f64, (1i64 << 40) as f64) as i64;
        self.encode(Class::Finite { negative, log })
    }

    /// [`Format::from_f64`] of an f32 (widened exactly, so rounded the same way).
    pub fn from_f32(self, x: f32) -> u32 {
        self.from_f64(x as f64)
    }

    /// The value of a word as f64: ±2^(log·2^-F), exact to f64 precision.
    pub fn to_f64(self, word: u32) -> f64 {
        self.decode(word)
            .to_f64_with(|log| (log as f64 * self.ulp()).exp2())
    }

    /// [`Format::to_f64`] rounded to the nearest f32 (±∞ beyond f32's range).
    pub fn to_f32(self, word: u32) -> f32 {
        self.to_f64(word) as f32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specials_round_trip() {
        for f in [Format::LNS16, Format::LNS32, Format::new(3, 2).unwrap()] {
            assert_eq!(f.decode(f.zero()), Class::Zero);
            assert_eq!(f.decode(f.nan()), Class::NaN);
            assert_eq!(f.to_f64(f.from_f64(f64::INFINITY)), f64::INFINITY);
            assert_eq!(f.to_f64(f.from_f64(f64::NEG_INFINITY)), f64::NEG_INFINITY);
            assert!(f.to_f64(f.from_f64(f64::NAN)).is_nan());
            assert_eq!(f.to_f64(f.from_f64(-0.0)), 0.0);
        }
    }

    #[test]
    fn powers_of_two_are_exact_and_range_saturates() {
        let f = Format::LNS16;
        for e in -15..=15 {
            let x = (e as f64).exp2();
            assert_eq!(f.to_f64(f.from_f64(x)), x);
            assert_eq!(f.to_f64(f.from_f64(-x)), -x);
        }
        assert_eq!(f.to_f64(f.from_f64(70000.0)), f64::INFINITY);
        assert_eq!(f.to_f64(f.from_f64(-70000.0)), f64::NEG_INFINITY);
        assert_eq!(f.to_f64(f.from_f64(1e-6)), 0.0);
        assert_eq!(
            f.to_f64(f.from_f64(-1e-6)),
            0.0,
            "negative underflow is the one zero"
        );
        assert_eq!(f.to_f64(f.from_f64(1e300)), f64::INFINITY);
    }

    #[test]
    fn every_lns16_word_round_trips_through_f64() {
        let f = Format::LNS16;
        for w in 0..=u16::MAX as u32 {
            let x = f.to_f64(w);
            if x.is_nan() {
                assert_eq!(f.decode(w), Class::NaN);
            } else {
                assert_eq!(f.from_f64(x), w, "word {w:#06x} = {x}");
            }
        }
    }

    #[test]
    fn conversion_rounds_to_nearest_in_the_log_domain() {
        let f = Format::LNS16;
        let x = 3.0f64; // log2 3 = 1.58496..., × 1024 = 1623.0 (1622.99...)
        let Class::Finite { log, .. } = f.decode(f.from_f64(x)) else {
            panic!()
        };
        assert_eq!(log, (x.log2() * 1024.0).round() as i64);
    }
}
