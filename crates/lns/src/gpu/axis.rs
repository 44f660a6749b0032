//! Reductions along the last axis, the batched matrix product and the log-domain reductions
//! on a device (`kernels/axis.cu`, `axis_rows.cu` for sums of short rows, `axis_matmul.cu`):
//! the GPU twins of [`crate::axis`], bit-exact with them by construction (the same correctly
//! rounded operations on the same host-built tables, and an exact integer sum, so any split
//! of a sum between threads gives the CPU's word). Work goes on the caller's [`GpuTarget`] stream, on any device views
//! (the caller's tensors or sigpu's buffers), without synchronising.

use super::LnsWord;
use crate::axis::exact::Consts;
use crate::axis::{rows, MatShape, Reduce};
use crate::error::LnsError;
use crate::format::Format;
use sigpu_runtime::cuda::cudarc::driver::{DeviceRepr, LaunchConfig};
use sigpu_runtime::cuda::{
    DeviceBuffer, DeviceSlice, DeviceSliceMut, Gpu, Kernel, KernelSource, KernelValue, Plain,
};
use sigpu_runtime::GpuTarget;
use std::collections::HashMap;
use std::sync::Mutex;

/// The kernels (`kernels/axis.cu`, their arithmetic in `kernels/lns_exact.cuh`).
pub fn kernels() -> KernelSource {
    KernelSource::embedded("axis.cu", include_str!("../../kernels/axis.cu"))
        .with_header("lns_exact.cuh", include_str!("../../kernels/lns_exact.cuh"))
}

/// The fused sums of short rows, several rows per warp (`kernels/axis_rows.cu`).
pub fn row_kernels() -> KernelSource {
    KernelSource::embedded("axis_rows.cu", include_str!("../../kernels/axis_rows.cu"))
        .with_header("lns_exact.cuh", include_str!("../../kernels/lns_exact.cuh"))
}

/// The tiled batched matrix product (`kernels/axis_matmul.cu`).
pub fn matmul_kernels() -> KernelSource {
    KernelSource::embedded(
        "axis_matmul.cu",
        include_str!("../../kernels/axis_matmul.cu"),
    )
    .with_header("lns_exact.cuh", include_str!("../../kernels/lns_exact.cuh"))
}

/// `struct AxFmt` in axis.cu.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
struct AxFmt {
    f: i32,
    log_bits: i32,
}

// SAFETY: a plain #[repr(C)] struct of i32s, laid out as `struct AxFmt` in axis.cu.
unsafe impl DeviceRepr for AxFmt {}
impl KernelValue for AxFmt {}

/// Float types of the log-domain kernels' input and output.
pub trait LogFloat: Plain + sealed::Sealed {
    /// Kernel name suffix.
    const SUFFIX: &'static str;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

impl LogFloat for f32 {
    const SUFFIX: &'static str = "_f32";
}

impl LogFloat for f64 {
    const SUFFIX: &'static str = "_f64";
}

/// Rows (warps) per block of the row kernels.
const WARPS: u32 = 8;

/// Elements each lane holds of a short row (`AX_ROW_CAP` in axis_rows.cu).
const ROW_CAP: usize = 16;

/// Blocks per SM of the short-row kernels' grid (`AX_LOG_ROWS_BLOCKS` in axis_rows.cu: the
/// kernels are compiled to keep four resident).
const ROW_BLOCKS_PER_SM: usize = 4;

/// Rows of at least this many elements are summed by one block each (`*_block` kernels,
/// `AX_BLOCK` threads), shorter sums by lane groups (`axis_rows.cu`, [`group_lanes`]).
const BLOCK_ROW_MIN: usize = 256;

/// Formats with at most this many fraction bits take the filtered matrix product
/// (`lns_axis_matmul_filtered*`: its terms are the exact path's table entries).
const FILTERED_MATMUL_MAX_F: u32 = 12;

/// Rows and columns of the output tile of one block of the matrix product.
const MATMUL_TILE: usize = 64;

/// Threads of the block-per-row kernels (`AX_BLOCK` in axis.cu).
const BLOCK_THREADS: u32 = 256;

/// One block of [`BLOCK_THREADS`] per row.
fn block_config(rows: usize) -> Result<LaunchConfig, LnsError> {
    let blocks = u32::try_from(rows)
        .ok()
        .filter(|&b| b <= i32::MAX as u32)
        .ok_or_else(|| LnsError::Invalid(format!("{rows} rows in one launch")))?;
    Ok(LaunchConfig {
        grid_dim: (blocks.max(1), 1, 1),
        block_dim: (BLOCK_THREADS, 1, 1),
        shared_mem_bytes: 0,
    })
}

/// Lanes per short row (len < [`BLOCK_ROW_MIN`]): the smallest power of two holding the row
/// at [`ROW_CAP`] elements a lane.
fn group_lanes(len: usize) -> u32 {
    len.div_ceil(ROW_CAP).next_power_of_two().clamp(1, 32) as u32
}

/// Blocks of [`WARPS`] warps, `32 / g` rows per warp and pass: enough blocks for every row,
/// at most [`ROW_BLOCKS_PER_SM`] per SM (the kernels loop over the rest, so each block
/// copies the exp table to shared memory once for many rows).
fn group_config(gpu: &Gpu, rows: usize, g: u32) -> LaunchConfig {
    let per_block = (WARPS * 32 / g) as usize;
    let most = gpu.info().sms.max(1) as usize * ROW_BLOCKS_PER_SM;
    LaunchConfig {
        grid_dim: (rows.div_ceil(per_block).clamp(1, most) as u32, 1, 1),
        block_dim: (32 * WARPS, 1, 1),
        shared_mem_bytes: 0,
    }
}

fn row_config(rows: usize) -> Result<LaunchConfig, LnsError> {
    let blocks = rows.div_ceil(WARPS as usize);
    let blocks = u32::try_from(blocks)
        .ok()
        .filter(|&b| b <= i32::MAX as u32)
        .ok_or_else(|| LnsError::Invalid(format!("{rows} rows in one launch")))?;
    Ok(LaunchConfig {
        grid_dim: (blocks.max(1), 1, 1),
        block_dim: (32 * WARPS, 1, 1),
        shared_mem_bytes: 0,
    })
}

/// The axis kernels for one format on one device, their constants uploaded.
pub struct GpuAxis {
    /// The format of the words.
    pub format: Format,
    consts: DeviceBuffer<f64>,
    gpu: Gpu,
    /// Kernels by name, resolved once: the device's lookup by source hashes the whole
    /// source text, tens of microseconds a launch (as long as a short-row kernel runs).
    resolved: Mutex<HashMap<String, Kernel>>,
}

impl GpuAxis {
    /// Uploads `format`'s constants ([`Consts::flat`]) to `gpu` and waits for the copy, so
    /// launches on any stream may read them.
    pub fn new(gpu: &Gpu, format: Format) -> Result<GpuAxis, LnsError> {
        let consts = gpu.upload(&Consts::new(format).flat())?;
        gpu.synchronize()?;
        Ok(GpuAxis {
            format,
            consts,
            gpu: gpu.clone(),
            resolved: Mutex::default(),
        })
    }

    /// Kernel `name` of `source()`, from the resolved ones after its first use.
    fn kernel(&self, source: fn() -> KernelSource, name: &str) -> Result<Kernel, LnsError> {
        let mut resolved = self.resolved.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(k) = resolved.get(name) {
            return Ok(k.clone());
        }
        let k = self.gpu.kernel(&source(), name)?;
        resolved.insert(name.to_owned(), k.clone());
        Ok(k)
    }

    /// The device.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    fn fmt(&self) -> AxFmt {
        AxFmt {
            f: self.format.frac_bits as i32,
            log_bits: self.format.log_bits() as i32,
        }
    }

    fn check_word<W: LnsWord>(&self) -> Result<(), LnsError> {
        super::words::check_word::<W>(self.format)
    }

    /// `op` of each row of `len` words of `xs` into `out` (one word per row): the twin of
    /// [`Format::reduce_rows`].
    pub fn reduce<W: LnsWord>(
        &self,
        target: &GpuTarget,
        op: Reduce,
        xs: &DeviceSlice<'_, W>,
        len: usize,
        out: &mut DeviceSliceMut<'_, W>,
    ) -> Result<(), LnsError> {
        self.check_word::<W>()?;
        let n = rows(xs.len(), len)?;
        if out.len() != n {
            return Err(LnsError::Invalid(format!(
                "{n} rows into {} outputs",
                out.len()
            )));
        }
        if n == 0 {
            return Ok(());
        }
        if op == Reduce::Sum && len >= BLOCK_ROW_MIN {
            let kernel = self.kernel(kernels, &format!("lns_axis_sum_block{}", W::SUFFIX))?;
            let (fmt, len64) = (self.fmt(), len as i64);
            target
                .launch(&kernel)
                .arg(&fmt)
                .buf(&self.consts)
                .slice(xs)
                .arg(&len64)
                .slice_mut(out)
                .run(block_config(n)?)?;
            return Ok(());
        }
        if op == Reduce::Sum {
            let kernel = self.kernel(row_kernels, &format!("lns_axis_sum_rows{}", W::SUFFIX))?;
            let g = group_lanes(len);
            let (fmt, rows64, len64, g32) = (self.fmt(), n as i64, len as i64, g as i32);
            target
                .launch(&kernel)
                .arg(&fmt)
                .buf(&self.consts)
                .slice(xs)
                .arg(&rows64)
                .arg(&len64)
                .arg(&g32)
                .slice_mut(out)
                .run(group_config(&self.gpu, n, g))?;
            return Ok(());
        }
        let kernel = self.kernel(kernels, &format!("lns_axis_reduce{}", W::SUFFIX))?;
        let (fmt, rows64, len64) = (self.fmt(), n as i64, len as i64);
        let op = match op {
            Reduce::Sum => 0i32,
            Reduce::Prod => 1,
            Reduce::Max => 2,
            Reduce::Min => 3,
        };
        target
            .launch(&kernel)
            .arg(&fmt)
            .buf(&self.consts)
            .slice(xs)
            .arg(&rows64)
            .arg(&len64)
            .arg(&op)
            .slice_mut(out)
            .run(row_config(n)?)?;
        Ok(())
    }

    /// The batched matrix product into `out`: the twin of [`Format::matmul`].
    pub fn matmul<W: LnsWord>(
        &self,
        target: &GpuTarget,
        a: &DeviceSlice<'_, W>,
        b: &DeviceSlice<'_, W>,
        shape: MatShape,
        out: &mut DeviceSliceMut<'_, W>,
    ) -> Result<(), LnsError> {
        self.check_word::<W>()?;
        let n_out = shape.check(a.len(), b.len())?;
        if out.len() != n_out {
            return Err(LnsError::Invalid(format!(
                "matmul of {n_out} outputs into {}",
                out.len()
            )));
        }
        if n_out == 0 {
            return Ok(());
        }
        let grid = |v: usize, per: usize, limit: u32| {
            u32::try_from(v.div_ceil(per))
                .ok()
                .filter(|&g| g <= limit)
                .ok_or_else(|| {
                    LnsError::Invalid(format!("matmul shape {shape:?} too large for one launch"))
                })
        };
        // 64 × 64 outputs per block of 256 threads (AX_MM_BM, AX_MM_BN in axis_matmul.cu).
        let cfg = LaunchConfig {
            grid_dim: (
                grid(shape.n, MATMUL_TILE, i32::MAX as u32)?,
                grid(shape.m, MATMUL_TILE, 65535)?,
                grid(shape.batch, 1, 65535)?,
            ),
            block_dim: (256, 1, 1),
            shared_mem_bytes: 0,
        };
        // F ≤ 12 (lns16): the filtered product (plain f64 sums, the exact sums only for the
        // outputs whose rounding they cannot vouch for; 128 registers, two blocks per SM).
        let variant = if self.format.frac_bits <= FILTERED_MATMUL_MAX_F {
            "filtered"
        } else {
            "tiled"
        };
        let kernel = self.kernel(
            matmul_kernels,
            &format!("lns_axis_matmul_{variant}{}", W::SUFFIX),
        )?;
        let fmt = self.fmt();
        let dims = [shape.m as i64, shape.k as i64, shape.n as i64];
        target
            .launch(&kernel)
            .arg(&fmt)
            .buf(&self.consts)
            .slice(a)
            .slice(b)
            .arg(&dims[0])
            .arg(&dims[1])
            .arg(&dims[2])
            .slice_mut(out)
            .run(cfg)?;
        Ok(())
    }

    /// logsumexp (one output per row) or, with `softmax`, log_softmax (one per input) of each
    /// row of `len` natural logs: the twins of [`crate::axis::logsumexp_rows`] and
    /// [`crate::axis::log_softmax_rows`] (an f32 output is the f64 result rounded to nearest).
    pub fn log_rows<T: LogFloat>(
        &self,
        target: &GpuTarget,
        x: &DeviceSlice<'_, T>,
        len: usize,
        softmax: bool,
        out: &mut DeviceSliceMut<'_, T>,
    ) -> Result<(), LnsError> {
        let n = rows(x.len(), len)?;
        let want = if softmax { x.len() } else { n };
        if out.len() != want {
            return Err(LnsError::Invalid(format!(
                "{want} outputs expected, {} given",
                out.len()
            )));
        }
        if n == 0 {
            return Ok(());
        }
        if len >= BLOCK_ROW_MIN {
            let kernel = self.kernel(kernels, &format!("lns_axis_log_block{}", T::SUFFIX))?;
            let (fmt, len64, sm) = (self.fmt(), len as i64, softmax as i32);
            target
                .launch(&kernel)
                .arg(&fmt)
                .buf(&self.consts)
                .slice(x)
                .arg(&len64)
                .arg(&sm)
                .slice_mut(out)
                .run(block_config(n)?)?;
            return Ok(());
        }
        let kernel = self.kernel(row_kernels, &format!("lns_axis_log_rows{}", T::SUFFIX))?;
        let g = group_lanes(len);
        let (fmt, rows64, len64, sm, g32) =
            (self.fmt(), n as i64, len as i64, softmax as i32, g as i32);
        target
            .launch(&kernel)
            .arg(&fmt)
            .buf(&self.consts)
            .slice(x)
            .arg(&rows64)
            .arg(&len64)
            .arg(&sm)
            .arg(&g32)
            .slice_mut(out)
            .run(group_config(&self.gpu, n, g))?;
        Ok(())
    }

    /// The words of floats `x` into `out`: the twin of [`Format::words_of`] (an f32 input is
    /// widened exactly, as the CPU path widens it).
    pub fn from_floats<T: LogFloat, W: LnsWord>(
        &self,
        target: &GpuTarget,
        x: &DeviceSlice<'_, T>,
        out: &mut DeviceSliceMut<'_, W>,
    ) -> Result<(), LnsError> {
        self.check_word::<W>()?;
        self.convert(
            target,
            &format!("lns_axis_from{}{}", T::SUFFIX, W::SUFFIX),
            x,
            out,
        )
    }

    /// The values of words `w` as floats into `out`: the twin of [`Format::values_of`] (an f32
    /// output is the f64 value rounded to nearest).
    pub fn to_floats<W: LnsWord, T: LogFloat>(
        &self,
        target: &GpuTarget,
        w: &DeviceSlice<'_, W>,
        out: &mut DeviceSliceMut<'_, T>,
    ) -> Result<(), LnsError> {
        self.check_word::<W>()?;
        self.convert(
            target,
            &format!("lns_axis_to{}{}", T::SUFFIX, W::SUFFIX),
            w,
            out,
        )
    }

    fn convert<A, B>(
        &self,
        target: &GpuTarget,
        name: &str,
        x: &DeviceSlice<'_, A>,
        out: &mut DeviceSliceMut<'_, B>,
    ) -> Result<(), LnsError> {
        let n = sigpu_runtime::cuda::equal_lengths("LNS conversion", &[x.len(), out.len()])?;
        if n == 0 {
            return Ok(());
        }
        let kernel = self.kernel(kernels, name)?;
        let (fmt, n64) = (self.fmt(), n as i64);
        target
            .launch(&kernel)
            .arg(&fmt)
            .buf(&self.consts)
            .slice(x)
            .arg(&n64)
            .slice_mut(out)
            .run(sigpu_runtime::cuda::streaming_config(&self.gpu, n))?;
        Ok(())
    }
}
