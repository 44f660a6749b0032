//! The device a command runs on: `--device` as the user gave it ([`DeviceChoice`]) and the one
//! policy that turns it into a CPU or an opened GPU ([`resolve`]).

use anyhow::{bail, Context, Result};
use sigpu_runtime::cuda::Gpu;
use sigpu_runtime::Device;

/// What `--device` names: one device, or every GPU of the host (`all`), which only commands
/// that spread their work over GPUs take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceChoice {
    One(Device),
    AllGpus,
}

impl DeviceChoice {
    /// The one device a command runs on; `all` is refused with what to give instead.
    pub fn one(choice: Option<DeviceChoice>) -> anyhow::Result<Option<Device>> {
        match choice {
            None => Ok(None),
            Some(DeviceChoice::One(device)) => Ok(Some(device)),
            Some(DeviceChoice::AllGpus) => anyhow::bail!(
                "--device all (every GPU of the host) is taken only by `sigpu ldpc simulate`; \
                 this command runs on one device: give cpu, cuda or cuda:N"
            ),
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
            .map_err(|e: sigpu_runtime::ParseDeviceError| format!("{e}, or `all` (every GPU)"))
    }
}

/// How a command uses the device; [`resolve`] applies the one policy `--device`'s help states.
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
pub enum Target {
    Cpu,
    Gpu(Gpu),
}

impl Target {
    pub fn gpu(&self) -> Option<&Gpu> {
        match self {
            Target::Cpu => None,
            Target::Gpu(g) => Some(g),
        }
    }

    pub fn into_gpu(self) -> Option<Gpu> {
        match self {
            Target::Cpu => None,
            Target::Gpu(g) => Some(g),
        }
    }
}

/// The one device policy. An explicit `--device` is honoured (a GPU that cannot run kernels
/// is an error naming the flag); without it, GPU commands take cuda:0 and the others the
/// first GPU when usable, else the CPU. `what` names the command in errors.
pub fn resolve(device: Option<Device>, need: Need, what: &str) -> Result<Target> {
    match (need, device) {
        (Need::Cpu, Some(Device::Cuda(_))) => {
            bail!("`{what}` runs on the CPU only: drop --device or use --device cpu")
        }
        (Need::Gpu, Some(Device::Cpu)) => {
            bail!("`{what}` runs GPU kernels: use --device cuda[:N]")
        }
        (Need::Cpu, _) | (Need::Either, Some(Device::Cpu)) => Ok(Target::Cpu),
        (_, Some(Device::Cuda(n))) => open_gpu(n).map(Target::Gpu),
        (Need::Gpu, None) => open_gpu(0).map(Target::Gpu),
        (Need::Either, None) => Ok(Gpu::open_with_compiler(0).map_or(Target::Cpu, Target::Gpu)),
    }
}

/// [`resolve`] for commands that only run GPU kernels: the GPU itself.
pub fn resolve_gpu(device: Option<Device>, what: &str) -> Result<Gpu> {
    match resolve(device, Need::Gpu, what)? {
        Target::Gpu(gpu) => Ok(gpu),
        Target::Cpu => unreachable!("Need::Gpu never resolves to the CPU"),
    }
}

/// Device `ordinal` with NVRTC, as every command that runs kernels needs it.
fn open_gpu(ordinal: usize) -> Result<Gpu> {
    Gpu::open_with_compiler(ordinal)
        .with_context(|| format!("--device cuda:{ordinal} cannot run kernels"))
}
