//! The CUDA layer. Nothing here needs CUDA at build time: the driver and NVRTC are opened at
//! run time, and every entry point checks for them first so a missing piece is an error value
//! naming it, never a panic.

mod cache;
mod check;
mod checks;
mod clock;
mod compile;
mod copy;
mod cubin;
mod error;
pub mod foreign;
mod gpu;
mod launch;
mod libs;
pub mod primitives;
mod probe;
mod test_support;
mod texture;
mod timing;
pub mod tuning;
mod view;

pub use cache::KernelCache;
pub use check::{
    check_result, compare_by, compare_exact, compare_f32, sanitize_sizes, set_sanitize_sizes,
    Check, CheckError, CheckReport, CheckResult, Tolerance,
};
pub use checks::checks;
pub use clock::sm_clock_mhz;
pub use compile::{compile, CompileError, Compiled, KernelSource};
pub use copy::{copy_bandwidth, CopyBench};
pub use error::{DriverContext, Error, Missing, Result, Unavailable};
pub use gpu::{grid_1d, Gpu, Kernel, Plain};
pub use launch::{equal_lengths, streaming_config, KernelValue, Launch};
pub use probe::{nvrtc_version, probe, CudaStatus, DeviceInfo};
pub use test_support::{
    gpu_for_test, gpu_required, nvrtc_for_test, REQUIRE_GPU_ENV, REQUIRE_NVRTC_ENV,
};
pub use texture::model::{emulate_linear_filter_1d, emulate_linear_filter_2d, WeightRounding};
pub use texture::{Coordinates, Filter, Texel, Texture, TextureDesc};
pub use timing::{gb_per_s, gelem_per_s, median, time_gpu, Timing};
pub use view::{DeviceSlice, DeviceSliceMut};

/// Re-exported so capability crates name one CUDA crate version.
pub use cudarc;
/// A launch's grid, block and dynamic shared memory, as [`Launch::run`] takes it.
pub use cudarc::driver::LaunchConfig;

/// A typed buffer in device memory (freed on drop), as [`Gpu::upload`] and
/// [`Gpu::alloc_poisoned`] return it.
pub type DeviceBuffer<T> = cudarc::driver::CudaSlice<T>;
