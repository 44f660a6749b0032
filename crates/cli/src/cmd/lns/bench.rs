//! `sigpu bench lns`: Table 1 of Arnold & Collange's texture-LNS paper on a GPU (every method and blend, the streaming add
//! and fused reductions), or the add throughput of the CPU methods.

use crate::cmd::{check, resolve, spinning, Need, Output};
use anyhow::{Context, Result};
use clap::Args;
use sigpu_lab::lns::bench::{
    blend_chart, check_request, cpu_add_table, cpu_text, reductions_only, throughput,
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
    // A flag conflict the command line alone shows is refused before any device is opened;
    // otherwise `--method` is judged by where the run really goes. Nothing is measured first.
    let (methods, reduce, plot) = (&args.method, args.reduce_only, args.plot.is_some());
    let cuda_named = device.is_some_and(Device::is_cuda);
    check_request(methods, reduce, plot, cuda_named, None).map_err(anyhow::Error::msg)?;
    let gpu = resolve(device, Need::Either, "bench lns")?.into_gpu();
    check_request(methods, reduce, plot, cuda_named, Some(gpu.is_some()))
        .map_err(anyhow::Error::msg)?;
    match gpu {
        Some(gpu) => on_gpu(&gpu, json, args),
        None => {
            let rows = cpu_add_table(args.format, &args.method)?;
            args.out.report(json, &rows, |r| cpu_text(args.format, r))
        }
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
