//! The trait every planned filter implements, whatever runs it: [`Recurrence`], the host
//! [`Batch`] it runs, and the [`Timing`] of a call. The CPU filters ([`crate::Lfilter`], [`crate::Sos`]) implement
//! it themselves; [`crate::planner`] wraps the GPU engines in it.

use crate::elem::Element;
use crate::error::FilterError;
use crate::report::Report;
use sigpu_runtime::cuda::{DeviceSlice, DeviceSliceMut};

/// Where the time of one timed call went.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct Timing {
    /// Host → device and device → host copies of the signal and state (GPU engines on host
    /// data), none on the CPU.
    pub transfer_seconds: Option<f64>,
    /// The filtering itself: the kernels between CUDA events, or the CPU pass.
    pub compute_seconds: f64,
}

impl Timing {
    /// A CPU call that started at `start` and has just ended (no copies).
    pub fn since(start: std::time::Instant) -> Timing {
        Timing {
            transfer_seconds: None,
            compute_seconds: start.elapsed().as_secs_f64(),
        }
    }
}

/// One host call: `channels` channels of equal length stored one after another in `x`,
/// filtered into `y` (the same layout); `zi` / `zf` hold `state_len()` values per channel (zf
/// from a zero state without zi).
pub struct Batch<'a, T> {
    /// The input.
    pub x: &'a [T],
    /// How many channels `x` holds.
    pub channels: usize,
    /// The output, as long as `x`.
    pub y: &'a mut [T],
    /// The initial state, or none (zero).
    pub zi: Option<&'a [T]>,
    /// Room for the final state, or none.
    pub zf: Option<&'a mut [T]>,
    /// `Some(what)`: `y` was just allocated and never written (numpy's `empty`,
    /// [`crate::cpu::output_vec`]), so plain stores beat non-temporal ones, and non-finite
    /// input is refused naming x `what` (the CPU engines find it through their recurrences,
    /// without a pass over x). `None`: `y` was written before and x is not checked by the CPU
    /// engines (a NaN spreads to the outputs after it); GPU engines check host input always.
    pub fresh: Option<&'a str>,
}

/// One device call: [`Batch`]'s layout in device memory of one GPU (buffers sigpu owns or a
/// caller's, as views), enqueued on the target's stream.
pub struct DeviceBatch<'a, T> {
    /// The input.
    pub x: DeviceSlice<'a, T>,
    /// How many channels `x` holds.
    pub channels: usize,
    /// The output, as long as `x`.
    pub y: DeviceSliceMut<'a, T>,
    /// The initial state, or none (zero).
    pub zi: Option<DeviceSlice<'a, T>>,
    /// Room for the final state, or none.
    pub zf: Option<DeviceSliceMut<'a, T>>,
}

impl<T> Batch<'_, T> {
    /// The samples per channel, after checking that x, y, zi and zf fit `channels` channels
    /// of `state` values each; `layout` says what the state is, for the message ("of state 2").
    pub(crate) fn samples(&self, state: usize, layout: &str) -> Result<usize, FilterError> {
        let (x, y, channels) = (self.x.len(), self.y.len(), self.channels);
        let fit = match () {
            _ if channels == 0 => Some("channels must be at least 1".to_string()),
            _ if !x.is_multiple_of(channels) => Some(format!(
                "{x} input values do not split into {channels} channels of equal length"
            )),
            _ if y != x => Some(format!("the output holds {y} values but the input {x}")),
            _ => None,
        };
        if let Some(message) = fit {
            return Err(FilterError::Input(message));
        }
        let zf = self.zf.as_ref().map(|z| z.len());
        for (what, len) in [("zi", self.zi.map(<[T]>::len)), ("zf", zf)] {
            match len {
                Some(len) if len != channels * state => {
                    return Err(FilterError::Input(format!(
                        "{what} holds {len} values; {channels} channel(s) {layout} need {}",
                        channels * state
                    )))
                }
                _ => {}
            }
        }
        Ok(x / channels)
    }
}

/// A planned filter for element type `T`: the method the accuracy contract chose, run by the
/// engine for the target it was planned for.
pub trait Recurrence<T: Element>: Send + Sync {
    /// The method and its predicted error bound (with SciPy's, for the contract).
    fn report(&self) -> &Report;

    /// zi / zf values per channel: max(len(a), len(b)) − 1, or 2 per section.
    fn state_len(&self) -> usize;

    /// The number of sections when the filter was given as second-order sections (zi / zf are
    /// then `[section][2]` per channel), else None.
    fn sections(&self) -> Option<usize>;

    /// Where the work runs, for reports: `cpu (N threads, ISA)` or the GPU's name.
    fn device(&self) -> String;

    /// How the work is split between host and GPU, where not all on the target.
    fn note(&self) -> Option<String> {
        None
    }

    /// The one host call every engine implements: filters `batch` (host memory; a GPU
    /// engine uploads, runs and downloads) and says how long the filtering took.
    fn run(&self, batch: Batch<'_, T>) -> Result<Timing, FilterError>;

    /// Filters `channels` channels of equal length stored one after another in `x` into `y`;
    /// zi / zf hold `state_len()` values per channel (zf from a zero state without zi).
    fn apply_batch(
        &self,
        x: &[T],
        channels: usize,
        y: &mut [T],
        zi: Option<&[T]>,
        zf: Option<&mut [T]>,
    ) -> Result<Timing, FilterError> {
        self.run(Batch {
            x,
            channels,
            y,
            zi,
            zf,
            fresh: None,
        })
    }

    /// Filters device memory (owned or a caller's) on the target's stream: only enqueues.
    /// Refused by filters planned for the CPU, and where the chosen method has no engine on
    /// the GPU (the error says why and the way out).
    fn apply_device(&self, batch: DeviceBatch<'_, T>) -> Result<(), FilterError> {
        let _ = batch;
        Err(FilterError::Input(format!(
            "this filter was planned for {}: plan it for the GPU that holds the data, or pass \
             host arrays",
            self.device()
        )))
    }

    /// [`Recurrence::apply_device`] for channels of `n` samples laid out as `layout` says:
    /// interleaved pairs (complex data with real coefficients, the re and im parts as two
    /// channels), backwards in time (an adjoint), or strided; read and written in place, the
    /// layout checked against the views first. Only engines that read a layout in place
    /// ([`Recurrence::reads_layout`]: the PLR kernel any, the fused sections backwards) take
    /// other layouts than the contiguous one; the others refuse with the reason (the caller
    /// copies to rows instead).
    fn apply_device_laid_out(
        &self,
        batch: DeviceBatch<'_, T>,
        n: usize,
        layout: crate::ChannelLayout,
    ) -> Result<(), FilterError> {
        if layout.is_contiguous(batch.channels, n) && batch.x.len() == batch.channels * n {
            return self.apply_device(batch);
        }
        Err(FilterError::Refused(format!(
            "the {} engine on {} does not read channels at sample stride {} and channel \
             stride {} in place: copy the data to rows",
            self.report().method.name(),
            self.device(),
            layout.sample_stride,
            layout.channel_stride
        )))
    }

    /// Whether [`Recurrence::apply_device_laid_out`] takes `layout` for `channels` channels of
    /// `n` samples (the contiguous layout always).
    fn reads_layout(&self, layout: &crate::ChannelLayout, channels: usize, n: usize) -> bool {
        layout.is_contiguous(channels, n)
    }

    /// One channel: y and zf (SciPy's `lfilter(b, a, x, zi=zi)` / `sosfilt`).
    fn apply(&self, x: &[T], zi: Option<&[T]>) -> Result<(Vec<T>, Vec<T>), FilterError> {
        let mut y = vec![T::ZERO; x.len()];
        let mut zf = vec![T::ZERO; self.state_len()];
        self.apply_batch(x, 1, &mut y, zi, Some(&mut zf))?;
        Ok((y, zf))
    }
}
