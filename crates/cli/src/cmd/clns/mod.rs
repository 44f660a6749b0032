//! `sigpu clns ...` (certificates, Fig. 4/5 of Vouzis & Arnold's CLNS paper, FFT accuracy and speed) and
//! `sigpu bench clns` (Table I, the texture-cache cliff): parse, resolve the device, call
//! `sigpu-lab`'s CLNS experiments, print.

mod args;

pub use args::{BenchClnsArgs, ClnsCommand};
use args::{ClnsCertifyArgs, ClnsCertifyF32Args, ClnsFftArgs, ClnsFig45Args};

use super::{resolve, spinner, write_json_out as write_json, Need, Target};
use anyhow::{bail, Context, Result};
use sigpu_clns::certify::Inputs;
use sigpu_clns::{ClnsFormat, Geometry, Method};
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

fn geometry(format: ClnsFormat, p_cl: Option<usize>, p_theta: Option<usize>) -> Result<Geometry> {
    let d = Geometry::default_for(format);
    let (a, b) = (p_cl.unwrap_or(d.p_cl), p_theta.unwrap_or(d.p_theta));
    if !(2..=4096).contains(&a) || !(2..=4096).contains(&b) {
        bail!("--p-cl {a} / --p-theta {b}: table sizes are 2..=4096 points per axis");
    }
    Ok(Geometry::new(format, a, b))
}

fn certify(device: Option<Device>, json: bool, args: &ClnsCertifyArgs) -> Result<ExitCode> {
    super::check(
        &[super::Output::File("--out", args.out.path.as_deref())],
        &[],
    )?;
    let format = args.format;
    let methods: Vec<Method> = if args.method == "all" {
        Method::ALL.to_vec()
    } else {
        vec![args.method.parse().context("--method")?]
    };
    let g = geometry(format, args.p_cl, args.p_theta)?;
    let inputs = Inputs::standard_checked(format, args.stride, args.random as usize, args.seed)
        .context("--stride")?;
    let target = resolve(device, Need::Either, "clns certify")?;
    let bar = spinner();
    let (certs, skipped) =
        lab_certify::certify(target.gpu(), format, g, &methods, &inputs, &|m| {
            bar.set_message(m.to_owned())
        })?;
    bar.finish_and_clear();
    if certs.is_empty() {
        bail!(
            "--method {}: nothing to certify here ({}: GPU only, or no kernel for this format)",
            args.method,
            skipped.join(", ")
        );
    }
    write_json(&args.out, &certs)?;
    super::report(json, &certs, |c| {
        print!("{}", lab_certify::text(format, g, c, &skipped))
    })
}

fn fig45(device: Option<Device>, json: bool, args: &ClnsFig45Args) -> Result<ExitCode> {
    super::check(&[super::Output::Dir("--plot", args.plot.as_deref())], &[])?;
    resolve(device, Need::Cpu, "clns fig45")?;
    let format = args.format;
    let inputs = Inputs::standard_checked(format, args.stride, args.random as usize, 4)
        .context("--stride")?;
    let bar = spinner();
    bar.set_message(format!("Fig. 4/5 over {} inputs", inputs.len()));
    let points = fig45::fig45(format, &fig45::SIZES, &inputs)?;
    bar.finish_and_clear();
    if let Some(dir) = &args.plot {
        fig45::plot(&points, dir)?;
    }
    super::report(json, &points, |p| print!("{}", fig45::text(format, p)))
}

fn fft(device: Option<Device>, json: bool, args: &ClnsFftArgs) -> Result<ExitCode> {
    let outputs = [
        super::Output::File("--out", args.out.path.as_deref()),
        super::Output::Base("--plot", args.plot.as_deref()),
    ];
    super::check(&outputs, &[])?;
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
    let bar = spinner();
    let report = fft::run(&opts, target.gpu(), &|m| bar.set_message(m.to_owned()))?;
    bar.finish_and_clear();
    write_json(&args.out, &report)?;
    if let Some(base) = &args.plot {
        report.plot(opts.size, base)?;
    }
    super::report(json, &report, |r| print!("{}", r.text(&opts)))
}

/// `sigpu clns certify-f32`: Vouzis & Arnold's representation on the CPU (f64 reference and the
/// texture / FMA twins of the GPU kernels, on clns16's default table).
fn certify_f32(device: Option<Device>, json: bool, args: &ClnsCertifyF32Args) -> Result<ExitCode> {
    super::check(
        &[super::Output::File("--out", args.out.path.as_deref())],
        &[],
    )?;
    resolve(device, Need::Cpu, "clns certify-f32")?;
    let g = Geometry::default_for(ClnsFormat::CLNS16);
    let sizes = (
        args.grid as usize,
        args.random as usize,
        args.pairs as usize,
    );
    let bar = spinner();
    let report = lab_certify::certify_f32(g, sizes, args.seed, &|m| bar.set_message(m.to_owned()))?;
    bar.finish_and_clear();
    write_json(&args.out, &report)?;
    super::report(json, &report, |r| print!("{}", r.text(g, sizes.2)))
}

/// `sigpu bench clns`: measured on the GPU, or a saved report read back (`--from`).
pub fn bench(device: Option<Device>, json: bool, args: &BenchClnsArgs) -> Result<ExitCode> {
    let outputs = [
        super::Output::File("--out", args.out.path.as_deref()),
        super::Output::Base("--plot", args.plot.as_deref()),
    ];
    super::check(&outputs, &[("--from", args.from.as_deref())])?;
    let report: bench::Report = match &args.from {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("--from {}", path.display()))?;
            serde_json::from_str(&text)
                .with_context(|| format!("--from {}: not a `bench clns` report", path.display()))?
        }
        None => {
            let Target::Gpu(gpu) = resolve(device, Need::Gpu, "bench clns")? else {
                unreachable!("Need::Gpu resolves to a GPU or an error")
            };
            let g = geometry(args.format, args.p_cl, args.p_theta)?;
            let bar = spinner();
            let report = bench::run(&gpu, args.format, g, args.table1_only, &|m| {
                bar.set_message(m.to_owned())
            })?;
            bar.finish_and_clear();
            report
        }
    };
    write_json(&args.out, &report)?;
    if let Some(base) = &args.plot {
        report.plot_cliff(base)?;
    }
    super::report(json, &report, |r| print!("{}", r.text()))
}
