//! The search over one part's candidates: each timed on every case of the part with the
//! device's policies set to it, its output compared with the default's, the fastest that keeps
//! the results chosen.

use super::candidates::Candidate;
use serde::Serialize;
use sigpu_runtime::cuda::tuning::Tuning;
use sigpu_runtime::cuda::Gpu;

/// How a candidate's output compares with the default's.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Outcome {
    /// Bit for bit the default's output.
    Identical,
    /// Not the default's bits (a float kernel blocked differently rounds differently), but
    /// within the bound its self-check holds it to against the reference.
    WithinContract {
        /// The error against the reference.
        error: f64,
        /// The bound.
        bound: f64,
    },
    /// The output differs where it must not, or beyond the bound: never chosen.
    Differs {
        /// What differed.
        reason: String,
    },
    /// The shape does not fit the kernel on this device (threads, registers, shared memory),
    /// or the kernel it gives is not the one the case measures: not run.
    Refused {
        /// Why.
        reason: String,
    },
}

impl Outcome {
    /// Whether a candidate with this outcome may be chosen.
    pub fn keeps_results(&self) -> bool {
        matches!(self, Outcome::Identical | Outcome::WithinContract { .. })
    }
}

/// One case a part is timed on (a filter, a method and word type, a format).
pub trait Case {
    /// The case's name in reports.
    fn name(&self) -> String;

    /// Builds what the case runs with the device's current policies, runs it once to compare
    /// its output with the default's (the first call's, kept by the case), then times it:
    /// `warmup` untimed runs, the median of `runs`. `None` for the time when the outcome is a
    /// refusal.
    fn measure(
        &mut self,
        gpu: &Gpu,
        warmup: usize,
        runs: usize,
    ) -> anyhow::Result<(Option<f64>, Outcome)>;
}

/// One candidate of a part, as measured.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// The candidate's label.
    pub candidate: String,
    /// Its policy for the family, as the cache would store it.
    pub policy: serde_json::Value,
    /// The median time on each case, ms (`None`: not run).
    pub median_ms: Vec<Option<f64>>,
    /// The geometric mean over the cases of its time over the default's (below 1: faster).
    pub time_ratio: f64,
    /// Each case's outcome.
    pub outcomes: Vec<Outcome>,
}

/// A part's search: its cases, every candidate's row, and the one chosen.
#[derive(Clone, Debug, Serialize)]
pub struct PartReport {
    /// The part's name.
    pub part: String,
    /// The cases, in the order of each row's times.
    pub cases: Vec<String>,
    /// Every candidate, the default first.
    pub rows: Vec<Row>,
    /// The index of the chosen row.
    pub chosen: usize,
}

/// A candidate must beat the default by this factor of its time to be chosen: differences
/// below it are within the run-to-run spread of event-timed medians.
pub const MIN_GAIN: f64 = 0.99;

/// Runs every candidate on every case, with `base`'s tuning in all but the policies; the
/// device's tuning is put back before returning, errors included.
pub fn search_part(
    gpu: &Gpu,
    base: &Tuning,
    (part, family): (&str, sigpu_runtime::cuda::tuning::Family),
    candidates: &[Candidate],
    cases: &mut [Box<dyn Case>],
    (warmup, runs): (usize, usize),
    progress: &mut dyn FnMut(&str),
) -> anyhow::Result<PartReport> {
    struct Restore<'a>(&'a Gpu, Tuning);
    impl Drop for Restore<'_> {
        fn drop(&mut self) {
            self.0.set_tuning(self.1.clone());
        }
    }
    let _restore = Restore(gpu, (*gpu.tuning()).clone());
    let mut rows: Vec<Row> = Vec::new();
    for (i, c) in candidates.iter().enumerate() {
        gpu.set_tuning(Tuning {
            policies: c.policies,
            sources: Vec::new(),
            warnings: Vec::new(),
            ..base.clone()
        });
        let (mut times, mut outcomes) = (Vec::new(), Vec::new());
        for case in cases.iter_mut() {
            progress(&format!(
                "{part}: {}/{} {} on {}",
                i + 1,
                candidates.len(),
                c.label,
                case.name()
            ));
            // A candidate the kernel cannot be built or launched with (registers, shared
            // memory the driver refuses) is refused; the default must run.
            let (t, o) = match case.measure(gpu, warmup, runs) {
                Ok(m) => m,
                Err(e) if i > 0 => (
                    None,
                    Outcome::Refused {
                        reason: format!("{e:#}"),
                    },
                ),
                Err(e) => return Err(e.context(format!("{part}: the default shape"))),
            };
            times.push(t);
            outcomes.push(o);
        }
        let time_ratio = match rows.first() {
            None => 1.0,
            Some(default) => ratio(&times, &default.median_ms),
        };
        rows.push(Row {
            candidate: c.label.clone(),
            policy: c.policies.get_json(family),
            median_ms: times,
            time_ratio,
            outcomes,
        });
    }
    Ok(PartReport {
        part: part.into(),
        cases: cases.iter().map(|c| c.name()).collect(),
        chosen: choose(&rows),
        rows,
    })
}

/// The geometric mean of `times[i] / default[i]` (infinite when a time is missing).
fn ratio(times: &[Option<f64>], default: &[Option<f64>]) -> f64 {
    let logs: Option<Vec<f64>> = (times.iter().zip(default))
        .map(|(t, d)| Some((t.as_ref()? / d.as_ref()?).ln()))
        .collect();
    match logs {
        Some(l) if !l.is_empty() => (l.iter().sum::<f64>() / l.len() as f64).exp(),
        _ => f64::INFINITY,
    }
}

/// The fastest row that keeps every case's results and beats the default (row 0) by
/// [`MIN_GAIN`]; else the default.
pub fn choose(rows: &[Row]) -> usize {
    let best = (rows.iter().enumerate().skip(1))
        .filter(|(_, r)| r.outcomes.iter().all(Outcome::keeps_results))
        .filter(|(_, r)| r.time_ratio.is_finite())
        .min_by(|a, b| a.1.time_ratio.total_cmp(&b.1.time_ratio));
    match best {
        Some((i, r)) if r.time_ratio < MIN_GAIN => i,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(ratio: f64, outcomes: Vec<Outcome>) -> Row {
        Row {
            candidate: format!("{ratio}"),
            policy: serde_json::Value::Null,
            median_ms: vec![Some(ratio)],
            time_ratio: ratio,
            outcomes,
        }
    }

    #[test]
    fn the_fastest_candidate_that_keeps_the_results_wins_by_a_margin() {
        let ok = || vec![Outcome::Identical];
        let differs = || vec![Outcome::Differs { reason: "x".into() }];
        let within = || {
            vec![Outcome::WithinContract {
                error: 1e-7,
                bound: 1e-5,
            }]
        };
        // A faster candidate whose words differ is never chosen.
        let rows = [row(1.0, ok()), row(0.5, differs()), row(0.9, within())];
        assert_eq!(choose(&rows), 2);
        // Within the margin: the default stays.
        let rows = [row(1.0, ok()), row(0.995, ok())];
        assert_eq!(choose(&rows), 0);
        // A refused case or a missing time rules a candidate out.
        let refused = vec![Outcome::Refused {
            reason: "no".into(),
        }];
        let rows = [row(1.0, ok()), row(0.8, refused), row(f64::INFINITY, ok())];
        assert_eq!(choose(&rows), 0);
        assert_eq!(choose(&[row(1.0, ok())]), 0);
    }

    #[test]
    fn time_ratios_are_geometric_means_over_the_cases() {
        let r = ratio(&[Some(1.0), Some(4.0)], &[Some(2.0), Some(2.0)]);
        assert!((r - 1.0).abs() < 1e-12, "{r}");
        assert_eq!(
            ratio(&[None, Some(1.0)], &[Some(1.0), Some(1.0)]),
            f64::INFINITY
        );
    }
}
