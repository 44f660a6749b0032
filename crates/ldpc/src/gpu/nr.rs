//! The quasi-cyclic 5G NR layered decoder on a CUDA GPU (`kernels/ldpc_nr_layered8.cu`): 8-bit
//! offset, normalised or plain min-sum on lifted NR codes of both base graphs and every Z, bit
//! for bit the CPU's [`QcDecoder`] (decoded bits, iteration count and validity of every
//! codeword; `sigpu check` and `tests/nr_gpu.rs` compare them).
//!
//! - [`NrGpuEngine`]: one launch over any list of codewords of any lifted NR codes (a mixed
//!   batch: a per-block descriptor names each block's code), with per-codeword results;
//! - [`NrGpuDecoder`]: the [`Decoder`] of one code on it, launch after launch of
//!   [`NrGpuDecoder::launch_words`] codewords ([`super::decoder`] picks it for lifted codes).

use super::batch::alloc_pinned;
use super::nr_layout::{NrBatchLayout, NrCodeTable, NrKernel, WordInput};
use crate::channel::Quantizer;
use crate::code::Code;
use crate::decoder::{
    codewords_of, DecodeStats, Decoder, DecoderConfig, Llrs, Precision, QcDecoder, Rule8, Schedule,
};
use crate::error::{LdpcError, Result};
use sigpu_runtime::cuda::cudarc::driver::sys::CUfunction_attribute_enum;
use sigpu_runtime::cuda::cudarc::driver::{
    DeviceRepr, LaunchConfig, PinnedHostSlice, ValidAsZeroBits,
};
use sigpu_runtime::cuda::{
    time_gpu, DeviceBuffer, DriverContext, Gpu, Kernel, KernelSource, Timing,
};

/// Blocks of threads per launch of the one-code decoder: four per SM on a 132-SM GPU.
const LAUNCH_BLOCKS: usize = 528;

/// The source of `kernel` with its header.
pub fn nr_kernel_source(kernel: NrKernel) -> KernelSource {
    match kernel {
        NrKernel::Lanes => KernelSource::embedded(
            "ldpc_nr_layered8.cu",
            include_str!("../../kernels/ldpc_nr_layered8.cu"),
        ),
        NrKernel::Pairs => KernelSource::embedded(
            "ldpc_nr_layered8x2.cu",
            include_str!("../../kernels/ldpc_nr_layered8x2.cu"),
        ),
    }
    .with_header(
        "ldpc_nr_qc.cuh",
        include_str!("../../kernels/ldpc_nr_qc.cuh"),
    )
}

/// What one codeword's decoding did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct WordResult {
    /// Iterations it ran (fewer than asked only with early termination).
    pub iterations: u32,
    /// Whether its hard decision satisfies every check.
    pub valid: bool,
}

/// A batch laid out and uploaded, ready to launch (and to launch again, for timing). The
/// LLRs, the known-bit mask and the results go through pinned host buffers, so that the
/// copies run at the link's speed and in stream order.
struct Loaded {
    layout: NrBatchLayout,
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

/// The GPU NR decoder's kernel and arithmetic on one GPU; see the module documentation.
pub struct NrGpuEngine {
    gpu: Gpu,
    kernel: Kernel,
    which: NrKernel,
    config: DecoderConfig,
    quantizer: Quantizer,
    mode: u32,
    param: u32,
    loaded: Option<Loaded>,
}

impl NrGpuEngine {
    /// The engine of `config` (8-bit, layered; min-sum, normalised or offset) on `gpu`, with
    /// the one-lane kernel.
    pub fn new(gpu: &Gpu, config: DecoderConfig) -> Result<NrGpuEngine> {
        NrGpuEngine::with_kernel(gpu, config, NrKernel::default())
    }

    /// As [`NrGpuEngine::new`] with the kernel `which`.
    pub fn with_kernel(gpu: &Gpu, config: DecoderConfig, which: NrKernel) -> Result<NrGpuEngine> {
        let (quantizer, rule) = nr_arithmetic(&config)?;
        let (mode, param) = rule.kernel_args()?;
        let kernel = gpu.kernel(&nr_kernel_source(which), which.entry())?;
        kernel
            .function()
            .set_attribute(
                CUfunction_attribute_enum::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                (68 * super::nr_layout::NR_THREADS * 2) as i32,
            )
            .context("allocating shared memory for the posteriors")?;
        Ok(NrGpuEngine {
            gpu: gpu.clone(),
            kernel,
            which,
            config,
            quantizer,
            mode,
            param,
            loaded: None,
        })
    }

    /// The kernel it runs.
    pub fn kernel(&self) -> NrKernel {
        self.which
    }

    /// The configuration it runs.
    pub fn config(&self) -> &DecoderConfig {
        &self.config
    }

    /// Lays out and uploads `words` (of `codes`) for [`NrGpuEngine::launch`].
    pub fn load(&mut self, codes: &[NrCodeTable], words: &[WordInput<'_>]) -> Result<()> {
        let layout = NrBatchLayout::new(codes, words, self.quantizer, self.which)?;
        let g = &self.gpu;
        g.context()
            .bind_to_thread()
            .context("making the decoder's CUDA context current")?;
        let nonempty = |v: &[u32]| if v.is_empty() { vec![0] } else { v.to_vec() };
        let words_out = layout.word_count().max(1);
        // A batch of the same sizes as the last one (the next launch of a long decode call, the
        // next batch of a simulation) reuses its buffers: pinned allocations cost milliseconds.
        if let Some(l) = self
            .loaded
            .as_mut()
            .filter(|l| l.layout.same_sizes(&layout))
        {
            l.host_llr
                .as_mut_slice()
                .context("pinned input")?
                .copy_from_slice(&layout.llr);
            l.host_known
                .as_mut_slice()
                .context("pinned input")?
                .copy_from_slice(&layout.known);
            let stream = g.stream();
            // The device mask must hold this batch's bits even when `enqueue` skips it.
            stream
                .memcpy_htod(&l.host_known, &mut l.known)
                .context("uploading known bits")?;
            stream
                .memcpy_htod(&l.host_llr, &mut l.llr)
                .context("uploading LLRs")?;
            l.codes = g.upload(&nonempty(&layout.codes))?;
            l.graph = g.upload(&nonempty(&layout.graph))?;
            l.blocks = g.upload(&nonempty(&layout.blocks))?;
            l.words = g.upload(&nonempty(&layout.words))?;
            l.any_known = layout.known.iter().any(|&w| w != 0);
            l.layout = layout;
            return Ok(());
        }
        self.loaded = Some(Loaded {
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
        });
        Ok(())
    }

    /// Queues the loaded batch: with `transfers`, the LLR (and known-bit) upload before the
    /// kernel and the download of the results after it (the end-to-end work). Returns
    /// whether there was anything to run.
    fn enqueue(&mut self, transfers: bool) -> Result<bool> {
        let l = self
            .loaded
            .as_mut()
            .ok_or_else(|| LdpcError::invalid("no batch loaded"))?;
        if l.layout.word_count() == 0 {
            return Ok(false);
        }
        let stream = self.gpu.stream();
        if transfers {
            stream
                .memcpy_htod(&l.host_llr, &mut l.llr)
                .context("uploading LLRs")?;
            if l.any_known {
                stream
                    .memcpy_htod(&l.host_known, &mut l.known)
                    .context("uploading known bits")?;
            }
        }
        let iterations = self.config.iterations as u32;
        let early = self.config.early_termination as u32;
        let cfg = LaunchConfig {
            grid_dim: (l.layout.block_count() as u32, 1, 1),
            block_dim: (self.which.threads() as u32, 1, 1),
            shared_mem_bytes: l.layout.shared as u32,
        };
        // The layout sized every buffer: each block's codewords index within them.
        self.gpu
            .launch(&self.kernel)
            .buf(&l.codes)
            .buf(&l.graph)
            .buf(&l.blocks)
            .buf(&l.words)
            .buf(&l.llr)
            .buf(&l.known)
            .buf_mut(&mut l.state)
            .buf_mut(&mut l.hard)
            .buf_mut(&mut l.iterations)
            .buf_mut(&mut l.valid)
            .arg(&iterations)
            .arg(&early)
            .arg(&self.mode)
            .arg(&self.param)
            .run(cfg)?;
        if transfers {
            stream
                .memcpy_dtoh(&l.hard, &mut l.host_hard)
                .context("downloading hard decisions")?;
            stream
                .memcpy_dtoh(&l.iterations, &mut l.host_iterations)
                .context("downloading iteration counts")?;
            stream
                .memcpy_dtoh(&l.valid, &mut l.host_valid)
                .context("downloading validity")?;
        }
        Ok(true)
    }

    /// Decodes the loaded batch in one launch: each input codeword's hard decisions
    /// (concatenated in input order, N bytes of 0/1 each) and result.
    pub fn launch(&mut self) -> Result<(Vec<u8>, Vec<WordResult>)> {
        if !self.enqueue(true)? {
            return Ok((Vec::new(), Vec::new()));
        }
        self.gpu.synchronize()?;
        let l = self.loaded.as_ref().expect("enqueue checked");
        let hard = l.host_hard.as_slice().context("pinned output")?;
        let its = l.host_iterations.as_slice().context("pinned output")?;
        let valid = l.host_valid.as_slice().context("pinned output")?;
        let l = &l.layout;
        let mut bits = vec![0u8; l.bits];
        let mut at = 0;
        for i in 0..l.word_count() {
            let n = l.hard_at[i].1;
            l.unpack(hard, i, &mut bits[at..at + n]);
            at += n;
        }
        let mut results = vec![
            WordResult {
                iterations: 0,
                valid: false
            };
            l.word_count()
        ];
        for (slot, &w) in l.slot_word.iter().enumerate() {
            results[w] = WordResult {
                iterations: its[slot],
                valid: valid[slot] != 0,
            };
        }
        Ok((bits, results))
    }

    /// Times the loaded batch with CUDA events (median of `runs` after `warmup`): with
    /// `transfers` the LLR upload, the kernel and the download; without, the kernel alone.
    pub fn time(&mut self, transfers: bool, warmup: usize, runs: usize) -> Result<Timing> {
        if self.config.early_termination {
            return Err(LdpcError::invalid("timing runs without early termination"));
        }
        let gpu = self.gpu.clone();
        Ok(time_gpu(&gpu, warmup, runs, || {
            self.enqueue(transfers).map(|_| ()).map_err(|e| match e {
                LdpcError::Gpu(g) => g,
                other => sigpu_runtime::cuda::Error::Invalid(other.to_string()),
            })
        })?)
    }

    /// The loaded batch's edges and bits (for throughput figures).
    pub fn loaded_size(&self) -> Option<(usize, usize)> {
        self.loaded
            .as_ref()
            .map(|l| (l.layout.edges, l.layout.bits))
    }

    /// The GPU's name.
    pub fn device_name(&self) -> &str {
        &self.gpu.info().name
    }
}

/// The quantiser and rule of an 8-bit layered configuration, or why the GPU NR decoder does
/// not run it.
fn nr_arithmetic(config: &DecoderConfig) -> Result<(Quantizer, Rule8)> {
    config.validate()?;
    let Precision::Fixed8 { scale } = config.precision else {
        return Err(LdpcError::invalid(
            "the GPU decoder is the 8-bit min-sum: use --precision 8bit (float decoders run on the CPU)",
        ));
    };
    if config.schedule != Schedule::Layered {
        return Err(LdpcError::invalid(format!(
            "the GPU 5G NR decoder runs the layered schedule, not {}: use --schedule layered",
            config.schedule
        )));
    }
    let rule = Rule8::new(config.algorithm, scale)?.uniform_only("the GPU 5G NR decoder")?;
    Ok((Quantizer::new(scale)?, rule))
}

/// The GPU 5G NR decoder of one lifted code; see the module documentation.
pub struct NrGpuDecoder {
    code: Code,
    table: NrCodeTable,
    engine: NrGpuEngine,
}

impl NrGpuDecoder {
    /// The decoder of `config` for `code` (a lifted NR code, whole or cut) on `gpu`.
    pub fn new(gpu: &Gpu, code: Code, config: DecoderConfig) -> Result<NrGpuDecoder> {
        NrGpuDecoder::with_kernel(gpu, code, config, NrKernel::default())
    }

    /// As [`NrGpuDecoder::new`] with the kernel `which`.
    pub fn with_kernel(
        gpu: &Gpu,
        code: Code,
        config: DecoderConfig,
        which: NrKernel,
    ) -> Result<NrGpuDecoder> {
        // The CPU twin validates the code's structure and the configuration.
        QcDecoder::new(code.clone(), config)?;
        Ok(NrGpuDecoder {
            table: NrCodeTable::new(&code)?,
            engine: NrGpuEngine::with_kernel(gpu, config, which)?,
            code,
        })
    }

    /// Whether it runs `code` with `config`: a lifted NR code on the 8-bit layered schedule.
    pub fn applies(code: &Code, config: &DecoderConfig) -> bool {
        QcDecoder::applies(code, config)
    }

    /// Codewords per launch: [`LAUNCH_BLOCKS`] blocks of threads.
    pub fn launch_words(&self) -> usize {
        LAUNCH_BLOCKS * self.table.group(self.engine.which)
    }

    /// The engine (for timing a loaded batch).
    pub fn engine(&mut self) -> &mut NrGpuEngine {
        &mut self.engine
    }

    /// The code's table.
    pub fn table(&self) -> &NrCodeTable {
        &self.table
    }

    /// Decodes like [`Decoder::decode`] and returns each codeword's result too.
    pub fn decode_words(&mut self, llr: Llrs<'_>, bits: &mut [u8]) -> Result<Vec<WordResult>> {
        let count = codewords_of(&self.code, &llr, bits)?;
        let n = self.code.n();
        let per = self.launch_words();
        let mut results = Vec::with_capacity(count);
        let tables = [self.table.clone()];
        for first in (0..count).step_by(per.max(1)) {
            let last = (first + per).min(count);
            let words: Vec<WordInput<'_>> = (first..last)
                .map(|w| WordInput {
                    code: 0,
                    llr: slice_llrs(llr, w * n..(w + 1) * n),
                })
                .collect();
            self.engine.load(&tables, &words)?;
            let (hard, r) = self.engine.launch()?;
            bits[first * n..last * n].copy_from_slice(&hard);
            results.extend(r);
        }
        Ok(results)
    }
}

/// `llr` cut to `range`.
pub(crate) fn slice_llrs(llr: Llrs<'_>, range: std::ops::Range<usize>) -> Llrs<'_> {
    match llr {
        Llrs::F32(v) => Llrs::F32(&v[range]),
        Llrs::I8 { values, scale } => Llrs::I8 {
            values: &values[range],
            scale,
        },
    }
}

impl Decoder for NrGpuDecoder {
    fn describe(&self) -> String {
        format!(
            "{} ({}, quasi-cyclic NR kernel, {} lane(s) per thread, {} codewords per block)",
            self.engine.config.describe(),
            self.engine.device_name(),
            if self.engine.which == NrKernel::Pairs {
                2
            } else {
                1
            },
            self.table.group(self.engine.which)
        )
    }

    fn code(&self) -> &Code {
        &self.code
    }

    fn decode(&mut self, llr: Llrs<'_>, bits: &mut [u8]) -> Result<DecodeStats> {
        let results = self.decode_words(llr, bits)?;
        Ok(DecodeStats {
            codewords: results.len(),
            valid: results.iter().filter(|r| r.valid).count(),
            iterations: results.iter().map(|r| r.iterations as usize).sum(),
            batches: results.len(),
        })
    }
}
