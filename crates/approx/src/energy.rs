//! Energy of a GPU operation: NVML's counter ([`sigpu_runtime::nvml`]) read around
//! back-to-back runs for a fixed stretch of time (the counter is refreshed every few tens of
//! milliseconds, so one short run cannot be measured on its own).

use crate::error::{ApproxError, Result};
use serde::Serialize;
use sigpu_runtime::cuda::Gpu;
use sigpu_runtime::nvml::EnergyCounter;
use std::time::Instant;

/// Energy of an operation.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Energy {
    /// Joules per run.
    pub joules_per_run: f64,
    /// Average board power over the measured stretch, watts.
    pub watts: f64,
    /// Runs in the stretch.
    pub runs: usize,
    /// Its length, seconds.
    pub seconds: f64,
}

/// The counter of `gpu` when NVML has one, else the reason (for the report's "not available").
pub fn counter(gpu: &Gpu) -> std::result::Result<EnergyCounter, String> {
    EnergyCounter::open(gpu.ordinal() as u32).map_err(|e| e.to_string())
}

/// Runs `op` (which only enqueues work on `gpu`'s stream and takes about `run_ms`) back to
/// back for at least `seconds`, synchronised every ~10 ms of work, and divides the counter's
/// difference by the runs.
pub fn measure(
    gpu: &Gpu,
    counter: &EnergyCounter,
    run_ms: f64,
    seconds: f64,
    mut op: impl FnMut() -> Result<()>,
) -> Result<Energy> {
    let nvml = |e: sigpu_runtime::nvml::NvmlError| ApproxError::User(e.to_string());
    let batch = (10.0 / run_ms.max(1e-4)).ceil().clamp(1.0, 100_000.0) as usize;
    gpu.synchronize()?;
    let e0 = counter.millijoules().map_err(nvml)?;
    let t0 = Instant::now();
    let mut runs = 0;
    while t0.elapsed().as_secs_f64() < seconds || runs == 0 {
        for _ in 0..batch {
            op()?;
        }
        runs += batch;
        gpu.synchronize()?;
    }
    let secs = t0.elapsed().as_secs_f64();
    let e1 = counter.millijoules().map_err(nvml)?;
    let joules = e1.saturating_sub(e0) as f64 / 1000.0;
    Ok(Energy {
        joules_per_run: joules / runs as f64,
        watts: joules / secs,
        runs,
        seconds: secs,
    })
}
