//! One module per subcommand; each returns the process exit code.

pub mod approx;
mod bench;
pub mod bench_filter;
mod check;
pub mod clns;
mod demo;
pub mod filter;
mod info;
pub mod ldpc;
pub mod lns;

use crate::cli::{BenchCommand, Cli, Command, DeviceChoice};
use anyhow::{bail, Context, Result};
use sigpu_runtime::cuda::Gpu;
use sigpu_runtime::Device;
use std::process::ExitCode;

pub fn run(cli: &Cli) -> Result<ExitCode> {
    // `--device all` reaches only the LDPC commands (simulate spreads over every GPU); every
    // other command takes one device and refuses `all` here.
    let one = || DeviceChoice::one(cli.device);
    match &cli.command {
        Command::Info => info::run(cli.json),
        Command::Check(args) => check::run(one()?, cli.json, args),
        Command::Bench(BenchCommand::Copy(args)) => bench::copy(one()?, cli.json, args),
        Command::Bench(BenchCommand::Lns(args)) => lns::bench::run(one()?, cli.json, args),
        Command::Demo => demo::run(one()?, cli.json),
        Command::Lns(command) => lns::run(one()?, cli.json, command),
        Command::Filter(args) => filter::run(one()?, cli.json, args),
        Command::Bench(BenchCommand::Filter(args)) => bench_filter::run(one()?, cli.json, args),
        Command::Ldpc(ldpc::LdpcCommand::Simulate(args)) => {
            let all = cli.device == Some(DeviceChoice::AllGpus);
            ldpc::simulate(if all { None } else { one()? }, all, cli.json, args)
        }
        Command::Ldpc(command) => ldpc::run(one()?, cli.json, command),
        Command::Bench(BenchCommand::Ldpc(args)) => ldpc::bench(one()?, cli.json, args),
        Command::Approx(command) => approx::run(one()?, cli.json, command),
        Command::Clns(command) => clns::run(one()?, cli.json, command),
        Command::Bench(BenchCommand::Clns(args)) => clns::bench(one()?, cli.json, args),
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
    Gpu(Box<Gpu>),
}

impl Target {
    pub fn gpu(&self) -> Option<&Gpu> {
        match self {
            Target::Cpu => None,
            Target::Gpu(g) => Some(g),
        }
    }

    fn gpu_boxed(gpu: Gpu) -> Target {
        Target::Gpu(Box::new(gpu))
    }

    pub fn into_gpu(self) -> Option<Gpu> {
        match self {
            Target::Cpu => None,
            Target::Gpu(g) => Some(*g),
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
        (_, Some(Device::Cuda(n))) => open_gpu(n).map(Target::gpu_boxed),
        (Need::Gpu, None) => open_gpu(0).map(Target::gpu_boxed),
        (Need::Either, None) => {
            Ok(Gpu::open_with_compiler(0).map_or(Target::Cpu, Target::gpu_boxed))
        }
    }
}

/// Device `ordinal` with NVRTC, as every command that runs kernels needs it.
fn open_gpu(ordinal: usize) -> Result<Gpu> {
    Gpu::open_with_compiler(ordinal)
        .with_context(|| format!("--device cuda:{ordinal} cannot run kernels"))
}

fn print_json(value: &impl serde::Serialize) -> Result<()> {
    println!("{}", serde_json::to_string_pretty(value)?);
    Ok(())
}

/// `--out FILE`: the JSON result written atomically, the file named in any error.
fn write_json_out(path: &Option<std::path::PathBuf>, value: &impl serde::Serialize) -> Result<()> {
    if let Some(path) = path {
        let text = serde_json::to_string_pretty(value)?;
        sigpu_runtime::fs::write_atomic(path, text.as_bytes())
            .with_context(|| format!("--out {}: cannot write", path.display()))?;
    }
    Ok(())
}

/// A spinner with a message for work of unknown length, ticking on its own.
fn spinner() -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new_spinner();
    bar.set_style(
        indicatif::ProgressStyle::with_template("{spinner} {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
    );
    bar.enable_steady_tick(std::time::Duration::from_millis(200));
    bar
}
