//! `sigpu lns ...`: certificates, the calculator, the HMM forward and Fig. 3 of Arnold & Collange's texture-LNS paper.

pub mod bench;
mod calc;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use sigpu_lab::lns::certify::{
    certify_ranks, check_runnable, funcs_named, inputs_share, methods_named, runnable, text,
};
use sigpu_lab::lns::figure::{figure, PRECISIONS};
use sigpu_lab::lns::hmm::{run as run_hmm, HmmRun};
use sigpu_lns::Format;
use sigpu_runtime::ranks::Ranks;
use sigpu_runtime::Device;
use std::process::ExitCode;

#[derive(Subcommand, Debug)]
pub enum LnsCommand {
    /// Evaluate s_b / d_b by a method at every input of a format and report the error.
    Certify(CertifyArgs),
    /// Read lines `a op b` (op one of + - * /, spaces optional) on stdin; print each result as
    /// a decimal and as the raw LNS word, with why when it is ±inf or NaN (`--json`: one array).
    Calc(calc::CalcArgs),
    /// HMM forward algorithm in LNS on a random model: log-likelihood error vs f64 and speed.
    Hmm(HmmArgs),
    /// Fig. 3 of Arnold & Collange's texture-LNS paper: worst-case s_b error in bits vs input
    /// precision, per table method.
    Fig3(Fig3Args),
}

#[derive(Args, Debug)]
pub struct Fig3Args {
    /// Write the chart to BASE.svg and BASE.png.
    #[arg(long, value_name = "BASE")]
    pub plot: Option<std::path::PathBuf>,
}

#[derive(Args, Debug)]
pub struct HmmArgs {
    /// lns16, lns32 or i<I>f<F>.
    #[arg(long, default_value = "lns32")]
    pub format: Format,
    /// Hidden states of the model.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=4096))]
    pub states: u64,
    /// Observations per sequence (forward-algorithm steps).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub steps: u64,
    /// Independent sequences run together.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u64).range(1..=65536))]
    pub batch: u64,
    /// Seed of the random model and emissions.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Sequences whose log-likelihood is checked against the f64 log-space forward.
    #[arg(long, default_value_t = 16)]
    pub verify: u64,
    /// Timed GPU runs (the median is reported).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub runs: u64,
}

#[derive(Args, Debug)]
pub struct CertifyArgs {
    /// lns16, lns32 or i<I>f<F>.
    #[arg(long, default_value = "lns16")]
    pub format: Format,
    /// sb, db or both.
    #[arg(long, default_value = "both", value_parser = ["sb", "db", "both"])]
    pub func: String,
    /// One of f64, f64table, f64poly, f32split, accurate, sfu, horner2..horner5, tex1, tex2,
    /// texlut; or `all` (the default): every method the device runs for the format. On the CPU:
    /// f64, f64table, f64poly, f32split, horner2..horner5, tex1, tex2, texlut (f32split and the
    /// GPU table methods as CPU twins); on a GPU: f64, f32split, accurate, sfu, horner2..horner5,
    /// tex1, tex2, texlut (f32split for 5 ≤ F ≤ 23, texlut for F ≤ 12).
    #[arg(long, default_value = "all")]
    pub method: String,
}

pub fn run(device: Option<Device>, json: bool, command: &LnsCommand) -> Result<ExitCode> {
    match command {
        LnsCommand::Certify(args) => certify(device, json, args),
        LnsCommand::Calc(args) => calc::run(json, args),
        LnsCommand::Hmm(args) => hmm(device, json, args),
        LnsCommand::Fig3(args) => fig3(device, json, args),
    }
}

/// `sigpu lns certify`: under an MPI launcher (built with `--features mpi`) every function's
/// inputs are split across the ranks, each on its own device; rank 0 prints the certificates,
/// equal to one process's.
fn certify(device: Option<Device>, json: bool, args: &CertifyArgs) -> Result<ExitCode> {
    sigpu_lab::ranks::run("lns certify", |ranks| certify_on(ranks, device, json, args))
}

fn certify_on(
    ranks: &dyn Ranks,
    device: Option<Device>,
    json: bool,
    args: &CertifyArgs,
) -> Result<ExitCode> {
    let methods = methods_named(&args.method, args.format)?;
    let funcs = funcs_named(&args.func);
    let target = super::resolve(device, super::Need::Either, "lns certify").and_then(|target| {
        check_runnable(&methods, target.gpu().is_some(), &args.method)?;
        Ok(target)
    });
    let target = sigpu_runtime::ranks::agree(ranks, target, |e| format!("{e:#}"))
        .map_err(|e| e.unwrap_or_else(anyhow::Error::new))?;
    let gpu = target.gpu();
    let (run, skipped) = runnable(&methods, gpu.is_some());
    let (rank, size) = (ranks.rank(), ranks.size());
    let total = inputs_share(args.format, &run, &funcs, rank, size);
    let bar = super::bar(total, "{spinner} [{bar:30}] {percent}% {msg}");
    if rank != 0 {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let certs = certify_ranks(
        ranks,
        gpu,
        args.format,
        &run,
        &funcs,
        &|m| bar.set_message(m),
        &|n| bar.inc(n),
    )?;
    bar.finish_and_clear();
    if rank != 0 {
        return Ok(ExitCode::SUCCESS);
    }
    super::report(json, &certs, |_| {
        print!("{}", text(args.format, &certs, &skipped))
    })
}

fn hmm(device: Option<Device>, json: bool, args: &HmmArgs) -> Result<ExitCode> {
    let run = HmmRun {
        format: args.format,
        states: args.states as usize,
        steps: args.steps as usize,
        batch: args.batch as usize,
        seed: args.seed,
        verify: args.verify as usize,
        runs: args.runs as usize,
    };
    run.check()?;
    let target = super::resolve(device, super::Need::Either, "lns hmm")?;
    let report = run_hmm(target.gpu(), &run)?;
    super::report(json, &report, |r| print!("{}", r.text()))
}

fn fig3(device: Option<Device>, json: bool, args: &Fig3Args) -> Result<ExitCode> {
    super::check(&[super::Output::Base("--plot", args.plot.as_deref())], &[])?;
    let target = super::resolve(device, super::Need::Either, "lns fig3")?;
    let bar = super::bar(
        PRECISIONS.count() as u64,
        "{spinner} [{bar:30}] f = {pos}/16",
    );
    let fig = figure(target.gpu(), &|| bar.inc(1))?;
    bar.finish_and_clear();
    if let Some(base) = &args.plot {
        fig.chart()
            .write(base)
            .with_context(|| format!("--plot {}", base.display()))?;
    }
    super::report(json, &fig.points, |_| print!("{}", fig.text()))
}
