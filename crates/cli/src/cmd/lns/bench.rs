//! `sigpu bench lns`: Table 1 of Arnold & Collange's texture-LNS paper on a GPU (every method and blend, the streaming add
//! and fused reductions), or the add throughput of the CPU methods.

use crate::cmd::{check, resolve, spinning, Need, Output};
use anyhow::{bail, Context, Result};
use clap::Args;
use sigpu_lab::lns::bench::{
    blend_chart, cpu_add_throughput, cpu_text, default_cpu_methods, reductions_only, throughput,
};
use sigpu_lns::{Format, Method};
use sigpu_runtime::Device;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct BenchLnsArgs {
    /// lns16, lns32 or i<I>f<F>.
    #[arg(long, default_value = "lns16")]
    pub format: Format,
    #[command(flatten)]
    pub out: crate::cmd::JsonOut,
    /// GPU: write the blends' throughput against their warp split λ to BASE.svg and BASE.png.
    #[arg(long, value_name = "BASE")]
    pub plot: Option<std::path::PathBuf>,
    /// CPU: measure only these methods (comma-separated, e.g. f64table,f64poly); default: every
    /// CPU method without GPU tables (f64, f64table, f64poly).
    #[arg(long, value_name = "M,...", value_delimiter = ',')]
    pub method: Vec<Method>,
    /// GPU: measure only the fused sum and dot of 2^28 words (and the copy ceiling).
    #[arg(long)]
    pub reduce_only: bool,
}

pub fn run(device: Option<Device>, json: bool, args: &BenchLnsArgs) -> Result<ExitCode> {
    check(
        &[
            args.out.file(),
            Output::Base("--plot", args.plot.as_deref()),
        ],
        &[],
    )?;
    let gpu_only =
        "--method selects CPU methods (with --device cpu); the GPU run measures every method";
    // A flag conflict the command line alone shows is refused before any device is opened;
    // otherwise `--method` is judged by where the run really goes. Nothing is measured first.
    if device.is_some_and(Device::is_cuda) && !args.method.is_empty() {
        bail!(gpu_only);
    }
    if args.reduce_only && (!args.method.is_empty() || args.plot.is_some()) {
        bail!("--reduce-only measures the fused sum and dot alone: drop --method and --plot");
    }
    match resolve(device, Need::Either, "bench lns")?.into_gpu() {
        Some(_) if !args.method.is_empty() => bail!(gpu_only),
        Some(gpu) => on_gpu(&gpu, json, args),
        None if args.reduce_only => {
            bail!("--reduce-only: the fused reductions run on the GPU only (--device cuda)")
        }
        None => match args.method.iter().find(|m| !m.runs_on_cpu()) {
            Some(m) => bail!("--method {m}: runs on the GPU only (its GPU figures: --device cuda)"),
            None => on_cpu(json, args),
        },
    }
}

fn on_gpu(gpu: &sigpu_runtime::cuda::Gpu, json: bool, args: &BenchLnsArgs) -> Result<ExitCode> {
    if args.reduce_only {
        let report = reductions_only(gpu, args.format)?;
        return args.out.report(json, &report, |r| r.text());
    }
    let report = spinning(|progress| throughput(gpu, args.format, progress))?;
    if let Some(base) = &args.plot {
        blend_chart(&report)
            .write(base)
            .with_context(|| format!("--plot {}", base.display()))?;
    }
    args.out.report(json, &report, |r| r.text())
}

/// `bench lns --device cpu`: element-wise add throughput of every CPU method.
fn on_cpu(json: bool, args: &BenchLnsArgs) -> Result<ExitCode> {
    let methods = if args.method.is_empty() {
        default_cpu_methods()
    } else {
        args.method.clone()
    };
    let rows = (methods.into_iter())
        .map(|m| cpu_add_throughput(args.format, m, 1 << 22, 5))
        .collect::<Result<Vec<_>, _>>()?;
    args.out.report(json, &rows, |r| cpu_text(args.format, r))
}
