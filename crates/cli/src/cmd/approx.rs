//! `sigpu approx ...`: the SFU function catalog, its microbenchmark (Tables 4–5 of Li et al.'s SFU-approximation paper),
//! the λ transformation of a user's kernel and the QoS-driven λ search over the app suite.

use super::{resolve, spinning, Need, Target};
use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use sigpu_approx::search::Method;
use sigpu_approx::tune::Partition;
use sigpu_approx::{transform, ApproxError};
use sigpu_lab::approx::cpu_bench::CpuBench;
use sigpu_lab::approx::listing::LISTING;
use sigpu_lab::approx::tune::SuiteRun;
use sigpu_lab::approx::{figures, microbench};
use sigpu_runtime::Device;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Subcommand, Debug)]
pub enum ApproxCommand {
    /// The function catalog (accurate and SFU forms) and the application suite.
    List,
    /// Latency, throughput, error, registers and SASS mix of every catalog function, both
    /// versions (Tables 4 and 5 of Li et al.'s SFU-approximation paper).
    Bench(BenchArgs),
    /// Search λ for an app (or all) under a QoS ratio; T(λ)/E(λ) curves and speedups.
    Tune(TuneArgs),
    /// Write the λ-partitioned version of a kernel in a CUDA file (Algorithm 1 of Li et al.'s SFU-approximation paper).
    Transform(TransformArgs),
}

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Random inputs per function and input range (documented domain, wide range).
    #[arg(long, default_value_t = 1 << 20, value_parser = clap::value_parser!(u64).range(1000..=1 << 26))]
    pub samples: u64,
    #[command(flatten)]
    pub out: crate::cmd::JsonOut,
}

#[derive(Args, Debug)]
pub struct TuneArgs {
    /// An app of the suite (`sigpu approx list`), its abbreviation, or `all`.
    #[arg(long)]
    pub app: String,
    /// Error bound as a fraction of the all-SFU kernel's error, in (0, 1].
    #[arg(long, default_value_t = 0.8)]
    pub qos_ratio: f64,
    /// smp, heu or omg (`--app all` runs all three on one measured curve).
    #[arg(long, default_value = "heu")]
    pub search: Method,
    /// slot (hardware %warpid, the paper's choice) or block (warp index within the block,
    /// reproducible).
    #[arg(long, default_value = "slot")]
    pub warp_index: Partition,
    /// Measure every λ (Fig. 4 of Li et al.'s SFU-approximation paper) instead of only the points the search asks for.
    #[arg(long)]
    pub curve: bool,
    /// Write figures (Fig. 4 per app; with `all`, Fig. 8–11) as SVG + PNG into this folder.
    #[arg(long, value_name = "DIR")]
    pub plot: Option<PathBuf>,
    #[command(flatten)]
    pub out: crate::cmd::JsonOut,
}

#[derive(Args, Debug)]
pub struct TransformArgs {
    /// CUDA source with the kernel, written with the standard functions.
    pub input: PathBuf,
    /// The `extern "C" __global__` kernel to transform.
    #[arg(long)]
    pub kernel: String,
    /// Where to write the generated source (default: stdout).
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

pub fn run(device: Option<Device>, json: bool, command: &ApproxCommand) -> Result<ExitCode> {
    match command {
        ApproxCommand::List => list(json),
        ApproxCommand::Bench(args) => bench(device, json, args),
        ApproxCommand::Tune(args) => tune(device, json, args),
        ApproxCommand::Transform(args) => transform_cmd(json, args),
    }
}

fn list(json: bool) -> Result<ExitCode> {
    super::report(json, &LISTING, |l| print!("{}", l.text()))
}

/// `--device cpu` measures the CPU fast functions; otherwise the catalog on the GPU.
fn bench(device: Option<Device>, json: bool, args: &BenchArgs) -> Result<ExitCode> {
    args.out.check()?;
    let target = match device {
        Some(Device::Cpu) => Target::Cpu,
        _ => resolve(device, Need::Gpu, "approx bench")?,
    };
    let Target::Gpu(gpu) = target else {
        let cpu = spinning(|progress| {
            progress("CPU fast exp / log / sin / cos");
            anyhow::Ok(CpuBench::measure(args.samples as usize))
        })?;
        return args.out.report(json, &cpu, |r| r.text());
    };
    let gpu_report = spinning(|progress| microbench::run(&gpu, args.samples as usize, progress))?;
    args.out.report(json, &gpu_report, |r| r.text())
}

fn tune(device: Option<Device>, json: bool, args: &TuneArgs) -> Result<ExitCode> {
    args.out
        .check_and(super::Output::Dir("--plot", args.plot.as_deref()))?;
    let mut run = SuiteRun::new(&args.app, args.qos_ratio, args.search, args.warp_index).map_err(
        |e| match e {
            ApproxError::Ratio(_) => anyhow::anyhow!("--qos-ratio: {e}"),
            ApproxError::UnknownApp { .. } => anyhow::anyhow!("--app: {e}"),
            e => e.into(),
        },
    )?;
    run.curve = args.curve;
    let gpu = super::resolve_gpu(device, "approx tune")?;
    let summary = spinning(|progress| sigpu_lab::approx::tune::run(&gpu, &run, progress))?;
    if let Some(dir) = &args.plot {
        figures::write(dir, &summary, run.is_suite())?;
    }
    args.out.report(json, &summary, |s| s.text(run.is_suite()))
}

/// CPU only: reads, transforms and writes a source; no device is involved.
fn transform_cmd(json: bool, args: &TransformArgs) -> Result<ExitCode> {
    super::check(
        &[super::Output::File("--output", args.output.as_deref())],
        &[("--input", Some(&args.input))],
    )?;
    let what = "CUDA C source text";
    let code = sigpu_runtime::input::read_text(&args.input, 16 << 20, what)
        .with_context(|| format!("--input {}", args.input.display()))?;
    let t = transform::transform(&code, &args.kernel)
        .map_err(|e| anyhow::anyhow!("{}: {e}", args.input.display()))?;
    match &args.output {
        Some(path) => sigpu_runtime::fs::write_atomic(path, t.source.as_bytes())
            .with_context(|| format!("--output {}: cannot write", path.display()))?,
        None if !json => print!("{}", t.source),
        None => {}
    }
    if json {
        super::print_json(&t)?;
    } else if args.output.is_some() {
        eprintln!(
            "wrote {}, {}, {} and {}; rewrites: {:?}",
            t.kernel, t.sfu_kernel, t.lambda_kernel, t.block_kernel, t.rewrites
        );
    }
    Ok(ExitCode::SUCCESS)
}
