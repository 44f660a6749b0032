//! `sigpu bench copy`: the copy bandwidth of a GPU or the host, read + write counted — the
//! ceiling of every memory-bound kernel — and its text form.

use crate::table;
use serde::Serialize;
use sigpu_runtime::cuda::{self, CopyBench, Gpu};
use sigpu_runtime::host::{self, HostCopyBench};

/// One copy measurement: a GPU's methods, or the host's threaded copy.
#[derive(Serialize)]
#[serde(tag = "device_kind", rename_all = "snake_case")]
pub enum CopyResult {
    /// Device-to-device copies on a GPU, per method.
    Cuda(CopyBench),
    /// The host's copy with every thread.
    Cpu(HostCopyBench),
}

/// [`measure`] over `size_mib` MiB (default 1024 on a GPU, 256 on the host), as `sigpu bench
/// copy --size-mib` asks.
pub fn measure_mib(
    gpu: Option<&Gpu>,
    size_mib: Option<u64>,
    warmup: usize,
    runs: usize,
) -> anyhow::Result<CopyResult> {
    let mib = size_mib.unwrap_or(if gpu.is_some() { 1024 } else { 256 });
    let bytes = anyhow::Context::context(
        usize::try_from(mib << 20),
        "--size-mib does not fit in memory",
    )?;
    measure(gpu, bytes, warmup, runs)
}

/// Copies `bytes` on `gpu` (or the host without one): `warmup` untimed runs (GPU only), then
/// the median of `runs`.
pub fn measure(
    gpu: Option<&Gpu>,
    bytes: usize,
    warmup: usize,
    runs: usize,
) -> anyhow::Result<CopyResult> {
    Ok(match gpu {
        Some(gpu) => CopyResult::Cuda(cuda::copy_bandwidth(gpu, bytes, warmup, runs)?),
        None => CopyResult::Cpu(host::copy_bandwidth(bytes, host::threads(), runs)?),
    })
}

impl CopyResult {
    /// The measurement as `sigpu bench copy` prints it.
    pub fn text(&self) -> String {
        match self {
            CopyResult::Cuda(b) => {
                let header = ["method", "GB/s", "median ms", "min..max ms"];
                let table = table::of(&header, &b.methods, |m| {
                    vec![
                        m.method.clone(),
                        format!("{:.1}", m.gb_per_s),
                        format!("{:.4}", m.timing.median_ms),
                        format!("{:.4}..{:.4}", m.timing.min_ms, m.timing.max_ms),
                    ]
                });
                format!(
                    "{}: copy of {} MiB, read + write counted, median of {} runs\n{}best: {:.1} GB/s\n",
                    b.device,
                    b.bytes >> 20,
                    b.methods.first().map_or(0, |m| m.timing.samples_ms.len()),
                    table,
                    b.best_gb_per_s
                )
            }
            CopyResult::Cpu(b) => format!(
                "CPU copy of {} MiB with {} threads, read + write counted, median of {} runs: {:.1} GB/s ({:.4} s)\n",
                b.bytes >> 20,
                b.threads,
                b.runs,
                b.gb_per_s,
                b.median_s
            ),
        }
    }
}
