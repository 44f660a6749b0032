//! Typed kernel launches: the one place sigpu hands a kernel and its arguments to the driver.
//!
//! A [`Kernel`] knows its name and, where the driver can say (CUDA ≥ 12.4), the size of each of
//! its parameters. A [`Launch`] collects arguments by kind — values ([`Launch::arg`]), read
//! buffers ([`Launch::buf`]), written buffers ([`Launch::buf_mut`]) — and [`Launch::run`]
//! checks their count and sizes against the kernel's parameters before the launch, so an
//! argument list that drifted from the kernel's signature is an error naming the kernel and
//! the parameter, not undefined behaviour on the device.
//!
//! What the check cannot see, and so what every kernel of the workspace promises instead: a
//! parameter's type beyond its size (an 8-byte number where a pointer is expected passes, as
//! does `u32` for `float`), which buffers it writes (`buf` is for buffers the kernel only reads:
//! the stream bookkeeping relies on it), and that it stays within the lengths it is given. That
//! contract is checked for every kernel by its CPU twin in `sigpu check`, with outputs poisoned
//! first. Launching is safe in this crate's API on that basis: kernels are sigpu's own `.cu`
//! files or its generators' output, never foreign code. On a driver older than CUDA 12.4 the
//! parameter sizes are unknown and only that contract remains.

use super::error::{DriverContext, Error, Result};
use super::gpu::{Gpu, Kernel};
use super::view::{DeviceSlice, DeviceSliceMut};
use super::DeviceBuffer;
use cudarc::driver::{
    CudaStream, CudaView, CudaViewMut, DeviceRepr, LaunchArgs, LaunchConfig, PushKernelArg,
};
use std::sync::Arc;

/// Types a kernel takes by value: numbers, and `#[repr(C)]` structs that mirror a CUDA struct
/// (implement it for those next to their `DeviceRepr` impl).
pub trait KernelValue: DeviceRepr + Copy {}

macro_rules! kernel_values {
    ($($t:ty),*) => {$( impl KernelValue for $t {} )*};
}
kernel_values!(f32, f64, i8, i16, i32, i64, u8, u16, u32, u64, usize, isize, bool);

/// A kernel launch being assembled: [`Gpu::launch`] starts one, [`Launch::run`] submits it.
pub struct Launch<'a> {
    kernel: &'a Kernel,
    args: LaunchArgs<'a>,
    /// The byte size of each argument pushed, in order.
    sizes: Vec<usize>,
    /// The device the launch goes to (its stream's).
    ordinal: usize,
    /// A view of another device's memory was pushed: (argument index, its device).
    foreign_device: Option<(usize, usize)>,
}

impl<'a> Launch<'a> {
    pub(crate) fn new(stream: &'a Arc<CudaStream>, kernel: &'a Kernel) -> Launch<'a> {
        Launch {
            kernel,
            args: stream.launch_builder(kernel.function()),
            sizes: Vec::new(),
            ordinal: stream.context().ordinal(),
            foreign_device: None,
        }
    }

    /// Records a view's device; one of another device fails the launch in [`Launch::run`].
    fn on_device(&mut self, ordinal: usize) {
        if ordinal != self.ordinal && self.foreign_device.is_none() {
            self.foreign_device = Some((self.sizes.len(), ordinal));
        }
    }

    /// Device memory the kernel reads (`const T*`): an owned buffer's or a foreign one's.
    pub fn slice<T>(&mut self, view: &'a DeviceSlice<'_, T>) -> &mut Self {
        self.on_device(view.ordinal());
        self.args.arg(view.ptr_ref());
        self.sizes.push(POINTER);
        self
    }

    /// Device memory the kernel writes (`T*`): an owned buffer's or a foreign one's.
    pub fn slice_mut<T>(&mut self, view: &'a mut DeviceSliceMut<'_, T>) -> &mut Self {
        self.on_device(view.ordinal());
        self.args.arg(view.ptr_ref());
        self.sizes.push(POINTER);
        self
    }

    /// A value argument (a number or a `#[repr(C)]` struct).
    pub fn arg<T: KernelValue>(&mut self, value: &'a T) -> &mut Self {
        self.args.arg(value);
        self.sizes.push(std::mem::size_of::<T>());
        self
    }

    /// A buffer the kernel reads (`const T*`).
    pub fn buf<T>(&mut self, buffer: &'a DeviceBuffer<T>) -> &mut Self {
        self.args.arg(buffer);
        self.sizes.push(POINTER);
        self
    }

    /// A buffer the kernel writes (`T*`).
    pub fn buf_mut<T>(&mut self, buffer: &'a mut DeviceBuffer<T>) -> &mut Self {
        self.args.arg(buffer);
        self.sizes.push(POINTER);
        self
    }

    /// A part of a buffer the kernel reads.
    pub fn view<T>(&mut self, view: &'a CudaView<'_, T>) -> &mut Self {
        self.args.arg(view);
        self.sizes.push(POINTER);
        self
    }

    /// A part of a buffer the kernel writes.
    pub fn view_mut<T>(&mut self, view: &'a mut CudaViewMut<'_, T>) -> &mut Self {
        self.args.arg(view);
        self.sizes.push(POINTER);
        self
    }

    /// Checks the arguments against the kernel's parameters, then launches with `config`.
    pub fn run(&mut self, config: LaunchConfig) -> Result<()> {
        if let Some((index, ordinal)) = self.foreign_device {
            return Err(Error::Launch {
                kernel: self.kernel.name().to_owned(),
                reason: format!(
                    "argument {index} is memory of cuda:{ordinal}, the launch is on cuda:{}",
                    self.ordinal
                ),
            });
        }
        check_signature(self.kernel, &self.sizes)?;
        check_config(self.kernel, &config)?;
        // SAFETY: the argument count and every argument's size match the kernel's parameters
        // (checked above where the driver reports them, CUDA >= 12.4); value arguments are
        // `DeviceRepr` types (`#[repr(C)]`, no pointers) and buffers are live device
        // allocations of this context borrowed for the launch. The rest is the kernel's
        // contract (module docs): it reads only `buf`s, writes only `buf_mut`s, stays within
        // their lengths and takes each argument as the type given; every kernel's `sigpu
        // check` against its CPU twin, on poisoned outputs, holds it to that.
        unsafe { self.args.launch(config) }
            .map(drop)
            .context(format_args!("launching {}", self.kernel.name()))
    }
}

const POINTER: usize = std::mem::size_of::<u64>();

fn check_signature(kernel: &Kernel, sizes: &[usize]) -> Result<()> {
    let Some(params) = kernel.param_sizes() else {
        return Ok(());
    };
    if params.len() != sizes.len() {
        return Err(Error::Launch {
            kernel: kernel.name().to_owned(),
            reason: format!(
                "it takes {} parameters, {} arguments were given",
                params.len(),
                sizes.len()
            ),
        });
    }
    match params.iter().zip(sizes).position(|(p, s)| p != s) {
        Some(i) => Err(Error::Launch {
            kernel: kernel.name().to_owned(),
            reason: format!(
                "parameter {i} has {} bytes, the argument given has {}",
                params[i], sizes[i]
            ),
        }),
        None => Ok(()),
    }
}

fn check_config(kernel: &Kernel, config: &LaunchConfig) -> Result<()> {
    let (g, b) = (config.grid_dim, config.block_dim);
    if g.0 == 0 || g.1 == 0 || g.2 == 0 || b.0 == 0 || b.1 == 0 || b.2 == 0 {
        return Err(Error::Launch {
            kernel: kernel.name().to_owned(),
            reason: format!("empty launch: grid {g:?}, block {b:?}"),
        });
    }
    Ok(())
}

impl Gpu {
    /// Starts a launch of `kernel` on this device's stream.
    pub fn launch<'a>(&'a self, kernel: &'a Kernel) -> Launch<'a> {
        Launch::new(self.stream(), kernel)
    }
}

/// A grid-stride launch for element-wise kernels over `n` elements: 256 threads per block and
/// enough blocks to fill every SM (at most 32 per SM), so each thread loops over its share.
/// The shape is [`StreamPolicy::default`](super::tuning::StreamPolicy), untuned: the kernels
/// whose shape is tuned per device read their own family's policy.
pub fn streaming_config(gpu: &Gpu, n: usize) -> LaunchConfig {
    super::tuning::StreamPolicy::default().launch(gpu.info().sms, n)
}

/// The common length of buffers an element-wise operation `op` takes, or an error listing them.
pub fn equal_lengths(op: &str, lens: &[usize]) -> Result<usize> {
    let n = lens.first().copied().unwrap_or(0);
    if lens.iter().all(|&l| l == n) {
        return Ok(n);
    }
    let shown: Vec<String> = lens.iter().map(usize::to_string).collect();
    let list = match shown.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => shown.join(""),
    };
    Err(Error::Invalid(format!("{op}: lengths {list} differ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_lengths_names_the_operation_and_every_length() {
        assert_eq!(equal_lengths("add", &[4, 4, 4]).unwrap(), 4);
        assert_eq!(equal_lengths("none", &[]).unwrap(), 0);
        let e = equal_lengths("LNS add", &[3, 4, 4])
            .unwrap_err()
            .to_string();
        assert!(e.contains("LNS add: lengths 3, 4 and 4 differ"), "{e}");
    }
}
