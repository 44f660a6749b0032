//! The one device policy of sigpu's commands: `--device` as the user gave it
//! ([`DeviceChoice`]: one [`Device`], or every GPU) and how a command that runs on the CPU, a
//! GPU or either turns it into the CPU or an opened GPU ([`resolve`]). Errors name
//! `--device`.

use crate::cuda::{Error as CudaError, Gpu};
use crate::Device;

/// What `--device` names: one device, or every GPU of the host (`all`), which only commands
/// that spread their work over GPUs take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceChoice {
    /// One device.
    One(Device),
    /// Every GPU of the host.
    AllGpus,
}

/// A device choice a command cannot take, or a GPU it cannot open.
#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    /// `--device all` on a command that runs on one device.
    #[error(
        "--device all (every GPU of the host) is taken only by `sigpu ldpc simulate`; this \
         command runs on one device: give cpu, cuda or cuda:N"
    )]
    AllRefused,
    /// A GPU named for a command that runs on the CPU only.
    #[error("`{0}` runs on the CPU only: drop --device or use --device cpu")]
    CpuOnly(String),
    /// The CPU named for a command that runs GPU kernels only.
    #[error("`{0}` runs GPU kernels: use --device cuda[:N]")]
    GpuOnly(String),
    /// No GPU is usable where one is required (`SIGPU_REQUIRE_GPU=1`).
    #[error("{env} is set and no GPU is usable: {why}", env = crate::cuda::REQUIRE_GPU_ENV)]
    Required {
        /// Why no GPU is usable.
        why: CudaError,
    },
    /// The GPU cannot run kernels (no driver, no NVRTC, no such device).
    #[error("--device cuda:{ordinal} cannot run kernels")]
    Open {
        /// The device's ordinal.
        ordinal: usize,
        /// Why it cannot.
        #[source]
        source: CudaError,
    },
}

impl DeviceChoice {
    /// The one device a command runs on; `all` is refused with what to give instead.
    pub fn one(choice: Option<DeviceChoice>) -> Result<Option<Device>, PolicyError> {
        match choice {
            None => Ok(None),
            Some(DeviceChoice::One(device)) => Ok(Some(device)),
            Some(DeviceChoice::AllGpus) => Err(PolicyError::AllRefused),
        }
    }
}

impl std::str::FromStr for DeviceChoice {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.trim().eq_ignore_ascii_case("all") {
            return Ok(DeviceChoice::AllGpus);
        }
        s.parse()
            .map(DeviceChoice::One)
            .map_err(|e: crate::ParseDeviceError| format!("{e}, or `all` (every GPU)"))
    }
}

/// How a command uses the device; [`resolve`] applies the one policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    /// Runs GPU kernels only: the default is cuda:0, `--device cpu` is refused.
    Gpu,
    /// Runs on either: the GPU when one is usable (or asked for), the CPU otherwise.
    Either,
    /// Runs on the CPU only: `--device cuda` is refused rather than ignored.
    Cpu,
}

/// Where a command runs, resolved once from `--device`.
pub enum Resolved {
    /// The CPU.
    Cpu,
    /// This GPU, opened with NVRTC.
    Gpu(Gpu),
}

impl Resolved {
    /// The GPU, when it runs on one.
    pub fn gpu(&self) -> Option<&Gpu> {
        match self {
            Resolved::Cpu => None,
            Resolved::Gpu(g) => Some(g),
        }
    }

    /// The GPU, when it runs on one, taken.
    pub fn into_gpu(self) -> Option<Gpu> {
        match self {
            Resolved::Cpu => None,
            Resolved::Gpu(g) => Some(g),
        }
    }
}

/// The one device policy. An explicit `--device` is honoured (a GPU that cannot run kernels
/// is an error naming the flag); without it, GPU commands take cuda:0 and the others the
/// first GPU when usable, else the CPU. `what` names the command in errors.
pub fn resolve(device: Option<Device>, need: Need, what: &str) -> Result<Resolved, PolicyError> {
    match (need, device) {
        (Need::Cpu, Some(Device::Cuda(_))) => Err(PolicyError::CpuOnly(what.to_owned())),
        (Need::Gpu, Some(Device::Cpu)) => Err(PolicyError::GpuOnly(what.to_owned())),
        (Need::Cpu, _) | (Need::Either, Some(Device::Cpu)) => Ok(Resolved::Cpu),
        (_, Some(Device::Cuda(n))) => open_gpu(n).map(Resolved::Gpu),
        (Need::Gpu, None) => open_gpu(0).map(Resolved::Gpu),
        (Need::Either, None) => Ok(Gpu::open_with_compiler(0).map_or(Resolved::Cpu, Resolved::Gpu)),
    }
}

/// [`resolve`] for commands that only run GPU kernels: the GPU itself.
pub fn resolve_gpu(device: Option<Device>, what: &str) -> Result<Gpu, PolicyError> {
    match resolve(device, Need::Gpu, what)? {
        Resolved::Gpu(gpu) => Ok(gpu),
        Resolved::Cpu => unreachable!("Need::Gpu never resolves to the CPU"),
    }
}

/// For the commands that skip their GPU part on a machine without one (`check`, `demo`):
/// with `--device`, the one policy ([`resolve`], `need`); without it, cuda:0 when usable,
/// else why not (`Ok(Err(reason))`: the command's GPU part is skipped), refused instead
/// when `SIGPU_REQUIRE_GPU=1` asks that a GPU machine never pass by skipping.
pub fn resolve_or_skip(
    device: Option<Device>,
    need: Need,
    what: &str,
) -> Result<Result<Resolved, String>, PolicyError> {
    if device.is_some() {
        return resolve(device, need, what).map(Ok);
    }
    match Gpu::open_with_compiler(0) {
        Ok(gpu) => Ok(Ok(Resolved::Gpu(gpu))),
        Err(why) if crate::cuda::gpu_required() => Err(PolicyError::Required { why }),
        Err(e) => Ok(Err(e.to_string())),
    }
}

/// Device `ordinal` with NVRTC, as every command that runs kernels needs it.
fn open_gpu(ordinal: usize) -> Result<Gpu, PolicyError> {
    Gpu::open_with_compiler(ordinal).map_err(|source| PolicyError::Open { ordinal, source })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_is_parsed_and_refused_where_one_device_is_taken() {
        assert_eq!("ALL".parse::<DeviceChoice>(), Ok(DeviceChoice::AllGpus));
        assert_eq!("cpu".parse(), Ok(DeviceChoice::One(Device::Cpu)));
        assert!("gpu7"
            .parse::<DeviceChoice>()
            .unwrap_err()
            .contains("`all`"));
        let e = DeviceChoice::one(Some(DeviceChoice::AllGpus)).unwrap_err();
        assert!(e.to_string().starts_with("--device all"));
    }

    #[test]
    fn a_device_the_command_cannot_use_is_refused_naming_the_command() {
        let e = resolve(Some(Device::Cuda(0)), Need::Cpu, "lns fig3")
            .err()
            .unwrap();
        assert!(e.to_string().contains("`lns fig3` runs on the CPU only"));
        let e = resolve(Some(Device::Cpu), Need::Gpu, "check")
            .err()
            .unwrap();
        assert!(e.to_string().contains("use --device cuda"));
        assert!(matches!(
            resolve(Some(Device::Cpu), Need::Either, "x"),
            Ok(Resolved::Cpu)
        ));
    }
}
