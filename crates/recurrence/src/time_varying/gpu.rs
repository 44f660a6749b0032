//! The GPU engine: `kernels/allpole.cu` compiled for one element type, order and chunk length,
//! launched on a target's stream. Forward: summary, carry, apply. Backward: the same three on
//! the output gradient in reverse (transposed form; the carry's final state is the gradient of
//! zi), then the coefficient gradient. Scratch (the chunks' transition matrices, zero-state
//! end states and incoming states, in f64) is kept between calls and grown as needed; all
//! work goes on the one stream of the target, so reusing it is ordered.

use super::{DeviceBackward, DeviceForward};
use crate::elem::{DType, Element};
use crate::error::FilterError;
use sigpu_runtime::cuda::cudarc::driver::LaunchConfig;
use sigpu_runtime::cuda::{DeviceBuffer, DeviceSlice, DeviceSliceMut, Kernel, KernelSource};
use sigpu_runtime::GpuTarget;
use std::sync::Mutex;

/// The kernel source as embedded (each build adds its -D options).
pub const SOURCE: &str = include_str!("../../kernels/allpole.cu");

/// Threads of the coefficient-gradient kernel's blocks.
const GRAD_THREADS: u32 = 256;
/// Threads of the apply kernel's blocks (one chunk each).
const APPLY_THREADS: u32 = 64;

/// The compiled kernels for one order, element type and chunk length on one target.
pub struct GpuAllPole<T: Element> {
    target: GpuTarget,
    order: usize,
    chunk: usize,
    summary: Kernel,
    carry: Kernel,
    apply: Kernel,
    grad_a: Kernel,
    scratch: Mutex<Option<Scratch<T>>>,
}

struct Scratch<T> {
    /// Chunks (over all channels) the buffers hold.
    chunks: usize,
    mats: DeviceBuffer<f64>,
    sums: DeviceBuffer<f64>,
    states: DeviceBuffer<f64>,
    /// Stand for an absent zi / zf (never read or written: the kernel's flag is 0).
    dummy: DeviceBuffer<T>,
    dummy_out: DeviceBuffer<T>,
}

/// The carry pass's inputs.
struct Carry<'b, 'v, T> {
    mats: &'b DeviceBuffer<f64>,
    sums: &'b DeviceBuffer<f64>,
    per: i32,
    channels: usize,
    zi: &'b DeviceSlice<'v, T>,
    has_zi: i32,
}

fn lanes(n: usize) -> u32 {
    (n.div_ceil(32) * 32) as u32
}

impl<T: Element> GpuAllPole<T> {
    /// Compiles (or takes from the kernel cache) and loads the kernels.
    pub fn new(target: &GpuTarget, order: usize, chunk: usize) -> Result<Self, FilterError> {
        let real = match T::DTYPE {
            DType::F32 => "float",
            DType::F64 => "double",
            other => {
                return Err(FilterError::Input(format!(
                    "the all-pole GPU kernel takes f32 or f64, not {other}"
                )))
            }
        };
        let source = KernelSource::embedded("allpole.cu", SOURCE)
            .with_option(format!("-DREAL={real}"))
            .with_option(format!("-DORDER={order}"))
            .with_option(format!("-DCHUNK={chunk}"));
        let gpu = target.gpu();
        Ok(GpuAllPole {
            target: target.clone(),
            order,
            chunk,
            summary: gpu.kernel(&source, "tvap_summary")?,
            carry: gpu.kernel(&source, "tvap_carry")?,
            apply: gpu.kernel(&source, "tvap_apply")?,
            grad_a: gpu.kernel(&source, "tvap_grad_a")?,
            scratch: Mutex::new(None),
        })
    }

    /// The target the kernels run on.
    pub fn target(&self) -> &GpuTarget {
        &self.target
    }

    fn scratch<'g>(
        &self,
        guard: &'g mut Option<Scratch<T>>,
        chunks: usize,
    ) -> Result<&'g mut Scratch<T>, FilterError> {
        let p = self.order;
        if guard.as_ref().is_none_or(|s| s.chunks < chunks) {
            let stream = self.target.stream();
            let what = "allocating the all-pole filter's chunk scratch";
            use sigpu_runtime::cuda::DriverContext;
            *guard = Some(Scratch {
                chunks,
                mats: stream.alloc_zeros::<f64>(chunks * p * p).context(what)?,
                sums: stream.alloc_zeros::<f64>(chunks * p).context(what)?,
                states: stream.alloc_zeros::<f64>(chunks * p).context(what)?,
                dummy: self.target.gpu().alloc_poisoned::<T>(p)?,
                dummy_out: self.target.gpu().alloc_poisoned::<T>(p)?,
            });
        }
        Ok(guard.as_mut().expect("just set"))
    }

    /// The three passes of one direction: `out` from `input` and `a` (channels × n [× order]),
    /// from `zi` (forward only), the final state into `zf`.
    #[allow(clippy::too_many_arguments)]
    fn passes(
        &self,
        input: &DeviceSlice<'_, T>,
        a: &DeviceSlice<'_, T>,
        zi: Option<&DeviceSlice<'_, T>>,
        out: &mut DeviceSliceMut<'_, T>,
        zf: Option<&mut DeviceSliceMut<'_, T>>,
        channels: usize,
        n: usize,
        reverse: bool,
    ) -> Result<(), FilterError> {
        let per = n.div_ceil(self.chunk);
        let chunks = per * channels;
        if per > i32::MAX as usize || channels > 65_535 || chunks > u32::MAX as usize / 2 {
            return Err(FilterError::Input(format!(
                "{channels} channels of {per} chunks is more than one launch takes (at most \
                 65535 channels)"
            )));
        }
        let mut guard = self.scratch.lock().unwrap_or_else(|p| p.into_inner());
        let s = self.scratch(&mut guard, chunks)?;
        let (n64, per32, rev, ch32) = (n as i64, per as i32, reverse as i32, channels as i32);
        self.target
            .launch(&self.summary)
            .slice(input)
            .slice(a)
            .arg(&n64)
            .arg(&per32)
            .arg(&rev)
            .buf_mut(&mut s.mats)
            .buf_mut(&mut s.sums)
            .run(LaunchConfig {
                grid_dim: (per as u32, channels as u32, 1),
                block_dim: (lanes(self.order + 1), 1, 1),
                shared_mem_bytes: 0,
            })?;
        let has_zi = zi.is_some() as i32;
        let dummy_in = DeviceSlice::of(&s.dummy);
        let zi = zi.unwrap_or(&dummy_in);
        let carry = Carry {
            mats: &s.mats,
            sums: &s.sums,
            per: per32,
            channels,
            zi,
            has_zi,
        };
        match zf {
            Some(z) => self.launch_carry(&carry, &mut s.states, z, 1)?,
            None => {
                let mut dummy = DeviceSliceMut::of(&mut s.dummy_out);
                self.launch_carry(&carry, &mut s.states, &mut dummy, 0)?
            }
        }
        self.target
            .launch(&self.apply)
            .slice(input)
            .slice(a)
            .arg(&n64)
            .arg(&per32)
            .arg(&ch32)
            .arg(&rev)
            .buf(&s.states)
            .slice_mut(out)
            .run(LaunchConfig {
                grid_dim: ((chunks as u32).div_ceil(APPLY_THREADS), 1, 1),
                block_dim: (APPLY_THREADS, 1, 1),
                shared_mem_bytes: 0,
            })?;
        Ok(())
    }

    fn launch_carry(
        &self,
        c: &Carry<'_, '_, T>,
        states: &mut DeviceBuffer<f64>,
        zf: &mut DeviceSliceMut<'_, T>,
        has_zf: i32,
    ) -> Result<(), FilterError> {
        self.target
            .launch(&self.carry)
            .buf(c.mats)
            .buf(c.sums)
            .arg(&c.per)
            .slice(c.zi)
            .arg(&c.has_zi)
            .buf_mut(states)
            .slice_mut(zf)
            .arg(&has_zf)
            .run(LaunchConfig {
                grid_dim: (c.channels as u32, 1, 1),
                block_dim: (lanes(self.order), 1, 1),
                shared_mem_bytes: 0,
            })?;
        Ok(())
    }

    /// The forward pass on device data (lengths checked by the caller).
    pub(crate) fn forward(
        &self,
        mut io: DeviceForward<'_, T>,
        n: usize,
    ) -> Result<(), FilterError> {
        let channels = io.channels;
        self.passes(
            &io.x,
            &io.a,
            io.zi.as_ref(),
            &mut io.y,
            io.zf.as_mut(),
            channels,
            n,
            false,
        )
    }

    /// The backward pass on device data (lengths checked by the caller).
    pub(crate) fn backward(
        &self,
        mut io: DeviceBackward<'_, T>,
        n: usize,
    ) -> Result<(), FilterError> {
        let channels = io.channels;
        self.passes(
            &io.grad_y,
            &io.a,
            None,
            &mut io.grad_x,
            io.grad_zi.as_mut(),
            channels,
            n,
            true,
        )?;
        let total = (channels * n * self.order) as i64;
        let has_zi = io.zi.is_some() as i32;
        let mut guard = self.scratch.lock().unwrap_or_else(|p| p.into_inner());
        let s = guard.as_mut().expect("allocated by the passes");
        let dummy = DeviceSlice::of(&s.dummy);
        let zi = io.zi.as_ref().unwrap_or(&dummy);
        let u = io.grad_x.as_view();
        let blocks = (total as u64).div_ceil(GRAD_THREADS as u64).min(1 << 20) as u32;
        self.target
            .launch(&self.grad_a)
            .slice(&u)
            .slice(&io.y)
            .slice(zi)
            .arg(&has_zi)
            .arg(&(n as i64))
            .arg(&total)
            .slice_mut(&mut io.grad_a)
            .run(LaunchConfig {
                grid_dim: (blocks.max(1), 1, 1),
                block_dim: (GRAD_THREADS, 1, 1),
                shared_mem_bytes: 0,
            })?;
        Ok(())
    }
}

impl<T: Element> GpuAllPole<T> {
    /// Steps per chunk.
    pub fn chunk(&self) -> usize {
        self.chunk
    }

    /// Uploads, runs [`forward`](Self::forward) and downloads (host data on a GPU target).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn forward_host(
        &self,
        x: &[T],
        a: &[T],
        zi: Option<&[T]>,
        y: &mut [T],
        zf: Option<&mut [T]>,
        channels: usize,
        n: usize,
    ) -> Result<(), FilterError> {
        let gpu = self.target.gpu();
        let stream = self.target.stream();
        let what = "copying the all-pole filter's data";
        use sigpu_runtime::cuda::DriverContext;
        let dx = stream.clone_htod(x).context(what)?;
        let da = stream.clone_htod(a).context(what)?;
        let dzi = zi.map(|z| stream.clone_htod(z)).transpose().context(what)?;
        let mut dy = gpu.alloc_poisoned::<T>(x.len())?;
        let mut dzf = gpu.alloc_poisoned::<T>(channels * self.order)?;
        self.forward(
            DeviceForward {
                x: DeviceSlice::of(&dx),
                a: DeviceSlice::of(&da),
                zi: dzi.as_ref().map(DeviceSlice::of),
                y: DeviceSliceMut::of(&mut dy),
                zf: zf.is_some().then(|| DeviceSliceMut::of(&mut dzf)),
                channels,
            },
            n,
        )?;
        stream.memcpy_dtoh(&dy, y).context(what)?;
        if let Some(out) = zf {
            stream.memcpy_dtoh(&dzf, out).context(what)?;
        }
        stream.synchronize().context(what)?;
        Ok(())
    }

    /// Uploads, runs [`backward`](Self::backward) and downloads.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn backward_host(
        &self,
        a: &[T],
        y: &[T],
        zi: Option<&[T]>,
        grad_y: &[T],
        grad_x: &mut [T],
        grad_a: &mut [T],
        grad_zi: Option<&mut [T]>,
        channels: usize,
        n: usize,
    ) -> Result<(), FilterError> {
        let gpu = self.target.gpu();
        let stream = self.target.stream();
        let what = "copying the all-pole filter's data";
        use sigpu_runtime::cuda::DriverContext;
        let da = stream.clone_htod(a).context(what)?;
        let dy = stream.clone_htod(y).context(what)?;
        let dg = stream.clone_htod(grad_y).context(what)?;
        let dzi = zi.map(|z| stream.clone_htod(z)).transpose().context(what)?;
        let mut dgx = gpu.alloc_poisoned::<T>(grad_y.len())?;
        let mut dga = gpu.alloc_poisoned::<T>(a.len())?;
        let mut dgzi = gpu.alloc_poisoned::<T>(channels * self.order)?;
        self.backward(
            DeviceBackward {
                a: DeviceSlice::of(&da),
                y: DeviceSlice::of(&dy),
                zi: dzi.as_ref().map(DeviceSlice::of),
                grad_y: DeviceSlice::of(&dg),
                grad_x: DeviceSliceMut::of(&mut dgx),
                grad_a: DeviceSliceMut::of(&mut dga),
                grad_zi: grad_zi.is_some().then(|| DeviceSliceMut::of(&mut dgzi)),
                channels,
            },
            n,
        )?;
        stream.memcpy_dtoh(&dgx, grad_x).context(what)?;
        stream.memcpy_dtoh(&dga, grad_a).context(what)?;
        if let Some(out) = grad_zi {
            stream.memcpy_dtoh(&dgzi, out).context(what)?;
        }
        stream.synchronize().context(what)?;
        Ok(())
    }
}
