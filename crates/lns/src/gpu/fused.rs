//! Fused LNS sum and dot product over device buffers (`kernels/reduce.cu`): the GPU twins of
//! [`Format::sum`] and [`Format::dot`]. Products are exact, every term is summed in f64 with
//! compensation after a max shift, and the total is rounded to a word once, so the result is
//! the CPU's (one code apart at most, where f64 exp2 or the summation order tip a rounding).
//!
//! One pass over the data: each thread keeps the largest binade seen and rescales its sum by an
//! exact power of two when it grows (so x and −x cancel exactly wherever they meet); blocks
//! write partials that one block combines in a fixed order, so a buffer gives the same word on
//! every call.

use crate::error::LnsError;
use crate::format::Format;
use sigpu_runtime::cuda::cudarc::driver::{DeviceRepr, LaunchConfig};
use sigpu_runtime::cuda::{equal_lengths, DeviceBuffer, Gpu, KernelSource, KernelValue};

/// The reduction kernels (`kernels/reduce.cu`).
pub fn kernels() -> KernelSource {
    KernelSource::embedded("reduce.cu", include_str!("../../kernels/reduce.cu"))
}

/// `struct LnsFmt` in reduce.cu.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
struct LnsFmt {
    f: i32,
    log_bits: i32,
}

// SAFETY: a plain #[repr(C)] struct of i32s, laid out as `struct LnsFmt` in reduce.cu.
unsafe impl DeviceRepr for LnsFmt {}
impl KernelValue for LnsFmt {}

/// f64s in one `struct Partial` of reduce.cu (i64 max, two f64 sums, two i32).
const PARTIAL_F64S: usize = 4;
const THREADS: u32 = 256;

/// Σ xs, fused (see [`Format::sum`]).
pub fn sum(gpu: &Gpu, format: Format, xs: &DeviceBuffer<u32>) -> Result<u32, LnsError> {
    let mut out = gpu.alloc_poisoned::<u32>(1)?;
    fused_into(gpu, format, xs, None, &mut out)?;
    Ok(gpu.download(&out)?[0])
}

/// Σ xs[i]·ys[i], fused (see [`Format::dot`]).
pub fn dot(
    gpu: &Gpu,
    format: Format,
    xs: &DeviceBuffer<u32>,
    ys: &DeviceBuffer<u32>,
) -> Result<u32, LnsError> {
    let mut out = gpu.alloc_poisoned::<u32>(1)?;
    fused_into(gpu, format, xs, Some(ys), &mut out)?;
    Ok(gpu.download(&out)?[0])
}

/// One-dimensional launch shape.
fn shape(blocks: u32, threads: u32) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (threads, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// Σ xs (`ys` None) or Σ xs[i]·ys[i] into `out[0]` on the device, without waiting for it.
pub fn fused_into(
    gpu: &Gpu,
    format: Format,
    xs: &DeviceBuffer<u32>,
    ys: Option<&DeviceBuffer<u32>>,
    out: &mut DeviceBuffer<u32>,
) -> Result<(), LnsError> {
    if let Some(ys) = ys {
        equal_lengths("fused LNS dot", &[xs.len(), ys.len()])?;
    }
    if out.is_empty() {
        return Err(LnsError::Invalid("fused sum into an empty buffer".into()));
    }
    let fmt = LnsFmt {
        f: format.frac_bits as i32,
        log_bits: format.log_bits() as i32,
    };
    let n = xs.len() as i64;
    // Enough blocks to keep every SM's memory pipe busy; the grid stride covers the rest.
    let blocks = (xs.len().div_ceil(THREADS as usize)).clamp(1, gpu.info().sms as usize * 8);
    let mut parts = gpu.alloc_poisoned::<f64>(blocks * PARTIAL_F64S)?;
    let partials = gpu.kernel(&kernels(), "lns_fused_partials")?;
    let finish = gpu.kernel(&kernels(), "lns_fused_finish")?;
    let null: u64 = 0;
    {
        let mut launch = gpu.launch(&partials);
        launch.arg(&fmt).buf(xs);
        match ys {
            Some(ys) => launch.buf(ys),
            None => launch.arg(&null),
        };
        launch
            .arg(&n)
            .buf_mut(&mut parts)
            .run(shape(blocks as u32, THREADS))?;
    }
    let count = blocks as i32;
    gpu.launch(&finish)
        .arg(&fmt)
        .buf(&parts)
        .arg(&count)
        .buf_mut(out)
        .run(shape(1, 1024))?;
    Ok(())
}
