//! [`GpuFilter`] on device memory owned by another library (a PyTorch tensor, a CuPy array),
//! launched on the caller's stream: the zero-copy path of the Python package.

use super::GpuFilter;
use crate::elem::Element;
use crate::error::FilterError;
use sigpu_runtime::cuda::cudarc::driver::{CudaStream, LaunchConfig};
use sigpu_runtime::cuda::{grid_1d, Gpu};
use std::sync::Arc;

/// Device addresses of one call: `channels` channels of `n` elements each, one after another.
#[derive(Clone, Copy, Debug)]
pub struct RawIo {
    pub x: u64,
    pub y: u64,
    pub channels: usize,
    pub n: usize,
    /// `channels × state_len()` initial states, or none (zero state).
    pub zi: Option<u64>,
    /// Room for `channels × state_len()` final states, or none.
    pub zf: Option<u64>,
}

impl<T: Element> GpuFilter<T> {
    /// [`GpuFilter::run`] on raw device addresses, enqueued on `stream` (the caller's): only
    /// enqueues. `y` must not overlap `x`.
    ///
    /// Launches of one `GpuFilter` share its look-back state, so they must be ordered: use one
    /// `GpuFilter` per stream.
    ///
    /// [`GpuFilter::new`] uploads the filter's constants on `gpu`'s own stream: synchronise
    /// it ([`Gpu::synchronize`]) once before the first `run_raw` on another stream.
    ///
    /// # Safety
    /// Every address must be a live allocation of `gpu`'s (primary) context holding the
    /// elements `io` says, and stay so until the work on `stream` is done; `stream` must
    /// belong to that context.
    pub unsafe fn run_raw(
        &self,
        gpu: &Gpu,
        stream: &Arc<CudaStream>,
        io: RawIo,
    ) -> Result<(), FilterError> {
        let RawIo {
            x,
            y,
            channels,
            n,
            zi,
            zf,
        } = io;
        let total = channels
            .checked_mul(n)
            .ok_or_else(|| FilterError::Input("channels × length overflows".into()))?;
        self.filter.check_shapes(total, channels, total, None)?;
        let s = self.filter.state_len();
        let has_zi = i32::from(zi.is_some());
        let zi_ptr = zi.unwrap_or(0);
        if n > 0 {
            let chunk = self.generated.config.chunk();
            let per_channel = n.div_ceil(chunk);
            let chunks = per_channel * channels;
            if chunks > i32::MAX as usize {
                return Err(FilterError::Input(format!(
                    "{chunks} chunks of {chunk} elements is more than one launch can take"
                )));
            }
            let (n64, per_channel) = (n as i64, per_channel as i64);
            let mut guard = self.lookback.lock().unwrap_or_else(|p| p.into_inner());
            let before = guard.as_ref().map(|lb| lb.chunks);
            let lookback = match self.generated.tail_carry {
                true => None,
                false => Some(self.lookback_for(gpu, &mut guard, chunks)?),
            };
            // The constants and the look-back buffers are uploaded, allocated and reset on the
            // device's own stream, which the caller's stream is not ordered after: wait for
            // that work when there was some (a new filter or buffer, a wrapped epoch).
            let fresh = lookback
                .as_ref()
                .is_some_and(|lb| before != Some(lb.chunks) || lb.epoch == 1);
            if fresh {
                gpu.synchronize()?;
            }
            let zi_or_consts = if zi.is_some() {
                zi_ptr
            } else {
                use sigpu_runtime::cuda::cudarc::driver::DevicePtr;
                self.constants.device_ptr(gpu.stream()).0
            };
            // Same parameters as `GpuFilter::launch_filter`.
            let mut launch = gpu.launch_on(stream, &self.kernel);
            launch
                .ptr(&x)
                .ptr(&y)
                .arg(&n64)
                .arg(&per_channel)
                .ptr(&zi_or_consts)
                .arg(&has_zi)
                .buf(&self.constants);
            if let Some(lb) = lookback {
                launch
                    .buf_mut(&mut lb.flags)
                    .buf_mut(&mut lb.aggs)
                    .buf_mut(&mut lb.incls)
                    .buf_mut(&mut lb.counters)
                    .arg(&lb.epoch);
            }
            let config = LaunchConfig {
                grid_dim: (chunks as u32, 1, 1),
                block_dim: (self.generated.block_threads() as u32, 1, 1),
                shared_mem_bytes: self.generated.shared_bytes as u32,
            };
            launch.run(config)?;
        }
        if let (Some(zf), true) = (zf, s > 0) {
            let (n64, channels32) = (n as i64, channels as i32);
            let zi_or_consts = if zi.is_some() {
                zi_ptr
            } else {
                use sigpu_runtime::cuda::cudarc::driver::DevicePtr;
                self.constants.device_ptr(gpu.stream()).0
            };
            gpu.launch_on(stream, &self.state_kernel)
                .ptr(&x)
                .ptr(&y)
                .arg(&n64)
                .arg(&channels32)
                .ptr(&zi_or_consts)
                .arg(&has_zi)
                .ptr(&zf)
                .run(grid_1d(channels * s, 128))?;
        }
        Ok(())
    }
}
