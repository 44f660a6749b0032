//! `sigpu check`: every registered GPU kernel against its CPU twin.

use super::Need;
use anyhow::{bail, Result};
use clap::Args;
use sigpu_lab::checks::Summary;
use sigpu_lab::table;
use sigpu_runtime::cuda::{Check, Gpu};
use sigpu_runtime::device_policy as policy;
use sigpu_runtime::Device;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Seed for the random inputs (default: drawn from the clock and printed, to replay a run).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Run only checks whose name contains this text.
    #[arg(long, value_name = "TEXT")]
    pub filter: Option<String>,
    /// Run only the checks of this crate (the part of the name before `/`: runtime, lns,
    /// clns, recurrence, ldpc, approx).
    #[arg(long = "crate", value_name = "NAME")]
    pub krate: Option<String>,
    /// Inputs small enough for compute-sanitizer's tools (which slow kernels 10–1000×), with
    /// every code path the full-size checks cover; what `scripts/sanitize` runs.
    #[arg(long)]
    pub sanitize: bool,
    /// List the registered checks and exit.
    #[arg(long)]
    pub list: bool,
}

pub fn run(device: Option<Device>, json: bool, args: &CheckArgs) -> Result<ExitCode> {
    sigpu_runtime::cuda::set_sanitize_sizes(args.sanitize);
    let checks = sigpu_lab::checks::matching_in(args.filter.as_deref(), args.krate.as_deref());
    if args.list {
        table::print(&["check", "compares"], &checks, |c| {
            vec![c.name.into(), c.about.into()]
        });
        return Ok(ExitCode::SUCCESS);
    }
    if checks.is_empty() {
        bail!(
            "--filter {:?} --crate {:?} match no check (see `sigpu check --list`)",
            args.filter.as_deref().unwrap_or(""),
            args.krate.as_deref().unwrap_or("")
        );
    }
    // Without --device, no GPU is a skip (a failure under SIGPU_REQUIRE_GPU=1), so the test
    // command passes on a machine without one; an explicit device follows the policy.
    let gpu = match policy::resolve_or_skip(device, Need::Gpu, "check")? {
        Ok(target) => target.into_gpu().expect("Need::Gpu resolves to a GPU"),
        Err(why) => {
            eprintln!("SKIP: no GPU, {} checks not run ({why})", checks.len());
            if json {
                super::print_json(&serde_json::json!({ "skipped": true, "reason": why }))?;
            }
            return Ok(ExitCode::SUCCESS);
        }
    };
    let seed = args.seed.unwrap_or_else(sigpu_lab::checks::clock_seed);
    let summary = run_all(&gpu, &checks, seed);
    super::report(json, &summary, |s| print!("{}", s.text()))?;
    // Exit status 1 when a check failed.
    Ok(ExitCode::from(u8::from(summary.failed > 0)))
}

fn run_all(gpu: &Gpu, checks: &[Check], seed: u64) -> Summary {
    let bar = super::bar(
        checks.len() as u64,
        "{spinner} [{bar:30}] {pos}/{len} {msg}",
    );
    // Told each check's name before it runs: the bar shows how many have finished.
    let started = std::cell::Cell::new(0u64);
    let summary = sigpu_lab::checks::run_all(gpu, checks, seed, &|name| {
        bar.set_position(started.replace(started.get() + 1));
        bar.set_message(name.to_owned());
    });
    bar.finish_and_clear();
    summary
}
