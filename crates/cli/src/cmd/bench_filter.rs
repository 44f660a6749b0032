//! `sigpu bench filter`: recurrence / IIR filter throughput against the copy ceiling, over
//! one length or the PLR paper's sweep, with peers merged in and plots. The measurement and the
//! charts are the lab's (`sigpu_lab::recurrence`); this file parses, prints and writes.

use anyhow::{Context, Result};
use clap::Args;
use sigpu_lab::recurrence::plot;
use sigpu_lab::recurrence::sweep::{self, Sweep};
use sigpu_recurrence::{DType, GpuConfig, SosConfig};
use sigpu_runtime::Device;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct BenchFilterArgs {
    /// Signatures to time (repeatable); default: the suite of Maleki & Burtscher's PLR paper.
    #[arg(long, value_name = "\"(…)\"")]
    pub signature: Vec<String>,
    /// Element type for --signature (the suite sets its own).
    #[arg(long, default_value = "f32")]
    pub dtype: String,
    /// log2 of the sequence lengths, comma-separated; `A-B` is every length from 2^A to 2^B
    /// (the PLR paper's sweep is `10-30`).
    #[arg(long, default_value = "28", value_name = "L1,L2,A-B,…")]
    pub log2_n: String,
    /// Timed repetitions; the median is reported.
    #[arg(long, default_value_t = 20)]
    pub runs: usize,
    /// Untimed runs before the timed ones, per configuration.
    #[arg(long, default_value_t = 3)]
    pub warmup: usize,
    /// Also time with the factor optimisations off.
    #[arg(long)]
    pub compare_optimize: bool,
    /// GPU launch shapes to time, THREADSxVPT comma-separated; a `d` after it loads and
    /// stores directly instead of through the shared-memory transpose, an `n` has warp 0 look
    /// back instead of a dedicated look-back warp, `/B` asks the register allocator for B
    /// blocks per SM; `default` is the library's choice per filter.
    #[arg(
        long,
        default_value = "default",
        value_name = "default|TxV[d][n][/B],…"
    )]
    pub shapes: String,
    /// Skip checking results against the reference at the benchmarked size.
    #[arg(long)]
    pub no_check: bool,
    /// Check results only at lengths up to 2^L (the float reference is a serial pass).
    #[arg(long, value_name = "L")]
    pub check_up_to: Option<u32>,
    /// Peer figures to add to the report and the plots: the JSON that
    /// bench/peers/recurrence_peers.py prints.
    #[arg(long, value_name = "FILE")]
    pub peers: Option<PathBuf>,
    /// Write throughput-vs-length charts (SVG + PNG), one per signature and one of all, into
    /// this directory.
    #[arg(long, value_name = "DIR")]
    pub plot: Option<PathBuf>,
    /// Time the second-order-section cascade (scipy's sosfilt) instead: `butter8` (the
    /// default: butter(8, 0.1) as 4 sections), `butter8-0.02`, or rows `b0,b1,b2,a0,a1,a2`
    /// separated by `;`. On a GPU the fused kernel in f32; with `--device cpu` the CPU engine
    /// in f64 (engine alone and the library call, with --threads). Uses --log2-n, --runs,
    /// --warmup, --no-check, --check-up-to and --sos-shapes.
    #[arg(long, value_name = "butter8|ROWS", num_args = 0..=1, default_missing_value = "butter8")]
    pub sos: Option<String>,
    /// Launch shapes for --sos, THREADSxVPT comma-separated (`default`: the library's); an `l`
    /// after a shape forces the look-back kernel where the tail carry would be chosen, `cN` has
    /// each block filter N consecutive chunks (tail carry), `/B` asks the register allocator
    /// for B blocks per SM.
    #[arg(
        long,
        default_value = "default",
        value_name = "default|TxV[cN][l][/B],…"
    )]
    pub sos_shapes: String,
    /// CPU threads for `--sos --device cpu` (default: all the process may use).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Measure nothing: take the report from this file (written by --out) — to re-plot a run.
    #[arg(long, value_name = "FILE")]
    pub from: Option<PathBuf>,
    #[command(flatten)]
    pub out: crate::cmd::JsonOut,
}

pub fn run(device: Option<Device>, json: bool, args: &BenchFilterArgs) -> Result<ExitCode> {
    let inputs = [("--from", &args.from), ("--peers", &args.peers)];
    let inputs: Vec<_> = (inputs.iter())
        .filter_map(|(f, p)| Some((*f, p.as_deref()?)))
        .collect();
    let inputs = super::and_file(&inputs, "--sos", args.sos.as_deref().unwrap_or_default());
    super::check_files(&Vec::from_iter(args.out.output()), &inputs)?;
    if let Some(dir) = &args.plot {
        super::check_dir("--plot", dir)?;
    }
    if let Some(spec) = &args.sos {
        return run_sos(device, json, args, spec);
    }
    let report = match &args.from {
        Some(path) => sweep::load_report(path)?,
        None => serde_json::to_value(measure(device, args)?)?,
    };
    let report = sweep::with_peers(report, args.peers.as_deref())?;
    if let Some(dir) = &args.plot {
        let written = plot::write_charts(&report, dir)
            .with_context(|| format!("--plot {}", dir.display()))?;
        eprintln!("wrote {written} charts (SVG + PNG) into {}", dir.display());
    }
    args.out.report(json, &report, sweep::render)
}

fn measure(device: Option<Device>, args: &BenchFilterArgs) -> Result<sweep::Report> {
    let gpu = super::resolve(device, super::Need::Either, "bench filter")?.into_gpu();
    let dtype: DType = if args.signature.is_empty() {
        DType::F32
    } else {
        args.dtype
            .parse()
            .map_err(|e| anyhow::anyhow!("--dtype: {e}"))?
    };
    let sweep = Sweep {
        cases: Sweep::cases(&args.signature, dtype, gpu.is_some()),
        sizes: sweep::parse_sizes(&args.log2_n)?,
        shapes: (args.shapes.split(',').map(sweep::parse_shape))
            .collect::<Result<Vec<GpuConfig>>>()?,
        warmup: args.warmup,
        runs: args.runs,
        compare_optimize: args.compare_optimize,
        check_up_to: sweep::check_limit(args.no_check, args.check_up_to),
    };
    let (bar, mut progress) = steps(sweep.steps());
    let report = sweep::measure(gpu.as_ref(), &sweep, &mut progress)?;
    bar.finish_and_clear();
    Ok(report)
}

/// A progress bar over `len` steps and the callback the lab's drivers report progress to.
fn steps(len: usize) -> (indicatif::ProgressBar, impl FnMut(usize, &str)) {
    let bar = super::bar(len as u64, "{spinner} [{bar:30}] {pos}/{len} {msg}");
    let shown = bar.clone();
    let progress = move |done: usize, what: &str| {
        shown.set_position(done as u64);
        shown.set_message(what.to_owned());
    };
    (bar, progress)
}

/// `--sos`: the fused cascade on the GPU, or with `--device cpu` the CPU section engine in
/// f64 (engine alone and the library call).
fn run_sos(
    device: Option<Device>,
    json: bool,
    args: &BenchFilterArgs,
    spec: &str,
) -> Result<ExitCode> {
    use sigpu_lab::recurrence::sos_bench::{self as sb, SosBench};
    let (name, sos) = sb::parse_sos(spec)?;
    let gpu = super::resolve(device, super::Need::Either, "bench filter --sos")?.into_gpu();
    let shapes = match gpu {
        Some(_) => (args.sos_shapes.split(',').map(str::parse))
            .collect::<Result<Vec<SosConfig>, _>>()
            .context("--sos-shapes")?,
        None => Vec::new(),
    };
    let bench = SosBench {
        name,
        sos,
        sizes: sweep::parse_sizes(&args.log2_n)?,
        shapes,
        warmup: args.warmup,
        runs: args.runs,
        check_up_to: sweep::check_limit(args.no_check, args.check_up_to),
    };
    let (bar, mut progress) = steps(bench.sizes.len());
    let (value, text) = sb::measure_on(gpu.as_ref(), &bench, args.threads, &mut progress)?;
    bar.finish_and_clear();
    args.out.report(json, &value, |_| text)
}
