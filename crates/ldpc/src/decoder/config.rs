//! What picks a decoder besides the code and the device: the check-node rule ([`Algorithm`]),
//! the schedule, the message precision and the iteration budget ([`DecoderConfig`]), each
//! parsed from text once, here, for every face (`FromStr`: the command line's flags and the
//! Python keywords accept the same spellings) and written back by `Display` in its canonical
//! spelling.

use crate::error::{LdpcError, Result};
use crate::text::{display_by_name, from_names, lower, short};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The check-node rule.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Algorithm {
    /// Sum-product (tanh rule); float decoders only.
    SumProduct,
    /// Min-sum: the smallest other magnitude.
    MinSum,
    /// Normalised min-sum: the magnitude times `alpha` (8-bit: rounded to a multiple of 1/16).
    NormalizedMinSum {
        /// The factor α, in [1/16, 1].
        alpha: f32,
    },
    /// Offset min-sum: the magnitude less `beta` (LLR units), not below zero.
    OffsetMinSum {
        /// The offset β, LLR units in [0, 8].
        beta: f32,
    },
    /// Adaptive offset min-sum: the edge that held the smallest magnitude gets the second
    /// smallest less `beta`; every other edge gets the smallest, m1, less β/2 + ½·ln(1 +
    /// e^−(m2 − m1)) — the sum-product's correction for the two smallest inputs, halved, so
    /// the offset is large where the two minima are close and small where they are apart.
    /// Not below zero. CPU decoders only (not layered-compact).
    AdaptiveOffsetMinSum {
        /// The offset β, LLR units in [0, 8].
        beta: f32,
    },
    /// λ-min offset min-sum with λ = 3: the three smallest magnitudes m1 ≤ m2 ≤ m3 and the
    /// sum-product's pairwise rule |a ⊞ b| = min(a, b) − ln(1 + e^−|a−b|) + ln(1 + e^−(a+b));
    /// the edge of m1 gets m2 ⊞ m3, the edge of m2 gets m1 ⊞ m3, every other edge m1 ⊞ m2 ⊞
    /// m3, each less `beta`, not below zero. Closer to sum-product than the two-minimum rules
    /// on the low-rate 5G NR codes (bench/results/2026-11-30-cpu-nr-gap). CPU decoders only
    /// (not layered-compact).
    LambdaMinSum {
        /// The offset β, LLR units in [0, 8].
        beta: f32,
    },
}

/// The largest offset-min-sum β accepted (LLR units). Min-sum overestimates the sum-product
/// magnitude by less than ln(d_c − 1) (≈ 3.4 for the DVB codes' largest check degree, 30), the
/// gap an offset corrects; an offset past 8 erases nearly every message.
pub const MAX_OFFSET: f32 = 8.0;

/// The smallest normalised-min-sum α accepted: the 8-bit decoders keep α in sixteenths.
pub const MIN_ALPHA: f32 = 1.0 / 16.0;

impl Algorithm {
    /// Parses `spa`, `minsum`, `nms[:alpha]`, `oms[:beta]`, `aoms[:beta]`, `lmin[:beta]` (what [`Algorithm::cli_name`]
    /// gives, with the parameter after a colon), and checks the parameter with
    /// [`Algorithm::validate`]: a parameter the rule does not take (`minsum:3`) is refused.
    pub fn parse(s: &str) -> Result<Algorithm> {
        let lower = s.trim().to_ascii_lowercase();
        let (head, arg) = match lower.split_once([':', '=']) {
            Some((h, a)) => (h.trim().to_owned(), Some(a.trim().to_owned())),
            None => (lower.clone(), None),
        };
        let number = |default: f32| -> Result<f32> {
            arg.as_deref().map_or(Ok(default), |a| {
                a.parse()
                    .ok()
                    .filter(|x: &f32| x.is_finite())
                    .ok_or_else(|| {
                        LdpcError::invalid(format!("decoder {s:?}: {a:?} is not a number"))
                    })
            })
        };
        let none = |name: &str| -> Result<()> {
            match &arg {
                None => Ok(()),
                Some(a) => Err(LdpcError::invalid(format!(
                    "decoder {s:?}: {name} takes no parameter (got {a:?}); only nms:alpha, oms:beta, aoms:beta and lmin:beta do"
                ))),
            }
        };
        let algorithm = match head.as_str() {
            "spa" | "sum-product" | "bp" => none("sum-product").map(|_| Algorithm::SumProduct)?,
            "ms" | "minsum" | "min-sum" => none("min-sum").map(|_| Algorithm::MinSum)?,
            "nms" | "normalized" | "normalised" => Algorithm::NormalizedMinSum {
                alpha: number(0.875)?,
            },
            "oms" | "offset" => Algorithm::OffsetMinSum { beta: number(0.5)? },
            "aoms" | "adaptive-offset" => Algorithm::AdaptiveOffsetMinSum { beta: number(0.5)? },
            "lmin" | "lambda-min" => Algorithm::LambdaMinSum {
                beta: number(0.125)?,
            },
            _ => {
                return Err(LdpcError::invalid(format!(
                    "unknown decoder {s:?}: expected spa, minsum, nms[:alpha], oms[:beta], \
                     aoms[:beta] or lmin[:beta]"
                )))
            }
        };
        algorithm.validate()?;
        Ok(algorithm)
    }

    /// The one range check of the rule's parameter, made by every decoder (float, 8-bit CPU,
    /// GPU) before it runs: α in [1/16, 1] (α > 1 amplifies messages and α → 0 erases them),
    /// β in [0, [`MAX_OFFSET`]].
    pub fn validate(&self) -> Result<()> {
        match *self {
            Algorithm::NormalizedMinSum { alpha } if !(MIN_ALPHA..=1.0).contains(&alpha) => {
                Err(LdpcError::invalid(format!(
                    "decoder nms:{}: α must be in [0.0625, 1] (the magnitude is scaled by α; \
                     0.75–0.9 are usual)",
                    short(alpha)
                )))
            }
            Algorithm::OffsetMinSum { beta }
            | Algorithm::AdaptiveOffsetMinSum { beta }
            | Algorithm::LambdaMinSum { beta }
                if !(0.0..=MAX_OFFSET).contains(&beta) =>
            {
                Err(LdpcError::invalid(format!(
                    "decoder {}:{}: β must be in [0, {MAX_OFFSET}] LLR units (the offset \
                     subtracted from each magnitude; 0.15–1 are usual)",
                    self.cli_name(),
                    short(beta)
                )))
            }
            _ => Ok(()),
        }
    }

    /// The name `--decoder` takes: `spa`, `minsum`, `nms`, `oms`, `aoms` or `lmin`.
    pub fn cli_name(&self) -> &'static str {
        match self {
            Algorithm::SumProduct => "spa",
            Algorithm::MinSum => "minsum",
            Algorithm::NormalizedMinSum { .. } => "nms",
            Algorithm::OffsetMinSum { .. } => "oms",
            Algorithm::AdaptiveOffsetMinSum { .. } => "aoms",
            Algorithm::LambdaMinSum { .. } => "lmin",
        }
    }

    /// The rule in prose, e.g. `normalised min-sum α=0.75`, for descriptions and labels.
    pub fn label(&self) -> String {
        match self {
            Algorithm::SumProduct => "sum-product".into(),
            Algorithm::MinSum => "min-sum".into(),
            Algorithm::NormalizedMinSum { alpha } => format!("normalised min-sum α={alpha}"),
            Algorithm::OffsetMinSum { beta } => format!("offset min-sum β={beta}"),
            Algorithm::AdaptiveOffsetMinSum { beta } => {
                format!("adaptive offset min-sum β={beta}")
            }
            Algorithm::LambdaMinSum { beta } => format!("λ-min (3) offset min-sum β={beta}"),
        }
    }
}

impl FromStr for Algorithm {
    type Err = LdpcError;
    /// [`Algorithm::parse`].
    fn from_str(s: &str) -> Result<Self> {
        Algorithm::parse(s)
    }
}

/// The canonical spelling, which [`Algorithm::parse`] reads back: `spa`, `minsum`,
/// `nms:ALPHA`, `oms:BETA`, `aoms:BETA`, `lmin:BETA`.
impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Algorithm::NormalizedMinSum { alpha } => write!(f, "nms:{alpha}"),
            Algorithm::OffsetMinSum { beta } => write!(f, "oms:{beta}"),
            Algorithm::AdaptiveOffsetMinSum { beta } => write!(f, "aoms:{beta}"),
            Algorithm::LambdaMinSum { beta } => write!(f, "lmin:{beta}"),
            other => f.write_str(other.cli_name()),
        }
    }
}

/// Message-passing order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Schedule {
    /// All checks, then all bits (the GPU LDPC decoder paper's schedule).
    Flooding,
    /// Layer by layer ([`crate::Code::layers`]: a DVB code's 360-check circulants, else each
    /// check alone), each layer's output used by the next (row-layered). Float decoders go
    /// check by check; the 8-bit ones let a layer's checks read the posteriors together.
    Layered,
    /// Layered check by check with saturated 8-bit posteriors and compressed check state
    /// (min1, min2, index, sign bits): the fast 8-bit CPU decoder ([`super::CompactDecoder`]).
    #[serde(rename = "layered-compact")]
    LayeredCompact,
}

impl Schedule {
    /// Every schedule, in the order help texts list them.
    pub const ALL: [Schedule; 3] = [
        Schedule::Flooding,
        Schedule::Layered,
        Schedule::LayeredCompact,
    ];

    /// The canonical spelling: `flooding`, `layered` or `layered-compact`.
    pub fn name(self) -> &'static str {
        match self {
            Schedule::Flooding => "flooding",
            Schedule::Layered => "layered",
            Schedule::LayeredCompact => "layered-compact",
        }
    }
}

from_names!(Schedule, "schedule", lower,
    ["flooding", "flood"] => Schedule::Flooding,
    ["layered"] => Schedule::Layered,
    ["layered-compact", "compact"] => Schedule::LayeredCompact,
);

/// Number representation of the messages.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Precision {
    /// f32 messages (the CPU decoders only).
    Float,
    /// 8-bit messages; channel LLRs are quantised as round(LLR · scale) within ±127.
    Fixed8 {
        /// Quantisation steps per LLR unit.
        scale: f32,
    },
}

impl Precision {
    /// The 8-bit LLR scale unless one is given: steps of 0.25, LLRs up to 31.75 kept.
    pub const DEFAULT_SCALE: f32 = 4.0;

    /// The same precision with the 8-bit LLR scale `scale` (float has none: unchanged).
    pub fn with_scale(self, scale: f32) -> Precision {
        match self {
            Precision::Float => Precision::Float,
            Precision::Fixed8 { .. } => Precision::Fixed8 { scale },
        }
    }

    /// The canonical spelling: `float` or `8bit`.
    pub fn name(self) -> &'static str {
        match self {
            Precision::Float => "float",
            Precision::Fixed8 { .. } => "8bit",
        }
    }
}

// `float | f32 | float32` and `8bit | 8 | i8 | int8 | fixed8` (any case); 8-bit at
// [`Precision::DEFAULT_SCALE`] (set another with [`Precision::with_scale`]).
from_names!(Precision, "precision", lower,
    ["8bit", "8", "i8", "int8", "fixed8"] => Precision::Fixed8 {
        scale: Precision::DEFAULT_SCALE
    },
    ["float", "f32", "float32"] => Precision::Float,
);

// The canonical spellings (a precision's scale is a separate option).
display_by_name!(Schedule, Precision);

/// Everything that picks a decoder except the device.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct DecoderConfig {
    /// The check-node rule.
    pub algorithm: Algorithm,
    /// The message-passing order.
    pub schedule: Schedule,
    /// f32 or 8-bit messages.
    pub precision: Precision,
    /// Most iterations per codeword.
    pub iterations: usize,
    /// Stop a batch once every codeword in it satisfies all checks; each codeword's output is
    /// its hard decision at the first iteration it did.
    pub early_termination: bool,
    /// CPU worker threads (0 = all available).
    pub threads: usize,
}

/// The default decoder of every face (`sigpu ldpc`, Python's `sigpu.ldpc`): 8-bit layered
/// offset min-sum, β = 0.5, LLR scale 8, 50 iterations, no early termination, every CPU
/// thread. Measured on DVB-T2 normal 1/2, QPSK: no frame error in 1,000 at Es/N0 1.2 dB
/// (where the paper's 8-bit flooding min-sum, [`DecoderConfig::PAPER`], fails every frame),
/// FER 3.3e-2 at 0.9 dB, within about 0.1 dB of f32 layered sum-product; it runs on the CPU
/// and on the GPU's layered decoder for every DVB code.
impl Default for DecoderConfig {
    fn default() -> Self {
        DecoderConfig {
            algorithm: Algorithm::OffsetMinSum { beta: 0.5 },
            schedule: Schedule::Layered,
            precision: Precision::Fixed8 { scale: 8.0 },
            iterations: 50,
            early_termination: false,
            threads: 0,
        }
    }
}

impl DecoderConfig {
    /// The GPU LDPC decoder paper's decoder: 8-bit min-sum (scale 4), flooding, 50
    /// iterations, no early termination, every CPU thread. The default before the layered
    /// offset min-sum; kept for the throughput tables and the GPU checks that reproduce the
    /// paper (it loses about 0.4 dB to the default on DVB-T2 normal 1/2).
    pub const PAPER: DecoderConfig = DecoderConfig {
        algorithm: Algorithm::MinSum,
        schedule: Schedule::Flooding,
        precision: Precision::Fixed8 { scale: 4.0 },
        iterations: 50,
        early_termination: false,
        threads: 0,
    };

    /// Refuses a configuration no decoder runs (a parameter out of range, sum-product in 8
    /// bits, the compact schedule in float), with the way out.
    pub fn validate(&self) -> Result<()> {
        self.algorithm.validate()?;
        if self.iterations == 0 || self.iterations > 10_000 {
            return Err(LdpcError::invalid(format!(
                "--iterations {} must be in 1..=10000",
                self.iterations
            )));
        }
        if let Precision::Fixed8 { scale } = self.precision {
            crate::channel::Quantizer::new(scale)?;
            if self.algorithm == Algorithm::SumProduct {
                return Err(LdpcError::invalid(
                    "sum-product runs in float only: use --precision float",
                ));
            }
        } else if self.schedule == Schedule::LayeredCompact {
            return Err(LdpcError::invalid(
                "--schedule layered-compact is an 8-bit decoder: use --precision 8bit \
                 (or --schedule layered for float)",
            ));
        }
        Ok(())
    }

    /// The configuration in prose, e.g. `8-bit (scale 4) min-sum, flooding, 50 iterations`.
    pub fn describe(&self) -> String {
        let precision = match self.precision {
            Precision::Float => "f32".to_owned(),
            Precision::Fixed8 { scale } => format!("8-bit (scale {scale})"),
        };
        format!(
            "{precision} {}, {}, {} iterations{}",
            self.algorithm.label(),
            self.schedule,
            self.iterations,
            if self.early_termination {
                ", early termination"
            } else {
                ""
            }
        )
    }
}

/// A decoder configuration as files and `--json` give it: every field machine-readable and
/// spelled as the command line spells it (`kind`: `spa` | `minsum` | `nms` | `oms` | `aoms` |
/// `lmin`,
/// `precision`: `float` | `8bit`), with the prose [`DecoderConfig::describe`] beside. Thread
/// counts are left out: they do not change the results.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DecoderSpec {
    /// `spa`, `minsum`, `nms`, `oms`, `aoms` or `lmin`.
    pub kind: String,
    /// Normalised min-sum's α (`nms` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alpha: Option<f32>,
    /// Offset min-sum's β in LLR units (`oms`, `aoms` and `lmin` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beta: Option<f32>,
    /// `float` or `8bit`.
    pub precision: String,
    /// The 8-bit LLR scale (`8bit` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<f32>,
    /// The message-passing order.
    pub schedule: Schedule,
    /// Most iterations per codeword.
    pub iterations: usize,
    /// Whether a batch stops once every codeword satisfies all checks.
    pub early_termination: bool,
    /// [`DecoderConfig::describe`], for labels.
    pub description: String,
}

impl From<&DecoderConfig> for DecoderSpec {
    fn from(c: &DecoderConfig) -> DecoderSpec {
        let (alpha, beta) = match c.algorithm {
            Algorithm::NormalizedMinSum { alpha } => (Some(alpha), None),
            Algorithm::OffsetMinSum { beta }
            | Algorithm::AdaptiveOffsetMinSum { beta }
            | Algorithm::LambdaMinSum { beta } => (None, Some(beta)),
            _ => (None, None),
        };
        let scale = match c.precision {
            Precision::Float => None,
            Precision::Fixed8 { scale } => Some(scale),
        };
        DecoderSpec {
            kind: c.algorithm.cli_name().to_owned(),
            alpha,
            beta,
            precision: c.precision.name().to_owned(),
            scale,
            schedule: c.schedule,
            iterations: c.iterations,
            early_termination: c.early_termination,
            description: c.describe(),
        }
    }
}
