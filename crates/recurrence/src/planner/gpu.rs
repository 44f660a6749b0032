//! The GPU engines of the planner: the PLR kernel ([`GpuFilter`]) for plr and fir, the fused
//! section kernel ([`GpuSos`]) for given sections and for a pole cascade's all-pole sections,
//! and the CPU for the methods that keep the contract only serially (device data refused).

use super::{Planned, Timing};
use crate::design::Lfilter;
use crate::elem::Element;
use crate::engine::{Batch, DeviceBatch, Recurrence};
use crate::error::FilterError;
use crate::filter::{check_finite, Filter};
use crate::gpu::{
    gpu_keeps_contract, max_pole_radius, DeviceFilter, GpuConfig, GpuFilter, GpuSos, SosConfig,
};
use crate::layout::ChannelLayout;
use crate::report::{Method, Report};
use crate::signature::Signature;
use crate::sos::BlockedPeaks;
use crate::sos::Sos;
use sigpu_runtime::cuda::cudarc::driver::sys::CUevent_flags;
use sigpu_runtime::cuda::cudarc::driver::{result, DevicePtr};
use sigpu_runtime::cuda::{DeviceBuffer, DeviceSlice, DeviceSliceMut, DriverContext};
use sigpu_runtime::GpuTarget;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// The engine for a `(b, a)` filter on a GPU, by the method the contract chose.
pub(super) fn ba<T: Element>(target: &GpuTarget, f: Lfilter<T>) -> Result<Planned<T>, FilterError> {
    let gpu = target.gpu();
    let method = f.report().method;
    let planned: Planned<T> = match method {
        Method::Plr | Method::Fir => {
            let plr = f.plr().expect("plr and fir run the (b, a) filter itself");
            let kernel = GpuFilter::new(gpu, plr, GpuConfig::default())?;
            Arc::new(OnGpu {
                target: target.clone(),
                kernel: Box::new(kernel),
                cpu: Box::new(f),
            })
        }
        Method::PoleCascade => {
            let poles = f.pole_sections().expect("a pole cascade has sections");
            // The all-pole sections checked channel by channel, as given sections are: their
            // input (the numerator's output) can lie in their stopband as much as any signal.
            let sections = GpuSections {
                target: target.clone(),
                kernel: GpuSos::new(gpu, poles.sections())?,
                wide: std::sync::OnceLock::new(),
                prefer_wide: AtomicBool::new(false),
                max_radius: max_pole_radius(poles.sections()),
                // all-pole sections keep the fixed limit: the design-following one was
                // calibrated on designs with their zeros
                passband: 0.0,
                report: held_report(poles),
                cpu: poles.clone(),
            };
            // The numerator as an FIR with zi (SciPy's lfilter(b, [1], x, zi) adds zi[n] to the
            // first outputs exactly as the cascade's input wants): b padded to the state length.
            let (b, _) = f.coefficients();
            let mut padded = b.to_vec();
            padded.resize(f.state_len() + 1, 0.0);
            let fir = Filter::<T>::new(&Signature::from_lfilter(&padded, &[1.0])?, *f.options())?;
            let numerator = GpuFilter::new(gpu, &fir, GpuConfig::default())?;
            Arc::new(GpuPoleCascade {
                target: target.clone(),
                numerator,
                sections,
                cpu: f,
            })
        }
        // f64 designs the contract runs serially: as checked sections where the conversion
        // keeps the contract (as the CPU planner does), so device data need not be refused.
        Method::Serial if T::DTYPE == crate::elem::DType::F64 => return as_gpu_sections(target, f),
        method => Arc::new(OnCpu {
            reason: format!(
                "method {}: this filter keeps the accuracy contract only when run serially \
                 (scipy's own algorithm), which runs on the CPU; pass host arrays, or give the \
                 filter as second-order sections (scipy's output='sos')",
                method.name()
            ),
            cpu: Box::new(f),
        }),
    };
    ready(target)?;
    Ok(planned)
}

/// An f64 (b, a) design the contract runs serially: as second-order sections, whose GPU engine
/// checks each channel, where the conversion keeps the contract (as the CPU planner runs it);
/// else on the CPU (device data refused with the way out).
fn as_gpu_sections<T: Element>(
    target: &GpuTarget,
    f: Lfilter<T>,
) -> Result<Planned<T>, FilterError> {
    let converted = super::sections::as_sections(&f);
    let planned: Planned<T> = match converted {
        Some((sos, report)) => Arc::new(GpuBaSections {
            sections: sections(target, sos)?,
            report,
            ba: f,
        }),
        None => Arc::new(OnCpu {
            reason: format!(
                "method {}: this filter keeps the accuracy contract only when run serially \
                 (scipy's own algorithm), which runs on the CPU, and does not convert to \
                 sections within the contract; pass host arrays, or give the filter as \
                 second-order sections (scipy's output='sos')",
                f.report().method.name()
            ),
            cpu: Box::new(f),
        }),
    };
    ready(target)?;
    Ok(planned)
}

/// The engine for given second-order sections on a GPU.
pub(super) fn sections<T: Element>(
    target: &GpuTarget,
    s: Sos<T>,
) -> Result<Planned<T>, FilterError> {
    let planned: Planned<T> = match s.report().method {
        Method::Sos => Arc::new({
            let kernel = GpuSos::new(target.gpu(), s.sections())?;
            GpuSections {
                target: target.clone(),
                passband: kernel.tables().passband_correction,
                kernel,
                wide: std::sync::OnceLock::new(),
                prefer_wide: AtomicBool::new(false),
                max_radius: max_pole_radius(s.sections()),
                report: held_report(&s),
                cpu: s,
            }
        }),
        method => Arc::new(OnCpu {
            reason: format!(
                "method {}: blocking these sections would cost accuracy, so they keep the \
                 accuracy contract only when run serially, on the CPU; pass host arrays",
                method.name()
            ),
            cpu: Box::new(s),
        }),
    };
    ready(target)?;
    Ok(planned)
}

/// The report of sections run by [`GpuSections`]: the CPU engine's, whose bound is against the
/// coefficients as given and covers f64 arithmetic. For f32 signals whose fast kernel may keep
/// its result (poles within [`crate::gpu::SAME_TYPE_MAX_RADIUS`]), which computes in f32 with
/// the coefficients rounded to f32: at least twice SciPy's serial f32 bound (the kernel keeps
/// a result only where its peaks and sums put it within the contract, calibrated within 2×
/// SciPy's error, whose worst case that is), plus how far the rounding of the coefficients can
/// move the output ([`crate::bounds::coefficient_shift_l1`]).
fn held_report<T: Element>(s: &Sos<T>) -> Report {
    let mut report = Recurrence::report(s).clone();
    if T::DTYPE == crate::elem::DType::F32
        && max_pole_radius(s.sections()) <= crate::gpu::SAME_TYPE_MAX_RADIUS
    {
        report.error_bound = report.error_bound.max(2.0 * report.reference_bound)
            + crate::bounds::coefficient_shift_l1(s.given_sections(), s.sections());
    }
    report
}

/// Kernels upload their constants on the device's own stream: a caller's stream is not
/// ordered after that, so wait for it once.
fn ready(target: &GpuTarget) -> Result<(), FilterError> {
    if !target.owns_stream() {
        target.gpu().synchronize()?;
    }
    Ok(())
}

/// A method run by one kernel: (b, a) by the PLR kernel (plr, fir, integer recurrences), or
/// given sections by the fused section kernel. `cpu` is the contract's filter the kernel was
/// compiled from (its report and state layout).
struct OnGpu<T: Element> {
    target: GpuTarget,
    kernel: Box<dyn DeviceFilter<T>>,
    cpu: Box<dyn Recurrence<T>>,
}

/// (b, a) as its numerator followed by all-pole sections from its poles (checked as
/// [`GpuSections`] are).
struct GpuPoleCascade<T: Element> {
    target: GpuTarget,
    numerator: GpuFilter<T>,
    sections: GpuSections<T>,
    cpu: Lfilter<T>,
}

/// Given sections by the fused kernel, checked channel by channel. The fast kernel computes in
/// the signal's type and reports the peaks and sums of its zero-state outputs and corrections
/// (`kernels/sos.cuh`, "Precision"); a channel whose result may miss the contract
/// ([`gpu_keeps_contract`]) is filtered again: f32 signals by the kernel computing in f64 with
/// the coefficients as given (compiled on first need; on the device, one launch per run of
/// consecutive channels), and what that cannot keep, like every such f64 channel, by SciPy's
/// loop on the CPU. Once a call hands most of its channels back, later calls start with the
/// f64-arithmetic kernel.
struct GpuSections<T: Element> {
    target: GpuTarget,
    kernel: GpuSos<T>,
    /// The f64-arithmetic kernel of f32 sections, compiled on first need.
    wide: std::sync::OnceLock<GpuSos<T>>,
    /// A call handed most of its channels back: later calls start with `wide`.
    prefer_wide: AtomicBool,
    /// The CPU engine's report, its bound widened by the fast kernel's rounded coefficients
    /// ([`held_report`]).
    report: Report,
    /// The cascade's largest pole radius ([`gpu_keeps_contract`]).
    max_radius: f64,
    /// The fast kernel's passband correction ratio, which the limit on its corrections follows
    /// ([`gpu_keeps_contract`]); 0 keeps the fixed limit.
    passband: f64,
    cpu: Sos<T>,
}

/// A (b, a) design run on the GPU as sections ([`as_gpu_sections`]): calls without zi run the
/// checked section engine (zf, for host data, from the last samples); calls with zi run the
/// contract's (b, a) filter on the CPU (the sections' state is not the (b, a) state); device
/// data with zi or zf is refused.
struct GpuBaSections<T: Element> {
    sections: Planned<T>,
    report: Report,
    ba: Lfilter<T>,
}

/// A method that runs only on the CPU, planned for a GPU: host data runs on the CPU, device
/// data is refused with `reason`.
struct OnCpu<T: Element> {
    cpu: Box<dyn Recurrence<T>>,
    reason: String,
}

impl<T: Element> Recurrence<T> for OnGpu<T> {
    fn report(&self) -> &Report {
        self.cpu.report()
    }
    fn state_len(&self) -> usize {
        self.cpu.state_len()
    }
    fn sections(&self) -> Option<usize> {
        self.cpu.sections()
    }
    fn device(&self) -> String {
        self.target.describe()
    }
    fn run(&self, batch: Batch<'_, T>) -> Result<Timing, FilterError> {
        let channels = batch.channels;
        let state = self.state_len();
        batch.samples(state, &format!("of state {state}"))?;
        let io = HostIo::new(batch.x, batch.zi)?;
        io.run(&self.target, batch.y, batch.zf, |x, y, zi, zf| {
            let batch = DeviceBatch {
                x,
                channels,
                y,
                zi,
                zf,
            };
            self.kernel.launch(&self.target, batch)
        })
    }
    fn apply_device(&self, batch: DeviceBatch<'_, T>) -> Result<(), FilterError> {
        self.kernel.launch(&self.target, batch)
    }
    fn apply_device_laid_out(
        &self,
        batch: DeviceBatch<'_, T>,
        n: usize,
        layout: ChannelLayout,
    ) -> Result<(), FilterError> {
        self.kernel.launch_laid_out(&self.target, batch, n, layout)
    }
    fn reads_layout(&self, layout: &ChannelLayout, channels: usize, n: usize) -> bool {
        self.kernel.reads_layout(layout, channels, n)
    }
}

impl<T: Element> GpuSections<T> {
    /// The kernel a call runs first: the fast one, or for f32 signals the f64-arithmetic one
    /// once a call has handed most of its channels back (a design whose carries dwarf its
    /// output on any input: filtering twice would only cost time).
    fn first(&self) -> Result<(&GpuSos<T>, bool), FilterError> {
        match self.prefer_wide.load(Ordering::Relaxed) {
            true => Ok((self.wide_kernel()?, true)),
            false => Ok((&self.kernel, self.kernel.wide())),
        }
    }

    /// The f64-arithmetic kernel of f32 sections, with the coefficients as given (compiled on
    /// first need; f64 signals have only it).
    fn wide_kernel(&self) -> Result<&GpuSos<T>, FilterError> {
        if self.kernel.wide() {
            return Ok(&self.kernel);
        }
        if let Some(w) = self.wide.get() {
            return Ok(w);
        }
        let config = SosConfig {
            wide: true,
            ..self.kernel.config()
        };
        let built = GpuSos::with_config(self.target.gpu(), self.cpu.given_sections(), config)?;
        let _ = self.wide.set(built);
        Ok(self.wide.get().expect("just set"))
    }

    /// The channels whose peaks from a kernel (`wide`: computing in f64) do not keep the
    /// contract; remembers to start with the f64 kernel where most of them did not.
    fn rerun(&self, peaks: &[BlockedPeaks], wide: bool) -> Vec<usize> {
        let again: Vec<usize> = (peaks.iter().enumerate())
            .filter(|(_, p)| !gpu_keeps_contract::<T>(p, self.max_radius, wide, self.passband))
            .map(|(c, _)| c)
            .collect();
        if !wide && 2 * again.len() > peaks.len() {
            self.prefer_wide.store(true, Ordering::Relaxed);
        }
        again
    }
}

/// Consecutive runs `(first, count)` of sorted channel indices: one launch per run.
fn runs(channels: &[usize]) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    for &c in channels {
        match out.last_mut() {
            Some((first, count)) if *first + *count == c => *count += 1,
            _ => out.push((c, 1)),
        }
    }
    out
}

impl<T: Element> Recurrence<T> for GpuSections<T> {
    fn report(&self) -> &Report {
        &self.report
    }
    fn state_len(&self) -> usize {
        Recurrence::state_len(&self.cpu)
    }
    fn sections(&self) -> Option<usize> {
        Recurrence::sections(&self.cpu)
    }
    fn device(&self) -> String {
        self.target.describe()
    }
    fn run(&self, batch: Batch<'_, T>) -> Result<Timing, FilterError> {
        let channels = batch.channels;
        let state = self.state_len();
        let n = batch.samples(state, &format!("of state {state}"))?;
        let (x, zi, y, mut zf) = (batch.x, batch.zi, batch.y, batch.zf);
        let io = HostIo::new(x, zi)?;
        let mut peaks = Vec::new();
        let (first, first_wide) = self.first()?;
        let timing = io.run(&self.target, &mut *y, zf.as_deref_mut(), |x, y, zi, zf| {
            let batch = DeviceBatch {
                x,
                channels,
                y,
                zi,
                zf,
            };
            peaks = first.launch_checked(&self.target, batch)?;
            Ok(())
        })?;
        let st = state;
        let mut cpu = self.rerun(&peaks, first_wide);
        if !first_wide && !cpu.is_empty() {
            // f32 channels again by the f64-arithmetic kernel, a launch per run of channels
            let wide = self.wide_kernel()?;
            let mut left = Vec::new();
            for (c0, k) in runs(&cpu) {
                let (at, zs) = (c0 * n..(c0 + k) * n, c0 * st..(c0 + k) * st);
                let zic = zi.map(|z| &z[zs.clone()]);
                let (yc, zfc, p) = wide.apply_checked(self.target.gpu(), &x[at.clone()], k, zic)?;
                y[at].copy_from_slice(&yc);
                if let Some(zf) = zf.as_deref_mut() {
                    zf[zs].copy_from_slice(&zfc);
                }
                left.extend(self.rerun(&p, true).into_iter().map(|c| c0 + c));
            }
            cpu = left;
        }
        // SciPy's loop (in f64) for what no kernel keeps: the blocked CPU engine's own rule is
        // looser than the kernels', so these take the method that keeps the contract by
        // construction.
        for c in cpu {
            let zic = zi.map(|z| &z[c * st..(c + 1) * st]);
            let (yc, zfc) = self.cpu.serial_channel(&x[c * n..(c + 1) * n], zic);
            y[c * n..(c + 1) * n].copy_from_slice(&yc);
            if let Some(zf) = zf.as_deref_mut() {
                zf[c * st..(c + 1) * st].copy_from_slice(&zfc);
            }
        }
        Ok(timing)
    }
    /// In place (`y` is `x`), the input is kept aside first, in case a channel must run again.
    fn apply_device(&self, batch: DeviceBatch<'_, T>) -> Result<(), FilterError> {
        self.run_device(batch, false)
    }
    /// Channels stored backwards one after another (`ChannelLayout::reversed`): the same
    /// checked run by the kernel reading them backwards, channels handed back filtered
    /// backwards again (the f64-arithmetic kernel's reversed variant, or the CPU's loop on the
    /// reversed channel).
    fn apply_device_laid_out(
        &self,
        batch: DeviceBatch<'_, T>,
        n: usize,
        layout: ChannelLayout,
    ) -> Result<(), FilterError> {
        if !self.reads_layout(&layout, batch.channels, n) {
            return Err(crate::gpu::refused_layout(&layout));
        }
        let whole = batch.channels.checked_mul(n);
        if whole != Some(batch.x.len()) || whole != Some(batch.y.len()) {
            return Err(FilterError::Input(format!(
                "{} channel(s) of {n} samples do not fill views of {} and {} values",
                batch.channels,
                batch.x.len(),
                batch.y.len()
            )));
        }
        self.run_device(batch, layout.sample_stride < 0)
    }
    fn reads_layout(&self, layout: &ChannelLayout, channels: usize, n: usize) -> bool {
        self.kernel.reads_layout(layout, channels, n)
    }
}

impl<T: Element> GpuSections<T> {
    /// [`Recurrence::apply_device`], every channel stored backwards when `reversed`.
    fn run_device(&self, batch: DeviceBatch<'_, T>, reversed: bool) -> Result<(), FilterError> {
        let stream = self.target.stream();
        let (channels, len) = (batch.channels, batch.x.len());
        let (x_at, zi_at) = (batch.x.device_ptr(), batch.zi.map(|z| z.device_ptr()));
        let in_place = x_at == batch.y.device_ptr();
        let what = "keeping the input aside";
        let kept: Option<DeviceBuffer<T>> = match in_place {
            // SAFETY: every element is copied from x before it is read.
            true => {
                let k = unsafe { stream.alloc::<T>(len) }.context(what)?;
                let (to, _guard) = k.device_ptr(stream);
                let bytes = len * std::mem::size_of::<T>();
                unsafe { result::memcpy_dtod_async(to, x_at, bytes, stream.cu_stream()) }
                    .context(what)?;
                drop(_guard);
                Some(k)
            }
            false => None,
        };
        let (y_at, zf_at) = (
            batch.y.device_ptr(),
            batch.zf.as_ref().map(|z| z.device_ptr()),
        );
        let (first, first_wide) = self.first()?;
        let peaks = first.launch_checked_in(&self.target, batch, reversed)?;
        let mut again = self.rerun(&peaks, first_wide);
        if again.is_empty() {
            return Ok(());
        }
        let st = self.state_len();
        let n = len / channels;
        let x_from = match &kept {
            Some(k) => DeviceSlice::of(k).device_ptr(),
            None => x_at,
        };
        let size = std::mem::size_of::<T>() as u64;
        let gpu = self.target.gpu();
        if !first_wide {
            // f32 channels again by the f64-arithmetic kernel, on the device, a launch per run
            // of channels (the input kept aside where the call is in place)
            let wide = self.wide_kernel()?;
            let mut left = Vec::new();
            for (c0, k) in runs(&again) {
                let at = |base: u64, per: usize| base + (c0 * per) as u64 * size;
                // SAFETY: sub-ranges of the batch's own buffers (checked by the first launch),
                // alive for the call; y and zf are written by this launch alone.
                let batch = unsafe {
                    DeviceBatch {
                        x: DeviceSlice::from_raw(at(x_from, n), k * n, gpu),
                        channels: k,
                        y: DeviceSliceMut::from_raw(at(y_at, n), k * n, gpu),
                        zi: zi_at.map(|z| DeviceSlice::from_raw(at(z, st), k * st, gpu)),
                        zf: zf_at.map(|z| DeviceSliceMut::from_raw(at(z, st), k * st, gpu)),
                    }
                };
                let p = wide.launch_checked_in(&self.target, batch, reversed)?;
                left.extend(self.rerun(&p, true).into_iter().map(|c| c0 + c));
            }
            again = left;
        }
        // What no kernel keeps, through the host: copies on the stream, then SciPy's loop.
        let what = "filtering a channel again on the CPU";
        for c in again {
            let mut x = vec![T::ZERO; n];
            let mut zi = zi_at.map(|_| vec![T::ZERO; st]);
            // SAFETY: the addresses are the batch's (checked by the launch), alive for the call.
            unsafe {
                result::memcpy_dtoh_async(
                    &mut x,
                    x_from + (c * n) as u64 * size,
                    stream.cu_stream(),
                )
                .context(what)?;
                if let (Some(at), Some(zi)) = (zi_at, zi.as_mut()) {
                    result::memcpy_dtoh_async(zi, at + (c * st) as u64 * size, stream.cu_stream())
                        .context(what)?;
                }
            }
            stream.synchronize().context(what)?;
            if reversed {
                x.reverse();
            }
            let (mut y, zf) = self.cpu.serial_channel(&x, zi.as_deref());
            if reversed {
                y.reverse();
            }
            unsafe {
                result::memcpy_htod_async(y_at + (c * n) as u64 * size, &y, stream.cu_stream())
                    .context(what)?;
                if let Some(at) = zf_at {
                    result::memcpy_htod_async(at + (c * st) as u64 * size, &zf, stream.cu_stream())
                        .context(what)?;
                }
            }
            // The host buffers must outlive the copies.
            stream.synchronize().context(what)?;
        }
        Ok(())
    }
}

impl<T: Element> Recurrence<T> for GpuPoleCascade<T> {
    fn device(&self) -> String {
        self.target.describe()
    }
    fn note(&self) -> Option<String> {
        Some("numerator (FIR) on the CPU, pole sections on the GPU".into())
    }
    fn report(&self) -> &Report {
        Recurrence::report(&self.cpu)
    }
    fn state_len(&self) -> usize {
        Recurrence::state_len(&self.cpu)
    }
    fn sections(&self) -> Option<usize> {
        None
    }
    /// Host data: the numerator on the CPU cores (exactly the CPU engine's), the all-pole
    /// sections on the GPU, zf from the last samples on the CPU; with zi, the CPU engine.
    fn run(&self, batch: Batch<'_, T>) -> Result<Timing, FilterError> {
        let state = self.state_len();
        batch.samples(state, &format!("of state {state}"))?;
        if batch.zi.is_some() {
            // The state enters the sections' input rounded to T and is amplified by the poles
            // (ellip(8) high-pass, f32, 3 samples from zi: 4.9× SciPy's error): the CPU
            // engine, which carries it in f64.
            return self.cpu.run(batch);
        }
        let (x, channels, y) = (batch.x, batch.channels, batch.y);
        let u = (self.cpu.cascade_input(x, channels, None)).expect("a pole cascade");
        let timing = self.sections.run(Batch {
            x: &u,
            channels,
            y: &mut *y,
            zi: None,
            zf: None,
            fresh: None,
        })?;
        if let Some(zf) = batch.zf {
            zf.copy_from_slice(&self.cpu.final_states(x, y, channels, None));
        }
        Ok(timing)
    }
    /// Device data: the numerator by the PLR kernel as an FIR into a scratch buffer, then the
    /// sections. zf of this method is computed from the (b, a) state on the host only.
    fn apply_device(&self, batch: DeviceBatch<'_, T>) -> Result<(), FilterError> {
        if batch.zf.is_some() || batch.zi.is_some() {
            return Err(FilterError::Refused(
                "method pole-cascade: this filter takes no zi and gives no zf on the GPU (its \
                 state is the (b, a) one, which the sections there do not carry); pass host \
                 arrays, or give the filter as second-order sections (scipy's output='sos'), \
                 whose zi and zf the GPU carries"
                    .into(),
            ));
        }
        let stream = self.target.stream();
        // SAFETY: every element is written by the numerator's kernel before the sections read it.
        let len = batch.x.len();
        let mut u: DeviceBuffer<T> = unsafe { stream.alloc::<T>(len.max(1)) }
            .context("allocating the numerator's output")?;
        let mut u = DeviceSliceMut::of(&mut u);
        let mut u = u.slice_mut(0..len).expect("within the buffer");
        let numerator = DeviceBatch {
            y: u.reborrow(),
            zf: None,
            ..batch
        };
        self.numerator.launch(&self.target, numerator)?;
        let sections = DeviceBatch {
            x: u.as_view(),
            channels: batch.channels,
            y: batch.y,
            zi: None,
            zf: None,
        };
        self.sections.apply_device(sections)
    }
}

impl<T: Element> Recurrence<T> for GpuBaSections<T> {
    fn report(&self) -> &Report {
        &self.report
    }
    fn state_len(&self) -> usize {
        self.ba.state_len()
    }
    fn sections(&self) -> Option<usize> {
        None
    }
    fn device(&self) -> String {
        self.sections.device()
    }
    fn note(&self) -> Option<String> {
        Some("a (b, a) design run as second-order sections; with zi, by (b, a) on the CPU".into())
    }
    /// Without zi, the sections (zf, where asked, from the last samples in f64, as a pole
    /// cascade's): the reported method and bound are the sections'. With zi, the (b, a) filter
    /// on the CPU, whose state zi is.
    fn run(&self, batch: Batch<'_, T>) -> Result<Timing, FilterError> {
        super::sections::run_ba_as(self.sections.as_ref(), &self.ba, batch)
    }
    fn apply_device(&self, batch: DeviceBatch<'_, T>) -> Result<(), FilterError> {
        if batch.zi.is_some() || batch.zf.is_some() {
            return Err(FilterError::Refused(
                "this (b, a) filter runs on the GPU as second-order sections converted from \
                 (b, a), whose state is not the (b, a) zi / zf; pass host arrays, or give the \
                 filter as second-order sections (scipy's output='sos') with their zi"
                    .into(),
            ));
        }
        self.sections.apply_device(batch)
    }
    /// The sections' layouts (backwards), without zi / zf as [`Recurrence::apply_device`].
    fn apply_device_laid_out(
        &self,
        batch: DeviceBatch<'_, T>,
        n: usize,
        layout: ChannelLayout,
    ) -> Result<(), FilterError> {
        if layout.is_contiguous(batch.channels, n) && batch.x.len() == batch.channels * n {
            return self.apply_device(batch);
        }
        if batch.zi.is_some() || batch.zf.is_some() {
            return self.apply_device(batch); // refused, with the reason
        }
        self.sections.apply_device_laid_out(batch, n, layout)
    }
    fn reads_layout(&self, layout: &ChannelLayout, channels: usize, n: usize) -> bool {
        self.sections.reads_layout(layout, channels, n)
    }
}

impl<T: Element> Recurrence<T> for OnCpu<T> {
    fn device(&self) -> String {
        self.cpu.device()
    }
    fn note(&self) -> Option<String> {
        Some(format!(
            "method {} runs on the CPU; the GPU runs plr, sos and pole-cascade",
            self.report().method.name()
        ))
    }
    fn report(&self) -> &Report {
        self.cpu.report()
    }
    fn sections(&self) -> Option<usize> {
        self.cpu.sections()
    }
    fn state_len(&self) -> usize {
        self.cpu.state_len()
    }
    fn run(&self, batch: Batch<'_, T>) -> Result<Timing, FilterError> {
        self.cpu.run(batch)
    }
    fn apply_device(&self, _batch: DeviceBatch<'_, T>) -> Result<(), FilterError> {
        Err(FilterError::Refused(self.reason.clone()))
    }
}

/// Host data for one device run: x and zi, checked finite (lengths are checked by the caller).
struct HostIo<'a, T> {
    x: &'a [T],
    zi: Option<&'a [T]>,
}

impl<'a, T: Element> HostIo<'a, T> {
    fn new(x: &'a [T], zi: Option<&'a [T]>) -> Result<Self, FilterError> {
        check_finite(x, "x")?;
        if let Some(z) = zi {
            check_finite(z, "zi")?;
        }
        Ok(HostIo { x, zi })
    }

    /// Uploads on the target's stream, runs `launch` between CUDA events, downloads y (and zf).
    fn run(
        self,
        target: &GpuTarget,
        y: &mut [T],
        zf: Option<&mut [T]>,
        launch: impl FnOnce(
            DeviceSlice<'_, T>,
            DeviceSliceMut<'_, T>,
            Option<DeviceSlice<'_, T>>,
            Option<DeviceSliceMut<'_, T>>,
        ) -> Result<(), FilterError>,
    ) -> Result<Timing, FilterError> {
        let channels_state = zf.as_ref().map_or(0, |z| z.len());
        if self.x.is_empty() {
            // Nothing to filter: zf is zi (or the zero state).
            if let Some(zf) = zf {
                match self.zi {
                    Some(z) => zf.copy_from_slice(z),
                    None => zf.fill(T::ZERO),
                }
            }
            return Ok(Timing::default());
        }
        let stream = target.stream();
        let start = Instant::now();
        let dx = stream.clone_htod(self.x).context("copying the input")?;
        // SAFETY (both): the kernels write every element of y and zf before they are read.
        let mut dy = unsafe { stream.alloc::<T>(self.x.len()) }.context("allocating the output")?;
        let dzi = (self.zi)
            .map(|z| stream.clone_htod(z))
            .transpose()
            .context("copying zi")?;
        let mut dzf = (channels_state > 0)
            .then(|| unsafe { stream.alloc::<T>(channels_state) })
            .transpose()
            .context("allocating zf")?;
        stream.synchronize().context("copying the input")?;
        let upload = start.elapsed().as_secs_f64();
        let flags = Some(CUevent_flags::CU_EVENT_DEFAULT);
        let ctx = target.gpu().context();
        let (begin, end) = (
            ctx.new_event(flags).context("creating a timing event")?,
            ctx.new_event(flags).context("creating a timing event")?,
        );
        begin.record(stream).context("recording an event")?;
        launch(
            DeviceSlice::of(&dx),
            DeviceSliceMut::of(&mut dy),
            dzi.as_ref().map(DeviceSlice::of),
            dzf.as_mut().map(DeviceSliceMut::of),
        )?;
        end.record(stream).context("recording an event")?;
        let start = Instant::now();
        stream
            .memcpy_dtoh(&dy, y)
            .context("copying the output back")?;
        if let (Some(zf), Some(dzf)) = (zf, &dzf) {
            stream.memcpy_dtoh(dzf, zf).context("copying zf back")?;
        }
        stream.synchronize().context("copying the output back")?;
        let compute_ms = begin.elapsed_ms(&end).context("reading elapsed time")?;
        Ok(Timing {
            transfer_seconds: Some(upload + start.elapsed().as_secs_f64()),
            compute_seconds: f64::from(compute_ms) * 1e-3,
        })
    }
}
