//! [`GpuSos`]: scipy's `sosfilt` on a GPU with every section fused into one kernel, so the
//! signal is read once and written once whatever the number of sections. Each section's
//! carries between chunks are resolved by a single-pass decoupled look-back in double
//! precision; the correction tables are exact powers of each section's state transition,
//! computed on the host in double-double and rounded once ([`SosTables`]). The kernel is the
//! header `kernels/sos.cuh` behind a generated prelude holding the tables as constants.
//!
//! ```no_run
//! use sigpu_recurrence::GpuSos;
//! use sigpu_runtime::cuda::Gpu;
//!
//! let gpu = Gpu::open_with_compiler(0)?;
//! // scipy.signal.butter(2, 0.1, output='sos')
//! let sos = [[0.020083365564211232, 0.040166731128422464, 0.020083365564211232,
//!             1.0, -1.5610180758007182, 0.6413515380575631]];
//! let filter = GpuSos::<f32>::new(&gpu, &sos)?;
//! let x = vec![1.0f32; 3 * 100_000]; // 3 channels, one after another
//! let zi = vec![0.0f32; 3 * filter.state_len()]; // [channel][section][2]
//! let (y, zf) = filter.apply(&gpu, &x, 3, Some(&zi))?;
//! assert_eq!((y.len(), zf.len()), (x.len(), 6));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::sos_tables::{short_hash, SosTables, SOS_HEADER, SOS_HEADER_NAME, SOS_KERNEL};
pub use super::sos_tables::{sos_coefficients, SosConfig};
use super::{refused_layout, DeviceFilter};
use crate::elem::Element;
use crate::engine::DeviceBatch;
use crate::error::FilterError;
use crate::layout::ChannelLayout;
use crate::sos::BlockedPeaks;
use sigpu_runtime::cuda::cudarc::driver::sys::{self, CUevent_flags};
use sigpu_runtime::cuda::cudarc::driver::{
    result, CudaEvent, DevicePtr, DevicePtrMut, LaunchConfig,
};
use sigpu_runtime::cuda::{
    DeviceBuffer, DeviceSlice, DeviceSliceMut, DriverContext, Gpu, Kernel, KernelSource,
};
use sigpu_runtime::GpuTarget;
use std::ffi::c_void;
use std::sync::Mutex;

/// y, zf and each channel's peaks of a checked host call ([`GpuSos::apply_checked`]).
pub type Checked<T> = (Vec<T>, Vec<T>, Vec<BlockedPeaks>);

/// Epochs wrap before they overflow the 30 bits a flag keeps for them.
const MAX_EPOCH: u32 = (1 << 30) - 1;

/// A second-order-section cascade compiled for one GPU and element type (f32 or f64).
pub struct GpuSos<T: Element> {
    gpu: Gpu,
    tables: SosTables<T>,
    kernel: Kernel,
    /// The kernel reading and writing channels backwards (`SOS_REVERSED`), compiled on first
    /// use.
    reversed: std::sync::OnceLock<Kernel>,
    /// A^(l V) in the kernel's arithmetic (f64, or f32 for the fast kernel of f32 signals).
    lane_pow: LanePow,
    chunk_pow: DeviceBuffer<f64>,
    lookback: Mutex<Option<Lookback>>,
}

/// Orders `stream`'s later work after `event`.
fn wait_for(stream: sys::CUstream, event: &CudaEvent) -> Result<(), result::DriverError> {
    // SAFETY: both handles belong to the filter's context and are alive.
    unsafe {
        result::stream::wait_event(
            stream,
            event.cu_event(),
            sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT,
        )
    }
}

/// The lane powers on the device, in the kernel's arithmetic.
enum LanePow {
    F32(DeviceBuffer<f32>),
    F64(DeviceBuffer<f64>),
}

/// Per (chunk, section) flags and states for the look-back, the chunk counters, and an event
/// recorded after each launch so that launches on different streams never overlap on them.
struct Lookback {
    flags: DeviceBuffer<u32>,
    aggs: DeviceBuffer<[f64; 2]>,
    incls: DeviceBuffer<[f64; 2]>,
    counters: DeviceBuffer<u32>,
    /// The peaks of unchecked launches ([`DeviceFilter::launch`]): written, never read.
    peaks: DeviceBuffer<u64>,
    slots: usize,
    epoch: u32,
    done: CudaEvent,
}

/// One call on raw device memory, for [`GpuSos::run_raw`]: addresses as integers
/// (`CUdeviceptr`), 0 for an absent zi / zf.
#[derive(Clone, Copy, Debug)]
pub struct RawSosCall {
    pub x: u64,
    pub y: u64,
    /// Samples per channel.
    pub n: usize,
    pub channels: usize,
    pub zi: u64,
    pub zf: u64,
    /// A `CUstream` handle as an integer (torch: `torch.cuda.current_stream().cuda_stream`,
    /// cupy: `cupy.cuda.get_current_stream().ptr`); 0 is the legacy default stream.
    pub stream: usize,
}

pub use crate::sos::{
    SAME_TYPE_MAX_CORRECTION, SAME_TYPE_MAX_RADIUS, SAME_TYPE_MEAN_CORRECTION,
    SAME_TYPE_PASSBAND_FACTOR, SAME_TYPE_PASSBAND_UP_TO,
};

/// How far the correction peak of a kernel computing in the signal's type may exceed the output
/// peak, for a cascade whose passband correction ratio is `passband`
/// ([`SosTables::passband_correction`]): [`SAME_TYPE_MAX_CORRECTION`], or up to
/// [`SAME_TYPE_PASSBAND_UP_TO`] [`SAME_TYPE_PASSBAND_FACTOR`] times the ratio where that is more.
pub fn same_type_correction_limit(passband: f64) -> f64 {
    match passband <= SAME_TYPE_PASSBAND_UP_TO {
        true => SAME_TYPE_MAX_CORRECTION.max(SAME_TYPE_PASSBAND_FACTOR * passband),
        false => SAME_TYPE_MAX_CORRECTION,
    }
}

/// Whether the fused kernel's result for one channel keeps the contract, from its peaks, the
/// cascade's largest pole radius, whether the kernel computed in f64 (`wide`) or in the
/// signal's own type, and its passband correction ratio ([`SosTables::passband_correction`]).
/// f64 arithmetic on f32 signals: the CPU engine's rule (both compute in f64; over 150
/// stopband-heavy f32 cases the error stayed below 1e-3 of SciPy's). The signal's own type:
/// corrections within [`same_type_correction_limit`] of the output at their peaks and
/// [`SAME_TYPE_MEAN_CORRECTION`] on average, zero-state outputs within 2× and poles within
/// [`SAME_TYPE_MAX_RADIUS`] (396 f32 cases, 100 f64 ones, stopband-heavy and white: every run
/// kept by the peaks rule within 2× SciPy's error, but for DC plus noise through a narrow
/// band-pass, which the average catches).
pub fn gpu_keeps_contract<T: Element>(
    peaks: &BlockedPeaks,
    max_radius: f64,
    wide: bool,
    passband: f64,
) -> bool {
    if wide && T::DTYPE == crate::elem::DType::F32 {
        return peaks.keeps_contract::<T>();
    }
    max_radius <= SAME_TYPE_MAX_RADIUS
        && peaks.correction <= same_type_correction_limit(passband) * peaks.output
        && peaks.local <= 2.0 * peaks.output
        && peaks.correction_sum <= SAME_TYPE_MEAN_CORRECTION * peaks.output_sum
}

/// The kernel's peaks per channel: the three maxima and the two sums of [`BlockedPeaks`], as
/// the bits of doubles (`kernels/sos.cuh`).
const PEAK_SLOTS: usize = 5;

pub use crate::bounds::max_pole_radius;

impl<T: Element> GpuSos<T> {
    /// The cascade of scipy's sos rows `[b0 b1 b2 a0 a1 a2]` with the default launch shape.
    /// Refuses (naming the row and column) an empty list, a0 ≠ 1, NaN or infinite values,
    /// values that do not fit `T`, an unstable section and element types other than f32/f64.
    /// The shape is the device's section policy ([`Gpu::policies`]).
    pub fn new(gpu: &Gpu, sos: &[[f64; 6]]) -> Result<Self, FilterError> {
        let on_device = SosConfig {
            threads: 0,
            ..SosConfig::default()
        };
        Self::with_config(gpu, sos, on_device)
    }

    /// The cascade with launch shape `config` (threads 0: the device's section policy).
    pub fn with_config(
        gpu: &Gpu,
        sos: &[[f64; 6]],
        config: SosConfig,
    ) -> Result<Self, FilterError> {
        let coefs = sos_coefficients::<T>(sos)?;
        let config = (config.on_device(&gpu.policies().sos, T::DTYPE)).normalized(T::DTYPE)?;
        // f64 arithmetic on f32 signals computes with the coefficients as given (the fast
        // kernel, in f32, with T's values)
        let tables = match config.wide && T::DTYPE == crate::elem::DType::F32 {
            true => SosTables::holding(coefs, sos.to_vec(), config),
            false => SosTables::new(coefs, config),
        };
        let kernel = gpu.kernel(&kernel_source(&tables), SOS_KERNEL)?;
        Ok(GpuSos {
            gpu: gpu.clone(),
            lane_pow: match tables.config.wide {
                true => LanePow::F64(gpu.upload(&tables.lane_pow)?),
                false => {
                    let narrow: Vec<f32> = tables.lane_pow.iter().map(|&v| v as f32).collect();
                    LanePow::F32(gpu.upload(&narrow)?)
                }
            },
            chunk_pow: gpu.upload(&tables.chunk_pow)?,
            tables,
            kernel,
            reversed: std::sync::OnceLock::new(),
            lookback: Mutex::new(None),
        })
    }

    pub fn sections(&self) -> usize {
        self.tables.sections()
    }

    /// zi / zf values per channel: 2 per section.
    pub fn state_len(&self) -> usize {
        2 * self.sections()
    }

    /// The coefficients as rounded to `T`, rows of 6.
    pub fn coefficients(&self) -> &[[T; 6]] {
        &self.tables.coefs
    }

    /// The compiled kernel (for attribute and occupancy queries).
    pub fn kernel(&self) -> &Kernel {
        &self.kernel
    }

    /// The launch shape in use.
    pub fn config(&self) -> SosConfig {
        self.tables.config
    }

    /// The tables the kernel runs with (for the CPU emulation and the benchmark's report).
    pub fn tables(&self) -> &SosTables<T> {
        &self.tables
    }

    /// [`DeviceFilter::launch`] on raw addresses and a raw stream handle (kept for callers that
    /// hold bare pointers; new code makes views and a [`GpuTarget`]). `y` may equal `x` (in
    /// place) and `zf` may equal `zi`.
    ///
    /// # Safety
    /// As [`DeviceSlice::from_raw`] for every address (`channels * n` values of `T` for `x` and
    /// `y`, `channels * state_len()` for `zi` and `zf` when not 0), and `stream` a stream of
    /// `gpu`'s primary context or 0, alive until the work is done.
    pub unsafe fn run_raw(&self, gpu: &Gpu, call: RawSosCall) -> Result<(), FilterError> {
        if call.x == 0 || call.y == 0 {
            return Err(FilterError::Input(
                "x and y must be device addresses, not 0".into(),
            ));
        }
        let total = call.n.checked_mul(call.channels).ok_or_else(|| {
            FilterError::Input(format!(
                "{} channels x {} samples overflows",
                call.channels, call.n
            ))
        })?;
        let state = call.channels * self.state_len();
        // SAFETY: the caller's contract (above).
        unsafe {
            let target = GpuTarget::on_stream(gpu.clone(), call.stream as u64);
            let batch = DeviceBatch {
                x: DeviceSlice::from_raw(call.x, total, gpu),
                channels: call.channels,
                y: DeviceSliceMut::from_raw(call.y, total, gpu),
                zi: (call.zi != 0).then(|| DeviceSlice::from_raw(call.zi, state, gpu)),
                zf: (call.zf != 0).then(|| DeviceSliceMut::from_raw(call.zf, state, gpu)),
            };
            self.launch(&target, batch)
        }
    }

    /// Uploads `channels` channels, filters them with [`GpuSos::launch_checked`] on `gpu`'s
    /// stream and downloads (y, zf, the peaks of each channel).
    pub fn apply_checked(
        &self,
        gpu: &Gpu,
        x: &[T],
        channels: usize,
        zi: Option<&[T]>,
    ) -> Result<Checked<T>, FilterError> {
        self.check_shapes(x.len(), x.len(), channels, zi.map(<[T]>::len), None)?;
        if x.is_empty() {
            let zf = zi.map_or_else(|| vec![T::ZERO; channels * self.state_len()], <[T]>::to_vec);
            return Ok((Vec::new(), zf, vec![BlockedPeaks::default(); channels]));
        }
        let dx = gpu.upload(x)?;
        let mut dy = gpu.alloc_poisoned::<T>(x.len())?;
        let dzi = zi.map(|z| gpu.upload(z)).transpose()?;
        let mut dzf = gpu.alloc_poisoned::<T>(channels * self.state_len())?;
        let batch = DeviceBatch {
            x: DeviceSlice::of(&dx),
            channels,
            y: DeviceSliceMut::of(&mut dy),
            zi: dzi.as_ref().map(DeviceSlice::of),
            zf: Some(DeviceSliceMut::of(&mut dzf)),
        };
        let peaks = self.launch_checked(&GpuTarget::new(gpu.clone()), batch)?;
        Ok((gpu.download(&dy)?, gpu.download(&dzf)?, peaks))
    }

    /// Whether the kernel computes in f64 ([`SosConfig::wide`], always for f64 signals).
    pub fn wide(&self) -> bool {
        self.tables.config.wide
    }

    /// [`DeviceFilter::launch`], then waits for the stream and returns what the kernel measured
    /// of each channel ([`BlockedPeaks`]): a channel whose peaks do not
    /// [keep the contract](BlockedPeaks::keeps_contract) must be filtered again serially.
    pub fn launch_checked(
        &self,
        target: &GpuTarget,
        batch: DeviceBatch<'_, T>,
    ) -> Result<Vec<BlockedPeaks>, FilterError> {
        self.launch_checked_in(target, batch, false)
    }

    /// [`GpuSos::launch_checked`] with every channel stored backwards in time
    /// (`ChannelLayout::reversed`: logical sample i at position n − 1 − i) when `reversed`:
    /// filtered backwards in place, the adjoint of the cascade.
    pub fn launch_checked_in(
        &self,
        target: &GpuTarget,
        batch: DeviceBatch<'_, T>,
        reversed: bool,
    ) -> Result<Vec<BlockedPeaks>, FilterError> {
        let channels = batch.channels;
        if batch.x.is_empty() {
            self.launch(target, batch)?;
            return Ok(vec![BlockedPeaks::default(); channels]);
        }
        let kernel = self.kernel_for(reversed)?;
        let stream = target.stream();
        let mut peaks = stream
            .alloc_zeros::<u64>(PEAK_SLOTS * channels.max(1))
            .context("allocating the peaks")?;
        let (address, guard) = peaks.device_ptr_mut(stream);
        let call = self.call(target, batch)?;
        // SAFETY: as in `launch`; `peaks` holds PEAK_SLOTS values per channel.
        unsafe { self.enqueue(call, address, kernel) }?;
        drop(guard);
        let bits = stream
            .clone_dtoh(&peaks)
            .context("copying the peaks back")?;
        stream.synchronize().context("copying the peaks back")?;
        Ok(bits
            .chunks(PEAK_SLOTS)
            .map(|p| BlockedPeaks {
                local: f64::from_bits(p[0]),
                correction: f64::from_bits(p[1]),
                output: f64::from_bits(p[2]),
                correction_sum: f64::from_bits(p[3]),
                output_sum: f64::from_bits(p[4]),
            })
            .collect())
    }

    /// Lengths against each other; returns the samples per channel.
    fn check_shapes(
        &self,
        x: usize,
        y: usize,
        channels: usize,
        zi: Option<usize>,
        zf: Option<usize>,
    ) -> Result<usize, FilterError> {
        if channels == 0 {
            return Err(FilterError::Input("channels must be at least 1".into()));
        }
        if !x.is_multiple_of(channels) {
            return Err(FilterError::Input(format!(
                "x holds {x} values, not a whole number of samples for {channels} channels"
            )));
        }
        if y != x {
            return Err(FilterError::Input(format!(
                "y holds {y} values; x holds {x}"
            )));
        }
        let s = self.state_len() * channels;
        for (name, len) in [("zi", zi), ("zf", zf)] {
            if let Some(len) = len {
                if len != s {
                    return Err(FilterError::Input(format!(
                        "{name} holds {len} values; {channels} channel(s) x {} section(s) x 2 \
                         need {s} (layout [channel][section][2])",
                        self.sections()
                    )));
                }
            }
        }
        Ok(x / channels)
    }

    /// Enqueues the kernel (or, for empty channels, zf = zi) on `call.stream`. `peaks`: a
    /// device address of `PEAK_SLOTS * channels` u64 the kernel's peaks go to (zeroed here first), or 0
    /// for the filter's own scratch (unread).
    unsafe fn enqueue(
        &self,
        call: RawSosCall,
        peaks: u64,
        kernel: &Kernel,
    ) -> Result<(), FilterError> {
        let gpu = &self.gpu;
        let stream = call.stream as sys::CUstream;
        gpu.context()
            .bind_to_thread()
            .context("making the GPU's context current")?;
        let (n, channels) = (call.n, call.channels);
        let state_bytes = channels * self.state_len() * std::mem::size_of::<T>();
        if n == 0 || channels == 0 {
            if call.zf != 0 && call.zf != call.zi {
                let r = if call.zi != 0 {
                    unsafe { result::memcpy_dtod_async(call.zf, call.zi, state_bytes, stream) }
                } else {
                    unsafe { result::memset_d8_async(call.zf, 0, state_bytes, stream) }
                };
                r.context("setting zf of empty channels")?;
            }
            return Ok(());
        }
        let chunk = self.tables.config.chunk();
        let per_channel = n.div_ceil(chunk);
        let chunks = per_channel * channels;
        if chunks > i32::MAX as usize / self.sections().max(1) {
            return Err(FilterError::Input(format!(
                "{chunks} chunks of {chunk} samples is more than one launch can take"
            )));
        }
        let mut guard = self.lookback.lock().unwrap_or_else(|p| p.into_inner());
        let lb = self.lookback_for(&mut guard, chunks * self.sections())?;
        let what = "ordering the launch after the previous one";
        // The previous launch (on whatever stream) is done with the look-back state first.
        wait_for(stream, &lb.done).context(what)?;
        let (flags, _g1) = lb.flags.device_ptr_mut(gpu.stream());
        let (aggs, _g2) = lb.aggs.device_ptr_mut(gpu.stream());
        let (incls, _g3) = lb.incls.device_ptr_mut(gpu.stream());
        let (counters, _g4) = lb.counters.device_ptr_mut(gpu.stream());
        let (lane_pow, _g5) = match &self.lane_pow {
            LanePow::F32(b) => b.device_ptr(gpu.stream()),
            LanePow::F64(b) => b.device_ptr(gpu.stream()),
        };
        let (chunk_pow, _g6) = self.chunk_pow.device_ptr(gpu.stream());
        let own_peaks = peaks == 0;
        if own_peaks && lb.peaks.len() < PEAK_SLOTS * channels {
            // Launches still queued may write the old scratch: wait for them to finish.
            lb.done
                .synchronize()
                .context("allocating the peaks' scratch")?;
            lb.peaks = gpu
                .stream()
                .alloc_zeros::<u64>(PEAK_SLOTS * channels)
                .context("allocating the peaks' scratch")?;
            // This launch starts after the allocation.
            lb.done
                .record(gpu.stream())
                .context("allocating the peaks' scratch")?;
            wait_for(stream, &lb.done).context(what)?;
        }
        let (scratch, _g7) = lb.peaks.device_ptr_mut(gpu.stream());
        let mut peaks = if own_peaks { scratch } else { peaks };
        unsafe { result::memset_d8_async(peaks, 0, PEAK_SLOTS * channels * 8, stream) }
            .context("zeroing the peaks")?;
        let (mut x, mut y, mut zi, mut zf) = (call.x, call.y, call.zi, call.zf);
        let (mut n64, mut per64) = (n as i64, per_channel as i64);
        let (mut has_zi, mut has_zf) = (i32::from(call.zi != 0), i32::from(call.zf != 0));
        let (mut lane_pow, mut chunk_pow) = (lane_pow, chunk_pow);
        let (mut flags, mut aggs, mut incls, mut counters) = (flags, aggs, incls, counters);
        let mut epoch = lb.epoch;
        let mut params: [*mut c_void; 16] = [
            (&mut x) as *mut u64 as *mut c_void,
            (&mut y) as *mut u64 as *mut c_void,
            (&mut n64) as *mut i64 as *mut c_void,
            (&mut per64) as *mut i64 as *mut c_void,
            (&mut zi) as *mut u64 as *mut c_void,
            (&mut has_zi) as *mut i32 as *mut c_void,
            (&mut zf) as *mut u64 as *mut c_void,
            (&mut has_zf) as *mut i32 as *mut c_void,
            (&mut lane_pow) as *mut u64 as *mut c_void,
            (&mut chunk_pow) as *mut u64 as *mut c_void,
            (&mut flags) as *mut u64 as *mut c_void,
            (&mut aggs) as *mut u64 as *mut c_void,
            (&mut incls) as *mut u64 as *mut c_void,
            (&mut counters) as *mut u64 as *mut c_void,
            (&mut epoch) as *mut u32 as *mut c_void,
            (&mut peaks) as *mut u64 as *mut c_void,
        ];
        if let Some(sizes) = kernel.param_sizes() {
            let want = [8, 8, 8, 8, 8, 4, 8, 4, 8, 8, 8, 8, 8, 8, 4, 8];
            if sizes != want {
                return Err(FilterError::Config(format!(
                    "{SOS_KERNEL} takes parameters of {sizes:?} bytes, the launch passes {want:?}"
                )));
            }
        }
        let cpb = self.tables.chunks_per_block();
        let blocks = per_channel.div_ceil(cpb) * channels;
        let config = LaunchConfig {
            grid_dim: (blocks as u32, 1, 1),
            block_dim: (self.tables.block_threads() as u32, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: the parameters match the kernel's (checked above where the driver reports
        // them; by construction of sos.cuh otherwise) and point at locals alive for the call;
        // the look-back buffers hold `chunks * sections` slots; the rest is the caller's.
        unsafe {
            result::launch_kernel(
                kernel.function().cu_function(),
                config.grid_dim,
                config.block_dim,
                0,
                stream,
                &mut params,
            )
        }
        .context(format_args!("launching {SOS_KERNEL}"))?;
        unsafe { result::event::record(lb.done.cu_event(), stream) }
            .context("recording the launch's event")?;
        Ok(())
    }

    /// The look-back buffers for `slots` (chunk, section) pairs, and a fresh epoch.
    fn lookback_for<'a>(
        &self,
        slot: &'a mut Option<Lookback>,
        slots: usize,
    ) -> Result<&'a mut Lookback, FilterError> {
        let gpu = &self.gpu;
        let stream = gpu.stream();
        let what = "allocating look-back state";
        if slot.as_ref().is_none_or(|lb| lb.slots < slots) {
            if let Some(old) = slot.as_ref() {
                // Launches still queued may use the old buffers: wait for them to finish.
                old.done.synchronize().context(what)?;
            }
            let slots = slots.next_power_of_two();
            let done = gpu
                .context()
                .new_event(Some(CUevent_flags::CU_EVENT_DISABLE_TIMING))
                .context(what)?;
            *slot = Some(Lookback {
                flags: stream.alloc_zeros::<u32>(slots).context(what)?,
                aggs: stream.alloc_zeros::<[f64; 2]>(slots).context(what)?,
                incls: stream.alloc_zeros::<[f64; 2]>(slots).context(what)?,
                counters: stream.alloc_zeros::<u32>(2).context(what)?,
                peaks: stream.alloc_zeros::<u64>(3).context(what)?,
                slots,
                epoch: 0,
                done,
            });
            let lb = slot.as_ref().expect("just set");
            // Launches on other streams start after the zeroing.
            lb.done.record(stream).context(what)?;
        }
        let lb = slot.as_mut().expect("allocated above");
        if lb.epoch >= MAX_EPOCH {
            lb.done.synchronize().context(what)?;
            stream.memset_zeros(&mut lb.flags).context(what)?;
            stream.memset_zeros(&mut lb.counters).context(what)?;
            lb.done.record(stream).context(what)?;
            lb.epoch = 0;
        }
        lb.epoch += 1;
        Ok(lb)
    }

    /// Uploads, filters and downloads: (y, zf) for `channels` channels (zf always computed;
    /// from zero state without zi).
    pub fn apply(
        &self,
        gpu: &Gpu,
        x: &[T],
        channels: usize,
        zi: Option<&[T]>,
    ) -> Result<(Vec<T>, Vec<T>), FilterError> {
        let (y, zf, _) = self.apply_checked(gpu, x, channels, zi)?;
        Ok((y, zf))
    }
}

impl<T: Element> GpuSos<T> {
    /// The call's addresses and shape, checked against each other and the filter's device.
    fn call(
        &self,
        target: &GpuTarget,
        batch: DeviceBatch<'_, T>,
    ) -> Result<RawSosCall, FilterError> {
        let DeviceBatch {
            x,
            channels,
            y,
            zi,
            zf,
        } = batch;
        let n = self.check_shapes(
            x.len(),
            y.len(),
            channels,
            zi.map(|z| z.len()),
            zf.as_ref().map(|z| z.len()),
        )?;
        let ordinal = self.gpu.ordinal();
        let devices = [
            Some(target.gpu().ordinal()),
            Some(x.ordinal()),
            Some(y.ordinal()),
            zi.map(|z| z.ordinal()),
            zf.as_ref().map(|z| z.ordinal()),
        ];
        if let Some(other) = devices.into_iter().flatten().find(|&d| d != ordinal) {
            return Err(FilterError::Input(format!(
                "the sections were compiled for cuda:{ordinal}; memory or stream of cuda:{other} \
                 was given"
            )));
        }
        let call = RawSosCall {
            x: x.device_ptr(),
            y: y.device_ptr(),
            n,
            channels,
            zi: zi.map_or(0, |z| z.device_ptr()),
            zf: zf.as_ref().map_or(0, |z| z.device_ptr()),
            stream: target.stream().cu_stream() as usize,
        };
        Ok(call)
    }
}

impl<T: Element> DeviceFilter<T> for GpuSos<T> {
    /// zi / zf hold `state_len()` values per channel ([channel][section][2], each section's
    /// (d0, d1) as scipy's sosfilt keeps it). Launches of one `GpuSos` on different streams
    /// are ordered among themselves (they share the look-back state). The kernel's peaks are
    /// not read: [`GpuSos::launch_checked`] is the launch that keeps the contract on any input.
    fn launch(&self, target: &GpuTarget, batch: DeviceBatch<'_, T>) -> Result<(), FilterError> {
        let call = self.call(target, batch)?;
        // SAFETY: the views address the lengths just checked on this device and are borrowed
        // for the call (their owners keep them alive until the stream passes the work); y is
        // exclusive, so it overlaps nothing but what the caller of `from_raw` vouched for.
        unsafe { self.enqueue(call, 0, &self.kernel) }
    }

    /// The contiguous layout, and channels stored backwards one after another
    /// (`ChannelLayout::reversed`, by the `SOS_REVERSED` kernel).
    fn launch_laid_out(
        &self,
        target: &GpuTarget,
        batch: DeviceBatch<'_, T>,
        n: usize,
        layout: ChannelLayout,
    ) -> Result<(), FilterError> {
        if !self.reads_layout(&layout, batch.channels, n) {
            return Err(refused_layout(&layout));
        }
        let reversed = layout.sample_stride < 0;
        let kernel = self.kernel_for(reversed)?;
        let call = self.call(target, batch)?;
        if call.n != n {
            return Err(FilterError::Input(format!(
                "{} channel(s) of {n} samples do not fill views of {} values",
                call.channels,
                call.n * call.channels
            )));
        }
        // SAFETY: as in `launch`.
        unsafe { self.enqueue(call, 0, kernel) }
    }

    fn reads_layout(&self, layout: &ChannelLayout, channels: usize, n: usize) -> bool {
        layout.is_contiguous(channels, n)
            || (layout.sample_stride == -1 && (layout.channel_stride == n || channels <= 1))
    }
}

impl<T: Element> GpuSos<T> {
    /// The plain kernel, or the one reading channels backwards (compiled on first use).
    fn kernel_for(&self, reversed: bool) -> Result<&Kernel, FilterError> {
        if !reversed {
            return Ok(&self.kernel);
        }
        if let Some(k) = self.reversed.get() {
            return Ok(k);
        }
        let source = kernel_source(&self.tables).with_option("-DSOS_REVERSED=1");
        let built = self.gpu.kernel(&source, SOS_KERNEL)?;
        let _ = self.reversed.set(built);
        Ok(self.reversed.get().expect("just set"))
    }
}

impl std::str::FromStr for SosConfig {
    type Err = FilterError;

    /// A launch shape as people write it: `THREADSxVPT` or `default` (the device's policy), then
    /// `cN` for N chunks per block (tail-carry kernel), `l` to force the look-back kernel, and
    /// `/B` to ask the register allocator for B blocks per SM.
    fn from_str(text: &str) -> Result<SosConfig, FilterError> {
        let bad = |what: &str| FilterError::Config(format!("launch shape {text:?}: {what}"));
        let number = |t: &str| {
            t.parse::<usize>()
                .map_err(|_| bad(&format!("{t:?} is not a count")))
        };
        let (t, min_blocks) = match text.trim().split_once('/') {
            Some((shape, b)) => (shape, number(b)?),
            None => (text.trim(), 0),
        };
        let (t, force_look_back) = match t.strip_suffix('l') {
            Some(rest) => (rest, true),
            None => (t, false),
        };
        let (t, chunks_per_block) = match t.split_once('c') {
            Some((shape, c)) => (shape, number(c)?),
            None => (t, 1),
        };
        let base = SosConfig {
            force_look_back,
            min_blocks,
            chunks_per_block,
            ..SosConfig::default()
        };
        if t == "default" {
            // threads 0: the device's section policy
            return Ok(SosConfig { threads: 0, ..base });
        }
        let (a, b) = t
            .split_once('x')
            .ok_or_else(|| bad("expected THREADSxVPT"))?;
        Ok(SosConfig {
            threads: number(a)?,
            vpt: number(b)?,
            ..base
        })
    }
}

/// The generated prelude with the kernel header attached, as NVRTC compiles it.
pub fn kernel_source<T: Element>(tables: &SosTables<T>) -> KernelSource {
    let prelude = tables.prelude();
    let c = tables.config;
    let name = format!(
        "sos_{}_s{}_{}x{}{}c{}_{}.cu",
        T::DTYPE,
        tables.sections(),
        c.threads,
        c.vpt,
        match c.min_blocks {
            0 => String::new(),
            b => format!("b{b}"),
        },
        tables.chunks_per_block(),
        short_hash(&prelude)
    );
    KernelSource::generated(name, prelude).with_header(SOS_HEADER_NAME, SOS_HEADER)
}
