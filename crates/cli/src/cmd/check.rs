//! `sigpu check`: every registered GPU kernel against its CPU twin.

use crate::cli::CheckArgs;
use crate::table;
use anyhow::{bail, Result};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use sigpu_runtime::cuda::{self, gpu_required, Check, CheckReport, Gpu, REQUIRE_GPU_ENV};
use sigpu_runtime::Device;
use std::process::ExitCode;

/// Every check of every crate. Capability crates append their own lists here.
pub(super) fn registry() -> Vec<Check> {
    let mut checks = cuda::checks();
    checks.extend(sigpu_lns::gpu::checks());
    checks.extend(sigpu_clns::gpu::checks());
    checks.extend(sigpu_recurrence::gpu::checks());
    checks.extend(sigpu_ldpc::gpu::checks());
    checks.extend(sigpu_approx::checks::checks());
    checks
}

#[derive(Serialize)]
struct Outcome {
    name: &'static str,
    about: &'static str,
    seed: u64,
    passed: bool,
    seconds: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    report: Option<CheckReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

#[derive(Serialize)]
struct Summary {
    device: String,
    seed: u64,
    passed: usize,
    failed: usize,
    checks: Vec<Outcome>,
}

pub fn run(device: Option<Device>, json: bool, args: &CheckArgs) -> Result<ExitCode> {
    let checks: Vec<Check> = registry()
        .into_iter()
        .filter(|c| {
            args.filter
                .as_ref()
                .is_none_or(|f| c.name.contains(f.as_str()))
        })
        .collect();
    if args.list {
        let rows: Vec<Vec<String>> = checks
            .iter()
            .map(|c| vec![c.name.into(), c.about.into()])
            .collect();
        print!("{}", table::render(&["check", "compares"], &rows));
        return Ok(ExitCode::SUCCESS);
    }
    if checks.is_empty() {
        bail!(
            "--filter {:?} matches no check (see `sigpu check --list`)",
            args.filter.as_deref().unwrap_or("")
        );
    }
    let gpu = match device {
        Some(Device::Cpu) => {
            bail!("the self-checks compare GPU kernels with their CPU twins: use --device cuda[:N]")
        }
        Some(Device::Cuda(n)) => super::open_gpu(n)?,
        None => match Gpu::open_with_compiler(0) {
            Ok(gpu) => gpu,
            Err(e) if gpu_required() => bail!("{REQUIRE_GPU_ENV} is set and no GPU is usable: {e}"),
            Err(e) => {
                eprintln!("SKIP: no GPU, {} checks not run ({e})", checks.len());
                if json {
                    super::print_json(
                        &serde_json::json!({ "skipped": true, "reason": e.to_string() }),
                    )?;
                }
                return Ok(ExitCode::SUCCESS);
            }
        },
    };
    let seed = args.seed.unwrap_or_else(clock_seed);
    let summary = run_all(&gpu, &checks, seed);
    if json {
        super::print_json(&summary)?;
    } else {
        print!("{}", render(&summary));
    }
    Ok(if summary.failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

fn run_all(gpu: &Gpu, checks: &[Check], seed: u64) -> Summary {
    let bar = ProgressBar::new(checks.len() as u64);
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{bar:30}] {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let outcomes: Vec<Outcome> = checks
        .iter()
        .map(|c| {
            bar.set_message(c.name);
            let start = std::time::Instant::now();
            let check_seed = c.seed(seed);
            let result = (c.run)(gpu, check_seed);
            bar.inc(1);
            let (report, error) = match result {
                Ok(r) => (Some(r), None),
                Err(e) => (None, Some(e.to_string())),
            };
            Outcome {
                name: c.name,
                about: c.about,
                seed: check_seed,
                passed: report.as_ref().is_some_and(CheckReport::passed),
                seconds: start.elapsed().as_secs_f64(),
                report,
                error,
            }
        })
        .collect();
    bar.finish_and_clear();
    let passed = outcomes.iter().filter(|o| o.passed).count();
    Summary {
        device: format!("{} ({})", gpu.info().name, gpu.arch()),
        seed,
        passed,
        failed: outcomes.len() - passed,
        checks: outcomes,
    }
}

fn render(s: &Summary) -> String {
    let rows: Vec<Vec<String>> = s
        .checks
        .iter()
        .map(|o| {
            let status = if o.passed { "pass" } else { "FAIL" }.to_owned();
            match (&o.report, &o.error) {
                (Some(r), _) => vec![
                    o.name.into(),
                    status,
                    r.elements.to_string(),
                    r.mismatches.to_string(),
                    format!("{:.2e}", r.max_error),
                    r.note.clone(),
                ],
                (None, e) => vec![
                    o.name.into(),
                    status,
                    "-".into(),
                    "-".into(),
                    "-".into(),
                    e.clone().unwrap_or_default(),
                ],
            }
        })
        .collect();
    let mut out = format!("device {}, seed {}\n", s.device, s.seed);
    out += &table::render(
        &[
            "check",
            "result",
            "elements",
            "mismatches",
            "max error",
            "note",
        ],
        &rows,
    );
    out += &format!("{} of {} checks passed\n", s.passed, s.passed + s.failed);
    out
}
