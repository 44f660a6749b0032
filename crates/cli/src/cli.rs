//! Every flag of the `sigpu` command line.

use clap::{Args, Parser, Subcommand};
use sigpu_runtime::Device;

#[derive(Parser, Debug)]
#[command(
    name = "sigpu",
    version,
    about = "Signal-processing arithmetic on every unit of a GPU, and on CPU SIMD"
)]
pub struct Cli {
    /// Where to run: `cpu`, `cuda` or `cuda:N`. Commands that need a GPU default to cuda:0;
    /// the others use the GPU when one is usable and the CPU otherwise.
    #[arg(long, global = true, value_name = "cpu|cuda[:N]")]
    pub device: Option<Device>,

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
    Check(CheckArgs),
    /// Benchmarks.
    #[command(subcommand)]
    Bench(BenchCommand),
    /// A tour on built-in inputs: GPU self-checks and bandwidth, or the CPU path without a GPU.
    Demo,
    /// DVB-T2/S2 LDPC: codes, decoding, error-rate simulation.
    #[command(subcommand)]
    Ldpc(crate::cmd::ldpc::LdpcCommand),
}

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Seed for the random inputs (default: drawn from the clock and printed, to replay a run).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Run only checks whose name contains this text.
    #[arg(long, value_name = "TEXT")]
    pub filter: Option<String>,
    /// List the registered checks and exit.
    #[arg(long)]
    pub list: bool,
}

#[derive(Subcommand, Debug)]
pub enum BenchCommand {
    /// Copy bandwidth, read + write counted: the ceiling for memory-bound kernels.
    Copy(CopyArgs),
    /// LDPC decoder throughput (coded / information Mbps, batch latency).
    Ldpc(crate::cmd::ldpc::BenchArgs),
}

#[derive(Args, Debug)]
pub struct CopyArgs {
    /// Buffer size in MiB (default 1024 on a GPU, 256 on the CPU).
    #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u64).range(1..=65536))]
    pub size_mib: Option<u64>,
    /// Timed repetitions; the median is reported.
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u64).range(1..=10000))]
    pub runs: u64,
    /// Untimed repetitions first.
    #[arg(long, default_value_t = 5)]
    pub warmup: u64,
    /// Also write the JSON result to this file (atomically).
    #[arg(long, value_name = "FILE")]
    pub out: Option<std::path::PathBuf>,
}
