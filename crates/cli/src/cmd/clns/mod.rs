//! `sigpu clns ...` (certificates, Fig. 4/5 of Vouzis & Arnold's CLNS paper, FFT accuracy and speed) and
//! `sigpu bench clns` (Table I, the texture-cache cliff): parse, resolve the device, call
//! `sigpu-lab`'s CLNS experiments, print.

mod args;

pub use args::{BenchClnsArgs, ClnsCommand};
use args::{ClnsCertifyArgs, ClnsCertifyF32Args, ClnsFftArgs, ClnsFig45Args};

use super::{resolve, spinning, Need, Target};
use anyhow::{bail, Context, Result};
use sigpu_clns::certify::Inputs;
use sigpu_clns::{ClnsFormat, Geometry};
use sigpu_lab::clns::{bench, certify as lab_certify, fft, fig45};
use sigpu_runtime::Device;
use std::process::ExitCode;

pub fn run(device: Option<Device>, json: bool, command: &ClnsCommand) -> Result<ExitCode> {
    match command {
        ClnsCommand::Certify(args) => certify(device, json, args),
        ClnsCommand::Fig45(args) => fig45(device, json, args),
        ClnsCommand::Fft(args) => fft(device, json, args),
        ClnsCommand::CertifyF32(args) => certify_f32(device, json, args),
    }
}

fn certify(device: Option<Device>, json: bool, args: &ClnsCertifyArgs) -> Result<ExitCode> {
    args.out.check()?;
    let format = args.format;
    let methods = lab_certify::methods_named(&args.method)?;
    let g = args.table.geometry(format)?;
    let inputs = Inputs::standard_checked(format, args.stride, args.random as usize, args.seed)
        .context("--stride")?;
    let target = resolve(device, Need::Either, "clns certify")?;
    let (certs, skipped) = spinning(|progress| {
        lab_certify::certify(target.gpu(), format, g, &methods, &inputs, progress)
    })?;
    if certs.is_empty() {
        bail!(
            "--method {}: nothing to certify here ({}: GPU only, or no kernel for this format)",
            args.method,
            skipped.join(", ")
        );
    }
    args.out
        .report(json, &certs, |c| lab_certify::text(format, g, c, &skipped))
}

fn fig45(device: Option<Device>, json: bool, args: &ClnsFig45Args) -> Result<ExitCode> {
    super::check(&[super::Output::Dir("--plot", args.plot.as_deref())], &[])?;
    resolve(device, Need::Cpu, "clns fig45")?;
    let format = args.format;
    let inputs = Inputs::standard_checked(format, args.stride, args.random as usize, 4)
        .context("--stride")?;
    let points = spinning(|progress| {
        progress(&format!("Fig. 4/5 over {} inputs", inputs.len()));
        fig45::fig45(format, &fig45::SIZES, &inputs)
    })?;
    if let Some(dir) = &args.plot {
        fig45::plot(&points, dir)?;
    }
    super::report(json, &points, |p| print!("{}", fig45::text(format, p)))
}

fn fft(device: Option<Device>, json: bool, args: &ClnsFftArgs) -> Result<ExitCode> {
    args.out
        .check_and(super::Output::Base("--plot", args.plot.as_deref()))?;
    let opts = fft::FftOptions {
        size: args.size,
        batch: args.batch,
        bits: args.bits.clone(),
        method: args.method.parse().context("--method")?,
        seed: args.seed,
    };
    // Refuse bad sizes before opening a device (the GPU's own size limit is checked by `run`).
    opts.check(false)?;
    // The GPU FFT stops at 4096 points: longer transforms run on the CPU unless a GPU is named.
    let need = if opts.size > 4096 && device.is_none() {
        Need::Cpu
    } else {
        Need::Either
    };
    let target = resolve(device, need, "clns fft")?;
    let report = spinning(|progress| fft::run(&opts, target.gpu(), progress))?;
    if let Some(base) = &args.plot {
        report.plot(opts.size, base)?;
    }
    args.out.report(json, &report, |r| r.text(&opts))
}

/// `sigpu clns certify-f32`: Vouzis & Arnold's representation on the CPU (f64 reference and the
/// texture / FMA twins of the GPU kernels, on clns16's default table).
fn certify_f32(device: Option<Device>, json: bool, args: &ClnsCertifyF32Args) -> Result<ExitCode> {
    args.out.check()?;
    resolve(device, Need::Cpu, "clns certify-f32")?;
    let g = Geometry::default_for(ClnsFormat::CLNS16);
    let sizes = (
        args.grid as usize,
        args.random as usize,
        args.pairs as usize,
    );
    let report = spinning(|progress| lab_certify::certify_f32(g, sizes, args.seed, progress))?;
    args.out.report(json, &report, |r| r.text(g, sizes.2))
}

/// `sigpu bench clns`: measured on the GPU, or a saved report read back (`--from`).
pub fn bench(device: Option<Device>, json: bool, args: &BenchClnsArgs) -> Result<ExitCode> {
    let outputs = [
        args.out.file(),
        super::Output::Base("--plot", args.plot.as_deref()),
    ];
    super::check(&outputs, &[("--from", args.from.as_deref())])?;
    let report: bench::Report = match &args.from {
        Some(path) => bench::Report::load(path)?,
        None => {
            let Target::Gpu(gpu) = resolve(device, Need::Gpu, "bench clns")? else {
                unreachable!("Need::Gpu resolves to a GPU or an error")
            };
            let g = args.table.geometry(args.format)?;
            spinning(|progress| bench::run(&gpu, args.format, g, args.table1_only, progress))?
        }
    };
    if let Some(base) = &args.plot {
        report.plot_cliff(base)?;
    }
    args.out.report(json, &report, |r| r.text())
}
