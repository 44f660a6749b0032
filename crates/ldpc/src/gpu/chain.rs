//! The simulation's frame chain on the GPU ([`GpuFrameChain`], `kernels/ldpc_chain.cu`) and
//! the decoder that simulates with it ([`ChainDecoder`]): frames are generated, encoded,
//! modulated, noised and demapped on the device, decoded there by the flooding
//! [`GpuDecoder`] ([`GpuDecoder::decode_device`]) and their information-bit errors counted
//! there, so only one count per frame crosses PCIe.
//!
//! Every LLR equals the CPU twin's ([`crate::sim::FramePlan`]) bit for bit, so a point's
//! counts are the same on `--device cpu`, `cuda` and `all` and over MPI ranks.

use super::batch::BATCH;
use super::flooding::GpuDecoder;
use crate::channel::Demapper;
use crate::code::Code;
use crate::decoder::{DecodeStats, Decoder, DecoderConfig, Llrs};
use crate::error::{LdpcError, Result};
use crate::interleave::Interleaving;
use crate::sim::{FrameCounts, FramePlan};
use sigpu_runtime::cuda::cudarc::driver::LaunchConfig;
use sigpu_runtime::cuda::{
    DeviceBuffer, DeviceSlice, DeviceSliceMut, DriverContext, Gpu, Kernel, KernelSource,
};
use sigpu_runtime::GpuTarget;

/// Words of 32 bits the encoding kernel holds per frame for each of K and M.
const CHAIN_WORDS: usize = 2048;
/// The simulation batch of a [`ChainDecoder`] unless a sweep sets its own: 8 decoder batches,
/// so the chain's launches and the per-batch copy of the counts weigh little beside decoding
/// (`sim::sweep` takes it for GPUs with frames made there).
pub const CHAIN_BATCH: usize = 8 * BATCH;

/// Frames per [`GpuFrameChain::make`]: the LLR kernel's grid has one row per frame.
const MAX_FRAMES: usize = 65_535;
/// Threads per block of the kernels.
const THREADS: u32 = 256;

/// The frame chain's CUDA source (`kernels/ldpc_chain.cu` with its headers).
pub fn chain_source() -> KernelSource {
    KernelSource::embedded("ldpc_chain.cu", include_str!("../../kernels/ldpc_chain.cu"))
        .with_header(
            "ldpc_portable_math.cuh",
            include_str!("../../kernels/ldpc_portable_math.cuh"),
        )
}

/// The device tables of one link (the interleaver's permutation and the levels) and the
/// constants of one point.
struct LinkTables {
    key: (crate::channel::Modulation, Interleaving),
    perm: DeviceBuffer<u32>,
    levels: DeviceBuffer<f64>,
}

/// Frames of a code made on the GPU; see the module documentation.
pub struct GpuFrameChain {
    gpu: Gpu,
    code: Code,
    /// The three kernels, loaded once: bits and encoder, LLRs, error counts.
    encode: Kernel,
    make_llr: Kernel,
    count_errors: Kernel,
    row_start: DeviceBuffer<u32>,
    info_end: DeviceBuffer<u32>,
    edge_col: DeviceBuffer<u32>,
    link: Option<LinkTables>,
    /// Frames the buffers hold.
    capacity: usize,
    info: DeviceBuffer<u32>,
    parity: DeviceBuffer<u32>,
    llr: DeviceBuffer<f32>,
    hard: DeviceBuffer<u8>,
    errors: DeviceBuffer<u32>,
}

impl GpuFrameChain {
    /// The chain of `code`: it must have the staircase encoder and fit the kernel (K and M up
    /// to 65,536 bits).
    pub fn new(gpu: &Gpu, code: &Code) -> Result<GpuFrameChain> {
        crate::encode::Encoder::new(code)?;
        let (k, m) = (code.k(), code.m());
        if !Self::fits(code) {
            return Err(LdpcError::invalid(format!(
                "the GPU frame chain holds codes with K and N − K up to {} bits; {} has {k} and \
                 {m}: simulate it with frames made on the host",
                32 * CHAIN_WORDS,
                code.name()
            )));
        }
        let info_end: Vec<u32> = (0..m)
            .map(|r| {
                let start = code.row_start()[r];
                start + code.row(r).partition_point(|&c| c < k as u32) as u32
            })
            .collect();
        let source = chain_source();
        Ok(GpuFrameChain {
            gpu: gpu.clone(),
            code: code.clone(),
            encode: gpu.kernel(&source, "ldpc_chain_encode")?,
            make_llr: gpu.kernel(&source, "ldpc_chain_llr")?,
            count_errors: gpu.kernel(&source, "ldpc_chain_count_errors")?,
            row_start: gpu.upload(code.row_start())?,
            info_end: gpu.upload(&info_end)?,
            edge_col: gpu.upload(code.edge_col())?,
            link: None,
            capacity: 0,
            info: gpu.alloc_poisoned(1)?,
            parity: gpu.alloc_poisoned(1)?,
            llr: gpu.alloc_poisoned(1)?,
            hard: gpu.alloc_poisoned(1)?,
            errors: gpu.alloc_poisoned(1)?,
        })
    }

    /// Whether `code` has the staircase encoder and fits the kernel (K and M up to 65,536 bits).
    pub fn holds(code: &Code) -> bool {
        crate::encode::Encoder::new(code).is_ok() && Self::fits(code)
    }

    fn fits(code: &Code) -> bool {
        code.k().div_ceil(32) <= CHAIN_WORDS && code.m().div_ceil(32) <= CHAIN_WORDS
    }

    /// Uploads `plan`'s link tables when they changed and grows the buffers to `count` frames.
    fn prepare(&mut self, plan: &FramePlan<'_>, count: usize) -> Result<()> {
        let code = plan.code;
        if (code.name(), code.n(), code.m(), code.edges())
            != (
                self.code.name(),
                self.code.n(),
                self.code.m(),
                self.code.edges(),
            )
        {
            return Err(LdpcError::invalid(format!(
                "a frame chain of {} asked for frames of {}",
                self.code.name(),
                code.name()
            )));
        }
        let key = (plan.link.modulation, plan.link.interleaving);
        if self.link.as_ref().map(|l| l.key) != Some(key) {
            self.link = Some(LinkTables {
                key,
                perm: self.gpu.upload(plan.interleaver.perm())?,
                levels: self.gpu.upload(&plan.levels)?,
            });
        }
        if count > self.capacity {
            let (n, k, m) = (code.n(), code.k(), code.m());
            self.info = self.gpu.alloc_poisoned(count * k.div_ceil(32))?;
            self.parity = self.gpu.alloc_poisoned(count * m.div_ceil(32))?;
            self.llr = self.gpu.alloc_poisoned(count * n)?;
            self.hard = self.gpu.alloc_poisoned(count * n)?;
            self.errors = self.gpu.alloc_poisoned(count)?;
            self.capacity = count;
        }
        Ok(())
    }

    /// Makes frames `first .. first + count` of `plan` on the device (their LLRs and
    /// information words stay there).
    pub fn make(&mut self, plan: &FramePlan<'_>, first: u64, count: usize) -> Result<()> {
        if count > MAX_FRAMES {
            return Err(LdpcError::invalid(format!(
                "the GPU frame chain makes at most {MAX_FRAMES} frames at once, not {count}"
            )));
        }
        self.prepare(plan, count.max(1))?;
        if count == 0 {
            return Ok(());
        }
        let gpu = &self.gpu.clone();
        let m = plan.link.modulation;
        let (n, k, mm) = (
            self.code.n() as i32,
            self.code.k() as i32,
            self.code.m() as i32,
        );
        let (per_axis, axes) = (m.bits_per_axis() as i32, plan.axes() as i32);
        let exact = (plan.link.demapper == Demapper::Exact) as i32;
        let (seed, es_bits, count32) = (plan.link.seed, plan.es_n0_db.to_bits(), count as i32);
        gpu.launch(&self.encode)
            .buf(&self.row_start)
            .buf(&self.info_end)
            .buf(&self.edge_col)
            .arg(&k)
            .arg(&mm)
            .arg(&seed)
            .arg(&es_bits)
            .arg(&first)
            .arg(&count32)
            .buf_mut(&mut self.info)
            .buf_mut(&mut self.parity)
            .run(LaunchConfig {
                grid_dim: (count as u32, 1, 1),
                block_dim: (THREADS, 1, 1),
                shared_mem_bytes: 0,
            })?;
        let link = self.link.as_ref().expect("prepared");
        let symbols = self.code.n().div_ceil(m.bits_per_symbol());
        // x: the symbols of a frame (up to 32,400: 127 blocks); y: the frames.
        let blocks_x = symbols.div_ceil(THREADS as usize) as u32;
        gpu.launch(&self.make_llr)
            .buf(&self.info)
            .buf(&self.parity)
            .buf(&link.perm)
            .buf(&link.levels)
            .arg(&n)
            .arg(&k)
            .arg(&mm)
            .arg(&per_axis)
            .arg(&axes)
            .arg(&exact)
            .arg(&plan.sigma)
            .arg(&plan.metric_scale)
            .arg(&seed)
            .arg(&es_bits)
            .arg(&first)
            .buf_mut(&mut self.llr)
            .run(LaunchConfig {
                grid_dim: (blocks_x, count as u32, 1),
                block_dim: (THREADS, 1, 1),
                shared_mem_bytes: 0,
            })?;
        Ok(())
    }

    /// The LLRs of the last `count` frames made (count × N, codeword order).
    pub fn llr(&self, count: usize) -> Result<Vec<f32>> {
        let mut all = self.gpu.download(&self.llr)?;
        all.truncate(count * self.code.n());
        Ok(all)
    }

    /// The information bits of the last `count` frames made (count × K, 0/1 per byte).
    pub fn info_bits(&self, count: usize) -> Result<Vec<u8>> {
        let words = self.gpu.download(&self.info)?;
        let (k, kw) = (self.code.k(), self.code.k().div_ceil(32));
        Ok((0..count)
            .flat_map(|f| (0..k).map(move |i| (f, i)))
            .map(|(f, i)| ((words[f * kw + i / 32] >> (i % 32)) & 1) as u8)
            .collect())
    }

    /// Decodes the last `count` frames made with `decoder` on the device and counts their
    /// information-bit errors there.
    pub fn decode_and_count(
        &mut self,
        decoder: &mut GpuDecoder,
        count: usize,
    ) -> Result<FrameCounts> {
        if count > self.capacity {
            return Err(LdpcError::invalid("decode_and_count before make"));
        }
        let gpu = &self.gpu.clone();
        let n = self.code.n();
        let stream = gpu.stream().clone();
        let own = GpuTarget::new(gpu.clone());
        let llr = DeviceSlice::of(&self.llr);
        let mut hard = DeviceSliceMut::of(&mut self.hard);
        let rows = 0..count * n;
        let (Some(src), Some(dst)) = (llr.slice(rows.clone()), hard.slice_mut(rows)) else {
            return Err(LdpcError::invalid(
                "the frame chain's buffers hold fewer frames",
            ));
        };
        let iterations = decoder.decode_resident(&own, src, dst)?.iterations;
        let (n32, k32, count32) = (n as i32, self.code.k() as i32, count as i32);
        gpu.launch(&self.count_errors)
            .buf(&self.hard)
            .buf(&self.info)
            .arg(&n32)
            .arg(&k32)
            .arg(&count32)
            .buf_mut(&mut self.errors)
            .run(LaunchConfig {
                grid_dim: (count as u32, 1, 1),
                block_dim: (THREADS, 1, 1),
                shared_mem_bytes: 0,
            })?;
        let mut errors = vec![0u32; count];
        stream
            .memcpy_dtoh(&self.errors.slice(..count), &mut errors)
            .context("copying the error counts")?;
        stream.synchronize().context("waiting for the counts")?;
        Ok(FrameCounts::of_errors(
            errors.into_iter().map(u64::from),
            iterations,
        ))
    }
}

/// The GPU decoder a simulation runs on `gpu`: with `device_frames`, the flooding schedule
/// and a code the chain holds ([`GpuFrameChain::holds`]), a [`ChainDecoder`] (frames made on
/// the GPU); else [`super::decoder`] (frames made on the host, the same frames). Both count
/// alike.
pub fn simulation_decoder(
    gpu: &Gpu,
    code: &Code,
    config: DecoderConfig,
    device_frames: bool,
) -> Result<Box<dyn Decoder>> {
    if device_frames
        && config.schedule == crate::decoder::Schedule::Flooding
        && GpuFrameChain::holds(code)
    {
        return Ok(Box::new(ChainDecoder::new(gpu, code, config)?));
    }
    super::decoder(gpu, code, config)
}

/// The flooding GPU decoder with the GPU frame chain: decodes like [`GpuDecoder`], and
/// simulates ([`Decoder::simulate_frames`]) with frames made on the device.
pub struct ChainDecoder {
    decoder: GpuDecoder,
    chain: GpuFrameChain,
}

impl ChainDecoder {
    /// The flooding decoder and the frame chain of `code` on `gpu`.
    pub fn new(gpu: &Gpu, code: &Code, config: DecoderConfig) -> Result<ChainDecoder> {
        Ok(ChainDecoder {
            decoder: GpuDecoder::new(gpu, code.clone(), config)?,
            chain: GpuFrameChain::new(gpu, code)?,
        })
    }

    /// Frames `first .. first + count` made, decoded and counted on the GPU, at most
    /// [`CHAIN_BATCH`] · 2 at a time (the buffers hold that many).
    fn simulate(&mut self, plan: &FramePlan<'_>, first: u64, count: usize) -> Result<FrameCounts> {
        let mut total = FrameCounts::default();
        for at in (0..count).step_by(2 * CHAIN_BATCH) {
            let c = (count - at).min(2 * CHAIN_BATCH);
            self.chain.make(plan, first + at as u64, c)?;
            total += self.chain.decode_and_count(&mut self.decoder, c)?;
        }
        Ok(total)
    }
}

impl Decoder for ChainDecoder {
    fn describe(&self) -> String {
        self.decoder.describe()
    }
    fn code(&self) -> &Code {
        self.decoder.code()
    }
    fn decode(&mut self, llr: Llrs<'_>, bits: &mut [u8]) -> Result<DecodeStats> {
        self.decoder.decode(llr, bits)
    }
    fn simulate_frames(
        &mut self,
        plan: &FramePlan<'_>,
        first: u64,
        count: usize,
    ) -> Option<Result<FrameCounts>> {
        Some(self.simulate(plan, first, count))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sigpu_runtime::cuda::{compile, nvrtc_for_test, KernelCache};

    #[test]
    fn chain_kernels_compile_for_sm_90() {
        if !nvrtc_for_test("chain_kernels_compile_for_sm_90") {
            return;
        }
        let compiled = compile(&chain_source(), "sm_90", &KernelCache::disabled()).unwrap();
        let names = compiled.kernel_names();
        for k in [
            "ldpc_chain_encode",
            "ldpc_chain_llr",
            "ldpc_chain_count_errors",
        ] {
            assert!(names.iter().any(|n| n == k), "{k} missing from {names:?}");
        }
    }
}
