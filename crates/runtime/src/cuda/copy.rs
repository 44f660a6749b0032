//! Device-to-device copy bandwidth: the ceiling every memory-bound kernel is judged against.

use super::checks::launch_copy;
use super::error::{DriverContext, Result};
use super::gpu::Gpu;
use super::timing::{gb_per_s, time_gpu, Timing};
use cudarc::driver::LaunchConfig;
use serde::Serialize;

/// One way of copying, timed.
#[derive(Clone, Debug, Serialize)]
pub struct CopyMethod {
    pub method: String,
    /// Read + write bytes per second at the median time, GB/s (1e9).
    pub gb_per_s: f64,
    pub timing: Timing,
}

/// Result of [`copy_bandwidth`]: every copy method's timing on one device.
#[derive(Clone, Debug, Serialize)]
pub struct CopyBench {
    /// The device's name, as the driver reports it.
    pub device: String,
    /// Bytes in each buffer; each copy moves twice this (read + write).
    pub bytes: usize,
    /// Each method timed, in the order they ran.
    pub methods: Vec<CopyMethod>,
    /// The fastest method's figure: the ceiling for memory-bound kernels.
    pub best_gb_per_s: f64,
}

/// Times `cuMemcpyDtoDAsync` and the `copy_f32` kernel (one float4 per thread, and a
/// grid-stride launch of a few waves) on buffers of `bytes` each.
pub fn copy_bandwidth(gpu: &Gpu, bytes: usize, warmup: usize, runs: usize) -> Result<CopyBench> {
    let n = (bytes / 4).max(4);
    // Contents do not matter for a copy; allocating on the device alone keeps a too-large
    // request an error from the driver rather than a failed host allocation.
    let src = gpu.alloc_poisoned::<f32>(n)?;
    let mut dst = gpu.alloc_poisoned::<f32>(n)?;
    let moved = 2.0 * (n * 4) as f64;
    let mut methods = Vec::new();
    let memcpy = time_gpu(gpu, warmup, runs, || {
        gpu.stream()
            .memcpy_dtod(&src, &mut dst)
            .context("cuMemcpyDtoDAsync")
    })?;
    methods.push(("cuMemcpyDtoDAsync".to_owned(), memcpy));
    let block = 256u32;
    let one_per_thread = ((n / 4) as u64).div_ceil(block as u64).max(1) as u32;
    let waves = gpu.info().sms * 8;
    for (label, blocks) in [
        ("one float4 per thread", one_per_thread),
        ("grid-stride, 8 blocks/SM", waves),
    ] {
        let config = LaunchConfig {
            grid_dim: (blocks, 1, 1),
            block_dim: (block, 1, 1),
            shared_mem_bytes: 0,
        };
        let t = time_gpu(gpu, warmup, runs, || {
            launch_copy(gpu, &src, &mut dst, config)
        })?;
        methods.push((format!("copy_f32 kernel, {label}"), t));
    }
    let methods: Vec<CopyMethod> = methods
        .into_iter()
        .map(|(method, timing)| CopyMethod {
            method,
            gb_per_s: gb_per_s(moved, timing.median_ms),
            timing,
        })
        .collect();
    Ok(CopyBench {
        device: gpu.info().name.clone(),
        bytes: n * 4,
        best_gb_per_s: methods.iter().map(|m| m.gb_per_s).fold(0.0, f64::max),
        methods,
    })
}
