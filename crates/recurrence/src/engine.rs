//! The trait every planned filter implements, whatever runs it: [`Recurrence`], and the
//! [`Timing`] of a timed call. The CPU filters ([`crate::Lfilter`], [`crate::Sos`]) implement
//! it themselves; [`crate::planner`] wraps the GPU engines in it.

use crate::elem::Element;
use crate::error::FilterError;
use crate::filter::check_finite;
use crate::report::Report;
use sigpu_runtime::cuda::{DeviceSlice, DeviceSliceMut};
use std::time::Instant;

/// Where the time of one timed call went.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct Timing {
    /// Host → device and device → host copies of the signal and state (GPU engines on host
    /// data), none on the CPU.
    pub transfer_seconds: Option<f64>,
    /// The filtering itself: the kernels between CUDA events, or the CPU pass.
    pub compute_seconds: f64,
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

    /// Filters `channels` channels of equal length stored one after another in `x` into `y`;
    /// zi / zf hold `state_len()` values per channel (zf from a zero state without zi). Host
    /// memory; a GPU engine uploads, runs and downloads.
    fn apply_batch(
        &self,
        x: &[T],
        channels: usize,
        y: &mut [T],
        zi: Option<&[T]>,
        zf: Option<&mut [T]>,
    ) -> Result<(), FilterError>;

    /// [`Recurrence::apply_batch`] into a fresh output (never written: numpy's `empty`,
    /// [`crate::cpu::output_vec`]), refusing non-finite input with `what` naming x in the
    /// message. CPU engines find non-finite input through their recurrences at no cost.
    fn apply_batch_new_output(
        &self,
        x: &[T],
        channels: usize,
        y: &mut [T],
        zi: Option<&[T]>,
        zf: Option<&mut [T]>,
        what: &str,
    ) -> Result<(), FilterError> {
        check_finite(x, what)?;
        self.apply_batch(x, channels, y, zi, zf)
    }

    /// [`Recurrence::apply_batch`], timed: the kernels between CUDA events and the copies
    /// apart on a GPU, the whole call on the CPU.
    fn apply_batch_timed(
        &self,
        x: &[T],
        channels: usize,
        y: &mut [T],
        zi: Option<&[T]>,
        zf: Option<&mut [T]>,
    ) -> Result<Timing, FilterError> {
        let start = Instant::now();
        self.apply_batch(x, channels, y, zi, zf)?;
        Ok(Timing {
            transfer_seconds: None,
            compute_seconds: start.elapsed().as_secs_f64(),
        })
    }

    /// Filters device memory (owned or a caller's) on the target's stream: only enqueues.
    /// Refused by filters planned for the CPU, and where the chosen method has no engine on
    /// the GPU (the error says why and the way out).
    fn apply_device(
        &self,
        x: DeviceSlice<'_, T>,
        channels: usize,
        y: DeviceSliceMut<'_, T>,
        zi: Option<DeviceSlice<'_, T>>,
        zf: Option<DeviceSliceMut<'_, T>>,
    ) -> Result<(), FilterError> {
        let _ = (x, channels, y, zi, zf);
        Err(FilterError::Input(format!(
            "this filter was planned for {}: plan it for the GPU that holds the data, or pass \
             host arrays",
            self.device()
        )))
    }

    /// One channel: y and zf (SciPy's `lfilter(b, a, x, zi=zi)` / `sosfilt`).
    fn apply(&self, x: &[T], zi: Option<&[T]>) -> Result<(Vec<T>, Vec<T>), FilterError> {
        let mut y = vec![T::ZERO; x.len()];
        let mut zf = vec![T::ZERO; self.state_len()];
        self.apply_batch(x, 1, &mut y, zi, Some(&mut zf))?;
        Ok((y, zf))
    }
}
