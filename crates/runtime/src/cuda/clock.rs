//! The SM clock, measured: throughput in results per clock per SM needs the clock the kernels
//! actually ran at, which boost and power limits move away from the nominal one.

use super::checks::runtime_kernels;
use super::error::Result;
use super::gpu::Gpu;
use cudarc::driver::LaunchConfig;

/// The SM clock in MHz: one thread spins ~0.1 s counting `clock64()` cycles against the
/// global nanosecond timer.
pub fn sm_clock_mhz(gpu: &Gpu) -> Result<f64> {
    let kernel = gpu.kernel(&runtime_kernels(), "sm_clock")?;
    let mut out = gpu.alloc_poisoned::<i64>(2)?;
    let spin = 200_000_000i64; // ~0.1 s at 2 GHz
    gpu.launch(&kernel)
        .arg(&spin)
        .buf_mut(&mut out)
        .run(LaunchConfig {
            grid_dim: (1, 1, 1),
            block_dim: (1, 1, 1),
            shared_mem_bytes: 0,
        })?;
    let v = gpu.download(&out)?;
    Ok(v[0] as f64 / v[1] as f64 * 1e3)
}
