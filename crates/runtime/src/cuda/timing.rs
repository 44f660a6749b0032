//! Kernel timing with CUDA events.
//!
//! Events must be created with `CU_EVENT_DEFAULT`: cudarc's `new_event(None)` disables timing.

use super::error::{DriverContext, Error, Result};
use super::gpu::Gpu;
use cudarc::driver::sys::CUevent_flags;
use serde::Serialize;

/// Event-timed samples of one operation, in milliseconds.
#[derive(Clone, Debug, Serialize)]
pub struct Timing {
    /// Untimed runs before the samples.
    pub warmup: usize,
    /// Median of the samples: the figure to report.
    pub median_ms: f64,
    /// Fastest sample.
    pub min_ms: f64,
    /// Slowest sample.
    pub max_ms: f64,
    /// Every sample, in the order they ran.
    pub samples_ms: Vec<f64>,
}

/// Runs `op` `warmup` times untimed, then `runs` times back to back with an event recorded
/// between consecutive runs on the GPU's stream, and returns the median and spread of the
/// intervals. `op` only enqueues work on that stream. Recording every event before reading any
/// keeps the queue ahead of the GPU, so host launch latency stays out of all but the first
/// sample, which the warm-up also covers. `op` may fail with any error a driver error converts
/// into (a capability crate's own error type), which is returned as it is.
pub fn time_gpu<E: From<Error>>(
    gpu: &Gpu,
    warmup: usize,
    runs: usize,
    mut op: impl FnMut() -> Result<(), E>,
) -> Result<Timing, E> {
    let flags = Some(CUevent_flags::CU_EVENT_DEFAULT);
    let runs = runs.max(1);
    for _ in 0..warmup {
        op()?;
    }
    let events = (0..=runs)
        .map(|_| {
            gpu.context()
                .new_event(flags)
                .context("creating a timing event")
        })
        .collect::<Result<Vec<_>>>()?;
    events[0]
        .record(gpu.stream())
        .context("recording an event")?;
    for event in &events[1..] {
        op()?;
        event.record(gpu.stream()).context("recording an event")?;
    }
    let samples = events
        .windows(2)
        .map(|w| {
            w[0].elapsed_ms(&w[1])
                .map(f64::from)
                .context("reading elapsed time")
        })
        .collect::<Result<Vec<f64>>>()?;
    let median_ms = median(&mut samples.clone());
    Ok(Timing {
        warmup,
        median_ms,
        min_ms: samples.iter().copied().fold(f64::INFINITY, f64::min),
        max_ms: samples.iter().copied().fold(0.0, f64::max),
        samples_ms: samples,
    })
}

/// Median of `xs` (mean of the middle two for an even count); NaN for none. Sorts `xs`.
pub fn median(xs: &mut [f64]) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    xs.sort_by(f64::total_cmp);
    let m = xs.len() / 2;
    if xs.len() % 2 == 1 {
        xs[m]
    } else {
        0.5 * (xs[m - 1] + xs[m])
    }
}

/// GB/s (1e9 bytes per second) for `bytes` moved in `ms` milliseconds.
pub fn gb_per_s(bytes: f64, ms: f64) -> f64 {
    bytes / (ms * 1e-3) / 1e9
}

/// Giga-elements per second for `elems` processed in `ms` milliseconds.
pub fn gelem_per_s(elems: f64, ms: f64) -> f64 {
    elems / (ms * 1e-3) / 1e9
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_odd_even_empty() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), 2.5);
        assert!(median(&mut []).is_nan());
    }

    #[test]
    fn rates() {
        // 2 GiB read + write in 1 ms is 2147.48 GB/s.
        assert!((gb_per_s(2.0 * (1u64 << 30) as f64, 1.0) - 2147.483648).abs() < 1e-9);
        assert_eq!(gelem_per_s(5e8, 2.0), 250.0);
    }
}
