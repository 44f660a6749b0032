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
    /// Real logarithmic number system: certificates, calculator.
    #[command(subcommand)]
    Lns(LnsCommand),
}

#[derive(Subcommand, Debug)]
pub enum LnsCommand {
    /// Evaluate s_b / d_b by a method at every input of a format and report the error.
    Certify(CertifyArgs),
    /// Read lines `a op b` (op one of + - * /) on stdin; print each result as a decimal and as
    /// the raw LNS word.
    Calc(CalcArgs),
}

#[derive(Args, Debug)]
pub struct CertifyArgs {
    /// lns16, lns32 or i<I>f<F>.
    #[arg(long, default_value = "lns16")]
    pub format: sigpu_lns::Format,
    /// sb, db or both.
    #[arg(long, default_value = "both", value_parser = ["sb", "db", "both"])]
    pub func: String,
    /// f64, accurate, sfu, horner2..horner5, tex1, tex2, or `all`.
    #[arg(long, default_value = "all")]
    pub method: String,
}

#[derive(Args, Debug)]
pub struct CalcArgs {
    /// lns16, lns32 or i<I>f<F>.
    #[arg(long, default_value = "lns16")]
    pub format: sigpu_lns::Format,
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
    /// LNS s_b / d_b throughput per method and blend, compute-bound (the seed's Table 1).
    Lns(BenchLnsArgs),
}

#[derive(Args, Debug)]
pub struct BenchLnsArgs {
    /// lns16, lns32 or i<I>f<F>.
    #[arg(long, default_value = "lns16")]
    pub format: sigpu_lns::Format,
    /// Also write the JSON result to this file (atomically).
    #[arg(long, value_name = "FILE")]
    pub out: Option<std::path::PathBuf>,
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
