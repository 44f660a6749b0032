//! The launch and timing that every Table I and cliff measurement shares.

use anyhow::Result;
use sigpu_clns::gpu::kernels;
use sigpu_runtime::cuda::{self, time_gpu, Gpu, Kernel, LaunchConfig};

/// The Table I and cliff launch: 16 blocks of 256 threads per SM.
pub(super) fn chain_config(gpu: &Gpu) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (gpu.info().sms * 16, 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// The median time in ms of 10 launches of kernel `name` (after 2 warm-up launches).
pub(super) fn median_ms(
    gpu: &Gpu,
    name: &str,
    mut launch: impl FnMut(&Kernel) -> cuda::Result<()>,
) -> Result<f64> {
    let kernel = gpu.kernel(&kernels(), name)?;
    Ok(time_gpu(gpu, 2, 10, || launch(&kernel))?.median_ms)
}
