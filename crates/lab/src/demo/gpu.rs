//! The demo's GPU sections: the LNS HMM forward and the IIR filter on the device, and every
//! registered self-check with the demo's fixed seed.

use super::cpu::{hmm_error, low_pass, HmmSection, SEED};
use crate::numfmt::{si, sig3};
use crate::recurrence::bench::{bench_gpu, bench_input, GpuBench};
use anyhow::Result;
use serde::Serialize;
use sigpu_lns::hmm::gpu::{emission_words, GpuHmm};
use sigpu_lns::hmm::{random_emissions, HmmModel};
use sigpu_lns::Format;
use sigpu_recurrence::GpuConfig;
use sigpu_runtime::cuda::{time_gpu, Check, Gpu};

pub fn lns_hmm(gpu: &Gpu) -> Result<HmmSection> {
    let (states, steps, batch) = (64, 300, 1024);
    let format = Format::LNS32;
    let model = HmmModel::random(states, SEED);
    let emit = random_emissions(batch, steps, states, SEED + 1);
    let hmm = GpuHmm::new(gpu, &model, format)?;
    let words = gpu.upload(&emission_words(format, &emit))?;
    let mut ll = gpu.alloc_poisoned::<f64>(batch)?;
    let timing = time_gpu(gpu, 2, 10, || hmm.forward(&words, batch, &mut ll))?;
    let got = gpu.download(&ll)?;
    let seconds = timing.median_ms / 1e3;
    // Every sequence against the f64 forward (a fraction of a second on the host).
    let error = hmm_error(&model, &emit, &got)?;
    let shape = (states, steps, batch);
    Ok(HmmSection::new(
        &gpu.info().name,
        format,
        shape,
        seconds,
        error,
    ))
}

/// The generated single-pass filter kernel on one long channel, against the copy ceiling.
#[derive(Serialize)]
pub struct GpuFilterSection {
    pub samples: usize,
    pub median_ms: f64,
    pub g_samples_per_s: f64,
    pub gb_per_s: f64,
    pub percent_of_copy: f64,
    /// max |y − y_f64| / max |y_f64|.
    pub max_relative_error: f64,
}

impl GpuFilterSection {
    /// What was measured, in one line.
    pub fn line(&self) -> String {
        format!(
            "IIR low-pass, the same filter on {} float32 samples: {}, {} = {}% of copy; \
             max error {:.1e} of max |y| vs float64",
            si(self.samples as f64, "").trim_end(),
            si(self.g_samples_per_s * 1e9, "samples/s"),
            si(self.gb_per_s * 1e9, "B/s"),
            sig3(self.percent_of_copy),
            self.max_relative_error
        )
    }
}

/// Peers' figures from BENCHMARKS.md, for scale beside the GPU lines: measured on an H100 in
/// the lab's runs (bench/peers/), not on this machine.
pub mod peers {
    /// Beside the GPU copy: torch's `Tensor.copy_`, 1 GiB (`bench/peers/copy_torch.py`).
    pub const COPY: &str = "for scale, torch's Tensor.copy_ reaches 2943 GB/s on an H100";
    /// Beside the GPU HMM: torch's logsumexp forward in float32, batch 1024 × 64 states ×
    /// 1000 steps (`bench/peers/hmm_torch.py`).
    pub const HMM: &str =
        "for scale, a torch logsumexp forward in float32 runs 40.8 G transitions/s on an H100";
    /// Beside the GPU filter: `cupyx.scipy.signal.lfilter` on a 2-pole low-pass, 2^26–2^28
    /// float32 samples (`bench/peers/recurrence_peers.py`).
    pub const FILTER: &str = "for scale, cupyx.scipy.signal.lfilter runs a 2-pole low-pass at \
        3.54 G samples/s on an H100 (torchaudio's lfilter: under 0.01 G samples/s)";
}

pub fn iir_filter(gpu: &Gpu, copy_gb_per_s: f64) -> Result<GpuFilterSection> {
    let samples = 64 << 20;
    let filter = low_pass()?;
    let x: Vec<f32> = bench_input(samples, SEED);
    let row = bench_gpu(
        gpu,
        &filter,
        &x,
        GpuBench {
            config: GpuConfig::default(),
            warmup: 3,
            runs: 20,
            copy_gb_per_s: Some(copy_gb_per_s),
            check: true,
        },
    )?;
    Ok(GpuFilterSection {
        samples,
        median_ms: row.median_ms,
        g_samples_per_s: row.gelem_per_s,
        gb_per_s: row.gb_per_s,
        percent_of_copy: row.percent_of_copy,
        max_relative_error: row.error,
    })
}

/// Pass / fail of every registered check, by name.
#[derive(Serialize)]
pub struct ChecksSection {
    pub seed: u64,
    pub passed: usize,
    pub failed: Vec<String>,
}

/// Runs every check with the demo's seed, naming each through `step` as it starts: on a
/// fresh machine the section compiles every kernel (about two minutes on an H200 for 119
/// checks), the demo's longest wait.
pub fn checks(gpu: &Gpu, checks: &[Check], step: &dyn Fn(&str)) -> ChecksSection {
    let done = std::cell::Cell::new(0usize);
    let summary = crate::checks::run_all(gpu, checks, SEED, &|name| {
        done.set(done.get() + 1);
        step(&format!(
            "GPU: self-check {} of {}, {name}",
            done.get(),
            checks.len()
        ));
    });
    let failed = summary
        .checks
        .iter()
        .filter(|o| !o.passed)
        .map(|o| match (&o.report, &o.error) {
            (Some(r), _) => format!("{}: {}", o.name, r.note),
            (None, e) => format!("{}: {}", o.name, e.as_deref().unwrap_or("")),
        })
        .collect();
    ChecksSection {
        seed: SEED,
        passed: summary.passed,
        failed,
    }
}
