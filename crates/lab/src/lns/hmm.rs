//! `sigpu lns hmm`: the HMM forward in LNS on a random model, on the CPU or a GPU, timed and
//! checked against the f64 log-space forward.

use crate::numfmt::{si, sig3};
use anyhow::Result;
use serde::Serialize;
use sigpu_lns::hmm::gpu::{emission_words, GpuHmm};
use sigpu_lns::hmm::{random_emissions, HmmModel};
use sigpu_lns::Format;
use sigpu_runtime::cuda::{time_gpu, Gpu};
use sigpu_runtime::host::available_memory;

/// What to run: a random model of `states` states, `batch` sequences of `steps` emissions.
#[derive(Clone, Copy, Debug)]
pub struct HmmRun {
    /// The LNS format of the forward.
    pub format: Format,
    /// Hidden states of the random model.
    pub states: usize,
    /// Emissions per sequence.
    pub steps: usize,
    /// Sequences in the batch.
    pub batch: usize,
    /// Seed of the model; the emissions use `seed + 1`.
    pub seed: u64,
    /// Sequences checked against the f64 forward.
    pub verify: usize,
    /// Timed GPU runs (the median is reported).
    pub runs: usize,
}

/// The most emission probabilities a run holds (as f64, and as words on a GPU).
const MAX_EMISSIONS: usize = 1 << 30;

impl HmmRun {
    /// Refuses a run whose emissions cannot be allocated: each size is bounded, their
    /// product is not, and a failed allocation would abort instead of saying why.
    pub fn check(&self) -> Result<()> {
        let (s, t, b) = (self.states, self.steps, self.batch);
        let cells = s.saturating_mul(t).saturating_mul(b);
        if cells > MAX_EMISSIONS {
            anyhow::bail!(
                "--states {s} × --steps {t} × --batch {b} = {cells} emission probabilities: at \
                 most 2^30 ({} GiB as f64)",
                (MAX_EMISSIONS * 8) >> 30
            );
        }
        Ok(())
    }
}

/// What one HMM forward run measured, and how far it is from the f64 log-space forward.
#[derive(Clone, Debug, Serialize)]
pub struct HmmReport {
    /// The format of the forward.
    pub format: String,
    /// Where it ran: the GPU's name and architecture, or `cpu`.
    pub device: String,
    /// Hidden states.
    pub states: u64,
    /// Emissions per sequence.
    pub steps: u64,
    /// Sequences in the batch.
    pub batch: u64,
    /// One forward over the batch (GPU: median of timed runs by CUDA events).
    pub seconds: f64,
    /// Transition terms (states² × steps × batch) per second.
    pub g_cells_per_s: f64,
    /// Sequences checked against the f64 log-space forward.
    pub verified: usize,
    /// max over the verified sequences of |ll_lns − ll_f64| / |ll_f64|.
    pub max_relative_error: f64,
    /// The log-likelihood of every sequence in the batch (natural log), from the LNS forward.
    pub log_likelihoods: Vec<f64>,
}

impl HmmReport {
    /// The one line `sigpu lns hmm` prints. The speed counts transition terms (one α_i · a_ij
    /// product-sum term: states² per step per sequence) per second, with three significant
    /// digits and an SI prefix, so a slow run never reads as 0.
    pub fn text(&self) -> String {
        format!(
            "HMM forward in {} on {}: {} states, {} steps, batch {}: {} ms, {} \
             (states² × steps × batch / time); log-likelihood relative error vs f64 at most \
             {:.2e} over {} sequences\n",
            self.format,
            self.device,
            self.states,
            self.steps,
            self.batch,
            sig3(self.seconds * 1e3),
            si(self.g_cells_per_s * 1e9, "transitions/s"),
            self.max_relative_error,
            self.verified
        )
    }
}

/// The forward over the batch on `gpu` or on all CPU cores: log-likelihoods, seconds, device.
fn forward(
    gpu: Option<&Gpu>,
    run: &HmmRun,
    model: &HmmModel,
    emit: &[f64],
) -> Result<(Vec<f64>, f64, String)> {
    let b = run.batch;
    match gpu {
        None => {
            let start = std::time::Instant::now();
            let got = model.forward_lns_batch(run.format, emit, b)?;
            Ok((got, start.elapsed().as_secs_f64(), "cpu".to_string()))
        }
        Some(gpu) => {
            let hmm = GpuHmm::new(gpu, model, run.format)?;
            let words = gpu.upload(&emission_words(run.format, emit))?;
            let mut ll = gpu.alloc_poisoned::<f64>(b)?;
            let timing = time_gpu(gpu, 1, run.runs, || hmm.forward(&words, b, &mut ll))?;
            let name = gpu.info().name.clone();
            Ok((gpu.download(&ll)?, timing.median_ms / 1e3, name))
        }
    }
}

/// Refuses a run whose emissions would not fit in `available` bytes of host memory (f64 each,
/// and their words too for a GPU), naming the largest batch that would.
fn check_memory(
    on_gpu: bool,
    states: usize,
    steps: usize,
    batch: usize,
    available: Option<u64>,
) -> Result<()> {
    let per_sequence = (states * steps) as u64 * if on_gpu { 8 + 4 } else { 8 };
    let need = per_sequence.saturating_mul(batch as u64);
    let fits = available.map_or(batch as u64, |a| {
        (0.9 * a as f64 / per_sequence as f64) as u64
    });
    sigpu_runtime::host::check_memory(
        need,
        available,
        &format!("{states} states × {steps} steps × batch {batch} of emission probabilities"),
        &format!("lower --batch to {} or fewer (or --steps)", fits.max(1)),
    )
    .map_err(anyhow::Error::msg)
}

/// Runs the forward and checks the first `run.verify` sequences against f64.
pub fn run(gpu: Option<&Gpu>, run: &HmmRun) -> Result<HmmReport> {
    let (s, t, b) = (run.states, run.steps, run.batch);
    check_memory(gpu.is_some(), s, t, b, available_memory())?;
    let model = HmmModel::random(s, run.seed);
    let emit = random_emissions(b, t, s, run.seed.wrapping_add(1));
    let (got, seconds, device) = forward(gpu, run, &model, &emit)?;
    let verified = b.min(run.verify);
    let mut worst = 0.0f64;
    for (seq, &ll) in emit.chunks(t * s).zip(&got).take(verified) {
        let want = model.forward_f64(seq)?;
        worst = worst.max(if ll == want {
            0.0
        } else {
            ((ll - want) / want).abs()
        });
    }
    Ok(HmmReport {
        format: run.format.to_string(),
        device,
        states: s as u64,
        steps: t as u64,
        batch: b as u64,
        seconds,
        g_cells_per_s: (s * s * t * b) as f64 / seconds / 1e9,
        verified,
        max_relative_error: worst,
        log_likelihoods: got,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slow_run_prints_its_speed_not_zero() {
        let report = HmmReport {
            format: "lns32".into(),
            device: "cpu".into(),
            states: 64,
            steps: 100,
            batch: 8,
            seconds: 0.172,
            g_cells_per_s: 0.019,
            verified: 8,
            max_relative_error: 2.7e-9,
            log_likelihoods: vec![],
        };
        let text = report.text();
        assert!(text.contains("172 ms, 19.0 M transitions/s"), "{text}");
        assert!(!text.contains(" 0.0 "), "{text}");
    }

    #[test]
    fn emissions_that_do_not_fit_are_refused_before_allocating() {
        // --states 1 --steps 16384 --batch 65536: 2^30 emissions, 8 GiB as f64.
        let gib = 1u64 << 30;
        let e = check_memory(false, 1, 16384, 65536, Some(8 * gib))
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "1 states × 16384 steps × batch 65536 of emission probabilities needs about 8.0 GiB \
             of memory and 8.0 GiB is available: lower --batch to 58982 or fewer (or --steps)"
        );
        assert!(check_memory(false, 1, 16384, 58982, Some(8 * gib)).is_ok());
        assert!(
            check_memory(true, 1, 16384, 58982, Some(8 * gib)).is_err(),
            "GPU: words too"
        );
        assert!(check_memory(false, 1, 16384, 65536, None).is_ok());
    }

    #[test]
    fn cpu_forward_is_close_to_f64() {
        let hmm = HmmRun {
            format: Format::LNS32,
            states: 4,
            steps: 50,
            batch: 2,
            seed: 1,
            verify: 16,
            runs: 1,
        };
        let report = run(None, &hmm).unwrap();
        assert_eq!((report.verified, report.log_likelihoods.len()), (2, 2));
        assert!(report.max_relative_error < 1e-5, "{report:?}");
    }
}
