//! What both GPU decoders do around their kernels: the batch size, pinned host buffers, filling
//! a batch's input, and timing a batch as the seed did.

use crate::channel::Quantizer;
use crate::code::Code;
use crate::decoder::{codewords_of, count_valid, DecodeStats, DecoderConfig, Llrs};
use crate::error::{LdpcError, Result};
use sigpu_runtime::cuda::cudarc::driver::{DeviceRepr, PinnedHostSlice};
use sigpu_runtime::cuda::{time_gpu, DriverContext, Gpu, Timing};

/// Codewords per GPU batch: 32 threads × 4 codewords, one 128-byte line per edge.
pub const BATCH: usize = 128;

/// Pinned host memory for `len` values, which the caller writes (or a device copy fills)
/// before reading.
pub(super) fn alloc_pinned<T: DeviceRepr>(gpu: &Gpu, len: usize) -> Result<PinnedHostSlice<T>> {
    // SAFETY: the decoders write every pinned buffer (from the host, or by a device copy)
    // before they read it.
    Ok(
        unsafe { gpu.context().alloc_pinned_with_flags::<T>(len, 0) }
            .context("allocating pinned host memory")?,
    )
}

/// Copies (quantising if needed) codewords `first .. first + count` of `llr`, `n` LLRs each,
/// into the front of `host`; with `clear`, the rest of `host` becomes 0 first.
fn fill_input(
    host: &mut PinnedHostSlice<i8>,
    q: Quantizer,
    llr: Llrs<'_>,
    n: usize,
    (first, count): (usize, usize),
    clear: bool,
) -> Result<()> {
    let host = host.as_mut_slice().context("pinned input")?;
    if clear {
        host.fill(0);
    }
    let dst = &mut host[..count * n];
    let range = first * n..(first + count) * n;
    match llr {
        Llrs::F32(v) => q.quantize_all(&v[range], dst),
        Llrs::I8 { values, scale } if scale == q.scale => {
            for (d, &s) in dst.iter_mut().zip(&values[range]) {
                *d = s.max(-127);
            }
        }
        Llrs::I8 { values, scale } => {
            for (d, &s) in dst.iter_mut().zip(&values[range]) {
                *d = q.quantize(s as f32 / scale);
            }
        }
    }
    Ok(())
}

/// A GPU decoder as [`time_batch`] drives it.
pub(super) trait BatchQueue<'g> {
    fn gpu(&self) -> &'g Gpu;
    fn config(&self) -> &DecoderConfig;
    /// Code length N.
    fn n(&self) -> usize;
    fn quantizer(&self) -> Quantizer;
    /// Whether [`BatchQueue::fill`] zeroes the rest of the pinned input (codewords past the
    /// last ones filled then decode as all-zero words).
    const CLEAR_INPUT: bool;
    /// The pinned input buffer: N LLRs per codeword.
    fn host_input(&mut self) -> &mut PinnedHostSlice<i8>;
    /// Fills the pinned input with codewords `first .. first + count` of `llr`.
    fn fill(&mut self, llr: Llrs<'_>, first: usize, count: usize) -> Result<()> {
        let (q, n) = (self.quantizer(), self.n());
        fill_input(
            self.host_input(),
            q,
            llr,
            n,
            (first, count),
            Self::CLEAR_INPUT,
        )
    }
    /// Queues a whole batch: the upload (with `transfers`), the kernels, the download.
    fn enqueue_full(&mut self, transfers: bool) -> Result<()>;
    /// Decodes the `out.len() / N` codewords in the pinned input into `out`; returns the
    /// iterations run.
    fn run_batch(&mut self, out: &mut [u8]) -> Result<usize>;
}

/// [`Decoder::decode`](crate::Decoder::decode) of a GPU decoder: batch after batch through
/// the pinned buffers.
pub(super) fn decode_batches<'g>(
    decoder: &mut impl BatchQueue<'g>,
    code: &Code,
    llr: Llrs<'_>,
    bits: &mut [u8],
) -> Result<DecodeStats> {
    let count = codewords_of(code, &llr, bits)?;
    // The decoder may run on another thread than the one that made it (one worker thread
    // per GPU in `sim::run_point_parallel`), and pinned-buffer waits use the context.
    decoder
        .gpu()
        .context()
        .bind_to_thread()
        .context("making the decoder's CUDA context current")?;
    let n = code.n();
    let mut iterations = 0;
    for (b, out) in bits.chunks_mut(BATCH * n).enumerate() {
        decoder.fill(llr, b * BATCH, out.len() / n)?;
        iterations += decoder.run_batch(out)?;
    }
    Ok(DecodeStats {
        codewords: count,
        valid: count_valid(code, bits),
        iterations,
        batches: count.div_ceil(BATCH),
    })
}

/// Batch latency as the seed timed it: LLR upload (a batch of 8-bit LLRs from pinned memory),
/// the kernels, hard-decision download. `llr` holds [`BATCH`] codewords; early termination
/// must be off (nothing may wait). With `transfers` false only the device work is timed, the
/// LLRs staying on the device from a first upload.
pub(super) fn time_batch<'g>(
    decoder: &mut impl BatchQueue<'g>,
    llr: &[i8],
    transfers: bool,
    (warmup, runs): (usize, usize),
) -> Result<Timing> {
    if decoder.config().early_termination {
        return Err(LdpcError::invalid("timing runs without early termination"));
    }
    let n = decoder.n();
    if llr.len() != BATCH * n {
        return Err(LdpcError::invalid(format!(
            "time_batch needs {} LLRs, got {}",
            BATCH * n,
            llr.len()
        )));
    }
    let scale = decoder.quantizer().scale;
    decoder.fill(Llrs::I8 { values: llr, scale }, 0, BATCH)?;
    decoder.enqueue_full(true)?;
    let gpu = decoder.gpu();
    Ok(time_gpu(gpu, warmup, runs, || {
        decoder.enqueue_full(transfers).map_err(|e| match e {
            LdpcError::Gpu(g) => g,
            other => sigpu_runtime::cuda::Error::Invalid(other.to_string()),
        })
    })?)
}
