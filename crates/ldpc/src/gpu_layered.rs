//! The layered 8-bit min-sum on a CUDA GPU, fused into one kernel
//! (`kernels/ldpc_layered8.cu`): one block per codeword runs every layer of every iteration,
//! its 16-bit posteriors in shared memory, each check's c2v kept as (min1, min2, argmin, signs)
//! in global memory. Its CPU twin is [`Fixed8Decoder`] with the layered schedule, which it
//! matches bit for bit ([`checks`]).
//!
//! Batches are [`BATCH`] codewords as for flooding; a block per codeword means a batch fills
//! about one wave of an H100's 132 SMs (one block per SM: the posteriors take 130 KB of shared
//! memory for a normal frame).

use crate::code::Code;
use crate::decoder::{
    codewords_of, count_valid, DecodeStats, Decoder, DecoderConfig, Fixed8Decoder, Llrs, Precision,
    Rule8, Schedule,
};
use crate::error::{LdpcError, Result};
use crate::gpu::BATCH;
use sigpu_runtime::cuda::cudarc::driver::sys::CUfunction_attribute_enum;
use sigpu_runtime::cuda::cudarc::driver::{
    CudaFunction, LaunchConfig, PinnedHostSlice, PushKernelArg,
};
use sigpu_runtime::cuda::{time_gpu, DeviceBuffer, Gpu, KernelSource, Timing};

/// Shared memory a block may use on the GPUs this targets (sm_90: 227 KB).
const SHARED_LIMIT: usize = 227 * 1024;

fn ctx<E: std::fmt::Display>(what: &str) -> impl Fn(E) -> LdpcError + '_ {
    move |e| LdpcError::Gpu(sigpu_runtime::cuda::Error::Invalid(format!("{what}: {e}")))
}

/// 8-bit layered min-sum on one GPU; see the module documentation.
pub struct LayeredGpuDecoder<'g> {
    gpu: &'g Gpu,
    code: Code,
    config: DecoderConfig,
    rule: Rule8,
    quantizer: crate::channel::Quantizer,
    kernel: CudaFunction,
    /// Threads per block: the largest layer, rounded up to a warp.
    threads: u32,
    layers: u32,
    shared: u32,
    row_start: DeviceBuffer<u32>,
    edge_col: DeviceBuffer<u32>,
    layer_start: DeviceBuffer<u32>,
    input: DeviceBuffer<i8>,
    state: DeviceBuffer<u64>,
    hard: DeviceBuffer<u32>,
    iterations_run: DeviceBuffer<u32>,
    host_input: PinnedHostSlice<i8>,
    host_hard: PinnedHostSlice<u32>,
    host_iterations: PinnedHostSlice<u32>,
}

impl<'g> LayeredGpuDecoder<'g> {
    pub fn new(gpu: &'g Gpu, code: Code, config: DecoderConfig) -> Result<LayeredGpuDecoder<'g>> {
        config.validate()?;
        let Precision::Fixed8 { scale } = config.precision else {
            return Err(LdpcError::invalid(
                "the GPU decoder is the 8-bit min-sum: use --precision 8bit (float decoders run on the CPU)",
            ));
        };
        if config.schedule != Schedule::Layered {
            return Err(LdpcError::invalid(
                "LayeredGpuDecoder runs the layered schedule",
            ));
        }
        Fixed8Decoder::new(code.clone(), config)?;
        let order = code.decoding_order();
        let degree = order.max_row_degree();
        let variant = match degree {
            0..=8 => 8,
            9..=16 => 16,
            17..=32 => 32,
            _ => {
                return Err(LdpcError::invalid(format!(
                    "code {} has a check of degree {degree}; the GPU layered decoder handles at most 32",
                    code.name()
                )))
            }
        };
        let (n, m) = (order.n(), order.m());
        let shared = n.next_multiple_of(2) * 2;
        if shared > SHARED_LIMIT {
            return Err(LdpcError::invalid(format!(
                "code {}: N = {n} posteriors need {shared} bytes of shared memory; the GPU layered decoder has {SHARED_LIMIT}",
                code.name()
            )));
        }
        let layers = order.layers();
        let widest = layers.iter().map(|l| l.rows.len()).max().unwrap_or(1);
        if widest > 1024 {
            return Err(LdpcError::invalid(format!(
                "code {}: a layer of {widest} checks exceeds 1024 threads per block",
                code.name()
            )));
        }
        let mut layer_start: Vec<u32> = layers.iter().map(|l| l.rows.start as u32).collect();
        layer_start.push(m as u32);
        // Bit 31 marks an edge whose bit another check of its layer also updates.
        let mut edge_col = order.edge_col().to_vec();
        for layer in layers.iter().filter(|l| l.conflict) {
            let edges = order.row_start()[layer.rows.start] as usize
                ..order.row_start()[layer.rows.end] as usize;
            let mut uses = std::collections::HashMap::new();
            for &c in &edge_col[edges.clone()] {
                *uses.entry(c).or_insert(0u32) += 1;
            }
            for c in &mut edge_col[edges] {
                if uses[c] > 1 {
                    *c |= 1 << 31;
                }
            }
        }
        let src = KernelSource::embedded(
            "ldpc_layered8.cu",
            include_str!("../kernels/ldpc_layered8.cu"),
        );
        let kernel = gpu.function(&src, &format!("ldpc_layered_{variant}"))?;
        kernel
            .set_attribute(
                CUfunction_attribute_enum::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                shared as i32,
            )
            .map_err(ctx("allocating shared memory for the posteriors"))?;
        let pinned = ctx("allocating pinned host memory");
        let words = n.div_ceil(32);
        // SAFETY: written (by the host, or by a device copy) before being read.
        let (host_input, host_hard, host_iterations) = unsafe {
            (
                gpu.context()
                    .alloc_pinned_with_flags::<i8>(BATCH * n, 0)
                    .map_err(&pinned)?,
                gpu.context()
                    .alloc_pinned_with_flags::<u32>(BATCH * words, 0)
                    .map_err(&pinned)?,
                gpu.context()
                    .alloc_pinned_with_flags::<u32>(BATCH, 0)
                    .map_err(&pinned)?,
            )
        };
        Ok(LayeredGpuDecoder {
            rule: Rule8::new(config.algorithm, scale)?,
            quantizer: crate::channel::Quantizer::new(scale)?,
            threads: widest.next_multiple_of(32) as u32,
            layers: layers.len() as u32,
            shared: shared as u32,
            row_start: gpu.upload(order.row_start())?,
            edge_col: gpu.upload(&edge_col)?,
            layer_start: gpu.upload(&layer_start)?,
            input: gpu.alloc_poisoned(BATCH * n)?,
            state: gpu.alloc_poisoned(BATCH * m)?,
            hard: gpu.alloc_poisoned(BATCH * words)?,
            iterations_run: gpu.alloc_poisoned(BATCH)?,
            host_input,
            host_hard,
            host_iterations,
            kernel,
            gpu,
            code,
            config,
        })
    }

    /// Queues upload (with `transfers`), the kernel for `count` codewords, and the download.
    fn enqueue(&mut self, transfers: bool, count: usize) -> Result<()> {
        let stream = self.gpu.stream().clone();
        let (n, m) = (self.code.n() as u32, self.code.m() as u32);
        if transfers {
            stream
                .memcpy_htod(&self.host_input, &mut self.input)
                .map_err(ctx("uploading LLRs"))?;
        }
        let (mode, param) = self.rule.kernel_args();
        let iterations = self.config.iterations as u32;
        let early = self.config.early_termination as u32;
        let mut l = stream.launch_builder(&self.kernel);
        l.arg(&self.input)
            .arg(&self.row_start)
            .arg(&self.edge_col)
            .arg(&self.layer_start)
            .arg(&self.layers)
            .arg(&n)
            .arg(&m)
            .arg(&mut self.state)
            .arg(&mut self.hard)
            .arg(&mut self.iterations_run)
            .arg(&iterations)
            .arg(&early)
            .arg(&mode)
            .arg(&param);
        let cfg = LaunchConfig {
            grid_dim: (count as u32, 1, 1),
            block_dim: (self.threads, 1, 1),
            shared_mem_bytes: self.shared,
        };
        // SAFETY: argument types and order match `ldpc_layered_D`; every buffer holds BATCH
        // codewords (input N bytes, state M words, hard ⌈N/32⌉ words, one iteration count each)
        // and `count` ≤ BATCH blocks run.
        unsafe { l.launch(cfg) }.map_err(ctx("ldpc_layered"))?;
        if transfers {
            stream
                .memcpy_dtoh(&self.hard, &mut self.host_hard)
                .map_err(ctx("downloading hard decisions"))?;
            stream
                .memcpy_dtoh(&self.iterations_run, &mut self.host_iterations)
                .map_err(ctx("downloading iteration counts"))?;
        }
        Ok(())
    }

    /// Batch latency as [`crate::gpu::GpuDecoder::time_batch`] measures it: `llr` holds 128
    /// codewords of 8-bit LLRs; with `transfers` the upload and hard-decision download count.
    pub fn time_batch(
        &mut self,
        llr: &[i8],
        transfers: bool,
        warmup: usize,
        runs: usize,
    ) -> Result<Timing> {
        if self.config.early_termination {
            return Err(LdpcError::invalid("timing runs without early termination"));
        }
        let n = self.code.n();
        if llr.len() != BATCH * n {
            return Err(LdpcError::invalid(format!(
                "time_batch needs {} LLRs, got {}",
                BATCH * n,
                llr.len()
            )));
        }
        self.fill_input(
            Llrs::I8 {
                values: llr,
                scale: self.quantizer.scale,
            },
            0,
            BATCH,
        )?;
        self.enqueue(true, BATCH)?;
        Ok(time_gpu(self.gpu, warmup, runs, || {
            self.enqueue(transfers, BATCH).map_err(|e| match e {
                LdpcError::Gpu(g) => g,
                other => sigpu_runtime::cuda::Error::Invalid(other.to_string()),
            })
        })?)
    }

    fn fill_input(&mut self, llr: Llrs<'_>, first: usize, count: usize) -> Result<()> {
        let n = self.code.n();
        let q = self.quantizer;
        let host = self
            .host_input
            .as_mut_slice()
            .map_err(|e| LdpcError::invalid(format!("pinned input: {e}")))?;
        let dst = &mut host[..count * n];
        match llr {
            Llrs::F32(v) => q.quantize_all(&v[first * n..(first + count) * n], dst),
            Llrs::I8 { values, scale } if scale == q.scale => {
                for (d, &s) in dst.iter_mut().zip(&values[first * n..(first + count) * n]) {
                    *d = s.max(-127);
                }
            }
            Llrs::I8 { values, scale } => {
                for (d, &s) in dst.iter_mut().zip(&values[first * n..(first + count) * n]) {
                    *d = q.quantize(s as f32 / scale);
                }
            }
        }
        Ok(())
    }
}

impl Decoder for LayeredGpuDecoder<'_> {
    fn describe(&self) -> String {
        format!(
            "{} ({}, {BATCH} codewords per batch, fused layered kernel, one block per codeword)",
            self.config.describe(),
            self.gpu.info().name,
        )
    }

    fn code(&self) -> &Code {
        &self.code
    }

    fn decode(&mut self, llr: Llrs<'_>, bits: &mut [u8]) -> Result<DecodeStats> {
        let count = codewords_of(&self.code, &llr, bits)?;
        // The decoder may run on another thread than the one that made it (one worker thread
        // per GPU in `sim::run_point_parallel`), and pinned-buffer waits use the context.
        self.gpu
            .context()
            .bind_to_thread()
            .map_err(ctx("making the decoder's CUDA context current"))?;
        let n = self.code.n();
        let words = n.div_ceil(32);
        let mut iterations = 0;
        for (b, out) in bits.chunks_mut(BATCH * n).enumerate() {
            let this = out.len() / n;
            self.fill_input(llr, b * BATCH, this)?;
            self.enqueue(true, this)?;
            self.gpu.synchronize()?;
            let hard = self
                .host_hard
                .as_slice()
                .map_err(|e| LdpcError::invalid(format!("pinned output: {e}")))?;
            for (c, word) in out.chunks_mut(n).enumerate() {
                let h = &hard[c * words..(c + 1) * words];
                for (v, bit) in word.iter_mut().enumerate() {
                    *bit = ((h[v / 32] >> (v % 32)) & 1) as u8;
                }
            }
            let its = self
                .host_iterations
                .as_slice()
                .map_err(|e| LdpcError::invalid(format!("pinned output: {e}")))?;
            // A batch runs as long as its slowest codeword.
            iterations += its[..this].iter().copied().max().unwrap_or(0) as usize;
        }
        Ok(DecodeStats {
            codewords: count,
            valid: count_valid(&self.code, bits),
            iterations,
            batches: count.div_ceil(BATCH),
        })
    }
}
