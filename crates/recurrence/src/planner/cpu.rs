//! The CPU engines: the contract's own filters, [`Lfilter`] (plr, pole-cascade, serial, fir)
//! and [`Sos`] (sos, sos-serial), are planned objects as they are.

use super::Recurrence;
use crate::design::{Lfilter, Method, Report};
use crate::elem::Element;
use crate::error::FilterError;
use crate::filter::FilterOptions;
use crate::sos::Sos;

/// `cpu (N threads, ISA)`: the threads and the instruction set the method's engine runs with
/// (the section engine's for sections and pole cascades, the (b, a) block functions'
/// otherwise).
pub(crate) fn cpu_device(options: &FilterOptions, method: Method) -> String {
    let threads = options.threads.unwrap_or_else(crate::filter::host_threads);
    let isa = match method {
        Method::Sos | Method::PoleCascade => crate::cpu::SosKernel::best(&options.cpu).name(),
        _ => crate::cpu::Simd::best(&options.cpu.within_host()).name(),
    };
    format!("cpu ({threads} threads, {isa})")
}

impl<T: Element> Recurrence<T> for Lfilter<T> {
    fn report(&self) -> &Report {
        Lfilter::report(self)
    }

    fn state_len(&self) -> usize {
        Lfilter::state_len(self)
    }

    fn sections(&self) -> Option<usize> {
        None
    }

    fn device(&self) -> String {
        cpu_device(self.options(), self.report().method)
    }

    fn apply_batch(
        &self,
        x: &[T],
        channels: usize,
        y: &mut [T],
        zi: Option<&[T]>,
        zf: Option<&mut [T]>,
    ) -> Result<(), FilterError> {
        Lfilter::apply_batch(self, x, channels, y, zi, zf)
    }

    fn apply_batch_new_output(
        &self,
        x: &[T],
        channels: usize,
        y: &mut [T],
        zi: Option<&[T]>,
        zf: Option<&mut [T]>,
        what: &str,
    ) -> Result<(), FilterError> {
        Lfilter::apply_batch_new_output(self, x, channels, y, zi, zf, what)
    }
}

impl<T: Element> Recurrence<T> for Sos<T> {
    fn report(&self) -> &Report {
        Sos::report(self)
    }

    fn state_len(&self) -> usize {
        Sos::state_len(self)
    }

    fn sections(&self) -> Option<usize> {
        Some(self.n_sections())
    }

    fn device(&self) -> String {
        cpu_device(self.options(), self.report().method)
    }

    fn apply_batch(
        &self,
        x: &[T],
        channels: usize,
        y: &mut [T],
        zi: Option<&[T]>,
        zf: Option<&mut [T]>,
    ) -> Result<(), FilterError> {
        Sos::apply_batch(self, x, channels, y, zi, zf)
    }

    fn apply_batch_new_output(
        &self,
        x: &[T],
        channels: usize,
        y: &mut [T],
        zi: Option<&[T]>,
        zf: Option<&mut [T]>,
        what: &str,
    ) -> Result<(), FilterError> {
        Sos::apply_batch_new_output(self, x, channels, y, zi, zf, what)
    }
}
