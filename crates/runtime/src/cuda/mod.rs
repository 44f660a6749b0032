//! The CUDA layer. Nothing here needs CUDA at build time: the driver and NVRTC are opened at
//! run time, and every entry point checks for them first so a missing piece is an error value
//! naming it, never a panic.

mod cache;
mod check;
mod compile;
mod copy;
mod error;
mod gpu;
mod libs;
mod probe;
mod selfcheck;
mod texture;
mod timing;

pub use cache::KernelCache;
pub use check::{compare_exact, compare_f32, Check, CheckReport, Tolerance};
pub use compile::{compile, CompileError, Compiled, KernelSource};
pub use copy::{copy_bandwidth, CopyBench};
pub use error::{Error, Missing, Result, Unavailable};
pub use gpu::{grid_1d, Gpu, Plain};
pub use probe::{nvrtc_version, probe, CudaStatus, DeviceInfo};
pub use selfcheck::{checks, emulate_linear_filter_1d, emulate_linear_filter_2d, WeightRounding};
pub use texture::{Coordinates, Filter, Texel, Texture, TextureDesc};
pub use timing::{gb_per_s, gelem_per_s, median, time_gpu, Timing};

/// Re-exported so capability crates name one CUDA crate version.
pub use cudarc;

/// A typed buffer in device memory (freed on drop), as [`Gpu::upload`] and
/// [`Gpu::alloc_poisoned`] return it.
pub type DeviceBuffer<T> = cudarc::driver::CudaSlice<T>;

/// The environment variable that turns "no GPU" from a skip into a failure.
pub const REQUIRE_GPU_ENV: &str = "SIGPU_REQUIRE_GPU";

/// True when `SIGPU_REQUIRE_GPU` is set to anything but empty or `0`.
pub fn gpu_required() -> bool {
    std::env::var(REQUIRE_GPU_ENV).is_ok_and(|v| !v.is_empty() && v != "0")
}

/// The GPU (with NVRTC) for a test, or `None` with a visible `SKIP` line when there is none.
///
/// libtest has no skipped status, so a skipped GPU test passes; with `SIGPU_REQUIRE_GPU=1` it
/// panics instead, so a GPU machine can never pass by skipping.
pub fn gpu_for_test(test: &str) -> Option<Gpu> {
    match Gpu::open_with_compiler(0) {
        Ok(gpu) => Some(gpu),
        Err(e) if gpu_required() => panic!("{test}: {REQUIRE_GPU_ENV} is set but no GPU: {e}"),
        Err(e) => {
            println!("SKIP {test}: no GPU ({e})");
            None
        }
    }
}
