//! The batched radix-2 FFT in CLNS on the GPU: one block per transform, in shared memory
//! (twin: [`crate::fft::clns_fft`]).

use super::{kernels, GpuClns};
use crate::error::{ClnsError, Result};
use crate::sb::Method;
use sigpu_runtime::cuda::cudarc::driver::LaunchConfig;
use sigpu_runtime::cuda::DeviceBuffer;

impl GpuClns {
    /// In-place forward FFTs of length `n` (2..=4096) over `data` (batch = len / n), S_b by
    /// `method` (not Blend): one block per transform, in shared memory.
    pub fn fft(&self, method: Method, data: &mut DeviceBuffer<[u32; 2]>, n: usize) -> Result<()> {
        let gpu = &self.gpu;
        let len = data.len();
        if !n.is_power_of_two() || !(2..=4096).contains(&n) || !len.is_multiple_of(n) || len == 0 {
            return Err(ClnsError::FftShape { n, len });
        }
        if n.trailing_zeros() > self.format.angle_bits || method == Method::Blend {
            return Err(ClnsError::FftMethod {
                n,
                method,
                format: self.format.to_string(),
            });
        }
        self.check_method(method)?;
        // One block per transform: the batch is the grid, at most 2^31 − 1 blocks.
        let batch = u32::try_from(len / n)
            .ok()
            .filter(|&b| b <= i32::MAX as u32)
            .ok_or(ClnsError::FftBatch { batch: len / n, n })?;
        let kernel = gpu.kernel(&kernels(), &format!("clns_fft_{method}"))?;
        let (log2n, tex) = (n.trailing_zeros() as i32, self.texture_handle());
        let config = LaunchConfig {
            grid_dim: (batch, 1, 1),
            block_dim: ((n / 2).min(512) as u32, 1, 1),
            // The transform's n values in shared memory.
            shared_mem_bytes: (n * 8) as u32,
        };
        gpu.launch(&kernel)
            .arg(&self.geo)
            .arg(&tex)
            .buf(&self.buffer)
            .buf_mut(data)
            .arg(&log2n)
            .run(config)?;
        Ok(())
    }
}
