//! One batch of the GPU 5G NR decoder laid out ([`NrBatchLayout`]) and uploaded, ready to be
//! queued on a stream (and queued again, for timing): its device buffers and the pinned host
//! buffers its LLRs, known-bit mask and results go through, so that the copies run at the
//! link's speed and in stream order.

use super::batch::alloc_pinned;
use super::nr::WordResult;
use super::nr_layout::NrBatchLayout;
use crate::error::Result;
use sigpu_runtime::cuda::cudarc::driver::{
    CudaStream, DeviceRepr, LaunchConfig, PinnedHostSlice, ValidAsZeroBits,
};
use sigpu_runtime::cuda::{DeviceBuffer, DriverContext, Gpu, Kernel};
use std::sync::Arc;

/// The kernel's value arguments and block size, the same for every part of a batch.
pub(super) struct KernelArgs {
    pub iterations: u32,
    pub early: u32,
    pub mode: u32,
    pub param: u32,
    pub threads: u32,
}

/// A batch laid out and uploaded; see the module documentation.
pub(super) struct Loaded {
    pub layout: NrBatchLayout,
    /// Whether any bit is known: without, the mask (all zero) is uploaded once, not per run.
    any_known: bool,
    codes: DeviceBuffer<u32>,
    graph: DeviceBuffer<u32>,
    blocks: DeviceBuffer<u32>,
    words: DeviceBuffer<u32>,
    llr: DeviceBuffer<i8>,
    known: DeviceBuffer<u32>,
    state: DeviceBuffer<u64>,
    hard: DeviceBuffer<u32>,
    iterations: DeviceBuffer<u32>,
    valid: DeviceBuffer<u32>,
    host_llr: PinnedHostSlice<i8>,
    host_known: PinnedHostSlice<u32>,
    host_hard: PinnedHostSlice<u32>,
    host_iterations: PinnedHostSlice<u32>,
    host_valid: PinnedHostSlice<u32>,
}

/// Pinned host memory holding a copy of `values`.
fn pinned_copy<T: DeviceRepr + ValidAsZeroBits + Copy>(
    gpu: &Gpu,
    values: &[T],
) -> Result<PinnedHostSlice<T>> {
    let mut p = alloc_pinned::<T>(gpu, values.len())?;
    p.as_mut_slice()
        .context("pinned input")?
        .copy_from_slice(values);
    Ok(p)
}

/// `v`, or one zero word for an empty table (a buffer of length 0 cannot be allocated).
fn nonempty(v: &[u32]) -> Vec<u32> {
    if v.is_empty() {
        vec![0]
    } else {
        v.to_vec()
    }
}

impl Loaded {
    /// Uploads `layout` on `g`'s stream into new buffers.
    pub fn new(g: &Gpu, layout: NrBatchLayout) -> Result<Loaded> {
        let words_out = layout.word_count().max(1);
        Ok(Loaded {
            any_known: layout.known.iter().any(|&w| w != 0),
            codes: g.upload(&nonempty(&layout.codes))?,
            graph: g.upload(&nonempty(&layout.graph))?,
            blocks: g.upload(&nonempty(&layout.blocks))?,
            words: g.upload(&nonempty(&layout.words))?,
            llr: g.upload(&layout.llr)?,
            known: g.upload(&layout.known)?,
            state: g.alloc_poisoned(layout.state_len.max(1))?,
            hard: g.alloc_poisoned(layout.hard_len.max(1))?,
            iterations: g.alloc_poisoned(words_out)?,
            valid: g.alloc_poisoned(words_out)?,
            host_llr: pinned_copy(g, &layout.llr)?,
            host_known: pinned_copy(g, &layout.known)?,
            host_hard: alloc_pinned(g, layout.hard_len.max(1))?,
            host_iterations: alloc_pinned(g, words_out)?,
            host_valid: alloc_pinned(g, words_out)?,
            layout,
        })
    }

    /// Takes `layout`, of the same sizes (`NrBatchLayout::same_sizes`), into these buffers:
    /// pinned allocations cost milliseconds, so the next launch of a long decode call or the
    /// next batch of a simulation reuses them.
    pub fn refill(&mut self, g: &Gpu, layout: NrBatchLayout) -> Result<()> {
        self.host_llr
            .as_mut_slice()
            .context("pinned input")?
            .copy_from_slice(&layout.llr);
        self.host_known
            .as_mut_slice()
            .context("pinned input")?
            .copy_from_slice(&layout.known);
        let stream = g.stream();
        // The device mask must hold this batch's bits even when `enqueue` skips it.
        stream
            .memcpy_htod(&self.host_known, &mut self.known)
            .context("uploading known bits")?;
        stream
            .memcpy_htod(&self.host_llr, &mut self.llr)
            .context("uploading LLRs")?;
        self.codes = g.upload(&nonempty(&layout.codes))?;
        self.graph = g.upload(&nonempty(&layout.graph))?;
        self.blocks = g.upload(&nonempty(&layout.blocks))?;
        self.words = g.upload(&nonempty(&layout.words))?;
        self.any_known = layout.known.iter().any(|&w| w != 0);
        self.layout = layout;
        Ok(())
    }

    /// Queues the batch on `stream`: with `transfers`, the LLR (and known-bit) upload before
    /// the kernel and the download of the results after it (the end-to-end work).
    pub fn enqueue(
        &mut self,
        gpu: &Gpu,
        stream: &Arc<CudaStream>,
        kernel: &Kernel,
        args: &KernelArgs,
        transfers: bool,
    ) -> Result<()> {
        if self.layout.word_count() == 0 {
            return Ok(());
        }
        if transfers {
            stream
                .memcpy_htod(&self.host_llr, &mut self.llr)
                .context("uploading LLRs")?;
            if self.any_known {
                stream
                    .memcpy_htod(&self.host_known, &mut self.known)
                    .context("uploading known bits")?;
            }
        }
        let cfg = LaunchConfig {
            grid_dim: (self.layout.block_count() as u32, 1, 1),
            block_dim: (args.threads, 1, 1),
            shared_mem_bytes: self.layout.shared as u32,
        };
        // The layout sized every buffer: each block's codewords index within them.
        gpu.launch_on(stream, kernel)
            .buf(&self.codes)
            .buf(&self.graph)
            .buf(&self.blocks)
            .buf(&self.words)
            .buf(&self.llr)
            .buf(&self.known)
            .buf_mut(&mut self.state)
            .buf_mut(&mut self.hard)
            .buf_mut(&mut self.iterations)
            .buf_mut(&mut self.valid)
            .arg(&args.iterations)
            .arg(&args.early)
            .arg(&args.mode)
            .arg(&args.param)
            .run(cfg)?;
        if transfers {
            stream
                .memcpy_dtoh(&self.hard, &mut self.host_hard)
                .context("downloading hard decisions")?;
            stream
                .memcpy_dtoh(&self.iterations, &mut self.host_iterations)
                .context("downloading iteration counts")?;
            stream
                .memcpy_dtoh(&self.valid, &mut self.host_valid)
                .context("downloading validity")?;
        }
        Ok(())
    }

    /// The downloaded results (after the stream that queued the batch has finished): each
    /// input codeword's hard decisions, appended to `bits` (N bytes of 0/1 each, in input
    /// order), and its result, appended to `results`.
    pub fn results(&self, bits: &mut Vec<u8>, results: &mut Vec<WordResult>) -> Result<()> {
        let hard = self.host_hard.as_slice().context("pinned output")?;
        let its = self.host_iterations.as_slice().context("pinned output")?;
        let valid = self.host_valid.as_slice().context("pinned output")?;
        let l = &self.layout;
        let mut at = bits.len();
        bits.resize(at + l.bits, 0);
        for i in 0..l.word_count() {
            let n = l.hard_at[i].1;
            l.unpack(hard, i, &mut bits[at..at + n]);
            at += n;
        }
        let first = results.len();
        results.resize(
            first + l.word_count(),
            WordResult {
                iterations: 0,
                valid: false,
            },
        );
        for (slot, &w) in l.slot_word.iter().enumerate() {
            results[first + w] = WordResult {
                iterations: its[slot],
                valid: valid[slot] != 0,
            };
        }
        Ok(())
    }
}
