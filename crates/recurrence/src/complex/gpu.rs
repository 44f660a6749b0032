//! The complex-coefficient engine on a GPU: `kernels/complex_serial.cu`, the serial loops of
//! [`super::serial`] written out with round-to-nearest intrinsics, one channel per thread, so
//! its output equals the CPU engine's bit for bit (that engine is its CPU twin). It runs on
//! the caller's device memory (interleaved `re, im` values, zi in, zf out) on the target's
//! stream; the normalised coefficients are uploaded once, at planning. Where the plan built
//! the chunked scan (module [`super::chunked`], complex64), calls with few long channels run
//! its three passes instead.

use super::chunked::{self, Scan};
use super::serial::Serial;
use crate::elem::{DType, Element};
use crate::error::FilterError;
use sigpu_runtime::cuda::cudarc::driver::LaunchConfig;
use sigpu_runtime::cuda::KernelSource;
use sigpu_runtime::cuda::{DeviceBuffer, DeviceSlice, DeviceSliceMut, DriverContext, Kernel};
use sigpu_runtime::GpuTarget;
use std::marker::PhantomData;

/// The kernel source as embedded (each build adds its -D options).
pub const SOURCE: &str = include_str!("../../kernels/complex_serial.cu");

/// The kernel's name.
pub const KERNEL: &str = "complex_serial";

/// Threads per block: one channel each. Small blocks spread a few thousand channels over
/// every multiprocessor.
const THREADS: u32 = 32;

/// Threads per block of the scan's chunk passes (one chunk each).
const CHUNK_THREADS: u32 = 128;

/// The source for complex data with `real` parts (`float`, `double`), (b, a) or sections
/// (`sos`), and `state` complex state values per channel.
pub fn kernel_source(real: &str, sos: bool, state: usize) -> KernelSource {
    KernelSource::embedded("complex_serial.cu", SOURCE)
        .with_option(format!("-DREAL={real}"))
        .with_option(format!("-DSOS={}", sos as i32))
        .with_option(format!("-DSTATE={state}"))
}

/// The compiled kernel for one filter and part type on one target, with its coefficients on
/// the device.
pub struct GpuComplex<T: Element> {
    target: GpuTarget,
    kernel: Kernel,
    coef: DeviceBuffer<f64>,
    state: usize,
    /// Stands for an absent zi / zf (never read or written: the kernel's flag is 0).
    dummy: DeviceBuffer<T>,
    dummy_out: std::sync::Mutex<DeviceBuffer<T>>,
    scan: Option<ScanKernels>,
    _parts: PhantomData<T>,
}

/// The chunked scan's kernels and Φ on the device.
struct ScanKernels {
    scan: Scan,
    end: Kernel,
    carry: Kernel,
    apply: Kernel,
    phi: DeviceBuffer<f64>,
}

/// The coefficients as the kernel reads them: (b, a) as b then a, sections row by row, each
/// value as (re, im).
fn coefficients(serial: &Serial) -> Vec<f64> {
    let values: Vec<_> = match serial {
        Serial::Ba { b, a } => b.iter().chain(a).copied().collect(),
        Serial::Sos(rows) => rows.iter().flatten().copied().collect(),
    };
    values.iter().flat_map(|c| [c.re, c.im]).collect()
}

impl<T: Element> GpuComplex<T> {
    /// Compiles (or takes from the kernel cache) and loads the kernel for `serial`, and
    /// uploads its coefficients on the target's stream.
    pub(super) fn new(
        target: &GpuTarget,
        serial: &Serial,
        scan: Option<Scan>,
    ) -> Result<Self, FilterError> {
        let real = match T::DTYPE {
            DType::F32 => "float",
            DType::F64 => "double",
            other => {
                return Err(FilterError::Input(format!(
                    "the complex GPU kernel takes f32 or f64 parts, not {other}"
                )))
            }
        };
        let state = serial.state_len();
        let sos = matches!(serial, Serial::Sos(_));
        let source = kernel_source(real, sos, state);
        let gpu = target.gpu();
        let kernel = gpu.kernel(&source, KERNEL)?;
        let what = "copying the complex filter's coefficients";
        let coef = target
            .stream()
            .clone_htod(&coefficients(serial))
            .context(what)?;
        let scan = match scan {
            Some(scan) => {
                let phi: Vec<f64> = scan.phi.iter().flat_map(|c| [c.re, c.im]).collect();
                Some(ScanKernels {
                    end: gpu.kernel(&source, "complex_chunk_end")?,
                    carry: gpu.kernel(&source, "complex_chunk_carry")?,
                    apply: gpu.kernel(&source, "complex_chunk_apply")?,
                    phi: target.stream().clone_htod(&phi).context(what)?,
                    scan,
                })
            }
            None => None,
        };
        Ok(GpuComplex {
            target: target.clone(),
            kernel,
            coef,
            state,
            dummy: gpu.alloc_poisoned::<T>(2)?,
            dummy_out: std::sync::Mutex::new(gpu.alloc_poisoned::<T>(2)?),
            scan,
            _parts: PhantomData,
        })
    }

    /// The target the kernel runs on.
    pub fn target(&self) -> &GpuTarget {
        &self.target
    }

    /// The chunked scan, where the plan built it.
    pub fn scan(&self) -> Option<&Scan> {
        self.scan.as_ref().map(|s| &s.scan)
    }

    /// Whether a call of `channels` channels of `n` samples runs the chunked scan.
    pub fn scans(&self, channels: usize, n: usize) -> bool {
        self.scan.is_some() && channels < chunked::MAX_CHANNELS && n >= chunked::MIN_LENGTH
    }

    /// Filters `channels` channels of `n > 0` complex samples (lengths checked by the caller)
    /// on the target's stream: x → y, from zi (or zero), the final state into zf (if given).
    pub(super) fn run(
        &self,
        x: &DeviceSlice<'_, T>,
        mut y: DeviceSliceMut<'_, T>,
        zi: Option<&DeviceSlice<'_, T>>,
        zf: Option<DeviceSliceMut<'_, T>>,
        channels: usize,
        n: usize,
    ) -> Result<(), FilterError> {
        if channels > i32::MAX as usize {
            return Err(FilterError::Input(format!(
                "{channels} channels is more than one launch takes ({})",
                i32::MAX
            )));
        }
        let (n64, ch32) = (n as i64, channels as i32);
        let dummy_in = DeviceSlice::of(&self.dummy);
        // A filter without state reads and writes none: its (empty) zi / zf stay unused.
        let (zi, has_zi) = match zi {
            Some(z) if self.state > 0 => (z, 1i32),
            _ => (&dummy_in, 0),
        };
        let mut guard = self.dummy_out.lock().unwrap_or_else(|p| p.into_inner());
        let (mut zf, has_zf) = match zf {
            Some(z) if self.state > 0 => (z, 1i32),
            _ => (DeviceSliceMut::of(&mut guard), 0),
        };
        if self.scans(channels, n) {
            let sk = self.scan.as_ref().expect("scans() checked it");
            return self.run_scan(sk, x, y, (zi, has_zi), (zf, has_zf), channels, n);
        }
        self.target
            .launch(&self.kernel)
            .slice(x)
            .slice_mut(&mut y)
            .arg(&n64)
            .arg(&ch32)
            .slice(zi)
            .arg(&has_zi)
            .slice_mut(&mut zf)
            .arg(&has_zf)
            .buf(&self.coef)
            .run(LaunchConfig {
                grid_dim: ((channels as u32).div_ceil(THREADS), 1, 1),
                block_dim: (THREADS, 1, 1),
                shared_mem_bytes: 0,
            })?;
        Ok(())
    }

    /// The scan's three passes (module [`chunked`]); scratch states in f64 are allocated on
    /// the target's stream and freed on it after the passes.
    #[allow(clippy::too_many_arguments)]
    fn run_scan(
        &self,
        sk: &ScanKernels,
        x: &DeviceSlice<'_, T>,
        mut y: DeviceSliceMut<'_, T>,
        (zi, has_zi): (&DeviceSlice<'_, T>, i32),
        (mut zf, has_zf): (DeviceSliceMut<'_, T>, i32),
        channels: usize,
        n: usize,
    ) -> Result<(), FilterError> {
        let chunks = n.div_ceil(chunked::CHUNK);
        let total = chunks * channels;
        if chunks > i32::MAX as usize || total.div_ceil(CHUNK_THREADS as usize) > u32::MAX as usize
        {
            return Err(FilterError::Input(format!(
                "{channels} channels of {chunks} chunks is more than one launch takes"
            )));
        }
        let what = "allocating the chunked scan's states";
        let len = (2 * total * self.state).max(1);
        let stream = self.target.stream();
        let mut ends = stream.alloc_zeros::<f64>(len).context(what)?;
        let mut starts = stream.alloc_zeros::<f64>(len).context(what)?;
        let (n64, chunk64) = (n as i64, chunked::CHUNK as i64);
        let (chunks32, ch32) = (chunks as i32, channels as i32);
        let blocks = total.div_ceil(CHUNK_THREADS as usize) as u32;
        let per_chunk = LaunchConfig {
            grid_dim: (blocks, 1, 1),
            block_dim: (CHUNK_THREADS, 1, 1),
            shared_mem_bytes: 0,
        };
        self.target
            .launch(&sk.end)
            .slice(x)
            .arg(&n64)
            .arg(&chunk64)
            .arg(&chunks32)
            .arg(&ch32)
            .buf(&self.coef)
            .buf_mut(&mut ends)
            .run(per_chunk)?;
        self.target
            .launch(&sk.carry)
            .buf(&ends)
            .arg(&chunks32)
            .arg(&ch32)
            .slice(zi)
            .arg(&has_zi)
            .buf(&sk.phi)
            .buf_mut(&mut starts)
            .run(LaunchConfig {
                grid_dim: ((channels as u32).div_ceil(THREADS), 1, 1),
                block_dim: (THREADS, 1, 1),
                shared_mem_bytes: 0,
            })?;
        self.target
            .launch(&sk.apply)
            .slice(x)
            .slice_mut(&mut y)
            .arg(&n64)
            .arg(&chunk64)
            .arg(&chunks32)
            .arg(&ch32)
            .buf(&starts)
            .slice_mut(&mut zf)
            .arg(&has_zf)
            .buf(&self.coef)
            .run(per_chunk)?;
        Ok(())
    }
}
