//! The layered 8-bit min-sum on a CUDA GPU, fused into one kernel
//! (`kernels/ldpc_layered8.cu`): one block per codeword runs every layer of every iteration,
//! its 16-bit posteriors in shared memory, each check's c2v kept as (min1, min2, argmin, signs)
//! in global memory. Its CPU twin is [`Fixed8Decoder`] with the layered schedule, which it
//! matches bit for bit (`sigpu check` compares them).
//!
//! Batches are [`BATCH`] codewords as for flooding; a block per codeword means a batch fills
//! about one wave of an H100's 132 SMs (one block per SM: the posteriors take 130 KB of shared
//! memory for a normal frame).

use super::batch::{alloc_pinned, batch_decoder, BatchQueue, Setup, BATCH};
use crate::code::Code;
use crate::decoder::{DecoderConfig, Schedule};
use crate::error::{LdpcError, Result};
use sigpu_runtime::cuda::cudarc::driver::sys::CUfunction_attribute_enum;
use sigpu_runtime::cuda::cudarc::driver::{LaunchConfig, PinnedHostSlice};
use sigpu_runtime::cuda::{DeviceBuffer, DriverContext, Gpu, Kernel, KernelSource};

/// Shared memory a block may use on the GPUs this targets (sm_90: 227 KB).
const SHARED_LIMIT: usize = 227 * 1024;

/// 8-bit layered min-sum on one GPU; see the module documentation.
pub struct LayeredGpuDecoder {
    setup: Setup,
    kernel: Kernel,
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

/// The kernel instance for the code's largest check degree (8, 16 or 32), and the shared
/// memory its posteriors take.
fn kernel_for(order: &Code) -> Result<(usize, usize)> {
    let degree = order.max_row_degree();
    let variant = match degree {
        0..=8 => 8,
        9..=16 => 16,
        17..=32 => 32,
        _ => {
            return Err(LdpcError::invalid(format!(
            "code {} has a check of degree {degree}; the GPU layered decoder handles at most 32",
            order.name()
        )))
        }
    };
    let n = order.n();
    let shared = n.next_multiple_of(2) * 2;
    if shared > SHARED_LIMIT {
        return Err(LdpcError::invalid(format!(
            "code {}: N = {n} posteriors need {shared} bytes of shared memory; the GPU layered decoder has {SHARED_LIMIT}",
            order.name()
        )));
    }
    Ok((variant, shared))
}

/// Each layer's first check (and M after the last), and the column of every edge with bit 31
/// marking an edge whose bit another check of its layer also updates. Refuses layers wider
/// than a block.
fn layer_tables(order: &Code) -> Result<(Vec<u32>, Vec<u32>, usize)> {
    let layers = order.layers();
    let widest = layers.iter().map(|l| l.rows.len()).max().unwrap_or(1);
    if widest > 1024 {
        return Err(LdpcError::invalid(format!(
            "code {}: a layer of {widest} checks exceeds 1024 threads per block",
            order.name()
        )));
    }
    let mut layer_start: Vec<u32> = layers.iter().map(|l| l.rows.start as u32).collect();
    layer_start.push(order.m() as u32);
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
    Ok((layer_start, edge_col, widest))
}

impl LayeredGpuDecoder {
    /// The fused layered decoder of `config` for `code` on `gpu`.
    pub fn new(gpu: &Gpu, code: Code, config: DecoderConfig) -> Result<LayeredGpuDecoder> {
        let setup = Setup::new(
            gpu,
            code,
            config,
            Schedule::Layered,
            "LayeredGpuDecoder runs the layered schedule",
        )?;
        let order = setup.code.decoding_order();
        let (variant, shared) = kernel_for(&order)?;
        let (layer_start, edge_col, widest) = layer_tables(&order)?;
        let (n, m) = (order.n(), order.m());
        let src = KernelSource::embedded(
            "ldpc_layered8.cu",
            include_str!("../../kernels/ldpc_layered8.cu"),
        );
        let kernel = gpu.kernel(&src, &format!("ldpc_layered_{variant}"))?;
        kernel
            .function()
            .set_attribute(
                CUfunction_attribute_enum::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                shared as i32,
            )
            .context("allocating shared memory for the posteriors")?;
        let words = n.div_ceil(32);
        Ok(LayeredGpuDecoder {
            threads: widest.next_multiple_of(32) as u32,
            layers: layer_start.len() as u32 - 1,
            shared: shared as u32,
            row_start: gpu.upload(order.row_start())?,
            edge_col: gpu.upload(&edge_col)?,
            layer_start: gpu.upload(&layer_start)?,
            input: gpu.alloc_poisoned(BATCH * n)?,
            state: gpu.alloc_poisoned(BATCH * m)?,
            hard: gpu.alloc_poisoned(BATCH * words)?,
            iterations_run: gpu.alloc_poisoned(BATCH)?,
            host_input: alloc_pinned(gpu, BATCH * n)?,
            host_hard: alloc_pinned(gpu, BATCH * words)?,
            host_iterations: alloc_pinned(gpu, BATCH)?,
            kernel,
            setup,
        })
    }

    /// Queues upload (with `transfers`), the kernel for `count` codewords, and the download.
    fn enqueue(&mut self, transfers: bool, count: usize) -> Result<()> {
        let stream = self.setup.gpu.stream();
        let (n, m) = (self.setup.code.n() as u32, self.setup.code.m() as u32);
        if transfers {
            stream
                .memcpy_htod(&self.host_input, &mut self.input)
                .context("uploading LLRs")?;
        }
        let (mode, param) = self.setup.rule.kernel_args()?;
        let iterations = self.setup.config.iterations as u32;
        let early = self.setup.config.early_termination as u32;
        let cfg = LaunchConfig {
            grid_dim: (count as u32, 1, 1),
            block_dim: (self.threads, 1, 1),
            shared_mem_bytes: self.shared,
        };
        // Every buffer holds BATCH codewords (input N bytes, state M words, hard ⌈N/32⌉ words,
        // one iteration count each) and `count` ≤ BATCH blocks run.
        self.setup
            .gpu
            .launch(&self.kernel)
            .buf(&self.input)
            .buf(&self.row_start)
            .buf(&self.edge_col)
            .buf(&self.layer_start)
            .arg(&self.layers)
            .arg(&n)
            .arg(&m)
            .buf_mut(&mut self.state)
            .buf_mut(&mut self.hard)
            .buf_mut(&mut self.iterations_run)
            .arg(&iterations)
            .arg(&early)
            .arg(&mode)
            .arg(&param)
            .run(cfg)?;
        if transfers {
            stream
                .memcpy_dtoh(&self.hard, &mut self.host_hard)
                .context("downloading hard decisions")?;
            stream
                .memcpy_dtoh(&self.iterations_run, &mut self.host_iterations)
                .context("downloading iteration counts")?;
        }
        Ok(())
    }

    /// Unpacks the hard decisions of the batch just decoded into `out` (bit v % 32 of word
    /// v / 32 per codeword) and returns the iterations its slowest codeword ran.
    fn store(&mut self, out: &mut [u8]) -> Result<usize> {
        let n = self.setup.code.n();
        let words = n.div_ceil(32);
        let hard = self.host_hard.as_slice().context("pinned output")?;
        for (c, word) in out.chunks_mut(n).enumerate() {
            let h = &hard[c * words..(c + 1) * words];
            for (v, bit) in word.iter_mut().enumerate() {
                *bit = ((h[v / 32] >> (v % 32)) & 1) as u8;
            }
        }
        let its = self.host_iterations.as_slice().context("pinned output")?;
        // A batch runs as long as its slowest codeword.
        Ok(its[..out.len() / n].iter().copied().max().unwrap_or(0) as usize)
    }
}

impl BatchQueue for LayeredGpuDecoder {
    fn setup(&self) -> &Setup {
        &self.setup
    }
    const CLEAR_INPUT: bool = false;
    fn host_input(&mut self) -> &mut PinnedHostSlice<i8> {
        &mut self.host_input
    }
    fn enqueue_full(&mut self, transfers: bool) -> Result<()> {
        self.enqueue(transfers, BATCH)
    }
    fn run_batch(&mut self, out: &mut [u8]) -> Result<usize> {
        self.enqueue(true, out.len() / self.setup.code.n())?;
        self.setup.gpu.synchronize()?;
        self.store(out)
    }
}

batch_decoder!(LayeredGpuDecoder);

impl LayeredGpuDecoder {
    /// How it runs, for [`Decoder::describe`](crate::Decoder::describe).
    fn how(&self) -> String {
        format!("{BATCH} codewords per batch, fused layered kernel, one block per codeword")
    }
}
