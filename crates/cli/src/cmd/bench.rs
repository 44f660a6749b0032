//! `sigpu bench ...`: measurements whose figures go to BENCHMARKS.md.

use anyhow::{Context, Result};
use clap::Args;
use serde::Serialize;
use sigpu_lab::table;
use sigpu_runtime::cuda::{copy_bandwidth, CopyBench};
use sigpu_runtime::host::{self, HostCopyBench};
use sigpu_runtime::Device;
use std::process::ExitCode;

#[derive(Serialize)]
#[serde(tag = "device_kind", rename_all = "snake_case")]
enum CopyResult {
    Cuda(CopyBench),
    Cpu(HostCopyBench),
}

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
    super::check_files(&Vec::from_iter(args.out.output()), &[])?;
    let target = super::resolve(device, super::Need::Either, "bench copy")?;
    let gpu = target.gpu();
    let mib = args
        .size_mib
        .unwrap_or(if gpu.is_some() { 1024 } else { 256 });
    let bytes = usize::try_from(mib << 20).context("--size-mib does not fit in memory")?;
    let (runs, warmup) = (args.runs as usize, args.warmup as usize);
    let result = match gpu {
        Some(gpu) => CopyResult::Cuda(copy_bandwidth(gpu, bytes, warmup, runs)?),
        None => CopyResult::Cpu(host::copy_bandwidth(bytes, host::threads(), runs)?),
    };
    super::write_json_out(&args.out, &result)?;
    super::report(json, &result, |r| print!("{}", render(r)))
}

fn render(result: &CopyResult) -> String {
    match result {
        CopyResult::Cuda(b) => {
            let header = ["method", "GB/s", "median ms", "min..max ms"];
            let table = table::of(&header, &b.methods, |m| {
                vec![
                    m.method.clone(),
                    format!("{:.1}", m.gb_per_s),
                    format!("{:.4}", m.timing.median_ms),
                    format!("{:.4}..{:.4}", m.timing.min_ms, m.timing.max_ms),
                ]
            });
            format!(
                "{}: copy of {} MiB, read + write counted, median of {} runs\n{}best: {:.1} GB/s\n",
                b.device,
                b.bytes >> 20,
                b.methods.first().map_or(0, |m| m.timing.samples_ms.len()),
                table,
                b.best_gb_per_s
            )
        }
        CopyResult::Cpu(b) => format!(
            "CPU copy of {} MiB with {} threads, read + write counted, median of {} runs: {:.1} GB/s ({:.4} s)\n",
            b.bytes >> 20,
            b.threads,
            b.runs,
            b.gb_per_s,
            b.median_s
        ),
    }
}
