//! The GPU LDPC decoder paper's 8-bit flooding min-sum on a CUDA GPU: 128 codewords per batch in the coalesced
//! layout, a CN kernel, a VN kernel and a VN kernel with hard decision
//! (`kernels/ldpc_minsum8.cu`). A batch can run as sub-batches of 64 or 32 codewords, one
//! after the other, so that a sub-batch's messages stay in L2 across its iterations. Its CPU
//! twin is [`Fixed8Decoder`] with the same configuration, which it matches bit for bit; the
//! checks (`sigpu check`) compare them.

#[path = "device_io.rs"]
mod device_io;

use super::batch::{alloc_pinned, batch_decoder, BatchQueue, Setup, BATCH};
use crate::code::Code;
use crate::decoder::{DecoderConfig, Schedule};
use crate::error::{LdpcError, Result};
use sigpu_runtime::cuda::cudarc::driver::{LaunchConfig, PinnedHostSlice};
use sigpu_runtime::cuda::{grid_1d, DeviceBuffer, DriverContext, Gpu, Kernel, KernelSource};

/// How the GPU decoder runs a batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GpuOptions {
    /// Codewords decoded together: 128, or 64 / 32 to run a batch as sub-batches in turn.
    pub sub_batch: usize,
    /// CN / VN kernels with one 16-byte access per lane (16 codewords) instead of one 4-byte
    /// word (4 codewords, the GPU LDPC decoder paper's form).
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
    let text = include_str!("../../kernels/ldpc_minsum8.cu");
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
    transpose: Kernel,
    init: Kernel,
    cn: Kernel,
    vn: Kernel,
    vn_hd: Kernel,
    syndrome: Kernel,
    mark_done: Kernel,
}

impl Kernels {
    /// The kernels for `order`'s degrees: the register-cached variant for the code's largest
    /// degrees, else the GPU LDPC decoder paper's re-read.
    fn load(gpu: &Gpu, sub: usize, order: &Code, vector: bool) -> Result<Kernels> {
        let (cn, vn) = if vector {
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
        let src = kernel_source(sub);
        let k = |name: &str| gpu.kernel(&src, name);
        Ok(Kernels {
            lanes: if vector { sub / 16 } else { sub / 4 },
            transpose: k("ldpc_transpose_llr")?,
            init: k("ldpc_init")?,
            cn: k(&cn)?,
            vn: k(&format!("ldpc_vn{vn}"))?,
            vn_hd: k(&format!("ldpc_vn_hd{vn}"))?,
            syndrome: k("ldpc_syndrome")?,
            mark_done: k("ldpc_mark_done")?,
        })
    }
}

/// The code in decoding order on the device, and the decoder's working buffers.
struct Buffers {
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

impl Buffers {
    /// W = sub / 4 words per bit or edge; the hard decisions of all `BATCH / sub` parts.
    fn new(gpu: &Gpu, order: &Code, sub: usize) -> Result<Buffers> {
        let (n, edges) = (order.n(), order.edges());
        Ok(Buffers {
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
            host_input: alloc_pinned(gpu, BATCH * n)?,
            host_hard: alloc_pinned(gpu, n * 4 * (BATCH / sub))?,
        })
    }
}

/// 8-bit flooding min-sum on one GPU; see the module documentation.
pub struct GpuDecoder {
    setup: Setup,
    /// `code` in decoding order, as the CPU twin uses it (flooding results do not depend on
    /// it; the memory access pattern does).
    order: Code,
    /// Codewords decoded together (128, 64 or 32); a batch is `BATCH / sub` of them in turn.
    sub: usize,
    k: Kernels,
    b: Buffers,
}

impl GpuDecoder {
    /// The flooding decoder of `config` for `code` on `gpu`, with the default kernels.
    pub fn new(gpu: &Gpu, code: Code, config: DecoderConfig) -> Result<GpuDecoder> {
        GpuDecoder::with_options(gpu, code, config, GpuOptions::default())
    }

    /// A decoder with chosen kernels and sub-batch (see [`GpuOptions`]); the results are the
    /// same whatever the options.
    pub fn with_options(
        gpu: &Gpu,
        code: Code,
        config: DecoderConfig,
        options: GpuOptions,
    ) -> Result<GpuDecoder> {
        let sub = options.sub_batch;
        if ![32, 64, 128].contains(&sub) {
            return Err(LdpcError::invalid(format!(
                "sub-batch {sub}: expected 128, 64 or 32 codewords"
            )));
        }
        let setup = Setup::new(gpu, code, config, Schedule::Flooding, "GpuDecoder runs the flooding schedule of the GPU LDPC decoder paper; the layered schedule is LayeredGpuDecoder (gpu::decoder picks by schedule)")?;
        let order = setup.code.decoding_order();
        Ok(GpuDecoder {
            k: Kernels::load(gpu, sub, &order, options.vector)?,
            b: Buffers::new(gpu, &order, sub)?,
            setup,
            order,
            sub,
        })
    }

    /// Uses the GPU LDPC decoder paper's kernels that read each message twice instead of keeping a row's or
    /// column's messages in registers (the fallback for degrees above 32 / 16).
    pub fn rereading(mut self) -> Result<Self> {
        let src = kernel_source(self.sub);
        self.k.lanes = self.sub / 4;
        self.k.cn = self.setup.gpu.kernel(&src, "ldpc_cn")?;
        self.k.vn = self.setup.gpu.kernel(&src, "ldpc_vn")?;
        self.k.vn_hd = self.setup.gpu.kernel(&src, "ldpc_vn_hd")?;
        Ok(self)
    }

    /// Queues `parts` sub-batches of the batch in the pinned input: upload, the kernels, the
    /// hard-decision download (the transfers only with `transfers`). Without early termination
    /// nothing waits for the GPU; with it, each iteration reads back which codewords are done.
    /// Returns the iterations run.
    fn enqueue(&mut self, transfers: bool, parts: usize) -> Result<usize> {
        let stream = self.setup.gpu.stream().clone();
        if transfers {
            stream
                .memcpy_htod(&self.b.host_input, &mut self.b.input)
                .context("uploading LLRs")?;
        }
        let mut iterations = 0;
        for part in 0..parts {
            iterations = iterations.max(self.enqueue_sub_batch(part)?);
        }
        if transfers {
            stream
                .memcpy_dtoh(&self.b.hard, &mut self.b.host_hard)
                .context("downloading hard decisions")?;
        }
        Ok(iterations)
    }

    /// Queues the kernels of sub-batch `part` (codewords `part·sub ..`), whose LLRs are in
    /// `input`; its hard decisions go to part `part` of `hard`. With early termination this
    /// waits for the GPU after every iteration. Returns the iterations run.
    fn enqueue_sub_batch(&mut self, part: usize) -> Result<usize> {
        let early = self.setup.config.early_termination;
        if early {
            let stream = self.setup.gpu.stream();
            stream
                .memcpy_htod(&[0u32; 4], &mut self.b.done)
                .context("clearing flags")?;
            stream
                .memcpy_htod(&[0u32; 4], &mut self.b.failed)
                .context("clearing flags")?;
        }
        self.launch_start(part)?;
        let iterations = self.setup.config.iterations;
        for it in 1..=iterations {
            self.launch_iteration(part, early || it == iterations)?;
            if early && it < iterations && self.all_done(part)? {
                return Ok(it);
            }
        }
        Ok(iterations)
    }

    /// Transposes part `part` of the input into the coalesced layout and initialises the
    /// messages with it.
    fn launch_start(&mut self, part: usize) -> Result<()> {
        let n = self.order.n() as u32;
        let edges = self.order.edges() as u32;
        let words = self.sub / 4;
        let tile = LaunchConfig {
            grid_dim: (n.div_ceil(32), 1, 1),
            block_dim: (32, 8, 1),
            shared_mem_bytes: 0,
        };
        let b = &mut self.b;
        let input = b.input.slice(part * self.sub * n as usize..);
        self.setup
            .gpu
            .launch(&self.k.transpose)
            .view(&input)
            .buf_mut(&mut b.llr)
            .arg(&n)
            .run(tile)?;
        self.setup
            .gpu
            .launch(&self.k.init)
            .buf(&b.llr)
            .buf(&b.edge_col)
            .buf_mut(&mut b.msg)
            .arg(&edges)
            .run(grid_1d(edges as usize * words, 256))?;
        Ok(())
    }

    /// One iteration: the CN kernel, then the VN kernel, with hard decisions (into part
    /// `part` of `hard`) when `hard_decision`.
    fn launch_iteration(&mut self, part: usize, hard_decision: bool) -> Result<()> {
        let (n, m) = (self.order.n() as u32, self.order.m() as u32);
        let (mode, param) = self.setup.rule.kernel_args()?;
        let (k, b) = (&self.k, &mut self.b);
        self.setup
            .gpu
            .launch(&k.cn)
            .buf_mut(&mut b.msg)
            .buf(&b.row_start)
            .arg(&m)
            .arg(&mode)
            .arg(&param)
            .run(grid_1d(m as usize * k.lanes, 128))?;
        let columns = grid_1d(n as usize * k.lanes, 128);
        let hd_len = n as usize * 4;
        // The hard-decision kernel takes the same arguments plus this part's hard decisions
        // and the done mask.
        let mut hard = hard_decision.then(|| b.hard.slice_mut(part * hd_len..(part + 1) * hd_len));
        let mut launch = self
            .setup
            .gpu
            .launch(if hard.is_some() { &k.vn_hd } else { &k.vn });
        launch
            .buf(&b.llr)
            .buf_mut(&mut b.msg)
            .buf(&b.col_start)
            .buf(&b.col_edges)
            .arg(&n);
        if let Some(hard) = hard.as_mut() {
            launch.view_mut(hard).buf(&b.done);
        }
        launch.run(columns)?;
        Ok(())
    }

    /// Checks part `part`'s hard decisions against every check, marks the codewords that
    /// satisfy them done, and waits to read whether all are.
    fn all_done(&mut self, part: usize) -> Result<bool> {
        let (n, m) = (self.order.n(), self.order.m() as u32);
        let hd_len = n * 4;
        let b = &mut self.b;
        let hard = b.hard.slice(part * hd_len..(part + 1) * hd_len);
        self.setup
            .gpu
            .launch(&self.k.syndrome)
            .view(&hard)
            .buf(&b.row_start)
            .buf(&b.edge_col)
            .arg(&m)
            .buf_mut(&mut b.failed)
            .run(grid_1d(m as usize, 256))?;
        self.setup
            .gpu
            .launch(&self.k.mark_done)
            .buf_mut(&mut b.done)
            .buf_mut(&mut b.failed)
            .run(grid_1d(4, 32))?;
        let stream = self.setup.gpu.stream();
        let mut done = [0u32; 4];
        stream
            .memcpy_dtoh(&b.done, &mut done)
            .context("reading done flags")?;
        stream.synchronize().context("waiting for the syndrome")?;
        Ok(done == [u32::MAX; 4])
    }

    /// Unpacks the batch's hard decisions: codeword c is in part c / sub, where bit t of word
    /// j is its codeword 4t + j.
    fn store(&mut self, out: &mut [u8]) -> Result<()> {
        let n = self.order.n();
        let sub = self.sub;
        let hard = self.b.host_hard.as_slice().context("pinned output")?;
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

impl BatchQueue for GpuDecoder {
    fn setup(&self) -> &Setup {
        &self.setup
    }
    const CLEAR_INPUT: bool = true;
    fn host_input(&mut self) -> &mut PinnedHostSlice<i8> {
        &mut self.b.host_input
    }
    fn enqueue_full(&mut self, transfers: bool) -> Result<()> {
        self.enqueue(transfers, BATCH / self.sub).map(drop)
    }
    fn run_batch(&mut self, out: &mut [u8]) -> Result<usize> {
        // Only the sub-batches that hold some of the codewords run, so a partial batch
        // costs less when sub-batches are smaller than the batch.
        let parts = (out.len() / self.order.n()).div_ceil(self.sub);
        let iterations = self.enqueue(true, parts)?;
        self.setup.gpu.synchronize()?;
        self.store(out)?;
        Ok(iterations)
    }
}

batch_decoder!(GpuDecoder, device: decode_resident);

impl GpuDecoder {
    /// How it runs, for [`Decoder::describe`](crate::Decoder::describe).
    fn how(&self) -> String {
        let sub = if self.sub == BATCH {
            String::new()
        } else {
            format!(" in sub-batches of {}", self.sub)
        };
        // 4 bytes per lane (one word) or 16 (four words): see `GpuOptions::vector`.
        let access = 4 * self.sub / 4 / self.k.lanes;
        format!("{BATCH} codewords per batch{sub}, {access}-byte CN/VN accesses")
    }
}
