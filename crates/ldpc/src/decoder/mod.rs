//! Decoders behind one trait. Every decoder takes channel LLRs (ln P(0)/P(1), codeword after
//! codeword) and writes hard decisions, one bit per byte.
//!
//! - [`FloatDecoder`]: f32 sum-product (the high-precision reference) and f32 min-sum
//!   (plain, normalised, offset), flooding or layered, threads over codewords.
//! - [`Fixed8Decoder`]: the seed's 8-bit min-sum on the CPU — flooding with its VN / CN /
//!   VN-with-hard-decision passes, or layered — SIMD over codewords, threads over groups.
//! - [`CompactDecoder`]: 8-bit layered min-sum with saturated 8-bit posteriors and compressed
//!   check state (`Schedule::LayeredCompact`), SIMD over 64 codewords — the fast CPU decoder.
//! - [`crate::gpu::GpuDecoder`]: the same 8-bit flooding min-sum on a CUDA GPU, 128 codewords
//!   per batch in the coalesced layout, bit for bit equal to the CPU one.
//! - [`crate::gpu::LayeredGpuDecoder`]: the 8-bit layered schedule on a CUDA GPU in one fused
//!   kernel, bit for bit equal to the CPU one ([`crate::gpu::decoder`] picks by schedule).

mod compact;
mod fixed8;
mod float;

pub use compact::{decode_scalar as compact_decode_scalar, CompactDecoder, CompactLayout, C2V_MAX};

pub use fixed8::{Fixed8Decoder, Rule8, Simd, LANES};
pub use float::FloatDecoder;

use crate::code::Code;
use crate::error::{LdpcError, Result};
use serde::{Deserialize, Serialize};
use std::str::FromStr;

/// Channel LLRs for any number of codewords, codeword after codeword.
#[derive(Clone, Copy, Debug)]
pub enum Llrs<'a> {
    F32(&'a [f32]),
    /// Quantised LLRs: the LLR is `value / scale`.
    I8 {
        values: &'a [i8],
        scale: f32,
    },
}

impl Llrs<'_> {
    pub fn len(&self) -> usize {
        match self {
            Llrs::F32(v) => v.len(),
            Llrs::I8 { values, .. } => values.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// What one `decode` call did.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct DecodeStats {
    pub codewords: usize,
    /// Codewords whose hard decision satisfies every check.
    pub valid: usize,
    /// Iterations run, summed over the codewords: a codeword counts the iterations its batch
    /// (SIMD group, GPU batch; the float decoders: the codeword alone) ran, so
    /// `iterations / codewords` is the mean per codeword on every decoder. A batch stops early
    /// only with early termination.
    pub iterations: usize,
    pub batches: usize,
}

/// A decoder for one code.
pub trait Decoder: Send {
    /// e.g. `8-bit min-sum, flooding, 50 iterations (cpu, AVX-512)`.
    fn describe(&self) -> String;
    fn code(&self) -> &Code;
    /// Decodes `llr.len() / N` codewords into `bits` (same length, 0 or 1 per byte).
    fn decode(&mut self, llr: Llrs<'_>, bits: &mut [u8]) -> Result<DecodeStats>;
    /// As [`Decoder::decode`], and writes each bit's posterior LLR (ln P(0)/P(1), the value
    /// the hard decision is the sign of) to `posterior` (same length as `bits`). Only the f32
    /// CPU decoder keeps f32 posteriors; the others refuse.
    fn decode_soft(
        &mut self,
        _llr: Llrs<'_>,
        _bits: &mut [u8],
        _posterior: &mut [f32],
    ) -> Result<DecodeStats> {
        Err(LdpcError::invalid(format!(
            "{}: posterior LLRs come from the f32 CPU decoder only (precision float, no GPU)",
            self.describe()
        )))
    }

    /// Makes frames `first .. first + count` of `plan` on this decoder's own device, decodes
    /// them there and counts their errors, so that only the counts come back (the GPU frame
    /// chain, [`crate::gpu::ChainDecoder`]). `None`: this decoder has no frame chain, and the
    /// caller makes the frames ([`crate::sim::make_frames`]: the same frames) and decodes them.
    fn simulate_frames(
        &mut self,
        _plan: &crate::sim::FramePlan<'_>,
        _first: u64,
        _count: usize,
    ) -> Option<Result<crate::sim::FrameCounts>> {
        None
    }
}

/// The check-node rule.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Algorithm {
    /// Sum-product (tanh rule); float decoders only.
    SumProduct,
    /// Min-sum: the smallest other magnitude.
    MinSum,
    /// Normalised min-sum: the magnitude times `alpha` (8-bit: rounded to a multiple of 1/16).
    NormalizedMinSum { alpha: f32 },
    /// Offset min-sum: the magnitude less `beta` (LLR units), not below zero.
    OffsetMinSum { beta: f32 },
}

/// The largest offset-min-sum β accepted (LLR units). Min-sum overestimates the sum-product
/// magnitude by less than ln(d_c − 1) (≈ 3.4 for the DVB codes' largest check degree, 30), the
/// gap an offset corrects; an offset past 8 erases nearly every message.
pub const MAX_OFFSET: f32 = 8.0;

/// `x` as written when short, else in scientific notation (1e30, not 31 digits).
pub(crate) fn short(x: f32) -> String {
    let plain = x.to_string();
    if plain.len() <= 8 {
        plain
    } else {
        format!("{x:e}")
    }
}

/// The smallest normalised-min-sum α accepted: the 8-bit decoders keep α in sixteenths.
pub const MIN_ALPHA: f32 = 1.0 / 16.0;

impl Algorithm {
    /// Parses `spa`, `minsum`, `nms[:alpha]`, `oms[:beta]` (what [`Algorithm::cli_name`]
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
                    "decoder {s:?}: {name} takes no parameter (got {a:?}); only nms:alpha and oms:beta do"
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
            _ => {
                return Err(LdpcError::invalid(format!(
                    "unknown decoder {s:?}: expected spa, minsum, nms[:alpha] or oms[:beta]"
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
            Algorithm::OffsetMinSum { beta } if !(0.0..=MAX_OFFSET).contains(&beta) => {
                Err(LdpcError::invalid(format!(
                    "decoder oms:{}: β must be in [0, {MAX_OFFSET}] LLR units (the offset \
                     subtracted from each magnitude; 0.15–1 are usual)",
                    short(beta)
                )))
            }
            _ => Ok(()),
        }
    }

    /// The name `--decoder` takes: `spa`, `minsum`, `nms` or `oms`.
    pub fn cli_name(&self) -> &'static str {
        match self {
            Algorithm::SumProduct => "spa",
            Algorithm::MinSum => "minsum",
            Algorithm::NormalizedMinSum { .. } => "nms",
            Algorithm::OffsetMinSum { .. } => "oms",
        }
    }

    pub fn label(&self) -> String {
        match self {
            Algorithm::SumProduct => "sum-product".into(),
            Algorithm::MinSum => "min-sum".into(),
            Algorithm::NormalizedMinSum { alpha } => format!("normalised min-sum α={alpha}"),
            Algorithm::OffsetMinSum { beta } => format!("offset min-sum β={beta}"),
        }
    }
}

/// Message-passing order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Schedule {
    /// All checks, then all bits (the seed's schedule).
    Flooding,
    /// Layer by layer ([`crate::Code::layers`]: a DVB code's 360-check circulants, else each
    /// check alone), each layer's output used by the next (row-layered). Float decoders go
    /// check by check; the 8-bit ones let a layer's checks read the posteriors together.
    Layered,
    /// Layered check by check with saturated 8-bit posteriors and compressed check state
    /// (min1, min2, index, sign bits): the fast 8-bit CPU decoder ([`CompactDecoder`]).
    #[serde(rename = "layered-compact")]
    LayeredCompact,
}

impl FromStr for Schedule {
    type Err = LdpcError;
    fn from_str(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "flooding" | "flood" => Ok(Schedule::Flooding),
            "layered" => Ok(Schedule::Layered),
            "layered-compact" | "compact" => Ok(Schedule::LayeredCompact),
            _ => Err(LdpcError::invalid(format!(
                "unknown schedule {s:?}: expected flooding, layered or layered-compact"
            ))),
        }
    }
}

/// Number representation of the messages.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Precision {
    Float,
    /// 8-bit messages; channel LLRs are quantised as round(LLR · scale) within ±127.
    Fixed8 {
        scale: f32,
    },
}

/// Everything that picks a decoder except the device.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct DecoderConfig {
    pub algorithm: Algorithm,
    pub schedule: Schedule,
    pub precision: Precision,
    pub iterations: usize,
    /// Stop a batch once every codeword in it satisfies all checks; each codeword's output is
    /// its hard decision at the first iteration it did.
    pub early_termination: bool,
    /// CPU worker threads (0 = all available).
    pub threads: usize,
}

/// The seed's decoder: 8-bit min-sum (scale 4), flooding, 50 iterations, no early
/// termination, every CPU thread — `sigpu ldpc`'s defaults.
impl Default for DecoderConfig {
    fn default() -> Self {
        DecoderConfig {
            algorithm: Algorithm::MinSum,
            schedule: Schedule::Flooding,
            precision: Precision::Fixed8 { scale: 4.0 },
            iterations: 50,
            early_termination: false,
            threads: 0,
        }
    }
}

impl DecoderConfig {
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

    pub fn describe(&self) -> String {
        let precision = match self.precision {
            Precision::Float => "f32".to_owned(),
            Precision::Fixed8 { scale } => format!("8-bit (scale {scale})"),
        };
        format!(
            "{precision} {}, {:?}, {} iterations{}",
            self.algorithm.label(),
            self.schedule,
            self.iterations,
            if self.early_termination {
                ", early termination"
            } else {
                ""
            }
        )
        .replace("Flooding", "flooding")
        .replace("LayeredCompact", "layered-compact")
        .replace("Layered", "layered")
    }
}

/// A decoder configuration as files and `--json` give it: every field machine-readable and
/// spelled as the command line spells it (`kind`: `spa` | `minsum` | `nms` | `oms`,
/// `precision`: `float` | `8bit`), with the prose [`DecoderConfig::describe`] beside. Thread
/// counts are left out: they do not change the results.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DecoderSpec {
    pub kind: String,
    /// Normalised min-sum's α (`nms` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alpha: Option<f32>,
    /// Offset min-sum's β in LLR units (`oms` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beta: Option<f32>,
    pub precision: String,
    /// The 8-bit LLR scale (`8bit` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<f32>,
    pub schedule: Schedule,
    pub iterations: usize,
    pub early_termination: bool,
    /// [`DecoderConfig::describe`], for labels.
    pub description: String,
}

impl From<&DecoderConfig> for DecoderSpec {
    fn from(c: &DecoderConfig) -> DecoderSpec {
        let (alpha, beta) = match c.algorithm {
            Algorithm::NormalizedMinSum { alpha } => (Some(alpha), None),
            Algorithm::OffsetMinSum { beta } => (None, Some(beta)),
            _ => (None, None),
        };
        let (precision, scale) = match c.precision {
            Precision::Float => ("float", None),
            Precision::Fixed8 { scale } => ("8bit", Some(scale)),
        };
        DecoderSpec {
            kind: c.algorithm.cli_name().to_owned(),
            alpha,
            beta,
            precision: precision.to_owned(),
            scale,
            schedule: c.schedule,
            iterations: c.iterations,
            early_termination: c.early_termination,
            description: c.describe(),
        }
    }
}

/// A CPU decoder for `config`.
pub fn cpu_decoder(code: &Code, config: DecoderConfig) -> Result<Box<dyn Decoder>> {
    config.validate()?;
    Ok(match config.precision {
        Precision::Float => Box::new(FloatDecoder::new(code.clone(), config)?),
        Precision::Fixed8 { .. } if config.schedule == Schedule::LayeredCompact => {
            Box::new(CompactDecoder::new(code.clone(), config)?)
        }
        Precision::Fixed8 { .. } => Box::new(Fixed8Decoder::new(code.clone(), config)?),
    })
}

/// Checks lengths shared by every decoder; returns the number of codewords.
pub(crate) fn codewords_of(code: &Code, llr: &Llrs<'_>, bits: &[u8]) -> Result<usize> {
    let n = code.n();
    if !llr.len().is_multiple_of(n) || bits.len() != llr.len() {
        return Err(LdpcError::invalid(format!(
            "decoding {}: {} LLRs and room for {} bits; both must be the same multiple of N = {n}",
            code.name(),
            llr.len(),
            bits.len()
        )));
    }
    if let Llrs::I8 { scale, .. } = llr {
        crate::channel::Quantizer::new(*scale)?;
    }
    Ok(llr.len() / n)
}

/// How many codewords in `bits` satisfy every check.
pub(crate) fn count_valid(code: &Code, bits: &[u8]) -> usize {
    bits.chunks(code.n())
        .filter(|w| code.is_codeword(w))
        .count()
}

/// Worker threads to use for `threads` (0 = all available).
/// Threads to use: all the machine offers for 0; more than 8 per core buys nothing and could
/// exhaust the process's threads, so requests are capped there.
pub(crate) fn worker_threads(threads: usize) -> usize {
    let available = sigpu_runtime::host::threads();
    if threads == 0 {
        available
    } else {
        threads.min(8 * available)
    }
}
