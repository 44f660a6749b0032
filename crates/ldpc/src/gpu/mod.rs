//! The 8-bit min-sum decoders on a CUDA GPU, each bit for bit equal to its CPU twin
//! ([`crate::decoder::Fixed8Decoder`] with the same configuration):
//!
//! - [`GpuDecoder`]: the GPU LDPC decoder paper's flooding schedule, CN and VN kernels over 128 codewords per
//!   batch in the coalesced layout (`kernels/ldpc_minsum8.cu`);
//! - [`LayeredGpuDecoder`]: the layered schedule fused into one kernel, one block per codeword
//!   (`kernels/ldpc_layered8.cu`);
//! - [`CompactGpuDecoder`]: the compact layered schedule (`layered-compact`: saturated 8-bit
//!   posteriors, compressed check state, 4 codewords per thread), twin of the CPU's
//!   [`crate::decoder::CompactDecoder`] (`kernels/ldpc_compact8.cu`);
//! - [`decoder`] picks one by schedule; [`checks`] are their self-checks for `sigpu check`;
//! - [`NrGpuDecoder`]: the quasi-cyclic layered decoder of lifted 5G NR codes, twin of the
//!   CPU's [`crate::decoder::QcDecoder`] (`kernels/ldpc_nr_layered8.cu`), and
//!   [`NrGpuEngine`], the same kernel over a batch that mixes codes;
//! - [`GpuFrameChain`] / [`ChainDecoder`]: the simulation's frames made on the GPU, bit for
//!   bit the CPU's ([`simulation_decoder`] picks it for `ldpc simulate`).

mod batch;
mod chain;
mod chain_checks;
mod checks;
mod compact;
mod flooding;
mod layered;
mod nr;
pub mod nr_checks;
#[cfg(test)]
mod nr_emulate;
pub mod nr_layout;
mod nr_loaded;

pub use batch::BATCH;
pub use chain::{chain_source, simulation_decoder, ChainDecoder, GpuFrameChain, CHAIN_BATCH};
pub use compact::{CompactGpuDecoder, SlotTables, COMPACT_BATCH};
pub use flooding::{kernel_source, GpuDecoder, GpuOptions};
pub use layered::LayeredGpuDecoder;
pub use nr::{auto_parts, nr_kernel_source, NrGpuDecoder, NrGpuEngine, WordResult};

use crate::code::Code;
use crate::decoder::{Decoder, DecoderConfig, Schedule};
use crate::error::Result;
use sigpu_runtime::cuda::{Check, Gpu};

/// Every LDPC GPU self-check: the decoders' and the frame chain's.
pub fn checks() -> Vec<Check> {
    let mut all = checks::checks();
    all.extend(chain_checks::checks());
    all.extend(nr_checks::checks());
    all
}

/// The GPU decoder for `config`: [`GpuDecoder`] (flooding), [`LayeredGpuDecoder`] (layered) or
/// [`CompactGpuDecoder`] (layered-compact); a lifted 5G NR code on the layered schedule gets
/// [`NrGpuDecoder`] (the quasi-cyclic kernel, bit for bit the CPU's quasi-cyclic decoder).
pub fn decoder(gpu: &Gpu, code: &Code, config: DecoderConfig) -> Result<Box<dyn Decoder>> {
    if NrGpuDecoder::applies(code, &config) {
        return Ok(Box::new(NrGpuDecoder::new(gpu, code.clone(), config)?));
    }
    Ok(match config.schedule {
        Schedule::Flooding => Box::new(GpuDecoder::new(gpu, code.clone(), config)?),
        Schedule::Layered => Box::new(LayeredGpuDecoder::new(gpu, code.clone(), config)?),
        Schedule::LayeredCompact => Box::new(CompactGpuDecoder::new(gpu, code.clone(), config)?),
    })
}
