//! `sigpu bench ...`: measurements whose figures go to BENCHMARKS.md.

use anyhow::Result;
use clap::Args;
use sigpu_lab::copy;
use sigpu_runtime::Device;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct CopyArgs {
    /// Buffer size in MiB (default 1024 on a GPU, 256 on the CPU).
    #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u64).range(1..=65536))]
    pub size_mib: Option<u64>,
    /// Timed repetitions; the median is reported.
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u64).range(1..=10000))]
    pub runs: u64,
    /// Untimed repetitions first.
    #[arg(long, default_value_t = 5)]
    pub warmup: u64,
    #[command(flatten)]
    pub out: crate::cmd::JsonOut,
}

pub fn copy(device: Option<Device>, json: bool, args: &CopyArgs) -> Result<ExitCode> {
    args.out.check()?;
    let target = super::resolve(device, super::Need::Either, "bench copy")?;
    let (runs, warmup) = (args.runs as usize, args.warmup as usize);
    let result = copy::measure_mib(target.gpu(), args.size_mib, warmup, runs)?;
    args.out.report(json, &result, |r| r.text())
}
