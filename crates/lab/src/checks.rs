//! The self-check registry: every crate's GPU kernels against their CPU twins, run on fresh
//! random inputs drawn from one seed. `sigpu check` and the demo run what [`registry`] lists.

use serde::Serialize;
use sigpu_runtime::cuda::{self, Check, CheckReport, Gpu};

/// Every check of every crate, runtime first. A capability crate with GPU kernels exports its
/// checks and is listed here once.
pub fn registry() -> Vec<Check> {
    let mut checks = cuda::checks();
    checks.extend(sigpu_lns::gpu::checks());
    checks.extend(crate::lns::checks());
    checks.extend(sigpu_clns::gpu::checks());
    checks.extend(sigpu_recurrence::gpu::checks());
    checks.extend(sigpu_ldpc::gpu::checks());
    checks.extend(sigpu_approx::checks::checks());
    checks
}

/// The checks whose name contains `filter` (all of them for `None`).
pub fn matching(filter: Option<&str>) -> Vec<Check> {
    registry()
        .into_iter()
        .filter(|c| filter.is_none_or(|f| c.name.contains(f)))
        .collect()
}

/// The checks whose name contains `filter` and, with `krate`, that belong to that crate (the
/// part of the name before `/`).
pub fn matching_in(filter: Option<&str>, krate: Option<&str>) -> Vec<Check> {
    (matching(filter).into_iter())
        .filter(|c| krate.is_none_or(|k| c.name.split('/').next() == Some(k)))
        .collect()
}

/// A seed drawn from the clock, for a run without one (printed, so that it can be replayed).
pub fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// One check's outcome.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, Serialize)]
pub struct Outcome {
    /// The check's `crate/kernel` name.
    pub name: &'static str,
    /// What it compares, in a line.
    pub about: &'static str,
    /// The seed its inputs were drawn from: the run's seed mixed with the check's name, so the
    /// check replays alike run alone or with all.
    pub seed: u64,
    /// Whether the report came back within its tolerances (false on an error).
    pub passed: bool,
    /// Wall time of the check, in seconds.
    pub seconds: f64,
    /// What the check measured, when it ran to the end.
    pub report: Option<CheckReport>,
    /// Why it could not run to the end, when it did not.
    pub error: Option<String>,
}

/// The outcome of a run of several checks on one device.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// The GPU's name and architecture.
    pub device: String,
    /// The run's seed, from which every check's own is derived.
    pub seed: u64,
    /// Checks that passed.
    pub passed: usize,
    /// Checks that failed or could not run.
    pub failed: usize,
    /// Every check's outcome, in registry order.
    pub checks: Vec<Outcome>,
}

impl Summary {
    /// The outcomes as a text table, with the device, the seed and the tally.
    pub fn text(&self) -> String {
        let s = self;
        let rows: Vec<Vec<String>> = s
            .checks
            .iter()
            .map(|o| {
                let status = if o.passed { "pass" } else { "FAIL" }.to_owned();
                match (&o.report, &o.error) {
                    (Some(r), _) => vec![
                        o.name.into(),
                        status,
                        r.elements.to_string(),
                        r.mismatches.to_string(),
                        format!("{:.2e}", r.max_error),
                        r.note.clone(),
                    ],
                    (None, e) => vec![
                        o.name.into(),
                        status,
                        "-".into(),
                        "-".into(),
                        "-".into(),
                        e.clone().unwrap_or_default(),
                    ],
                }
            })
            .collect();
        let mut out = format!("device {}, seed {}\n", s.device, s.seed);
        out += &crate::table::render(
            &[
                "check",
                "result",
                "elements",
                "mismatches",
                "max error",
                "note",
            ],
            &rows,
        );
        out += &format!("{} of {} checks passed\n", s.passed, s.passed + s.failed);
        out
    }
}

/// Runs `checks` on `gpu`, each with its own seed derived from `seed`; `progress` is told the
/// name of each check before it runs. A check that errors counts as failed, with the error.
pub fn run_all(gpu: &Gpu, checks: &[Check], seed: u64, progress: &dyn Fn(&str)) -> Summary {
    let outcomes: Vec<Outcome> = checks
        .iter()
        .map(|c| {
            progress(c.name);
            let start = std::time::Instant::now();
            let check_seed = c.seed(seed);
            let (report, error) = match (c.run)(gpu, check_seed) {
                Ok(r) => (Some(r), None),
                Err(e) => (None, Some(e.to_string())),
            };
            Outcome {
                name: c.name,
                about: c.about,
                seed: check_seed,
                passed: report.as_ref().is_some_and(CheckReport::passed),
                seconds: start.elapsed().as_secs_f64(),
                report,
                error,
            }
        })
        .collect();
    let passed = outcomes.iter().filter(|o| o.passed).count();
    Summary {
        device: format!("{} ({})", gpu.info().name, gpu.arch()),
        seed,
        passed,
        failed: outcomes.len() - passed,
        checks: outcomes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_check_has_a_unique_prefixed_name() {
        let checks = registry();
        let mut names: Vec<_> = checks.iter().map(|c| c.name).collect();
        assert!(names.iter().all(|n| n.contains('/')), "{names:?}");
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(before, names.len(), "duplicate check names");
        assert_eq!(matching(Some("no such check")).len(), 0);
    }
}
