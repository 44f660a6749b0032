//! Where a planned computation runs, decided once: the CPU (its instruction sets and threads)
//! or one GPU with the stream its work is ordered on.
//!
//! Every capability's planner takes a [`Target`] and returns an object bound to it, so a
//! filter, decoder or LNS method built for `cuda:1` on a caller's stream cannot upload on one
//! device and launch on another. A GPU target's stream is the device's own
//! ([`GpuTarget::new`]) or one borrowed from the caller ([`GpuTarget::on_stream`]: PyTorch's or
//! CuPy's current stream), so sigpu's work is ordered after the caller's earlier work and
//! before its later work without synchronising.

use crate::cuda::{self, Gpu, Kernel, Launch};
use crate::host::CpuArch;
use crate::Device;
use cudarc::driver::CudaStream;
use std::sync::Arc;

/// Where a planned object runs.
#[derive(Clone)]
pub enum Target {
    /// The host's cores.
    Cpu(CpuTarget),
    /// One GPU and a stream.
    Gpu(GpuTarget),
}

/// The host CPU as a target: the instruction sets dispatchers may use and the thread count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CpuTarget {
    /// The extensions SIMD dispatchers may use (never more than the host has).
    pub arch: CpuArch,
    /// Threads (None: all the process may use).
    pub threads: Option<usize>,
}

impl Default for CpuTarget {
    fn default() -> Self {
        CpuTarget {
            arch: CpuArch::host(),
            threads: None,
        }
    }
}

/// A GPU and the stream work on it is ordered on. Cheap to clone.
#[derive(Clone)]
pub struct GpuTarget {
    gpu: Gpu,
    stream: Arc<CudaStream>,
}

impl GpuTarget {
    /// `gpu` with its own stream.
    pub fn new(gpu: Gpu) -> GpuTarget {
        let stream = gpu.stream().clone();
        GpuTarget { gpu, stream }
    }

    /// `gpu` with the caller's stream `handle` (a `cudaStream_t`; 0 is the legacy default
    /// stream), borrowed: dropping the target leaves the stream alone.
    ///
    /// # Safety
    /// `handle` must be 0 or a live stream of `gpu`'s primary context, and stay alive while the
    /// target (or work launched through it) is in use.
    pub unsafe fn on_stream(gpu: Gpu, handle: u64) -> GpuTarget {
        // SAFETY: forwarded to the caller (above).
        let stream = unsafe { gpu.borrowed_stream(handle) };
        GpuTarget { gpu, stream }
    }

    /// The device.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// The stream work is enqueued on.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// Whether work goes on the device's own stream (not a caller's).
    pub fn owns_stream(&self) -> bool {
        Arc::ptr_eq(&self.stream, self.gpu.stream())
    }

    /// Starts a launch of `kernel` on this target's stream.
    pub fn launch<'a>(&'a self, kernel: &'a Kernel) -> Launch<'a> {
        self.gpu.launch_on(&self.stream, kernel)
    }

    /// Waits until the work queued on the stream is done.
    pub fn synchronize(&self) -> cuda::Result<()> {
        self.gpu.synchronize_stream(&self.stream)
    }

    /// A label for reports: the device's name and architecture.
    pub fn describe(&self) -> String {
        format!("{} ({})", self.gpu.info().name, self.gpu.arch())
    }
}

impl std::fmt::Debug for GpuTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "GpuTarget(cuda:{}, {} stream)",
            self.gpu.ordinal(),
            if self.owns_stream() {
                "own"
            } else {
                "caller's"
            }
        )
    }
}

impl std::fmt::Debug for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Cpu(c) => write!(f, "Target::Cpu({c:?})"),
            Target::Gpu(g) => write!(f, "Target::{g:?}"),
        }
    }
}

impl Target {
    /// The host CPU with every extension it has and all threads.
    pub fn cpu() -> Target {
        Target::Cpu(CpuTarget::default())
    }

    /// `gpu` on its own stream.
    pub fn gpu_default(gpu: Gpu) -> Target {
        Target::Gpu(GpuTarget::new(gpu))
    }

    /// Opens what `device` names: the CPU, or GPU `N` with NVRTC checked (an error naming
    /// what is missing when it cannot run kernels).
    pub fn open(device: Device) -> cuda::Result<Target> {
        match device {
            Device::Cpu => Ok(Target::cpu()),
            Device::Cuda(n) => Ok(Target::gpu_default(Gpu::open_with_compiler(n)?)),
        }
    }

    /// The GPU and stream, for a GPU target.
    pub fn gpu(&self) -> Option<&GpuTarget> {
        match self {
            Target::Gpu(g) => Some(g),
            Target::Cpu(_) => None,
        }
    }

    /// The CPU settings, for a CPU target.
    pub fn cpu_settings(&self) -> Option<&CpuTarget> {
        match self {
            Target::Cpu(c) => Some(c),
            Target::Gpu(_) => None,
        }
    }

    /// The device this target is (`cpu` or `cuda:N`).
    pub fn device(&self) -> Device {
        match self {
            Target::Cpu(_) => Device::Cpu,
            Target::Gpu(g) => Device::Cuda(g.gpu.ordinal()),
        }
    }
}

impl From<GpuTarget> for Target {
    fn from(g: GpuTarget) -> Target {
        Target::Gpu(g)
    }
}

impl From<CpuTarget> for Target {
    fn from(c: CpuTarget) -> Target {
        Target::Cpu(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cpu_target_is_the_host_with_all_threads() {
        let t = Target::cpu();
        assert_eq!(t.device(), Device::Cpu);
        assert!(t.gpu().is_none());
        let c = t.cpu_settings().unwrap();
        assert_eq!((c.arch, c.threads), (CpuArch::host(), None));
        assert_eq!(Target::open(Device::Cpu).unwrap().device(), Device::Cpu);
    }
}
