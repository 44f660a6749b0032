//! The seed's 8-bit flooding min-sum on a CUDA GPU: 128 codewords per batch in the coalesced
//! layout, a CN kernel, a VN kernel and a VN kernel with hard decision
//! (`kernels/ldpc_minsum8.cu`). A batch can run as sub-batches of 64 or 32 codewords, one
//! after the other, so that a sub-batch's messages stay in L2 across its iterations. Its CPU twin is [`Fixed8Decoder`] with the same
//! configuration, which it matches bit for bit; [`checks`] registers that comparison.

use crate::channel::{Demapper, Modulation, Quantizer, Snr};
use crate::code::Code;
use crate::decoder::{
    codewords_of, count_valid, Algorithm, DecodeStats, Decoder, DecoderConfig, Fixed8Decoder, Llrs,
    Precision, Rule8, Schedule,
};
use crate::error::{LdpcError, Result};
pub use crate::gpu_layered::LayeredGpuDecoder;
use crate::interleave::Interleaving;
use crate::sim::{make_frames, run_point, run_point_parallel, Link, StopRule};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sigpu_runtime::cuda::cudarc::driver::{
    CudaFunction, LaunchConfig, PinnedHostSlice, PushKernelArg,
};
use sigpu_runtime::cuda::DeviceBuffer;
use sigpu_runtime::cuda::{
    compare_exact, grid_1d, time_gpu, Check, CheckReport, Gpu, KernelSource, Timing,
};

/// Codewords per GPU batch: 32 threads × 4 codewords, one 128-byte line per edge.
pub const BATCH: usize = 128;

/// How the GPU decoder runs a batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GpuOptions {
    /// Codewords decoded together: 128, or 64 / 32 to run a batch as sub-batches in turn.
    pub sub_batch: usize,
    /// CN / VN kernels with one 16-byte access per lane (16 codewords) instead of one 4-byte
    /// word (4 codewords, the seed's form).
    pub vector: bool,
}

impl Default for GpuOptions {
    fn default() -> Self {
        GpuOptions {
            sub_batch: BATCH,
            vector: true,
        }
    }
}

/// The kernels for sub-batches of `sub` codewords (4 per 32-bit word).
pub fn kernel_source(sub: usize) -> KernelSource {
    let text = include_str!("../kernels/ldpc_minsum8.cu");
    if sub == BATCH {
        KernelSource::embedded("ldpc_minsum8.cu", text)
    } else {
        KernelSource::generated(
            format!("ldpc_minsum8_w{}.cu", sub / 4),
            format!("#define LDPC_WORDS {}\n{text}", sub / 4),
        )
    }
}

struct Kernels {
    /// Threads per row (CN) or column (VN).
    lanes: usize,
    transpose: CudaFunction,
    init: CudaFunction,
    cn: CudaFunction,
    vn: CudaFunction,
    vn_hd: CudaFunction,
    syndrome: CudaFunction,
    mark_done: CudaFunction,
}

/// 8-bit flooding min-sum on one GPU; see the module documentation.
pub struct GpuDecoder<'g> {
    gpu: &'g Gpu,
    code: Code,
    /// `code` in decoding order, as the CPU twin uses it (flooding results do not depend on
    /// it; the memory access pattern does).
    order: Code,
    config: DecoderConfig,
    /// Codewords decoded together (128, 64 or 32); a batch is `BATCH / sub` of them in turn.
    sub: usize,
    rule: Rule8,
    quantizer: Quantizer,
    k: Kernels,
    row_start: DeviceBuffer<u32>,
    edge_col: DeviceBuffer<u32>,
    col_start: DeviceBuffer<u32>,
    col_edges: DeviceBuffer<u32>,
    input: DeviceBuffer<i8>,
    llr: DeviceBuffer<u32>,
    msg: DeviceBuffer<u32>,
    hard: DeviceBuffer<u32>,
    done: DeviceBuffer<u32>,
    failed: DeviceBuffer<u32>,
    host_input: PinnedHostSlice<i8>,
    host_hard: PinnedHostSlice<u32>,
}

/// Wraps a driver error with what was being done.
fn ctx<E: std::fmt::Display>(what: &str) -> impl Fn(E) -> LdpcError + '_ {
    move |e| LdpcError::Gpu(sigpu_runtime::cuda::Error::Invalid(format!("{what}: {e}")))
}

impl<'g> GpuDecoder<'g> {
    pub fn new(gpu: &'g Gpu, code: Code, config: DecoderConfig) -> Result<GpuDecoder<'g>> {
        GpuDecoder::with_options(gpu, code, config, GpuOptions::default())
    }

    /// A decoder with chosen kernels and sub-batch (see [`GpuOptions`]); the results are the
    /// same whatever the options.
    pub fn with_options(
        gpu: &'g Gpu,
        code: Code,
        config: DecoderConfig,
        options: GpuOptions,
    ) -> Result<GpuDecoder<'g>> {
        let sub = options.sub_batch;
        if ![32, 64, 128].contains(&sub) {
            return Err(LdpcError::invalid(format!(
                "sub-batch {sub}: expected 128, 64 or 32 codewords"
            )));
        }
        config.validate()?;
        let Precision::Fixed8 { scale } = config.precision else {
            return Err(LdpcError::invalid(
                "the GPU decoder is the 8-bit min-sum: use --precision 8bit (float decoders run on the CPU)",
            ));
        };
        if config.schedule != Schedule::Flooding {
            return Err(LdpcError::invalid(
                "GpuDecoder runs the seed's flooding schedule; the layered schedule is LayeredGpuDecoder (gpu::decoder picks by schedule)",
            ));
        }
        // The twin validates the code's degrees and the rule.
        Fixed8Decoder::new(code.clone(), config)?;
        let order = code.decoding_order();
        let src = kernel_source(sub);
        let f = |name| gpu.function(&src, name);
        // The register-cached variant for the code's largest degrees, else the seed's re-read.
        let (cn, vn) = if options.vector {
            let fits = |d| if d <= 8 { "8" } else { "" };
            (
                format!("ldpc_cn_v{}", fits(order.max_row_degree())),
                format!("_v{}", fits(order.max_col_degree())),
            )
        } else {
            let cn = match order.max_row_degree() {
                0..=8 => "ldpc_cn_8",
                9..=16 => "ldpc_cn_16",
                17..=32 => "ldpc_cn_32",
                _ => "ldpc_cn",
            };
            let vn = match order.max_col_degree() {
                0..=8 => "_8",
                9..=16 => "_16",
                _ => "",
            };
            (cn.to_owned(), vn.to_owned())
        };
        let k = Kernels {
            lanes: if options.vector { sub / 16 } else { sub / 4 },
            transpose: f("ldpc_transpose_llr")?,
            init: f("ldpc_init")?,
            cn: f(&cn)?,
            vn: f(&format!("ldpc_vn{vn}"))?,
            vn_hd: f(&format!("ldpc_vn_hd{vn}"))?,
            syndrome: f("ldpc_syndrome")?,
            mark_done: f("ldpc_mark_done")?,
        };
        let (n, edges) = (order.n(), order.edges());
        let pinned = |e| {
            LdpcError::Gpu(sigpu_runtime::cuda::Error::Invalid(format!(
                "allocating pinned host memory: {e}"
            )))
        };
        // SAFETY: both are written (by the host, or by a device copy) before being read.
        let host_input =
            unsafe { gpu.context().alloc_pinned_with_flags::<i8>(BATCH * n, 0) }.map_err(pinned)?;
        let host_hard = unsafe {
            gpu.context()
                .alloc_pinned_with_flags::<u32>(n * 4 * (BATCH / sub), 0)
        }
        .map_err(pinned)?;
        Ok(GpuDecoder {
            rule: Rule8::new(config.algorithm, scale)?,
            quantizer: Quantizer::new(scale)?,
            row_start: gpu.upload(order.row_start())?,
            edge_col: gpu.upload(order.edge_col())?,
            col_start: gpu.upload(order.col_start())?,
            col_edges: gpu.upload(order.col_edges())?,
            input: gpu.alloc_poisoned(BATCH * n)?,
            llr: gpu.alloc_poisoned(n * sub / 4)?,
            msg: gpu.alloc_poisoned(edges * sub / 4)?,
            hard: gpu.alloc_poisoned(n * 4 * (BATCH / sub))?,
            done: gpu.upload(&[0u32; 4])?,
            failed: gpu.upload(&[0u32; 4])?,
            host_input,
            host_hard,
            gpu,
            code,
            order,
            config,
            sub,
            k,
        })
    }

    /// Uses the seed's kernels that read each message twice instead of keeping a row's or
    /// column's messages in registers (the fallback for degrees above 32 / 16).
    pub fn rereading(mut self) -> Result<Self> {
        let src = kernel_source(self.sub);
        self.k.lanes = self.sub / 4;
        self.k.cn = self.gpu.function(&src, "ldpc_cn")?;
        self.k.vn = self.gpu.function(&src, "ldpc_vn")?;
        self.k.vn_hd = self.gpu.function(&src, "ldpc_vn_hd")?;
        Ok(self)
    }

    /// Queues one batch already in the pinned input buffer: upload, the kernels, the
    /// hard-decision download (the transfers only with `transfers`). Without early termination
    /// nothing waits for the GPU; with it, each iteration reads back which codewords are done.
    /// Returns the iterations run.
    /// Only the sub-batches that hold some of the `count` codewords run, so a partial batch
    /// costs less when sub-batches are smaller than the batch.
    fn enqueue_batch(&mut self, count: usize) -> Result<usize> {
        self.enqueue(true, count.div_ceil(self.sub))
    }

    fn enqueue(&mut self, transfers: bool, parts: usize) -> Result<usize> {
        let stream = self.gpu.stream().clone();
        if transfers {
            stream
                .memcpy_htod(&self.host_input, &mut self.input)
                .map_err(ctx("uploading LLRs"))?;
        }
        let mut iterations = 0;
        for part in 0..parts {
            iterations = iterations.max(self.enqueue_sub_batch(part)?);
        }
        if transfers {
            stream
                .memcpy_dtoh(&self.hard, &mut self.host_hard)
                .map_err(ctx("downloading hard decisions"))?;
        }
        Ok(iterations)
    }

    /// Queues the kernels of sub-batch `part` (codewords `part·sub ..`), whose LLRs are in
    /// `input`; its hard decisions go to part `part` of `hard`. With early termination this
    /// waits for the GPU after every iteration. Returns the iterations run.
    fn enqueue_sub_batch(&mut self, part: usize) -> Result<usize> {
        let (n, m, edges) = (
            self.order.n() as u32,
            self.order.m() as u32,
            self.order.edges() as u32,
        );
        let words = self.sub / 4;
        let stream = self.gpu.stream().clone();
        let early = self.config.early_termination;
        if early {
            stream
                .memcpy_htod(&[0u32; 4], &mut self.done)
                .map_err(ctx("clearing flags"))?;
            stream
                .memcpy_htod(&[0u32; 4], &mut self.failed)
                .map_err(ctx("clearing flags"))?;
        }
        let tile = LaunchConfig {
            grid_dim: (n.div_ceil(32), 1, 1),
            block_dim: (32, 8, 1),
            shared_mem_bytes: 0,
        };
        let input = self.input.slice(part * self.sub * n as usize..);
        let mut l = stream.launch_builder(&self.k.transpose);
        l.arg(&input).arg(&mut self.llr).arg(&n);
        // SAFETY (every launch below): argument types and order match the kernel's signature
        // and every buffer has the length the kernel indexes (see the allocations in
        // `with_sub_batch`: W = sub / 4 words per bit or edge).
        unsafe { l.launch(tile) }.map_err(ctx("ldpc_transpose_llr"))?;
        let mut l = stream.launch_builder(&self.k.init);
        l.arg(&self.llr)
            .arg(&self.edge_col)
            .arg(&mut self.msg)
            .arg(&edges);
        unsafe { l.launch(grid_1d(edges as usize * words, 256)) }.map_err(ctx("ldpc_init"))?;
        let (mode, param) = self.rule.kernel_args();
        let iterations = self.config.iterations;
        let hd_len = n as usize * 4;
        for it in 1..=iterations {
            let mut l = stream.launch_builder(&self.k.cn);
            l.arg(&mut self.msg)
                .arg(&self.row_start)
                .arg(&m)
                .arg(&mode)
                .arg(&param);
            unsafe { l.launch(grid_1d(m as usize * self.k.lanes, 128)) }.map_err(ctx("ldpc_cn"))?;
            let columns = grid_1d(n as usize * self.k.lanes, 128);
            if early || it == iterations {
                let mut hard = self.hard.slice_mut(part * hd_len..(part + 1) * hd_len);
                let mut l = stream.launch_builder(&self.k.vn_hd);
                l.arg(&self.llr)
                    .arg(&mut self.msg)
                    .arg(&self.col_start)
                    .arg(&self.col_edges)
                    .arg(&n);
                l.arg(&mut hard).arg(&self.done);
                unsafe { l.launch(columns) }.map_err(ctx("ldpc_vn_hd"))?;
            } else {
                let mut l = stream.launch_builder(&self.k.vn);
                l.arg(&self.llr)
                    .arg(&mut self.msg)
                    .arg(&self.col_start)
                    .arg(&self.col_edges)
                    .arg(&n);
                unsafe { l.launch(columns) }.map_err(ctx("ldpc_vn"))?;
            }
            if early && it < iterations {
                let hard = self.hard.slice(part * hd_len..(part + 1) * hd_len);
                let mut l = stream.launch_builder(&self.k.syndrome);
                l.arg(&hard)
                    .arg(&self.row_start)
                    .arg(&self.edge_col)
                    .arg(&m)
                    .arg(&mut self.failed);
                unsafe { l.launch(grid_1d(m as usize, 256)) }.map_err(ctx("ldpc_syndrome"))?;
                let mut l = stream.launch_builder(&self.k.mark_done);
                l.arg(&mut self.done).arg(&mut self.failed);
                unsafe { l.launch(grid_1d(4, 32)) }.map_err(ctx("ldpc_mark_done"))?;
                let mut done = [0u32; 4];
                stream
                    .memcpy_dtoh(&self.done, &mut done)
                    .map_err(ctx("reading done flags"))?;
                stream
                    .synchronize()
                    .map_err(ctx("waiting for the syndrome"))?;
                if done == [u32::MAX; 4] {
                    return Ok(it);
                }
            }
        }
        Ok(iterations)
    }

    /// Batch latency as the seed timed it: LLR upload (128 codewords of 8-bit LLRs, from
    /// pinned memory), transposition, initialisation, the iterations, hard-decision download.
    /// `llr` holds 128 codewords; early termination must be off (nothing may wait).
    /// With `transfers` false, only the device work is timed (transposition, initialisation,
    /// iterations), the LLRs staying on the device from a first upload.
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
        let n = self.order.n();
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
        let parts = BATCH / self.sub;
        self.enqueue(true, parts)?;
        Ok(time_gpu(self.gpu, warmup, runs, || {
            self.enqueue(transfers, parts)
                .map(|_| ())
                .map_err(|e| match e {
                    LdpcError::Gpu(g) => g,
                    other => sigpu_runtime::cuda::Error::Invalid(other.to_string()),
                })
        })?)
    }

    /// Copies (quantising if needed) codewords `first .. first + count` into the pinned input.
    fn fill_input(&mut self, llr: Llrs<'_>, first: usize, count: usize) -> Result<()> {
        let n = self.order.n();
        let q = self.quantizer;
        let host = self
            .host_input
            .as_mut_slice()
            .map_err(|e| LdpcError::invalid(format!("pinned input: {e}")))?;
        host.fill(0);
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

    /// Unpacks the batch's hard decisions: codeword c is in part c / sub, where bit t of word
    /// j is its codeword 4t + j.
    fn store(&mut self, out: &mut [u8]) -> Result<()> {
        let n = self.order.n();
        let sub = self.sub;
        let hard = self
            .host_hard
            .as_slice()
            .map_err(|e| LdpcError::invalid(format!("pinned output: {e}")))?;
        for (c, word) in out.chunks_mut(n).enumerate() {
            let part = &hard[(c / sub) * n * 4..][..n * 4];
            let (t, j) = ((c % sub) / 4, c % 4);
            for (v, bit) in word.iter_mut().enumerate() {
                *bit = ((part[v * 4 + j] >> t) & 1) as u8;
            }
        }
        Ok(())
    }
}

impl Decoder for GpuDecoder<'_> {
    fn describe(&self) -> String {
        let sub = if self.sub == BATCH {
            String::new()
        } else {
            format!(" in sub-batches of {}", self.sub)
        };
        // 4 bytes per lane (one word) or 16 (four words): see `GpuOptions::vector`.
        let access = 4 * self.sub / 4 / self.k.lanes;
        format!(
            "{} ({}, {BATCH} codewords per batch{sub}, {access}-byte CN/VN accesses)",
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
        let mut iterations = 0;
        for (b, out) in bits.chunks_mut(BATCH * n).enumerate() {
            let this = out.len() / n;
            self.fill_input(llr, b * BATCH, this)?;
            iterations += self.enqueue_batch(this)?;
            self.gpu.synchronize()?;
            self.store(out)?;
        }
        Ok(DecodeStats {
            codewords: count,
            valid: count_valid(&self.code, bits),
            iterations,
            batches: count.div_ceil(BATCH),
        })
    }
}

/// The GPU decoder for `config`: [`GpuDecoder`] (flooding) or [`LayeredGpuDecoder`].
pub fn decoder<'g>(
    gpu: &'g Gpu,
    code: &Code,
    config: DecoderConfig,
) -> Result<Box<dyn Decoder + 'g>> {
    Ok(match config.schedule {
        Schedule::Flooding => Box::new(GpuDecoder::new(gpu, code.clone(), config)?),
        Schedule::Layered => Box::new(LayeredGpuDecoder::new(gpu, code.clone(), config)?),
    })
}

/// Which kernels a twin check runs: the seed's re-reading ones, and the sub-batch size.
#[derive(Clone, Copy, PartialEq)]
struct Variant {
    reread: bool,
    sub: usize,
    vector: bool,
}

const LAYERED: Variant = Variant {
    reread: false,
    sub: BATCH,
    vector: false,
};

/// The GPU self-checks: the GPU decoder against its CPU twin on fresh frames near each
/// code's waterfall (so some frames decode and some do not, and messages saturate).
pub fn checks() -> Vec<Check> {
    vec![
        Check {
            name: "ldpc/minsum8_layered",
            about: "fused layered 8-bit min-sum, 2 batches (one partial) of a random DVB-T2 short code, vs CPU twin",
            run: |gpu, seed| {
                twin_check(gpu, seed, Algorithm::MinSum, false, None, 128 + 21, LAYERED)
            },
        },
        Check {
            name: "ldpc/nms8_layered_normal_early",
            about: "fused layered 8-bit normalised min-sum with early termination on DVB-T2 normal 1/2, vs CPU twin",
            run: |gpu, seed| {
                twin_check(
                    gpu,
                    seed,
                    Algorithm::NormalizedMinSum { alpha: 0.875 },
                    true,
                    Some("dvbt2-normal-1/2"),
                    128,
                    LAYERED,
                )
            },
        },
        Check {
            name: "ldpc/oms8_layered_s2_short_8_9",
            about: "fused layered 8-bit offset min-sum on DVB-S2 short 8/9 (checks of degree 27), vs CPU twin",
            run: |gpu, seed| {
                twin_check(
                    gpu,
                    seed,
                    Algorithm::OffsetMinSum { beta: 0.5 },
                    false,
                    Some("dvbs2-short-8/9"),
                    64,
                    LAYERED,
                )
            },
        },
        Check {
            name: "ldpc/sim_all_gpus",
            about: "simulation point spread over every GPU of the host (two workers per GPU), counts vs one CPU twin",
            run: |_, seed| all_gpus_check(seed),
        },
        Check {
            name: "ldpc/minsum8_flooding",
            about:
                "8-bit min-sum, 2 batches (one partial) of a random DVB-T2 short code, vs CPU twin",
            run: |gpu, seed| {
                twin_check(
                    gpu,
                    seed,
                    Algorithm::MinSum,
                    false,
                    None,
                    128 + 37,
                    Variant {
                        reread: false,
                        sub: 128,
                        vector: true,
                    },
                )
            },
        },
        Check {
            name: "ldpc/nms8_early_termination",
            about:
                "8-bit normalised min-sum with early termination (per-codeword freeze), vs CPU twin",
            run: |gpu, seed| {
                twin_check(
                    gpu,
                    seed,
                    Algorithm::NormalizedMinSum { alpha: 0.75 },
                    true,
                    None,
                    128,
                    Variant {
                        reread: false,
                        sub: 64,
                        vector: true,
                    },
                )
            },
        },
        Check {
            name: "ldpc/minsum8_sub_batch32",
            about:
                "8-bit min-sum in sub-batches of 32 codewords, 2 batches (one partial), vs CPU twin",
            run: |gpu, seed| {
                twin_check(
                    gpu,
                    seed,
                    Algorithm::MinSum,
                    false,
                    None,
                    128 + 45,
                    Variant {
                        reread: false,
                        sub: 32,
                        vector: true,
                    },
                )
            },
        },
        Check {
            name: "ldpc/minsum8_reread",
            about: "8-bit min-sum with the seed's re-reading kernels (any degree), vs CPU twin",
            run: |gpu, seed| {
                twin_check(
                    gpu,
                    seed,
                    Algorithm::MinSum,
                    true,
                    None,
                    128,
                    Variant {
                        reread: true,
                        sub: 128,
                        vector: false,
                    },
                )
            },
        },
        Check {
            name: "ldpc/oms8_normal_1_2",
            about: "8-bit offset min-sum on DVB-T2 normal 1/2, vs CPU twin",
            run: |gpu, seed| {
                twin_check(
                    gpu,
                    seed,
                    Algorithm::OffsetMinSum { beta: 0.5 },
                    false,
                    Some("dvbt2-normal-1/2"),
                    128,
                    Variant {
                        reread: false,
                        sub: 128,
                        vector: false,
                    },
                )
            },
        },
    ]
}

/// `sim::run_point_parallel` over every GPU of the host, two decoders (worker threads) per
/// GPU so that workers race even on a one-GPU host, against `run_point` with the CPU twin on
/// the same frames: frames, frame errors and bit errors must be equal. The GPU handed in is
/// not used: the check opens every device itself, as `--device all` does.
fn all_gpus_check(seed: u64) -> sigpu_runtime::cuda::Result<CheckReport> {
    let invalid = |e: LdpcError| sigpu_runtime::cuda::Error::Invalid(e.to_string());
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let code = Code::standard("dvbt2-short-1/2").map_err(invalid)?;
    let link = Link {
        modulation: Modulation::Qpsk,
        demapper: Demapper::Exact,
        interleaving: Interleaving::None,
        seed: rng.random(),
    };
    // From FER ≈ 0.3 (stops on errors after a few batches) to ≈ 0.01 (runs to max_frames).
    let eb_n0 = rng.random_range(1.6..1.8);
    let config = DecoderConfig {
        algorithm: Algorithm::MinSum,
        schedule: Schedule::Flooding,
        precision: Precision::Fixed8 { scale: 4.0 },
        iterations: 20,
        early_termination: true,
        threads: 0,
    };
    let stop = StopRule {
        min_errors: 50,
        max_frames: 20 * 64,
        batch: 64,
    };
    let threads = sigpu_runtime::host::threads();
    let gpus = Gpu::open_all()?;
    let mut decoders = Vec::new();
    for gpu in gpus.iter().chain(&gpus) {
        decoders.push(GpuDecoder::new(gpu, code.clone(), config).map_err(invalid)?);
    }
    let mut workers: Vec<&mut dyn Decoder> =
        decoders.iter_mut().map(|d| d as &mut dyn Decoder).collect();
    let snr = Snr::EbN0(eb_n0);
    let got = run_point_parallel(&mut workers, &link, snr, stop, threads, &mut |_| {})
        .map_err(invalid)?;
    let mut cpu = Fixed8Decoder::new(code, config).map_err(invalid)?;
    let want = run_point(&mut cpu, &link, snr, stop, threads, &mut |_| {}).map_err(invalid)?;
    let counts = |p: &crate::sim::PointResult| [p.frames, p.frame_errors, p.bit_errors];
    Ok(compare_exact(&counts(&got), &counts(&want)).with_note(format!(
        "{} GPU(s), {} workers, Eb/N0 {eb_n0:.2} dB: {} frames, {} frame errors, {} bit errors (CPU {} / {} / {})",
        gpus.len(),
        workers.len(),
        got.frames,
        got.frame_errors,
        got.bit_errors,
        want.frames,
        want.frame_errors,
        want.bit_errors
    )))
}

fn twin_check(
    gpu: &Gpu,
    seed: u64,
    algorithm: Algorithm,
    early_termination: bool,
    code: Option<&str>,
    count: usize,
    variant: Variant,
) -> sigpu_runtime::cuda::Result<CheckReport> {
    let layered = variant == LAYERED;
    let Variant {
        reread,
        sub,
        vector,
    } = variant;
    let invalid = |e: LdpcError| sigpu_runtime::cuda::Error::Invalid(e.to_string());
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let name = code.map_or_else(
        || {
            let short: Vec<_> = Code::standard_names()
                .into_iter()
                .filter(|n| n.starts_with("dvbt2-short"))
                .collect();
            short[rng.random_range(0..short.len())].to_owned()
        },
        str::to_owned,
    );
    let code = Code::standard(&name).map_err(invalid)?;
    let link = Link {
        modulation: Modulation::Qpsk,
        demapper: Demapper::MaxLog,
        interleaving: Interleaving::None,
        seed: rng.random(),
    };
    // Eb/N0 between 0.5 and 2.5 dB: below, in and above the waterfalls of these codes.
    let eb_n0 = rng.random_range(0.5..2.5);
    let es = Snr::EbN0(eb_n0).es_n0_db(Modulation::Qpsk, code.rate());
    let frames =
        make_frames(&code, &link, es, 0, count, sigpu_runtime::host::threads()).map_err(invalid)?;
    let config = DecoderConfig {
        algorithm,
        schedule: if layered {
            Schedule::Layered
        } else {
            Schedule::Flooding
        },
        precision: Precision::Fixed8 {
            scale: rng.random_range(2.0..6.0),
        },
        iterations: rng.random_range(5..30),
        early_termination,
        threads: 0,
    };
    let mut cpu = Fixed8Decoder::new(code.clone(), config).map_err(invalid)?;
    let mut want = vec![0u8; frames.llr.len()];
    let cpu_stats = cpu
        .decode(Llrs::F32(&frames.llr), &mut want)
        .map_err(invalid)?;
    let options = GpuOptions {
        sub_batch: sub,
        vector,
    };
    let mut gpu_decoder: Box<dyn Decoder> = if layered {
        Box::new(LayeredGpuDecoder::new(gpu, code, config).map_err(invalid)?)
    } else if reread {
        Box::new(
            GpuDecoder::with_options(gpu, code, config, options)
                .and_then(GpuDecoder::rereading)
                .map_err(invalid)?,
        )
    } else {
        Box::new(GpuDecoder::with_options(gpu, code, config, options).map_err(invalid)?)
    };
    let mut got = vec![0xFFu8; frames.llr.len()];
    let gpu_stats = gpu_decoder
        .decode(Llrs::F32(&frames.llr), &mut got)
        .map_err(invalid)?;
    Ok(compare_exact(&got, &want).with_note(format!(
        "{name}, sub-batch {sub}{}, Eb/N0 {eb_n0:.2} dB, {} iterations, {} of {count} valid (cpu {}), iterations run gpu {} cpu {}",
        if layered { ", fused layered kernel" } else if reread { ", seed's re-reading kernels" } else if vector { ", 16-byte kernels" } else { ", 4-byte kernels" },
        config.iterations, gpu_stats.valid, cpu_stats.valid, gpu_stats.iterations, cpu_stats.iterations
    )))
}
