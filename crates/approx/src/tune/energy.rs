//! Energy of an app's λ kernel: the accurate end (λ = 0), the all-SFU end (λ_max) and each
//! search's pick, from NVML's counter around a fixed stretch of back-to-back runs
//! ([`crate::energy::measure`]).
//!
//! A λ that several searches chose is measured once: the figures of one app then differ only
//! where the λs differ, not by the counter's noise between two stretches of the same kernel.

use crate::energy::Energy;
use crate::search::{Method, Outcome};
use serde::Serialize;
use std::collections::BTreeMap;

/// One search's pick and its energy against the accurate kernel.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ChosenEnergy {
    /// The search.
    pub method: Method,
    /// The λ it chose.
    pub lambda: u32,
    /// Joules per run and average watts of the λ kernel at that λ.
    pub energy: Energy,
    /// 1 − E(λ)/E(0), joules per run: the share of the accurate kernel's energy saved
    /// (negative when the pick costs more).
    pub saving: f64,
}

/// An app's energy figures.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AppEnergy {
    /// The λ kernel at λ = 0: every warp on the accurate functions.
    pub accurate: Energy,
    /// The λ kernel at λ_max: every warp on the SFU (no error bound).
    pub all_sfu: Energy,
    /// 1 − E(λ_max)/E(0).
    pub all_sfu_saving: f64,
    /// Each search's pick, in the order of the searches.
    pub chosen: Vec<ChosenEnergy>,
}

impl AppEnergy {
    /// The energy of λ = 0, of `max` and of each search's λ, asking `measure` once per
    /// distinct λ. `measure` gets the λ and the time of one run there (ms), which sizes its
    /// batches.
    pub fn measure<E>(
        searches: &[Outcome],
        (max, t0, t_max): (u32, f64, f64),
        mut measure: impl FnMut(u32, f64) -> Result<Energy, E>,
    ) -> Result<AppEnergy, E> {
        let mut seen: BTreeMap<u32, Energy> = BTreeMap::new();
        let mut at = |lambda: u32, run_ms: f64| -> Result<Energy, E> {
            if let Some(e) = seen.get(&lambda) {
                return Ok(*e);
            }
            let e = measure(lambda, run_ms)?;
            seen.insert(lambda, e);
            Ok(e)
        };
        let accurate = at(0, t0)?;
        let all_sfu = at(max, t_max)?;
        let mut chosen = Vec::with_capacity(searches.len());
        for o in searches {
            let energy = at(o.lambda, o.time)?;
            chosen.push(ChosenEnergy {
                method: o.method,
                lambda: o.lambda,
                energy,
                saving: saving(&accurate, &energy),
            });
        }
        Ok(AppEnergy {
            accurate,
            all_sfu,
            all_sfu_saving: saving(&accurate, &all_sfu),
            chosen,
        })
    }

    /// The pick of search `m`, when it ran.
    pub fn of(&self, m: Method) -> Option<&ChosenEnergy> {
        self.chosen.iter().find(|c| c.method == m)
    }
}

/// 1 − joules per run of `chosen` / those of `accurate` (NaN when the accurate figure is not
/// a positive number: a counter that did not move).
pub fn saving(accurate: &Energy, chosen: &Energy) -> f64 {
    if accurate.joules_per_run > 0.0 && accurate.joules_per_run.is_finite() {
        1.0 - chosen.joules_per_run / accurate.joules_per_run
    } else {
        f64::NAN
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::Point;
    use std::convert::Infallible;

    fn outcome(method: Method, lambda: u32, time: f64) -> Outcome {
        Outcome {
            method,
            lambda,
            time,
            error: 0.0,
            bound: 1.0,
            speedup: 1.0,
            runs: 1,
            max_lambda: 8,
            trace: vec![Point {
                lambda,
                time,
                error: 0.0,
            }],
        }
    }

    fn energy(joules_per_run: f64) -> Energy {
        Energy {
            joules_per_run,
            watts: 400.0,
            runs: 100,
            seconds: 0.25,
        }
    }

    #[test]
    fn each_distinct_lambda_is_measured_once_and_savings_follow_joules_per_run() {
        // SMP and HEU chose λ = 5, OMG λ = 8 = λ_max: three distinct λs (0, 8, 5).
        let searches = [
            outcome(Method::Smp, 5, 0.8),
            outcome(Method::Heu, 5, 0.8),
            outcome(Method::Omg, 8, 0.6),
        ];
        let mut asked = Vec::new();
        let e = AppEnergy::measure(&searches, (8, 1.0, 0.6), |l, ms| {
            asked.push((l, ms));
            // Energy falls with λ: 10 mJ accurate, 1 mJ less per λ.
            Ok::<_, Infallible>(energy(0.010 - 0.001 * l as f64))
        })
        .unwrap();
        assert_eq!(asked, [(0, 1.0), (8, 0.6), (5, 0.8)]);
        assert_eq!(e.accurate.joules_per_run, 0.010);
        assert!((e.all_sfu_saving - 0.8).abs() < 1e-12);
        assert!((e.of(Method::Heu).unwrap().saving - 0.5).abs() < 1e-12);
        assert_eq!(e.of(Method::Omg).unwrap().energy, e.all_sfu);
        assert_eq!(e.chosen.len(), 3);
    }

    #[test]
    fn a_pick_of_zero_saves_nothing_and_a_dead_counter_gives_nan() {
        let searches = [outcome(Method::Heu, 0, 1.0)];
        let mut calls = 0;
        let e = AppEnergy::measure(&searches, (4, 1.0, 0.5), |l, _| {
            calls += 1;
            Ok::<_, Infallible>(energy(if l == 0 { 0.02 } else { 0.03 }))
        })
        .unwrap();
        assert_eq!(
            calls, 2,
            "λ = 0 is measured once for the accurate end and HEU"
        );
        assert_eq!(e.of(Method::Heu).unwrap().saving, 0.0);
        assert!(
            (e.all_sfu_saving + 0.5).abs() < 1e-12,
            "costs more: negative"
        );
        assert!(saving(&energy(0.0), &energy(0.01)).is_nan());
        // A failing measurement is passed on.
        let err = AppEnergy::measure(&searches, (4, 1.0, 0.5), |_, _| Err("no counter"));
        assert_eq!(err.unwrap_err(), "no counter");
    }
}
