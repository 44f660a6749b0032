//! The quasi-cyclic 5G NR layered decoder on a CUDA GPU (`kernels/ldpc_nr_layered8.cu`): 8-bit
//! offset, normalised or plain min-sum on lifted NR codes of both base graphs and every Z, bit
//! for bit the CPU's [`QcDecoder`] (decoded bits, iteration count and validity of every
//! codeword; `sigpu check` and `tests/nr_gpu.rs` compare them).
//!
//! - [`NrGpuEngine`]: one launch over any list of codewords of any lifted NR codes (a mixed
//!   batch: a per-block descriptor names each block's code), with per-codeword results;
//! - [`NrGpuDecoder`]: the [`Decoder`] of one code on it, launch after launch of
//!   [`NrGpuDecoder::launch_words`] codewords ([`super::decoder`] picks it for lifted codes).

use super::nr_layout::{NrBatchLayout, NrCodeTable, NrKernel, WordInput};
use super::nr_loaded::{KernelArgs, Loaded};
use crate::channel::Quantizer;
use crate::code::Code;
use crate::decoder::{
    codewords_of, DecodeStats, Decoder, DecoderConfig, Llrs, Precision, QcDecoder, Rule8, Schedule,
};
use crate::error::{LdpcError, Result};
use sigpu_runtime::cuda::cudarc::driver::sys::CUfunction_attribute_enum;
use sigpu_runtime::cuda::cudarc::driver::CudaStream;
use sigpu_runtime::cuda::{time_gpu, DriverContext, Gpu, Kernel, KernelSource, Timing};
use std::sync::Arc;

/// Blocks of threads per launch of the one-code decoder: four per SM on a 132-SM GPU.
const LAUNCH_BLOCKS: usize = 528;

/// The most parts [`auto_parts`] splits a batch into (measured on the H200: four parts of a
/// 528-block batch took the end-to-end rate from 16.4 to 20.7 Gbps coded).
const AUTO_MAX_PARTS: usize = 4;

/// Parts a batch of `blocks` blocks of threads is split into on a GPU of `sms` SMs when the
/// caller has not fixed them ([`NrGpuEngine::set_parts`]): one per SM's worth of blocks, at
/// most [`AUTO_MAX_PARTS`], and one launch below two SMs' worth. Every part then still has
/// at least one block per SM, so while one part's LLRs cross the link the others keep the SMs
/// busy; a smaller batch (a slot) stays in one launch, whose latency a split would lengthen.
pub fn auto_parts(blocks: usize, sms: usize) -> usize {
    let per_sm = blocks / sms.max(1);
    if per_sm < 2 {
        1
    } else {
        per_sm.min(AUTO_MAX_PARTS)
    }
}

/// Blocks of threads the layout of `words` (of `codes`) takes: each code's codewords in
/// groups of [`NrCodeTable::group`] (as `NrBatchLayout` packs them).
fn block_estimate(codes: &[NrCodeTable], words: &[WordInput<'_>], which: NrKernel) -> usize {
    let mut per_code = vec![0usize; codes.len()];
    for w in words {
        if let Some(c) = per_code.get_mut(w.code) {
            *c += 1;
        }
    }
    (per_code.iter().zip(codes))
        .map(|(&n, t)| n.div_ceil(t.group(which)))
        .sum()
}

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

/// The GPU NR decoder's kernel and arithmetic on one GPU; see the module documentation.
pub struct NrGpuEngine {
    gpu: Gpu,
    kernel: Kernel,
    which: NrKernel,
    config: DecoderConfig,
    quantizer: Quantizer,
    mode: u32,
    param: u32,
    /// Parts a loaded batch is split into, each queued on its own stream (1: the GPU's own
    /// stream); `None`: chosen per batch by [`auto_parts`]; see [`NrGpuEngine::set_parts`].
    parts: Option<usize>,
    streams: Vec<Arc<CudaStream>>,
    loaded: Vec<Loaded>,
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
            parts: None,
            streams: Vec::new(),
            loaded: Vec::new(),
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

    /// Splits the next loaded batches into `parts` runs of consecutive codewords, each
    /// uploaded, decoded and downloaded on its own stream, so that one part's copies overlap
    /// another's kernel (the link and the SMs busy at once: end to end, a large batch takes
    /// about the longer of the two instead of their sum); 1 queues the whole batch on the
    /// GPU's stream in one launch. Without a call the engine picks the parts of each batch by
    /// its size ([`auto_parts`]: four for a full launch of the one-code decoder, one for a
    /// slot). The results are the same either way.
    pub fn set_parts(&mut self, parts: usize) -> Result<()> {
        if parts == 0 {
            return Err(LdpcError::invalid("a batch is split into at least 1 part"));
        }
        self.parts = Some(parts);
        Ok(())
    }

    /// Parts the loaded batch runs in (0 before a batch is loaded).
    pub fn parts(&self) -> usize {
        self.loaded.len()
    }

    /// Parts for `words` (of `codes`): the caller's, or [`auto_parts`] of its blocks.
    pub fn parts_for(&self, codes: &[NrCodeTable], words: &[WordInput<'_>]) -> usize {
        let parts = self.parts.unwrap_or_else(|| {
            auto_parts(
                block_estimate(codes, words, self.which),
                self.gpu.info().sms as usize,
            )
        });
        parts.min(words.len()).max(1)
    }

    /// Lays out and uploads `words` (of `codes`) for [`NrGpuEngine::launch`].
    pub fn load(&mut self, codes: &[NrCodeTable], words: &[WordInput<'_>]) -> Result<()> {
        let parts = self.parts_for(codes, words);
        // One stream per part (a single part runs on the GPU's own stream).
        while parts > 1 && self.streams.len() < parts {
            let s = (self.gpu.context().new_stream()).context("creating a decoding stream")?;
            self.streams.push(s);
        }
        let per = words.len().div_ceil(parts).max(1);
        let layouts = (words
            .chunks(per)
            .map(|w| NrBatchLayout::new(codes, w, self.quantizer, self.which)))
        .collect::<Result<Vec<_>>>()?;
        let layouts = if layouts.is_empty() {
            vec![NrBatchLayout::new(codes, &[], self.quantizer, self.which)?]
        } else {
            layouts
        };
        let g = &self.gpu;
        g.context()
            .bind_to_thread()
            .context("making the decoder's CUDA context current")?;
        // A batch of the same sizes as the last one reuses its buffers.
        let same = self.loaded.len() == layouts.len()
            && (self.loaded.iter().zip(&layouts)).all(|(l, n)| l.layout.same_sizes(n));
        if same {
            for (l, layout) in self.loaded.iter_mut().zip(layouts) {
                l.refill(g, layout)?;
            }
        } else {
            self.loaded =
                (layouts.into_iter().map(|l| Loaded::new(g, l))).collect::<Result<_>>()?;
        }
        Ok(())
    }

    /// Queues the loaded batch: with `transfers`, the LLR (and known-bit) uploads before the
    /// kernels and the downloads of the results after them (the end-to-end work); one part
    /// on the GPU's stream, several each on its own stream between a fork from and a join
    /// back to the GPU's stream (so that events on it time the whole). Returns whether there
    /// was anything to run.
    fn enqueue(&mut self, transfers: bool) -> Result<bool> {
        if self.loaded.is_empty() {
            return Err(LdpcError::invalid("no batch loaded"));
        }
        if self.loaded.iter().all(|l| l.layout.word_count() == 0) {
            return Ok(false);
        }
        let args = KernelArgs {
            iterations: self.config.iterations as u32,
            early: self.config.early_termination as u32,
            mode: self.mode,
            param: self.param,
            threads: self.which.threads() as u32,
        };
        let main = self.gpu.stream().clone();
        if self.loaded.len() == 1 {
            self.loaded[0].enqueue(&self.gpu, &main, &self.kernel, &args, transfers)?;
            return Ok(true);
        }
        let forked = main.record_event(None).context("recording an event")?;
        for (l, s) in self.loaded.iter_mut().zip(&self.streams) {
            s.wait(&forked)
                .context("waiting for the decoder's stream")?;
            l.enqueue(&self.gpu, s, &self.kernel, &args, transfers)?;
        }
        for s in &self.streams[..self.loaded.len()] {
            let done = s.record_event(None).context("recording an event")?;
            main.wait(&done).context("joining the decoding streams")?;
        }
        Ok(true)
    }

    /// Decodes the loaded batch (one launch per part): each input codeword's hard decisions
    /// (concatenated in input order, N bytes of 0/1 each) and result.
    pub fn launch(&mut self) -> Result<(Vec<u8>, Vec<WordResult>)> {
        if !self.enqueue(true)? {
            return Ok((Vec::new(), Vec::new()));
        }
        self.gpu.synchronize()?;
        let (mut bits, mut results) = (Vec::new(), Vec::new());
        for l in &self.loaded {
            l.results(&mut bits, &mut results)?;
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
        if self.loaded.is_empty() {
            return None;
        }
        Some(
            self.loaded
                .iter()
                .fold((0, 0), |(e, b), l| (e + l.layout.edges, b + l.layout.bits)),
        )
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nr::NrCode;

    #[test]
    fn large_batches_run_in_parts_and_a_slot_in_one_launch() {
        // The H200: 132 SMs; a full launch of the one-code decoder is 528 blocks.
        assert_eq!(auto_parts(LAUNCH_BLOCKS, 132), 4);
        assert_eq!(auto_parts(152, 132), 1);
        assert_eq!(auto_parts(263, 132), 1);
        assert_eq!(auto_parts(264, 132), 2);
        assert_eq!(auto_parts(400, 132), 3);
        assert_eq!(auto_parts(100_000, 132), AUTO_MAX_PARTS);
        assert_eq!(auto_parts(0, 132), 1);
        assert_eq!(auto_parts(10, 0), AUTO_MAX_PARTS.min(10));
    }

    #[test]
    fn the_block_estimate_packs_each_codes_words_in_its_groups() {
        let small = NrCode::new(12, 36, None).unwrap(); // Z = 2: 192 codewords per block
        let big = NrCode::new(8448, 9126, None).unwrap(); // Z = 384: one per block
        let tables = [
            NrCodeTable::new(small.code()).unwrap(),
            NrCodeTable::new(big.code()).unwrap(),
        ];
        let llr = vec![0.0f32; 1];
        let words: Vec<WordInput<'_>> = (0..400)
            .map(|i| WordInput {
                code: usize::from(i % 2 == 1 && i < 20),
                llr: Llrs::F32(&llr),
            })
            .collect();
        // 390 of Z = 2 in 3 blocks, 10 of Z = 384 in 10.
        assert_eq!(block_estimate(&tables, &words, NrKernel::Lanes), 13);
    }
}
