//! s_b and d_b on the GPU: tables uploaded as buffers (Horner) or textures (order 1 and 2),
//! kernels from `kernels/lns.cu` ([`GpuMethod`]), exact element-wise products and quotients
//! ([`mul`], [`div`]), fused sums and dot products ([`fused`]), and the crate's self-checks
//! ([`checks`]).

pub mod axis;
mod checks;
mod fast_sum;
pub mod fused;
mod lut;
mod method;
mod words;

pub use checks::checks;
pub use method::{GpuBlend, GpuMethod};
pub use words::{div, mul, mul_div_on, LnsWord};

use sigpu_runtime::cuda::cudarc::driver::{DeviceRepr, LaunchConfig};
use sigpu_runtime::cuda::tuning::StreamPolicy;
use sigpu_runtime::cuda::{Gpu, KernelSource, KernelValue};

/// The LNS kernels (`kernels/lns.cu`): per method `lns_sb_*` / `lns_db_*` (codes), `lns_add_*`
/// (words), `lns_bench_*` and `lns_blend_*` (compute-bound throughput), `lns_mul_div_words`.
pub fn kernels() -> KernelSource {
    KernelSource::embedded("lns.cu", include_str!("../../kernels/lns.cu"))
}

/// The LNS kernels compiled for the streaming policy `policy`: its vectors in flight per thread
/// (`LNS_ADD_UNROLL`); the default policy adds no option, so its kernels are the file's own.
pub fn stream_kernels(policy: &StreamPolicy) -> KernelSource {
    match policy.unroll {
        1 => kernels(),
        u => kernels().with_option(format!("-DLNS_ADD_UNROLL={u}")),
    }
}

/// The grid-stride launch of the element-wise streaming kernels over `n` words on `gpu`, by
/// the device's streaming policy, with the kernels it is compiled for: every word is computed
/// alone, so the shape changes the speed, never a word.
fn streaming(gpu: &Gpu, n: usize) -> (KernelSource, LaunchConfig) {
    let policy = gpu.policies().lns_stream;
    (stream_kernels(&policy), policy.launch(gpu.info().sms, n))
}

/// Table geometry as the kernels take it (`struct Geo` in lns.cu).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
struct Geo {
    f: i32,
    shift: i32,
    far_segments: i32,
    near_shift: i32,
    log2m_bits: i32,
    z0: i32,
    log_bits: i32,
}

// SAFETY: a plain #[repr(C)] struct of i32s, laid out as `struct Geo` in lns.cu.
unsafe impl DeviceRepr for Geo {}
impl KernelValue for Geo {}
