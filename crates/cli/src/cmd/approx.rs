//! `sigpu approx ...`: the SFU function catalog, its microbenchmark (Tables 4–5 of Li et al.'s SFU-approximation paper),
//! the λ transformation of a user's kernel, the QoS-driven λ search over the app suite, and
//! tuning a user's own kernel on their data (module `user`).

mod user;

use super::{resolve, spinning, Need, Target};
use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use sigpu_approx::search::Method;
use sigpu_approx::tune::Partition;
use sigpu_approx::user::request::parse_extents;
use sigpu_approx::ApproxError;
use sigpu_lab::approx::cpu_bench::CpuBench;
use sigpu_lab::approx::listing::LISTING;
use sigpu_lab::approx::source_file::transform_file;
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
    /// Search λ for an app (or all) under a QoS ratio, or tune your own kernel (--source) on
    /// your data against your metric: time / error / energy table and the tuned source.
    Tune(Box<TuneArgs>),
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
    #[arg(long, required_unless_present = "source", conflicts_with = "source")]
    pub app: Option<String>,
    /// Your CUDA file: tune its kernel (--kernel) on your data (--args) instead of an app.
    #[arg(long, value_name = "FILE.cu")]
    pub source: Option<PathBuf>,
    /// With --source: the extern "C" __global__ kernel to tune.
    #[arg(long, requires = "source")]
    pub kernel: Option<String>,
    /// With --source: blocks per grid, X[,Y[,Z]].
    #[arg(long, value_parser = parse_extents, requires = "source")]
    pub grid: Option<[u32; 3]>,
    /// With --source: threads per block, X[,Y[,Z]] (λ runs over its warps).
    #[arg(long, value_parser = parse_extents, requires = "source")]
    pub block: Option<[u32; 3]>,
    /// With --source: dynamic shared memory per block, bytes.
    #[arg(long, default_value_t = 0, requires = "source")]
    pub shared_mem: u32,
    /// With --source: the kernel's arguments in order: in:X.npy (input array), out:f32:N /
    /// out:f64:N / out:i32:N / out:like:X.npy (output buffer), i32:V, u32:V, i64:V, f32:V,
    /// f64:V (scalars).
    #[arg(long, num_args = 1.., requires = "source")]
    pub args: Vec<String>,
    /// With --source: the same arguments on other data; the tuned kernel's error there is
    /// reported (held-out check of the bound).
    #[arg(long, num_args = 1.., requires = "source")]
    pub holdout_args: Option<Vec<String>>,
    /// With --source: rel-l2, max-abs, max-ulp, psnr, or cmd:COMMAND (prints a number, lower is
    /// better; {ref} and {out} are folders of 0.npy, 1.npy, … per output).
    #[arg(long, default_value = "rel-l2", requires = "source")]
    pub metric: String,
    /// With --source: the bound in the metric's unit (the most error; for psnr the fewest
    /// dB). Without it, --qos-ratio of the all-SFU kernel's error.
    #[arg(long, allow_hyphen_values = true, requires = "source")]
    pub qos: Option<f64>,
    /// With --source: one λ for every call site only (no per-call-site search).
    #[arg(long, requires = "source")]
    pub single_lambda: bool,
    /// With --source: no range guards on the per-site SFU forms.
    #[arg(long, requires = "source")]
    pub no_guards: bool,
    /// Seconds of back-to-back runs per energy figure (NVML), in [0, 60]; 0 for none.
    /// Default 0.5 with --source, 0.25 with --app (λ = 0, λmax and each search's pick).
    #[arg(long, value_parser = parse_energy_seconds, allow_hyphen_values = true)]
    pub energy_seconds: Option<f64>,
    /// With --source: write the kernel at the chosen setting here (same name and parameters).
    #[arg(long, short, value_name = "FILE", requires = "source")]
    pub output: Option<PathBuf>,
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
    /// With --app: also the per-call-site search on apps whose kernel mixes functions, timed
    /// against the best single λ (compiles each setting: seconds per app).
    #[arg(long, conflicts_with = "source")]
    pub per_site: bool,
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
    let app = match (&args.source, &args.app) {
        (Some(source), _) => return user::run(device, json, args, source),
        (None, Some(app)) => app,
        (None, None) => anyhow::bail!("--app or --source: one is required"),
    };
    args.out
        .check_and(super::Output::Dir("--plot", args.plot.as_deref()))?;
    let mut run =
        SuiteRun::new(app, args.qos_ratio, args.search, args.warp_index).map_err(|e| match e {
            ApproxError::Ratio(_) => anyhow::anyhow!("--qos-ratio: {e}"),
            ApproxError::UnknownApp { .. } => anyhow::anyhow!("--app: {e}"),
            e => e.into(),
        })?;
    run.curve = args.curve;
    run.per_site = args.per_site;
    if let Some(seconds) = args.energy_seconds {
        run = run
            .with_energy_seconds(seconds)
            .map_err(|e| anyhow::anyhow!("--energy-seconds: {e}"))?;
    }
    let gpu = super::resolve_gpu(device, "approx tune")?;
    let summary = spinning(|progress| sigpu_lab::approx::tune::run(&gpu, &run, progress))?;
    if let Some(dir) = &args.plot {
        figures::write(dir, &summary, run.is_suite())?;
    }
    args.out.report(json, &summary, |s| s.text(run.is_suite()))
}

/// `--energy-seconds`: a finite number of seconds in [0, 60].
fn parse_energy_seconds(s: &str) -> std::result::Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && (0.0..=60.0).contains(&v) => Ok(v),
        _ => Err(format!(
            "expected seconds in [0, 60] (0: no energy figures), got {s:?}"
        )),
    }
}

/// CPU only: reads, transforms and writes a source; no device is involved.
fn transform_cmd(json: bool, args: &TransformArgs) -> Result<ExitCode> {
    super::check(
        &[super::Output::File("--output", args.output.as_deref())],
        &[("--input", Some(&args.input))],
    )?;
    let t = transform_file(&args.input, &args.kernel)?;
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
