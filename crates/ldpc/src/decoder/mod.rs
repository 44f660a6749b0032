//! Decoders behind one trait. Every decoder takes channel LLRs (ln P(0)/P(1), codeword after
//! codeword) and writes hard decisions, one bit per byte.
//!
//! - [`FloatDecoder`]: f32 sum-product (the high-precision reference) and f32 min-sum
//!   (plain, normalised, offset), flooding or layered, threads over codewords.
//! - [`Fixed8Decoder`]: the GPU LDPC decoder paper's 8-bit min-sum on the CPU — flooding with its VN / CN /
//!   VN-with-hard-decision passes, or layered — SIMD over codewords, threads over groups.
//! - [`CompactDecoder`]: 8-bit layered min-sum with saturated 8-bit posteriors and compressed
//!   check state (`Schedule::LayeredCompact`), SIMD over 64 codewords — the fast CPU decoder.
//! - [`QcDecoder`]: the 8-bit layered decoder's arithmetic on a lifted 5G NR code, one
//!   codeword at a time with the lifting (64 checks of a block row) as the SIMD dimension;
//!   [`cpu_decoder`] picks it for NR codes on the 8-bit layered schedule.
//! - [`crate::gpu::GpuDecoder`]: the same 8-bit flooding min-sum on a CUDA GPU, 128 codewords
//!   per batch in the coalesced layout, bit for bit equal to the CPU one.
//! - [`crate::gpu::LayeredGpuDecoder`]: the 8-bit layered schedule on a CUDA GPU in one fused
//!   kernel, bit for bit equal to the CPU one ([`crate::gpu::decoder`] picks by schedule).

mod aligned;
mod compact;
mod config;
mod device;
mod fixed8;
mod float;
mod lambda_min;
mod lanes;
mod qc;
#[cfg(target_arch = "x86_64")]
mod qc_avx512;

pub use compact::{decode_scalar as compact_decode_scalar, CompactDecoder, CompactLayout, C2V_MAX};

pub use config::{
    Algorithm, DecoderConfig, DecoderSpec, Precision, Schedule, MAX_OFFSET, MIN_ALPHA,
};
pub(crate) use device::through_host;
pub use device::DeviceDecodeStats;
pub use fixed8::{Fixed8Decoder, KNOWN_LLR};
pub use float::FloatDecoder;
pub use lambda_min::Drops;
pub use lanes::{adaptive_table, best_simd, simd_sets, Rule8, LANES, SIMD_SETS};
pub(crate) use qc::lifted_structure;
pub use qc::QcDecoder;

use crate::code::Code;
use crate::error::{LdpcError, Result};
use serde::Serialize;
use sigpu_runtime::cuda::{DeviceSlice, DeviceSliceMut};
use sigpu_runtime::GpuTarget;

/// Channel LLRs for any number of codewords, codeword after codeword.
#[derive(Clone, Copy, Debug)]
pub enum Llrs<'a> {
    /// f32 LLRs.
    F32(&'a [f32]),
    /// Quantised LLRs: the LLR is `value / scale`.
    I8 {
        /// The quantised values.
        values: &'a [i8],
        /// Steps per LLR unit.
        scale: f32,
    },
}

impl Llrs<'_> {
    /// LLRs held.
    pub fn len(&self) -> usize {
        match self {
            Llrs::F32(v) => v.len(),
            Llrs::I8 { values, .. } => values.len(),
        }
    }
    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// What one `decode` call did.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct DecodeStats {
    /// Codewords decoded.
    pub codewords: usize,
    /// Codewords whose hard decision satisfies every check.
    pub valid: usize,
    /// Iterations run, summed over the codewords: a codeword counts the iterations its batch
    /// (SIMD group, GPU batch; the float decoders: the codeword alone) ran, so
    /// `iterations / codewords` is the mean per codeword on every decoder. A batch stops early
    /// only with early termination.
    pub iterations: usize,
    /// Decoder batches (SIMD groups, GPU batches, codewords) run.
    pub batches: usize,
}

/// A decoder for one code.
pub trait Decoder: Send {
    /// e.g. `8-bit min-sum, flooding, 50 iterations (cpu, AVX-512)`.
    fn describe(&self) -> String;
    /// The code this decoder decodes.
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

    /// Decodes float32 LLRs in device memory (`llr`: codewords × N, an owned buffer's or
    /// another library's, [`DeviceSlice::from_raw`]) into 0/1 bytes in device memory (`out`,
    /// the same length), ordered on `caller`'s stream: after what it has queued, before what
    /// it queues later. Decoders that run on the host copy through it on that stream
    /// (`valid` counted); the flooding GPU decoder stays on the device (`valid` not counted).
    fn decode_device(
        &mut self,
        caller: &GpuTarget,
        llr: DeviceSlice<'_, f32>,
        out: DeviceSliceMut<'_, u8>,
    ) -> Result<DeviceDecodeStats> {
        through_host(self, caller, llr, out)
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

/// A CPU decoder for `config`.
pub fn cpu_decoder(code: &Code, config: DecoderConfig) -> Result<Box<dyn Decoder>> {
    config.validate()?;
    Ok(match config.precision {
        Precision::Float => Box::new(FloatDecoder::new(code.clone(), config)?),
        Precision::Fixed8 { .. } if config.schedule == Schedule::LayeredCompact => {
            Box::new(CompactDecoder::new(code.clone(), config)?)
        }
        // A lifted NR code on the layered schedule: the same arithmetic, bit for bit, on
        // the quasi-cyclic structure.
        Precision::Fixed8 { .. } if QcDecoder::applies(code, &config) => {
            Box::new(QcDecoder::new(code.clone(), config)?)
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
