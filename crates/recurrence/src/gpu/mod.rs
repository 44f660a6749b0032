//! The GPU path: [`codegen`] writes a CUDA kernel for one signature and element type, NVRTC
//! compiles it (through `sigpu-runtime`, cached on disk), and [`GpuFilter`] launches it on
//! device buffers: any length, many channels, zi/zf.

mod checks;
pub mod codegen;

pub use checks::checks;
pub use codegen::{generate, Generated, GpuConfig, FILTER_KERNEL, STATE_KERNEL};

use crate::elem::Element;
use crate::filter::{Filter, FilterError};
use sigpu_runtime::cuda::cudarc::driver::{CudaFunction, LaunchConfig, PushKernelArg};
use sigpu_runtime::cuda::DeviceBuffer;
use sigpu_runtime::cuda::{Error, Gpu, KernelSource};
use std::sync::Mutex;

/// Epochs wrap before they overflow the 30 bits a flag keeps for them.
const MAX_EPOCH: u32 = (1 << 30) - 1;

/// A filter compiled for one GPU: the generated kernel, its constants on the device, and
/// the look-back state reused from launch to launch.
pub struct GpuFilter<T: Element> {
    filter: Filter<T>,
    generated: Generated<T>,
    kernel: CudaFunction,
    state_kernel: CudaFunction,
    constants: DeviceBuffer<T>,
    lookback: Mutex<Option<Lookback<T>>>,
}

/// Per-chunk flags and carries for the decoupled look-back, and the chunk counters.
struct Lookback<T> {
    flags: DeviceBuffer<u32>,
    aggs: DeviceBuffer<T>,
    incls: DeviceBuffer<T>,
    counters: DeviceBuffer<u32>,
    chunks: usize,
    epoch: u32,
}

impl<T: Element> GpuFilter<T> {
    /// Generates, compiles (or takes from the kernel cache) and loads the kernel.
    pub fn new(gpu: &Gpu, filter: &Filter<T>, config: GpuConfig) -> Result<Self, FilterError> {
        let generated = generate(filter, config).map_err(FilterError::Coefficients)?;
        let source = KernelSource::generated(generated.name.clone(), generated.source.clone());
        let kernel = gpu.function(&source, FILTER_KERNEL)?;
        let state_kernel = gpu.function(&source, STATE_KERNEL)?;
        let constants = gpu.upload(&generated.constants)?;
        Ok(GpuFilter {
            filter: filter.clone(),
            generated,
            kernel,
            state_kernel,
            constants,
            lookback: Mutex::new(None),
        })
    }

    pub fn filter(&self) -> &Filter<T> {
        &self.filter
    }

    pub fn generated(&self) -> &Generated<T> {
        &self.generated
    }

    /// Filters `channels` channels of equal length, stored one after another in `x`, into
    /// `y`. `zi` / `zf` hold `state_len()` values per channel. Only enqueues work on the
    /// GPU's stream.
    pub fn run(
        &self,
        gpu: &Gpu,
        x: &DeviceBuffer<T>,
        y: &mut DeviceBuffer<T>,
        channels: usize,
        zi: Option<&DeviceBuffer<T>>,
        zf: Option<&mut DeviceBuffer<T>>,
    ) -> Result<(), FilterError> {
        let n = self
            .filter
            .check_shapes(x.len(), channels, y.len(), zi.map(|z| z.len()))?;
        let s = self.filter.state_len();
        if let Some(zf) = &zf {
            if zf.len() != channels * s {
                return Err(FilterError::Input(format!(
                    "zf holds {} values; {channels} channel(s) of state {s} need {}",
                    zf.len(),
                    channels * s
                )));
            }
        }
        let has_zi = i32::from(zi.is_some());
        let zi_buf = zi.unwrap_or(&self.constants);
        let n64 = n as i64;
        if n > 0 {
            let chunk = self.generated.config.chunk();
            let per_channel = n.div_ceil(chunk);
            let chunks = per_channel * channels;
            if chunks > i32::MAX as usize {
                return Err(FilterError::Input(format!(
                    "{chunks} chunks of {chunk} elements is more than one launch can take"
                )));
            }
            let per_channel = per_channel as i64;
            let mut guard = self.lookback.lock().unwrap_or_else(|p| p.into_inner());
            let mut launch = gpu.stream().launch_builder(&self.kernel);
            launch
                .arg(x)
                .arg(&mut *y)
                .arg(&n64)
                .arg(&per_channel)
                .arg(zi_buf)
                .arg(&has_zi)
                .arg(&self.constants);
            // The tail-carry kernel has no look-back: it takes (and needs) none of its state.
            if !self.generated.tail_carry {
                let lb = self.lookback_for(gpu, &mut guard, chunks)?;
                launch
                    .arg(&mut lb.flags)
                    .arg(&mut lb.aggs)
                    .arg(&mut lb.incls)
                    .arg(&mut lb.counters)
                    .arg(&lb.epoch);
            }
            let config = LaunchConfig {
                grid_dim: (chunks as u32, 1, 1),
                block_dim: (self.generated.block_threads() as u32, 1, 1),
                shared_mem_bytes: 0,
            };
            // SAFETY: the arguments match plr_filter's parameters in order and type (the
            // look-back ones only where the generator gave the kernel them); x and y hold
            // channels × n elements, zi channels × NSTATE (or is not read: has_zi = 0), and
            // the look-back buffers hold at least `chunks` entries (× K).
            unsafe { launch.launch(config) }.map_err(|e| launch_error("plr_filter", e))?;
        }
        if let Some(zf) = zf {
            if s > 0 {
                let channels32 = channels as i32;
                let mut launch = gpu.stream().launch_builder(&self.state_kernel);
                launch
                    .arg(x)
                    .arg(&*y)
                    .arg(&n64)
                    .arg(&channels32)
                    .arg(zi_buf)
                    .arg(&has_zi)
                    .arg(zf);
                // SAFETY: arguments match plr_final_state; zf holds channels × NSTATE values.
                unsafe { launch.launch(sigpu_runtime::cuda::grid_1d(channels * s, 128)) }
                    .map_err(|e| launch_error("plr_final_state", e))?;
            }
        }
        Ok(())
    }

    /// Uploads, filters and downloads: y and zf for `channels` channels.
    pub fn apply(
        &self,
        gpu: &Gpu,
        x: &[T],
        channels: usize,
        zi: Option<&[T]>,
    ) -> Result<(Vec<T>, Vec<T>), FilterError> {
        let dx = gpu.upload(x)?;
        let mut dy = gpu.alloc_poisoned::<T>(x.len())?;
        let dzi = zi.map(|z| gpu.upload(z)).transpose()?;
        let s = self.filter.state_len() * channels;
        let mut dzf = gpu.alloc_poisoned::<T>(s.max(1))?;
        let zf_view = if s > 0 { Some(&mut dzf) } else { None };
        self.run(gpu, &dx, &mut dy, channels, dzi.as_ref(), zf_view)?;
        let y = gpu.download(&dy)?;
        let zf = if s > 0 {
            gpu.download(&dzf)?
        } else {
            Vec::new()
        };
        Ok((y, zf))
    }

    /// The look-back buffers for `chunks` chunks, and a fresh epoch for this launch.
    fn lookback_for<'a>(
        &self,
        gpu: &Gpu,
        slot: &'a mut Option<Lookback<T>>,
        chunks: usize,
    ) -> Result<&'a mut Lookback<T>, FilterError> {
        let k = self.filter.order();
        let stream = gpu.stream();
        let alloc_err = |e| launch_error("allocating look-back state", e);
        if slot.as_ref().is_none_or(|lb| lb.chunks < chunks) {
            let chunks = chunks.next_power_of_two();
            *slot = Some(Lookback {
                flags: stream.alloc_zeros::<u32>(chunks).map_err(alloc_err)?,
                aggs: gpu.alloc_poisoned::<T>(chunks * k)?,
                incls: gpu.alloc_poisoned::<T>(chunks * k)?,
                counters: stream.alloc_zeros::<u32>(2).map_err(alloc_err)?,
                chunks,
                epoch: 0,
            });
        }
        let lb = slot.as_mut().expect("allocated above");
        if lb.epoch >= MAX_EPOCH {
            stream.memset_zeros(&mut lb.flags).map_err(alloc_err)?;
            stream.memset_zeros(&mut lb.counters).map_err(alloc_err)?;
            lb.epoch = 0;
        }
        lb.epoch += 1;
        Ok(lb)
    }
}

fn launch_error(what: &str, e: sigpu_runtime::cuda::cudarc::driver::DriverError) -> FilterError {
    FilterError::Gpu(Error::Driver {
        context: what.to_owned(),
        source: e,
    })
}
