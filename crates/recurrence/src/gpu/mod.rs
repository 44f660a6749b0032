//! The GPU path: [`codegen`] writes a CUDA kernel for one signature and element type, NVRTC
//! compiles it with the header `plr.cuh` (through `sigpu-runtime`, cached on disk), and
//! [`GpuFilter`] launches it on device buffers: any length, many channels, zi/zf.
//! [`GpuSos`] runs scipy's `sosfilt` with every second-order section fused into one kernel
//! (`kernels/sos.cuh` behind a generated prelude; host tables, references and the CPU emulation
//! of its scheme in [`sos_tables`]).

mod checks;
pub mod codegen;
mod layout_checks;
mod sos;
mod sos_checks;
pub mod sos_tables;

pub use sos::{
    gpu_keeps_contract, kernel_source as sos_kernel_source, max_pole_radius,
    same_type_correction_limit, GpuSos, RawSosCall, SosConfig, SAME_TYPE_MAX_CORRECTION,
    SAME_TYPE_MAX_RADIUS, SAME_TYPE_MEAN_CORRECTION, SAME_TYPE_PASSBAND_FACTOR,
    SAME_TYPE_PASSBAND_UP_TO,
};

/// The recurrence crate's checks, in the order `sigpu check` runs them: the (b, a) kernels
/// (plain, then on laid-out views), then the fused second-order sections, then the time-varying all-pole kernel, then the
/// complex-coefficient kernel.
pub fn checks() -> Vec<sigpu_runtime::cuda::Check> {
    let mut all = checks::checks();
    all.extend(layout_checks::checks());
    all.extend(sos_checks::checks());
    all.extend(crate::time_varying::checks());
    all.extend(crate::complex::checks());
    all
}
pub use codegen::{
    generate, generate_laid_out, generate_tuned, resolve_shape, Generated, GpuConfig, KernelLayout,
    FILTER_KERNEL, PLR_HEADER, PLR_HEADER_NAME, STATE_KERNEL,
};

use crate::elem::Element;
use crate::engine::DeviceBatch;
use crate::error::FilterError;
use crate::filter::Filter;
use crate::layout::{ChannelLayout, LaunchLayout};
use sigpu_runtime::cuda::cudarc::driver::sys::CUfunction_attribute_enum;
use sigpu_runtime::cuda::cudarc::driver::LaunchConfig;
use sigpu_runtime::cuda::{
    time_gpu, DeviceBuffer, DeviceSlice, DeviceSliceMut, DriverContext, Gpu, Kernel, Timing,
};
use sigpu_runtime::GpuTarget;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Epochs wrap before they overflow the 30 bits a flag keeps for them.
const MAX_EPOCH: u32 = (1 << 30) - 1;

/// A filter compiled for one GPU: the generated kernel, its constants on the device, and
/// the look-back state reused from launch to launch.
pub struct GpuFilter<T: Element> {
    gpu: Gpu,
    filter: Filter<T>,
    /// The kernels of channels stored one after another.
    plain: Kernels<T>,
    lookback: Mutex<Option<Lookback<T>>>,
    /// The kernels of other value layouts (interleaved pairs, backwards), compiled on first
    /// use; the look-back state is shared (launches are ordered on one stream).
    laid_out: Mutex<Vec<(KernelLayout, Arc<Kernels<T>>)>>,
}

/// The filter and final-state kernels of one value layout, with what they are launched with.
struct Kernels<T> {
    generated: Generated<T>,
    filter: Kernel,
    state: Kernel,
    constants: DeviceBuffer<T>,
}

/// Per-chunk flags and carries for the decoupled look-back, and the chunk counters.
struct Lookback<T> {
    flags: DeviceBuffer<u32>,
    aggs: DeviceBuffer<T>,
    incls: DeviceBuffer<T>,
    counters: DeviceBuffer<u32>,
    chunks: usize,
    /// Values per carry: 1, or 2 for interleaved pairs.
    width: usize,
    epoch: u32,
}

/// Where the time of one [`GpuFilter::apply_timed`] call went.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct RunTimes {
    /// Host → device and device → host copies of the signal and state.
    pub transfer_seconds: f64,
    /// The kernels, between CUDA events (one cold run).
    pub compute_seconds: f64,
}

impl<T: Element> GpuFilter<T> {
    /// Generates, compiles (or takes from the kernel cache) and loads the kernel; what
    /// `config` leaves to pick comes from the device's PLR policy ([`Gpu::policies`]).
    pub fn new(gpu: &Gpu, filter: &Filter<T>, config: GpuConfig) -> Result<Self, FilterError> {
        let generated = generate_tuned(filter, config, &gpu.policies().plr)?;
        Ok(GpuFilter {
            gpu: gpu.clone(),
            filter: filter.clone(),
            plain: load_kernels(gpu, generated)?,
            lookback: Mutex::new(None),
            laid_out: Mutex::new(Vec::new()),
        })
    }

    /// The kernels for values laid out as `layout` says, generated and compiled on first use
    /// with the plain kernel's threads and blocks per SM; pairs take half its values per
    /// thread (the same bytes per thread and registers for the values), so their chunks, factors
    /// and constants are their own.
    fn kernels_for(&self, layout: KernelLayout) -> Result<Arc<Kernels<T>>, FilterError> {
        let mut cache = self.laid_out.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, k)) = cache.iter().find(|(l, _)| *l == layout) {
            return Ok(k.clone());
        }
        let config = self.laid_out_config(layout);
        let generated = generate_laid_out(&self.filter, config, &self.gpu.policies().plr, layout)?;
        let kernels = Arc::new(load_kernels(&self.gpu, generated)?);
        cache.push((layout, kernels.clone()));
        Ok(kernels)
    }

    /// The launch shape of the kernel for `layout`: the plain kernel's, with half its values
    /// per thread for pairs. A plain [`GpuFilter`] built with this shape is the laid-out
    /// kernel's twin: the same blocking, so the same bits on the gathered channels.
    pub fn laid_out_config(&self, layout: KernelLayout) -> GpuConfig {
        let mut config = self.plain.generated.config;
        if layout.pairs {
            config.vpt = (config.vpt / 2).max(1);
        }
        config
    }

    /// Filters `channels` channels of `n` samples laid out in `x` and `y` as `layout` says
    /// (checked first, with the reason when it does not fit the views), on `target`'s stream;
    /// zi / zf hold `state_len()` values per channel (interleaved for pairs: a complex state).
    /// Only enqueues. The contiguous layout runs the plain kernel.
    pub fn launch_laid_out(
        &self,
        target: &GpuTarget,
        batch: DeviceBatch<'_, T>,
        n: usize,
        layout: ChannelLayout,
    ) -> Result<(), FilterError> {
        let DeviceBatch {
            x,
            channels,
            mut y,
            zi,
            zf,
        } = batch;
        if !target.gpu().same(&self.gpu) {
            return Err(FilterError::Input(format!(
                "the filter was compiled for cuda:{}, the launch targets cuda:{}",
                self.gpu.ordinal(),
                target.gpu().ordinal()
            )));
        }
        let view = layout.check(channels, n, x.len(), y.len())?;
        let s = self.filter.state_len();
        for (what, len) in [
            ("zi", zi.map(|z| z.len())),
            ("zf", zf.as_ref().map(|z| z.len())),
        ] {
            if let Some(len) = len.filter(|&l| l != channels * s) {
                return Err(FilterError::Input(format!(
                    "{what} holds {len} values; {channels} channel(s) of state {s} need {} \
                     (SciPy's max(len(b), len(a)) - 1 per channel)",
                    channels * s
                )));
            }
        }
        let laid_out = match view.kernel == KernelLayout::default() {
            true => None,
            false => Some(self.kernels_for(view.kernel)?),
        };
        let kernels = laid_out.as_deref().unwrap_or(&self.plain);
        let has_zi = i32::from(zi.is_some());
        // Without zi the kernels are given the constants and told not to read them.
        let zi = zi.unwrap_or_else(|| DeviceSlice::of(&kernels.constants));
        if n > 0 {
            let run = FilterRun { kernels, view, n };
            self.launch_filter(target, &run, x, y.reborrow(), (zi, has_zi))?;
        }
        if let (Some(mut zf), true) = (zf, s > 0) {
            let (n64, cs64, channels32) =
                (n as i64, view.channel_stride as i64, view.channels as i32);
            let y = y.as_view();
            // plr_final_state(x, y, n, cs, channels, zi, has_zi, zf): zf holds channels × NSTATE
            // values (pairs of them for interleaved channels).
            target
                .launch(&kernels.state)
                .slice(&x)
                .slice(&y)
                .arg(&n64)
                .arg(&cs64)
                .arg(&channels32)
                .slice(&zi)
                .arg(&has_zi)
                .slice_mut(&mut zf)
                .run(sigpu_runtime::cuda::grid_1d(view.channels * s, 128))?;
        }
        Ok(())
    }

    pub fn filter(&self) -> &Filter<T> {
        &self.filter
    }

    pub fn generated(&self) -> &Generated<T> {
        &self.plain.generated
    }

    /// The compiled filter kernel (for attribute and occupancy queries).
    pub fn kernel(&self) -> &Kernel {
        &self.plain.filter
    }

    /// Launches `plr_filter` of `run` (its layout's kernel) over the view's channels of
    /// `n > 0` samples; `zi` is the state (the constants when there is none) and whether to
    /// read it.
    fn launch_filter(
        &self,
        target: &GpuTarget,
        run: &FilterRun<'_, T>,
        x: DeviceSlice<'_, T>,
        mut y: DeviceSliceMut<'_, T>,
        (zi, has_zi): (DeviceSlice<'_, T>, i32),
    ) -> Result<(), FilterError> {
        let (n, channels, generated) = (run.n, run.view.channels, &run.kernels.generated);
        let width = if run.view.kernel.pairs { 2 } else { 1 };
        let chunk = generated.config.chunk();
        let per_channel = n.div_ceil(chunk);
        let chunks = per_channel * channels;
        if chunks > i32::MAX as usize {
            return Err(FilterError::Input(format!(
                "{chunks} chunks of {chunk} elements is more than one launch can take"
            )));
        }
        let (n64, cs64, per_channel) =
            (n as i64, run.view.channel_stride as i64, per_channel as i64);
        let mut guard = self.lookback.lock().unwrap_or_else(|p| p.into_inner());
        let before = guard.as_ref().map(|lb| (lb.chunks, lb.width, lb.epoch));
        // The tail-carry kernel has no look-back: it takes (and needs) none of its state.
        let lookback = match generated.tail_carry {
            true => None,
            false => Some(self.lookback_for(&mut guard, chunks, width)?),
        };
        // The constants and the look-back buffers are uploaded, allocated and reset on the
        // device's own stream, which a caller's stream is not ordered after: wait for that
        // work when there was some (a new filter or buffer, a wrapped epoch).
        let fresh = lookback.as_ref().is_some_and(|lb| {
            before.map(|b| (b.0, b.1)) != Some((lb.chunks, lb.width)) || lb.epoch == 1
        });
        if fresh && !target.owns_stream() {
            self.gpu.synchronize()?;
        }
        let constants = DeviceSlice::of(&run.kernels.constants);
        // plr_filter(x, y, n, cs, chunks_per_channel, zi, has_zi, consts[, flags, aggs, incls,
        // counters, epoch]): channel c of x and y starts cs values after channel c - 1 and
        // holds n, zi channels × NSTATE values (or is not read: has_zi = 0), the look-back
        // buffers at least `chunks` entries (× K values).
        let mut launch = target.launch(&run.kernels.filter);
        launch
            .slice(&x)
            .slice_mut(&mut y)
            .arg(&n64)
            .arg(&cs64)
            .arg(&per_channel)
            .slice(&zi)
            .arg(&has_zi)
            .slice(&constants);
        if let Some(Lookback {
            flags,
            aggs,
            incls,
            counters,
            epoch,
            ..
        }) = lookback
        {
            launch
                .buf_mut(flags)
                .buf_mut(aggs)
                .buf_mut(incls)
                .buf_mut(counters)
                .arg(&*epoch);
        }
        let config = LaunchConfig {
            grid_dim: (chunks as u32, 1, 1),
            block_dim: (generated.block_threads() as u32, 1, 1),
            shared_mem_bytes: generated.shared_bytes as u32,
        };
        Ok(launch.run(config)?)
    }

    /// Uploads, filters and downloads: y and zf for `channels` channels.
    pub fn apply(
        &self,
        gpu: &Gpu,
        x: &[T],
        channels: usize,
        zi: Option<&[T]>,
    ) -> Result<(Vec<T>, Vec<T>), FilterError> {
        let mut io = DeviceIo::upload(gpu, x, zi, self.filter.state_len() * channels)?;
        let zf = (io.state > 0).then_some(&mut io.zf);
        self.run(gpu, &io.x, &mut io.y, channels, io.zi.as_ref(), zf)?;
        io.download(gpu)
    }

    /// [`GpuFilter::apply`], with the time the copies and the kernels took (the upload is
    /// waited for, so the kernels run alone between their events).
    pub fn apply_timed(
        &self,
        gpu: &Gpu,
        x: &[T],
        channels: usize,
        zi: Option<&[T]>,
    ) -> Result<(Vec<T>, Vec<T>, RunTimes), FilterError> {
        let start = Instant::now();
        let mut io = DeviceIo::upload(gpu, x, zi, self.filter.state_len() * channels)?;
        gpu.stream().synchronize().context("copying the input")?;
        let upload = start.elapsed().as_secs_f64();
        // One run between CUDA events: the kernel (and the small final-state kernel).
        let zf = (io.state > 0).then_some(&mut io.zf);
        let timing = self.time_run(gpu, (0, 1), &io.x, &mut io.y, channels, io.zi.as_ref(), zf)?;
        let start = Instant::now();
        let (y, zf) = io.download(gpu)?;
        let times = RunTimes {
            transfer_seconds: upload + start.elapsed().as_secs_f64(),
            compute_seconds: timing.median_ms * 1e-3,
        };
        Ok((y, zf, times))
    }

    /// The look-back buffers for `chunks` chunks, and a fresh epoch for this launch.
    /// `width` values per carry (2 for interleaved pairs).
    fn lookback_for<'a>(
        &self,
        slot: &'a mut Option<Lookback<T>>,
        chunks: usize,
        width: usize,
    ) -> Result<&'a mut Lookback<T>, FilterError> {
        let (gpu, k) = (&self.gpu, self.filter.order());
        let stream = gpu.stream();
        let what = "allocating look-back state";
        if slot
            .as_ref()
            .is_none_or(|lb| lb.chunks < chunks || lb.width < width)
        {
            let chunks = chunks.next_power_of_two();
            let width = width.max(slot.as_ref().map_or(1, |lb| lb.width));
            *slot = Some(Lookback {
                flags: stream.alloc_zeros::<u32>(chunks).context(what)?,
                aggs: gpu.alloc_poisoned::<T>(chunks * k * width)?,
                incls: gpu.alloc_poisoned::<T>(chunks * k * width)?,
                counters: stream.alloc_zeros::<u32>(2).context(what)?,
                chunks,
                width,
                epoch: 0,
            });
        }
        let lb = slot.as_mut().expect("allocated above");
        if lb.epoch >= MAX_EPOCH {
            stream.memset_zeros(&mut lb.flags).context(what)?;
            stream.memset_zeros(&mut lb.counters).context(what)?;
            lb.epoch = 0;
        }
        lb.epoch += 1;
        Ok(lb)
    }
}

/// A filter compiled for one GPU (the PLR kernel, the fused sections): it filters channels of
/// device memory — buffers sigpu owns or a caller's, as views — on a target's stream. One
/// launch path for owned and foreign memory alike.
pub trait DeviceFilter<T: Element>: Send + Sync {
    /// Filters `channels` channels of equal length stored one after another in `x` into `y`,
    /// on `target`'s stream; zi / zf hold the state of each channel. Only enqueues. A view or
    /// target of another device than the filter's is an error, not a launch.
    fn launch(&self, target: &GpuTarget, batch: DeviceBatch<'_, T>) -> Result<(), FilterError>;

    /// [`DeviceFilter::launch`] for channels of `n` samples laid out as `layout` says
    /// (interleaved pairs, backwards, strided). Kernels that read channels one after another
    /// only take the contiguous layout and refuse others with the reason.
    fn launch_laid_out(
        &self,
        target: &GpuTarget,
        batch: DeviceBatch<'_, T>,
        n: usize,
        layout: ChannelLayout,
    ) -> Result<(), FilterError> {
        if layout.is_contiguous(batch.channels, n) && batch.x.len() == batch.channels * n {
            return self.launch(target, batch);
        }
        Err(refused_layout(&layout))
    }

    /// Whether [`DeviceFilter::launch_laid_out`] takes `layout` for `channels` channels of `n`
    /// samples (the contiguous layout, unless the kernel reads others).
    fn reads_layout(&self, layout: &ChannelLayout, channels: usize, n: usize) -> bool {
        layout.is_contiguous(channels, n)
    }

    /// [`DeviceFilter::launch`] on buffers sigpu owns, on the GPU's own stream.
    fn run(
        &self,
        gpu: &Gpu,
        x: &DeviceBuffer<T>,
        y: &mut DeviceBuffer<T>,
        channels: usize,
        zi: Option<&DeviceBuffer<T>>,
        zf: Option<&mut DeviceBuffer<T>>,
    ) -> Result<(), FilterError> {
        let batch = DeviceBatch {
            x: DeviceSlice::of(x),
            channels,
            y: DeviceSliceMut::of(y),
            zi: zi.map(DeviceSlice::of),
            zf: zf.map(DeviceSliceMut::of),
        };
        self.launch(&GpuTarget::new(gpu.clone()), batch)
    }

    /// [`DeviceFilter::run`] timed with CUDA events: `warmup` untimed runs, then the median of
    /// `runs`.
    #[allow(clippy::too_many_arguments)]
    fn time_run(
        &self,
        gpu: &Gpu,
        (warmup, runs): (usize, usize),
        x: &DeviceBuffer<T>,
        y: &mut DeviceBuffer<T>,
        channels: usize,
        zi: Option<&DeviceBuffer<T>>,
        mut zf: Option<&mut DeviceBuffer<T>>,
    ) -> Result<Timing, FilterError> {
        time_gpu(gpu, warmup, runs, || {
            self.run(gpu, x, y, channels, zi, zf.as_deref_mut())
        })
    }
}

impl<T: Element> DeviceFilter<T> for GpuFilter<T> {
    /// `zi` / `zf` hold `state_len()` values per channel.
    ///
    /// Launches of one `GpuFilter` share its look-back state, so they must be ordered: use
    /// one `GpuFilter` per stream (the planner's cache keys them by stream).
    fn launch(&self, target: &GpuTarget, batch: DeviceBatch<'_, T>) -> Result<(), FilterError> {
        let zi_len = batch.zi.map(|z| z.len());
        let n = (self.filter).check_shapes(batch.x.len(), batch.channels, batch.y.len(), zi_len)?;
        self.launch_laid_out(target, batch, n, ChannelLayout::contiguous(n))
    }

    fn launch_laid_out(
        &self,
        target: &GpuTarget,
        batch: DeviceBatch<'_, T>,
        n: usize,
        layout: ChannelLayout,
    ) -> Result<(), FilterError> {
        GpuFilter::launch_laid_out(self, target, batch, n, layout)
    }

    /// Every layout [`ChannelLayout`] describes (its check at the launch says what does not
    /// fit the views).
    fn reads_layout(&self, _layout: &ChannelLayout, _channels: usize, _n: usize) -> bool {
        true
    }
}

/// The refusal of a layout a kernel does not read, with the way out.
pub(crate) fn refused_layout(layout: &ChannelLayout) -> FilterError {
    FilterError::Refused(format!(
        "this kernel does not read channels at sample stride {} and channel stride {} in \
         place: copy the data to rows",
        layout.sample_stride, layout.channel_stride
    ))
}

/// One launch of a filter kernel: the kernels of the view's layout.
struct FilterRun<'a, T> {
    kernels: &'a Kernels<T>,
    view: LaunchLayout,
    n: usize,
}

/// Loads the filter and final-state kernels of `generated`, opting in to the shared memory its
/// tiles need.
fn load_kernels<T: Element>(gpu: &Gpu, generated: Generated<T>) -> Result<Kernels<T>, FilterError> {
    let source = generated.kernel_source();
    let filter = gpu.kernel(&source, FILTER_KERNEL)?;
    if generated.shared_bytes > 48 * 1024 {
        // Over the 48 KiB a block gets by default: opt in (512 x 32 4-byte values: 64 KiB).
        filter
            .function()
            .set_attribute(
                CUfunction_attribute_enum::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                generated.shared_bytes as i32,
            )
            .context("opting in to the transpose tiles' shared memory")?;
    }
    let state = gpu.kernel(&source, STATE_KERNEL)?;
    let constants = gpu.upload(&generated.constants)?;
    Ok(Kernels {
        generated,
        filter,
        state,
        constants,
    })
}

/// The device side of one [`GpuFilter::apply`]: the signal, the output, the initial and final
/// state (`state` values; zf is poisoned until the kernel writes it).
struct DeviceIo<T: Element> {
    x: DeviceBuffer<T>,
    y: DeviceBuffer<T>,
    zi: Option<DeviceBuffer<T>>,
    zf: DeviceBuffer<T>,
    state: usize,
}

impl<T: Element> DeviceIo<T> {
    fn upload(gpu: &Gpu, x: &[T], zi: Option<&[T]>, state: usize) -> Result<Self, FilterError> {
        Ok(DeviceIo {
            x: gpu.upload(x)?,
            y: gpu.alloc_poisoned::<T>(x.len())?,
            zi: zi.map(|z| gpu.upload(z)).transpose()?,
            zf: gpu.alloc_poisoned::<T>(state.max(1))?,
            state,
        })
    }

    /// y and zf back on the host.
    fn download(self, gpu: &Gpu) -> Result<(Vec<T>, Vec<T>), FilterError> {
        let y = gpu.download(&self.y)?;
        let zf = if self.state > 0 {
            gpu.download(&self.zf)?
        } else {
            Vec::new()
        };
        Ok((y, zf))
    }
}
