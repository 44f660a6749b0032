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
    /// the others use the GPU when one is usable and the CPU otherwise. `all`: every GPU of
    /// the host, for `ldpc simulate` only.
    #[arg(long, global = true, value_name = "cpu|cuda[:N]|all")]
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
    Check(CheckArgs),
    /// Benchmarks.
    #[command(subcommand)]
    Bench(BenchCommand),
    /// A tour on built-in inputs: GPU self-checks and bandwidth, or the CPU path without a GPU.
    Demo,
    /// DVB-T2/S2 LDPC: codes, decoding, error-rate simulation.
    #[command(subcommand)]
    Ldpc(crate::cmd::ldpc::LdpcCommand),
    /// Filter a signal with a linear recurrence / IIR filter (PLR), on the CPU or a GPU.
    Filter(crate::cmd::filter::FilterArgs),
    /// Real logarithmic number system: certificates, calculator.
    #[command(subcommand)]
    Lns(crate::cmd::lns::LnsCommand),
    /// Approximate transcendentals on SFUs: catalog, microbenchmark, λ transformation, search.
    #[command(subcommand)]
    Approx(crate::cmd::approx::ApproxCommand),
    /// Complex LNS: S_b certificates, the seed's Fig. 4/5, FFT accuracy and speed.
    #[command(subcommand)]
    Clns(crate::cmd::clns::ClnsCommand),
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
    /// Linear recurrence / IIR filter throughput (GPU or CPU) vs the copy ceiling
    /// (also `bench recur`, the name the PLR issue uses).
    #[command(alias = "recur")]
    Filter(crate::cmd::bench_filter::BenchFilterArgs),
    /// LNS s_b / d_b throughput per method and blend, compute-bound (the seed's Table 1).
    Lns(crate::cmd::lns::bench::BenchLnsArgs),
    /// CLNS vs complex f32 add/mul (Table I), the texture-cache cliff, streaming ops.
    Clns(crate::cmd::clns::BenchClnsArgs),
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

/// What `--device` names: one device, or every GPU of the host (`all`), which only commands
/// that spread their work over GPUs take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceChoice {
    One(Device),
    AllGpus,
}

impl DeviceChoice {
    /// The one device a command runs on; `all` is refused with what to give instead.
    pub fn one(choice: Option<DeviceChoice>) -> anyhow::Result<Option<Device>> {
        match choice {
            None => Ok(None),
            Some(DeviceChoice::One(device)) => Ok(Some(device)),
            Some(DeviceChoice::AllGpus) => anyhow::bail!(
                "--device all (every GPU of the host) is taken only by `sigpu ldpc simulate`; \
                 this command runs on one device: give cpu, cuda or cuda:N"
            ),
        }
    }
}

impl std::str::FromStr for DeviceChoice {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.trim().eq_ignore_ascii_case("all") {
            return Ok(DeviceChoice::AllGpus);
        }
        s.parse()
            .map(DeviceChoice::One)
            .map_err(|e: sigpu_runtime::ParseDeviceError| format!("{e}, or `all` (every GPU)"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_choice_parses_all_and_one_device() {
        assert_eq!("all".parse(), Ok(DeviceChoice::AllGpus));
        assert_eq!(" ALL ".parse(), Ok(DeviceChoice::AllGpus));
        assert_eq!("cuda:1".parse(), Ok(DeviceChoice::One(Device::Cuda(1))));
        assert_eq!("cpu".parse(), Ok(DeviceChoice::One(Device::Cpu)));
        let err = "al".parse::<DeviceChoice>().unwrap_err();
        assert!(err.contains("\"al\"") && err.contains("`all`"), "{err}");
    }

    #[test]
    fn one_device_refuses_all() {
        assert_eq!(DeviceChoice::one(None).unwrap(), None);
        let cpu = Some(DeviceChoice::One(Device::Cpu));
        assert_eq!(DeviceChoice::one(cpu).unwrap(), Some(Device::Cpu));
        let err = DeviceChoice::one(Some(DeviceChoice::AllGpus)).unwrap_err();
        assert!(err.to_string().contains("--device all"), "{err}");
    }
}
