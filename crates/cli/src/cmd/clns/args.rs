//! The flags of `sigpu clns …` and `sigpu bench clns`.

use anyhow::Result;
use clap::{Args, Subcommand};
use sigpu_clns::{ClnsFormat, Geometry};

#[derive(Subcommand, Debug)]
pub enum ClnsCommand {
    /// Error of S_b methods over a dense grid, the singular corner and random inputs.
    Certify(ClnsCertifyArgs),
    /// Fig. 4/5 of Vouzis & Arnold's GPU CLNS paper: mean and max error of Re and Im of S_b
    /// vs table size.
    Fig45(ClnsFig45Args),
    /// Radix-2 FFT SNR vs f64 in CLNS, fixed point, f16 and bf16 at equal word size; GPU speed.
    Fft(ClnsFftArgs),
    /// The f32-radian variant of Vouzis & Arnold's CLNS: S_b error per method and op errors vs num_complex f64.
    CertifyF32(ClnsCertifyF32Args),
}

#[derive(Args, Debug)]
pub struct ClnsCertifyF32Args {
    /// Lattice points per axis of z ∈ [−32, 0] × θ ∈ [0, π].
    #[arg(long, default_value_t = 1024, value_parser = clap::value_parser!(u64).range(2..=8192))]
    pub grid: u64,
    /// Random S_b inputs added to the lattice.
    #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(0..=100_000_000))]
    pub random: u64,
    /// Random operand pairs for the op errors (one in 16 nearly cancelling).
    #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    pub pairs: u64,
    /// Seed of the random inputs: the same seed gives the same inputs.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[command(flatten)]
    pub out: crate::cmd::JsonOut,
}

#[derive(Args, Debug)]
pub struct ClnsCertifyArgs {
    /// clns16, clns32 or i<I>f<F>p<P>.
    #[arg(long, default_value = "clns16")]
    pub format: sigpu_clns::ClnsFormat,
    /// f64, accurate, tex, fma, sfu, or `all` (on the GPU, the methods with kernels for the format).
    #[arg(long, default_value = "all")]
    pub method: String,
    #[command(flatten)]
    pub table: TableArgs,
    /// Grid step in codes along z and θ (1 = every input).
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..))]
    pub stride: u32,
    /// Random inputs added to the grid.
    #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(0..=100_000_000))]
    pub random: u64,
    /// Seed of the random inputs: the same seed gives the same inputs.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[command(flatten)]
    pub out: crate::cmd::JsonOut,
}

#[derive(Args, Debug)]
pub struct ClnsFig45Args {
    /// clns16, clns32 or i<I>f<F>p<P>.
    #[arg(long, default_value = "clns16")]
    pub format: sigpu_clns::ClnsFormat,
    /// Grid step in codes along z and θ (1 = every input).
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u32).range(1..))]
    pub stride: u32,
    /// Random inputs added to the grid.
    #[arg(long, default_value_t = 200_000, value_parser = clap::value_parser!(u64).range(0..=100_000_000))]
    pub random: u64,
    /// Write fig4-re.{svg,png} and fig5-im.{svg,png} into this directory.
    #[arg(long, value_name = "DIR")]
    pub plot: Option<std::path::PathBuf>,
}

#[derive(Args, Debug)]
pub struct ClnsFftArgs {
    /// Transform length N (a power of two).
    #[arg(long, default_value_t = 1024)]
    pub size: usize,
    /// Transforms per run.
    #[arg(long, default_value_t = 16)]
    pub batch: usize,
    /// Word sizes per component to compare (CLNS: log i5f(b−5) + b-bit angle).
    #[arg(long, value_delimiter = ',', default_value = "10,12,14,16,18,20")]
    pub bits: Vec<u32>,
    /// S_b method of the CLNS FFT: f64, tex or fma.
    #[arg(long, default_value = "tex")]
    pub method: String,
    /// Seed of the random inputs: the same seed gives the same inputs.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Draw SNR vs bits to BASE.svg and BASE.png.
    #[arg(long, value_name = "BASE")]
    pub plot: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub out: crate::cmd::JsonOut,
}

#[derive(Args, Debug)]
pub struct BenchClnsArgs {
    /// clns16, clns32 or i<I>f<F>p<P>.
    #[arg(long, default_value = "clns16")]
    pub format: sigpu_clns::ClnsFormat,
    #[command(flatten)]
    pub table: TableArgs,
    #[command(flatten)]
    pub out: crate::cmd::JsonOut,
    /// Draw the texture-cache cliff to BASE.svg and BASE.png.
    #[arg(long, value_name = "BASE")]
    pub plot: Option<std::path::PathBuf>,
    /// Measure Table I only (both representations), skipping the cliff and streaming ops.
    #[arg(long)]
    pub table1_only: bool,
    /// Report (and plot) a saved JSON result instead of measuring: no GPU needed.
    #[arg(long, value_name = "FILE")]
    pub from: Option<std::path::PathBuf>,
}

/// `--p-cl` / `--p-theta`: the S_b table's size, for the commands that build one.
#[derive(Args, Debug)]
pub struct TableArgs {
    /// Table points along |Z| (default: the format's default table).
    #[arg(long)]
    pub p_cl: Option<usize>,
    /// Table points along θ (default: the format's default table).
    #[arg(long)]
    pub p_theta: Option<usize>,
}

impl TableArgs {
    /// The table for `format`: the flags given, the format's default for those not.
    pub fn geometry(&self, format: ClnsFormat) -> Result<Geometry> {
        Ok(Geometry::sized(format, self.p_cl, self.p_theta)?)
    }
}
