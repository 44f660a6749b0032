//! What both GPU decoders do around their kernels: the batch size, pinned host buffers, filling
//! a batch's input, and timing a batch as the GPU LDPC decoder paper did.

use crate::channel::Quantizer;
use crate::code::Code;
use crate::decoder::{
    codewords_of, count_valid, DecodeStats, DecoderConfig, Fixed8Decoder, Llrs, Precision, Rule8,
    Schedule,
};
use crate::error::{LdpcError, Result};
use sigpu_runtime::cuda::cudarc::driver::{DeviceRepr, PinnedHostSlice};
use sigpu_runtime::cuda::{time_gpu, DriverContext, Gpu, Timing};

/// Codewords per GPU batch: 32 threads × 4 codewords, one 128-byte line per edge.
pub const BATCH: usize = 128;

/// The 8-bit scale of a configuration the GPU decoders run, or why they cannot.
fn gpu_scale(config: &DecoderConfig, schedule: Schedule, why: &str) -> Result<f32> {
    config.validate()?;
    let Precision::Fixed8 { scale } = config.precision else {
        return Err(LdpcError::invalid(
            "the GPU decoder is the 8-bit min-sum: use --precision 8bit (float decoders run on the CPU)",
        ));
    };
    if config.schedule != schedule {
        return Err(LdpcError::invalid(why));
    }
    Ok(scale)
}

/// What both GPU decoders hold besides kernels and buffers: the GPU, the configuration and
/// the 8-bit arithmetic it implies.
pub(super) struct Setup {
    pub gpu: Gpu,
    pub code: Code,
    pub config: DecoderConfig,
    pub rule: Rule8,
    pub quantizer: Quantizer,
}

impl Setup {
    /// Checks that `config` is an 8-bit `schedule` configuration for `code` (`why` says which
    /// decoder runs the other schedule) and derives the rule and the quantiser.
    pub fn new(
        gpu: &Gpu,
        code: Code,
        config: DecoderConfig,
        schedule: Schedule,
        why: &str,
    ) -> Result<Setup> {
        let scale = gpu_scale(&config, schedule, why)?;
        // The CPU twin validates the code's degrees and the rule.
        Fixed8Decoder::new(code.clone(), config)?;
        Ok(Setup {
            gpu: gpu.clone(),
            code,
            config,
            rule: Rule8::new(config.algorithm, scale)?.uniform_only("the GPU decoder")?,
            quantizer: Quantizer::new(scale)?,
        })
    }

    /// `Decoder::describe` of a GPU decoder: the configuration, the GPU and `how` it runs.
    pub fn describe(&self, how: &str) -> String {
        format!(
            "{} ({}, {how})",
            self.config.describe(),
            self.gpu.info().name
        )
    }
}

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
pub(super) fn fill_input(
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
pub(super) trait BatchQueue {
    fn setup(&self) -> &Setup;
    /// Code length N.
    fn n(&self) -> usize {
        self.setup().code.n()
    }
    /// Whether [`BatchQueue::fill`] zeroes the rest of the pinned input (codewords past the
    /// last ones filled then decode as all-zero words).
    const CLEAR_INPUT: bool;
    /// The pinned input buffer: N LLRs per codeword.
    fn host_input(&mut self) -> &mut PinnedHostSlice<i8>;
    /// Fills the pinned input with codewords `first .. first + count` of `llr`.
    fn fill(&mut self, llr: Llrs<'_>, first: usize, count: usize) -> Result<()> {
        let (q, n) = (self.setup().quantizer, self.n());
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
pub(super) fn decode_batches(
    decoder: &mut impl BatchQueue,
    llr: Llrs<'_>,
    bits: &mut [u8],
) -> Result<DecodeStats> {
    let code = &decoder.setup().code.clone();
    let count = codewords_of(code, &llr, bits)?;
    // The decoder may run on another thread than the one that made it (one worker thread
    // per GPU in `sim::run_point_parallel`), and pinned-buffer waits use the context.
    decoder
        .setup()
        .gpu
        .context()
        .bind_to_thread()
        .context("making the decoder's CUDA context current")?;
    let n = code.n();
    let mut iterations = 0;
    for (b, out) in bits.chunks_mut(BATCH * n).enumerate() {
        decoder.fill(llr, b * BATCH, out.len() / n)?;
        // Every codeword of the batch ran the batch's iterations.
        iterations += decoder.run_batch(out)? * (out.len() / n);
    }
    Ok(DecodeStats {
        codewords: count,
        valid: count_valid(code, bits),
        iterations,
        batches: count.div_ceil(BATCH),
    })
}

/// Batch latency as the GPU LDPC decoder paper timed it: LLR upload (a batch of 8-bit LLRs from pinned memory),
/// the kernels, hard-decision download. `llr` holds [`BATCH`] codewords; early termination
/// must be off (nothing may wait). With `transfers` false only the device work is timed, the
/// LLRs staying on the device from a first upload.
pub(super) fn time_batch(
    decoder: &mut impl BatchQueue,
    llr: &[i8],
    transfers: bool,
    (warmup, runs): (usize, usize),
) -> Result<Timing> {
    if decoder.setup().config.early_termination {
        return Err(LdpcError::invalid("timing runs without early termination"));
    }
    check_batch_llrs(llr.len(), BATCH, decoder.n())?;
    let scale = decoder.setup().quantizer.scale;
    decoder.fill(Llrs::I8 { values: llr, scale }, 0, BATCH)?;
    decoder.enqueue_full(true)?;
    // A handle of its own: the closure below borrows the decoder mutably.
    let gpu = decoder.setup().gpu.clone();
    time_enqueue(&gpu, (warmup, runs), || decoder.enqueue_full(transfers))
}

/// Refuses a timing batch of `len` LLRs that is not `batch` codewords of `n` bits.
pub(super) fn check_batch_llrs(len: usize, batch: usize, n: usize) -> Result<()> {
    if len != batch * n {
        return Err(LdpcError::invalid(format!(
            "time_batch needs {} LLRs, got {len}",
            batch * n
        )));
    }
    Ok(())
}

/// `enqueue` timed on `gpu` with CUDA events ([`time_gpu`]), after `warmup` untimed runs.
pub(super) fn time_enqueue(
    gpu: &Gpu,
    (warmup, runs): (usize, usize),
    mut enqueue: impl FnMut() -> Result<()>,
) -> Result<Timing> {
    Ok(time_gpu(gpu, warmup, runs, || {
        enqueue().map_err(|e| match e {
            LdpcError::Gpu(g) => g,
            other => sigpu_runtime::cuda::Error::Invalid(other.to_string()),
        })
    })?)
}

/// `impl Decoder` and `time_batch` for a GPU decoder `$ty` with `setup: Setup` and an inherent `how()` (how it
/// runs, for `describe`): both decode batch after batch through [`decode_batches`]. With
/// `device: method`, device-resident LLRs are decoded by that inherent method instead of
/// through the host.
macro_rules! batch_decoder {
    ($ty:ident $(, device: $device:ident)?) => {
        impl crate::decoder::Decoder for $ty {
            fn describe(&self) -> String {
                self.setup.describe(&self.how())
            }
            fn code(&self) -> &crate::code::Code {
                &self.setup.code
            }
            fn decode(
                &mut self,
                llr: crate::decoder::Llrs<'_>,
                bits: &mut [u8],
            ) -> crate::error::Result<crate::decoder::DecodeStats> {
                super::batch::decode_batches(self, llr, bits)
            }
            $(
                fn decode_device(
                    &mut self,
                    caller: &sigpu_runtime::GpuTarget,
                    llr: sigpu_runtime::cuda::DeviceSlice<'_, f32>,
                    out: sigpu_runtime::cuda::DeviceSliceMut<'_, u8>,
                ) -> crate::error::Result<crate::decoder::DeviceDecodeStats> {
                    self.$device(caller, llr, out)
                }
            )?
        }

        impl $ty {
            /// Batch latency as the GPU LDPC decoder paper timed it: LLR upload (128 codewords of 8-bit LLRs,
            /// from pinned memory), the kernels, hard-decision download. `llr` holds 128
            /// codewords; early termination must be off (nothing may wait). With `transfers`
            /// false, only the device work is timed, the LLRs staying on the device from a
            /// first upload.
            pub fn time_batch(
                &mut self,
                llr: &[i8],
                transfers: bool,
                warmup: usize,
                runs: usize,
            ) -> crate::error::Result<sigpu_runtime::cuda::Timing> {
                super::batch::time_batch(self, llr, transfers, (warmup, runs))
            }
        }
    };
}
pub(super) use batch_decoder;
