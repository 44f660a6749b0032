//! `sigpu approx tune --source FILE.cu --kernel NAME --grid G --block B --args …`: tuning a
//! user's own kernel on their data; parses the flags, calls `sigpu_approx::user::tune`, prints
//! the table or JSON and writes the tuned source.

use super::super::{check, print_json, spinning, Output};
use super::TuneArgs;
use anyhow::{anyhow, Context, Result};
use sigpu_approx::user::request::{Field, TuneRequest};
use sigpu_approx::user::{self, LaunchShape, TuneOptions, UserKernel};
use sigpu_runtime::Device;
use std::path::Path;
use std::process::ExitCode;

pub fn run(device: Option<Device>, json: bool, args: &TuneArgs, source: &Path) -> Result<ExitCode> {
    let kernel = args.kernel.clone().ok_or_else(|| {
        anyhow!("--kernel: required with --source (the extern \"C\" __global__ kernel to tune)")
    })?;
    let (grid, block) = match (args.grid, args.block) {
        (Some(g), Some(b)) => (g, b),
        _ => return Err(anyhow!("--grid and --block: both required with --source")),
    };
    check(
        &[
            args.out.file(),
            Output::File("--output", args.output.as_deref()),
        ],
        &[("--source", Some(source))],
    )?;
    if args.args.is_empty() {
        return Err(anyhow!(
            "--args: required with --source (in:X.npy, out:f32:N, i32:5, …)"
        ));
    }
    let request = TuneRequest {
        args: &args.args,
        holdout: args.holdout_args.as_deref(),
        metric: &args.metric,
        qos: args.qos,
        qos_ratio: args.qos_ratio,
        per_site: !args.single_lambda,
        guards: !args.no_guards,
        energy_seconds: (args.energy_seconds).unwrap_or(TuneOptions::default().energy_seconds),
    };
    let prepared = request.prepare().map_err(|e| {
        let flag = match e.field {
            Field::Args => "--args",
            Field::Holdout => "--holdout-args",
            Field::Metric => "--metric",
            Field::Qos => "--qos",
            Field::QosRatio => "--qos-ratio",
        };
        anyhow!("{flag}: {e}")
    })?;
    let code = sigpu_runtime::input::read_text(source, 16 << 20, "CUDA C source text")
        .with_context(|| format!("--source {}", source.display()))?;
    let shape = LaunchShape {
        grid,
        block,
        shared_mem: args.shared_mem,
    };
    shape.check()?;
    let k = UserKernel {
        file: source.display().to_string(),
        source: code,
        kernel,
    };
    let gpu = super::super::resolve_gpu(device, "approx tune")?;
    let report = spinning(|progress| {
        let (host, holdout) = (&prepared.host, prepared.holdout.as_deref());
        user::tune(&gpu, &k, host, &shape, &prepared.options, holdout, progress)
    })?;
    if let Some(path) = &args.output {
        sigpu_runtime::fs::write_atomic(path, report.tuned_source.as_bytes())
            .with_context(|| format!("--output {}: cannot write", path.display()))?;
    }
    super::super::write_json_out(&args.out, &report)?;
    if json {
        print_json(&report)?;
    } else {
        print!("{}", report.text());
        if let Some(path) = &args.output {
            println!(
                "wrote the kernel at the chosen setting to {}",
                path.display()
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
