//! Every flag of the `sigpu` command line.

use crate::cmd::{self, DeviceChoice};
use anyhow::Result;
use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(
    name = "sigpu",
    version,
    about = "Signal-processing arithmetic on every unit of a GPU, and on CPU SIMD",
    after_help = "Device: commands that need a GPU default to cuda:0; the others use the GPU when \
                  one is usable and the CPU otherwise, except `ldpc decode` and `ldpc simulate` \
                  (the CPU unless a GPU is named: the decoders differ). `ldpc simulate` also \
                  takes `--device all`: every GPU of the host."
)]
pub struct Cli {
    /// Where to run: `cpu`, `cuda` or `cuda:N` (default: see `sigpu --help`).
    #[arg(long, global = true, value_name = "cpu|cuda[:N]")]
    pub device: Option<DeviceChoice>,

    /// Print results as JSON on stdout instead of text.
    #[arg(long, global = true)]
    pub json: bool,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Version, CPU and SIMD features, CUDA driver / NVRTC / devices or why none is usable.
    Info,
    /// Run every GPU kernel against its CPU twin on fresh random inputs.
    Check(cmd::check::CheckArgs),
    /// Benchmarks.
    #[command(subcommand)]
    Bench(BenchCommand),
    /// A tour on built-in inputs: GPU self-checks and bandwidth, or the CPU path without a GPU.
    Demo,
    /// DVB-T2/S2 LDPC: codes, decoding, error-rate simulation.
    #[command(subcommand)]
    Ldpc(cmd::ldpc::LdpcCommand),
    /// Filter a signal with a linear recurrence / IIR filter (PLR), on the CPU or a GPU.
    Filter(cmd::filter::FilterArgs),
    /// Real logarithmic number system: certificates, calculator.
    #[command(subcommand)]
    Lns(cmd::lns::LnsCommand),
    /// Approximate transcendentals on SFUs: catalog, microbenchmark, λ transformation, search.
    #[command(subcommand)]
    Approx(cmd::approx::ApproxCommand),
    /// Choose this GPU's launch shapes by measuring the candidates of each kernel family (PLR,
    /// sections, LNS streaming and fused sum); the choices go to the tuning cache
    /// ($SIGPU_TUNING_CACHE, default ~/.cache/sigpu/tuning; `off` ignores it).
    Tune(cmd::tune::TuneArgs),
    /// Complex LNS: S_b certificates, Fig. 4/5 of Vouzis & Arnold's CLNS paper, FFT accuracy
    /// and speed.
    #[command(subcommand)]
    Clns(cmd::clns::ClnsCommand),
}

#[derive(Subcommand, Debug)]
pub enum BenchCommand {
    /// Copy bandwidth, read + write counted: the ceiling for memory-bound kernels.
    Copy(cmd::bench::CopyArgs),
    /// LDPC decoder throughput (coded / information Mbps, batch latency).
    Ldpc(cmd::ldpc::BenchArgs),
    /// Linear recurrence / IIR filter throughput (GPU or CPU) vs the copy ceiling (also
    /// `bench recur`).
    #[command(alias = "recur")]
    Filter(cmd::bench_filter::BenchFilterArgs),
    /// LNS s_b / d_b throughput per method and blend, compute-bound (Table 1 of Arnold &
    /// Collange's texture-LNS paper).
    Lns(cmd::lns::bench::BenchLnsArgs),
    /// CLNS vs complex f32 add/mul (Table I), the texture-cache cliff, streaming ops.
    Clns(cmd::clns::BenchClnsArgs),
}

/// Runs the command the user gave: each family parses nothing more, resolves its device once
/// and calls a library or the lab.
pub fn run(cli: &Cli) -> Result<ExitCode> {
    // `--device all` reaches only the LDPC commands (simulate spreads over every GPU); every
    // other command takes one device and refuses `all` here.
    let one = || DeviceChoice::one(cli.device);
    match &cli.command {
        Command::Info => cmd::info::run(cli.json),
        Command::Check(args) => cmd::check::run(one()?, cli.json, args),
        Command::Bench(BenchCommand::Copy(args)) => cmd::bench::copy(one()?, cli.json, args),
        Command::Bench(BenchCommand::Lns(args)) => cmd::lns::bench::run(one()?, cli.json, args),
        Command::Demo => cmd::demo::run(one()?, cli.json),
        Command::Lns(command) => cmd::lns::run(one()?, cli.json, command),
        Command::Filter(args) => cmd::filter::run(one()?, cli.json, args),
        Command::Bench(BenchCommand::Filter(args)) => {
            cmd::bench_filter::run(one()?, cli.json, args)
        }
        Command::Ldpc(cmd::ldpc::LdpcCommand::Simulate(args)) => {
            let all = cli.device == Some(DeviceChoice::AllGpus);
            cmd::ldpc::simulate(if all { None } else { one()? }, all, cli.json, args)
        }
        Command::Ldpc(command) => cmd::ldpc::run(one()?, cli.json, command),
        Command::Bench(BenchCommand::Ldpc(args)) => cmd::ldpc::bench(one()?, cli.json, args),
        Command::Approx(command) => cmd::approx::run(one()?, cli.json, command),
        Command::Clns(command) => cmd::clns::run(one()?, cli.json, command),
        Command::Tune(args) => cmd::tune::run(one()?, cli.json, args),
        Command::Bench(BenchCommand::Clns(args)) => cmd::clns::bench(one()?, cli.json, args),
    }
}
