//! `sigpu tune`: the measured search for the device's launch shapes (`sigpu_lab::tune`); this
//! file parses and prints.

use anyhow::Result;
use clap::Args;
use sigpu_lab::tune::{tune, Request};
use sigpu_runtime::cuda::tuning::Family;
use sigpu_runtime::Device;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct TuneArgs {
    /// Kernel families to tune, comma-separated: plr, sos, lns-stream, lns-fused-sum
    /// (default: all).
    #[arg(long, value_delimiter = ',', value_name = "F,...")]
    pub family: Vec<Family>,
    /// log2 of the elements of each case timed, comma-separated: every case runs at each size
    /// and a shape is judged over all of them.
    #[arg(
        long,
        default_value = "26",
        value_delimiter = ',',
        value_name = "L,...",
        value_parser = clap::value_parser!(u32).range(10..=30)
    )]
    pub log2_n: Vec<u32>,
    /// Timed runs per candidate and case; the median is compared.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub runs: u64,
    /// Untimed runs first.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u64).range(0..=100))]
    pub warmup: u64,
    /// Measure and report only: write nothing to the tuning cache.
    #[arg(long)]
    pub dry_run: bool,
    #[command(flatten)]
    pub out: crate::cmd::JsonOut,
}

pub fn run(device: Option<Device>, json: bool, args: &TuneArgs) -> Result<ExitCode> {
    args.out.check()?;
    let gpu = super::resolve_gpu(device, "tune")?;
    let request = Request {
        families: match args.family.is_empty() {
            true => Family::ALL.to_vec(),
            false => args.family.clone(),
        },
        log2_n: args.log2_n.clone(),
        warmup: args.warmup as usize,
        runs: args.runs as usize,
        store: !args.dry_run,
    };
    let report = super::spinning(|progress| tune(&gpu, &request, &mut |m| progress(m)))?;
    args.out.report(json, &report, |r| r.text())
}
