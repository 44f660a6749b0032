//! Launching on memory and streams that belong to another library (PyTorch, CuPy, JAX …).
//!
//! The CUDA runtime those libraries use works in each device's primary context, and
//! [`Gpu::open`] retains that same context, so their device pointers are valid in sigpu's
//! kernels as they are. What differs is ownership: the memory and the stream stay theirs. A
//! foreign pointer is passed to a kernel as a plain 64-bit value ([`Launch::ptr`]), never
//! wrapped in a `CudaSlice` (which would free it on drop), and the caller's stream is
//! borrowed ([`Gpu::borrowed_stream`]), never destroyed, so sigpu's work is ordered after
//! the caller's earlier work and before its later work without any synchronisation.

use super::error::{DriverContext, Result};
use super::gpu::{Gpu, Kernel};
use super::launch::Launch;
use cudarc::driver::{sys, CudaStream};
use std::sync::Arc;

impl Gpu {
    /// Wraps the caller's stream `handle` (a `cudaStream_t`; 0 is the legacy default
    /// stream) for launches on this device. Dropping the wrapper leaves the stream alone.
    ///
    /// # Safety
    /// `handle` must be 0 or a live stream of this device's primary context, and stay alive
    /// while the wrapper (or work launched through it) is in use.
    pub unsafe fn borrowed_stream(&self, handle: u64) -> Arc<CudaStream> {
        // SAFETY: forwarded to the caller (above).
        unsafe { self.context().wrap_borrowed_stream(handle as sys::CUstream) }
    }

    /// Starts a launch of `kernel` on `stream` (usually a [`Gpu::borrowed_stream`]).
    pub fn launch_on<'a>(&'a self, stream: &'a Arc<CudaStream>, kernel: &'a Kernel) -> Launch<'a> {
        Launch::new(stream, kernel)
    }

    /// Waits until every operation queued on `stream` is done.
    pub fn synchronize_stream(&self, stream: &Arc<CudaStream>) -> Result<()> {
        stream
            .synchronize()
            .context("synchronising the caller's stream")
    }
}

impl<'a> Launch<'a> {
    /// A device pointer owned by another library, as the kernel's `T*` / `const T*`
    /// parameter. The kernel contract of [`Launch`] applies: the caller vouches that the
    /// pointer covers every element the kernel touches on this context.
    pub fn ptr(&mut self, device_pointer: &'a u64) -> &mut Self {
        self.arg(device_pointer)
    }
}

/// Copies `dst.len()` values from the device address `src` to the host on `stream`, and waits.
///
/// # Safety
/// `src` must address at least `dst.len()` values of `T` on `stream`'s context.
pub unsafe fn copy_to_host<T: Copy>(
    stream: &Arc<CudaStream>,
    src: u64,
    dst: &mut [T],
) -> Result<()> {
    // SAFETY: forwarded to the caller; the copy is waited for before `dst` is released.
    copy_and_wait(stream, "copying device to host", |s| unsafe {
        cudarc::driver::result::memcpy_dtoh_async(dst, src, s)
    })
}

/// Copies `src` from the host to the device address `dst` on `stream`, and waits.
///
/// # Safety
/// `dst` must address room for `src.len()` values of `T` on `stream`'s context.
pub unsafe fn copy_from_host<T: Copy>(stream: &Arc<CudaStream>, src: &[T], dst: u64) -> Result<()> {
    // SAFETY: forwarded to the caller; the copy is waited for before `src` is released.
    copy_and_wait(stream, "copying host to device", |s| unsafe {
        cudarc::driver::result::memcpy_htod_async(dst, src, s)
    })
}

/// Binds `stream`'s context, enqueues `copy` on it and waits for it, naming `what` on error.
fn copy_and_wait(
    stream: &Arc<CudaStream>,
    what: &str,
    copy: impl FnOnce(sys::CUstream) -> std::result::Result<(), cudarc::driver::DriverError>,
) -> Result<()> {
    stream
        .context()
        .bind_to_thread()
        .context("binding the context")?;
    copy(stream.cu_stream()).context(what)?;
    stream.synchronize().context(what)
}
