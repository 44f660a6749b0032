//! HEU against OMG over the app suite: per app, whether the heuristic search found OMG's λ
//! (within one, or the same speed at equal confidence) and with how many of OMG's runs, and
//! the suite's count against the target "HEU within one λ of OMG at equal confidence on
//! ≥ 80% of the applications, with ≤ 25% of OMG's runs".

use serde::Serialize;
use sigpu_approx::search::Method;
use sigpu_approx::tune::AppReport;

/// HEU's choice against OMG's for one app: the paper's efficiency claim, made checkable.
#[derive(Clone, Debug, Serialize)]
pub struct HeuVsOmg {
    /// The app's name.
    pub app: &'static str,
    /// HEU's λ.
    pub heu_lambda: u32,
    /// OMG's λ.
    pub omg_lambda: u32,
    /// The largest λ meeting the bound (OMG's choice when T falls monotonically).
    pub largest_feasible: u32,
    /// Points HEU measured.
    pub heu_runs: usize,
    /// Points OMG measured.
    pub omg_runs: usize,
    /// |HEU − OMG| ≤ 1 and HEU's runs ≤ 25% of OMG's.
    pub meets_target: bool,
    /// |HEU − largest feasible λ| ≤ 1 and HEU's runs ≤ 25% of OMG's: the target when T is
    /// taken to fall with λ, as the paper does, rather than read from noisy timings.
    pub meets_target_vs_largest_feasible: bool,
    /// OMG's λ settled by repeated timings (ties to the larger λ), when measured.
    pub omg_lambda_at_confidence: Option<u32>,
    /// HEU's λ within one of that OMG's, or the same speed at confidence.
    pub agree_at_confidence: Option<bool>,
    /// HEU agrees with that OMG (within one λ, or the same speed at confidence) and used ≤ 25%
    /// of OMG's runs.
    pub meets_target_at_confidence: Option<bool>,
}

/// The comparison for a report holding both searches.
pub fn heu_vs_omg(r: &AppReport) -> Option<HeuVsOmg> {
    let get = |m| r.searches.iter().find(|o| o.method == m);
    let (heu, omg) = (get(Method::Heu)?, get(Method::Omg)?);
    let largest_feasible = omg
        .trace
        .iter()
        .filter(|p| p.error <= omg.bound)
        .map(|p| p.lambda)
        .max()
        .unwrap_or(0);
    Some(HeuVsOmg {
        app: r.app,
        heu_lambda: heu.lambda,
        omg_lambda: omg.lambda,
        largest_feasible,
        heu_runs: heu.runs,
        omg_runs: omg.runs,
        meets_target: heu.lambda.abs_diff(omg.lambda) <= 1 && heu.runs * 4 <= omg.runs,
        meets_target_vs_largest_feasible: heu.lambda.abs_diff(largest_feasible) <= 1
            && heu.runs * 4 <= omg.runs,
        omg_lambda_at_confidence: r.confident.map(|c| c.omg),
        agree_at_confidence: r.confident.map(|c| c.agree),
        meets_target_at_confidence: r.confident.map(|c| c.agree && heu.runs * 4 <= omg.runs),
    })
}

/// The share of the apps that must meet both conditions.
pub const TARGET_SHARE: f64 = 0.8;

/// The fewest points HEU can measure under a bound below the all-SFU error: λ = 0, λ_max and
/// one point of the line between them.
pub const HEU_LEAST_RUNS: usize = 3;

/// The suite's figures for the target, each condition counted on its own and both together.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SearchTarget {
    /// Apps where both searches ran.
    pub apps: usize,
    /// Apps where HEU agrees with OMG at equal confidence: λs within one, or the same speed by
    /// repeated timings.
    pub agree_at_confidence: usize,
    /// `agree_at_confidence / apps`.
    pub agree_share: f64,
    /// Apps where HEU measured ≤ 25% of the points OMG measured.
    pub runs_within_quarter: usize,
    /// HEU's runs over OMG's, the median over the apps.
    pub heu_runs_share_median: f64,
    /// HEU's runs over OMG's, the largest over the apps.
    pub heu_runs_share_max: f64,
    /// Apps where a quarter of OMG's runs is at least [`HEU_LEAST_RUNS`]: the only ones where
    /// the runs condition can hold (OMG measures λ_max + 1 points).
    pub runs_condition_reachable: usize,
    /// Apps meeting both conditions.
    pub both: usize,
    /// `both / apps`.
    pub both_share: f64,
    /// `both_share ≥ 0.8`.
    pub met: bool,
}

impl SearchTarget {
    /// The figures over `cmp` (apps without a confidence verdict do not agree).
    pub fn of(cmp: &[HeuVsOmg]) -> SearchTarget {
        let apps = cmp.len();
        let share = |k: usize| {
            if apps == 0 {
                f64::NAN
            } else {
                k as f64 / apps as f64
            }
        };
        let agree = cmp
            .iter()
            .filter(|c| c.agree_at_confidence == Some(true))
            .count();
        let quarter = cmp.iter().filter(|c| c.heu_runs * 4 <= c.omg_runs).count();
        let reachable = cmp
            .iter()
            .filter(|c| HEU_LEAST_RUNS * 4 <= c.omg_runs)
            .count();
        let both = cmp
            .iter()
            .filter(|c| c.meets_target_at_confidence == Some(true))
            .count();
        let mut shares: Vec<f64> = cmp
            .iter()
            .map(|c| c.heu_runs as f64 / c.omg_runs.max(1) as f64)
            .collect();
        shares.sort_by(f64::total_cmp);
        let median = match shares.len() {
            0 => f64::NAN,
            n if n % 2 == 1 => shares[n / 2],
            n => 0.5 * (shares[n / 2 - 1] + shares[n / 2]),
        };
        SearchTarget {
            apps,
            agree_at_confidence: agree,
            agree_share: share(agree),
            runs_within_quarter: quarter,
            heu_runs_share_median: median,
            heu_runs_share_max: shares.last().copied().unwrap_or(f64::NAN),
            runs_condition_reachable: reachable,
            both,
            both_share: share(both),
            met: apps > 0 && share(both) >= TARGET_SHARE,
        }
    }

    /// The summary's lines: each condition, both together, and the verdict.
    pub fn text(&self) -> String {
        let pct = |x: f64| format!("{:.0}%", 100.0 * x);
        let n = self.apps;
        format!(
            "HEU within one λ of OMG at equal confidence: {} of {n} apps ({})\n\
             HEU runs ≤ 25% of OMG's: {} of {n} apps (HEU/OMG runs: median {}, most {}; \
             reachable on {} of {n}, where OMG measures ≥ {} points)\n\
             both (target ≥ {} of the apps): {} of {n} ({}): {}\n",
            self.agree_at_confidence,
            pct(self.agree_share),
            self.runs_within_quarter,
            pct(self.heu_runs_share_median),
            pct(self.heu_runs_share_max),
            self.runs_condition_reachable,
            HEU_LEAST_RUNS * 4,
            pct(TARGET_SHARE),
            self.both,
            pct(self.both_share),
            if self.met { "met" } else { "not met" },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmp(heu_runs: usize, omg_runs: usize, agree: Option<bool>) -> HeuVsOmg {
        HeuVsOmg {
            app: "x",
            heu_lambda: 5,
            omg_lambda: 9,
            largest_feasible: 9,
            heu_runs,
            omg_runs,
            meets_target: false,
            meets_target_vs_largest_feasible: false,
            omg_lambda_at_confidence: agree.map(|_| 9),
            agree_at_confidence: agree,
            meets_target_at_confidence: agree.map(|a| a && heu_runs * 4 <= omg_runs),
        }
    }

    #[test]
    fn each_condition_is_counted_and_the_target_needs_both_on_four_fifths() {
        // 5 apps: 4 agree, 4 within a quarter of the runs, 3 both; one has 9 λ points, where
        // the runs condition cannot hold.
        let apps = [
            cmp(5, 65, Some(true)),
            cmp(10, 65, Some(true)),
            cmp(6, 9, Some(true)),
            cmp(3, 49, Some(false)),
            cmp(16, 65, Some(true)),
        ];
        let t = SearchTarget::of(&apps);
        assert_eq!(
            (t.apps, t.agree_at_confidence, t.runs_within_quarter),
            (5, 4, 4)
        );
        assert_eq!((t.both, t.runs_condition_reachable), (3, 4));
        assert!((t.agree_share - 0.8).abs() < 1e-12 && (t.both_share - 0.6).abs() < 1e-12);
        assert!(!t.met);
        assert!((t.heu_runs_share_max - 6.0 / 9.0).abs() < 1e-12);
        assert!((t.heu_runs_share_median - 10.0 / 65.0).abs() < 1e-12);
        let text = t.text();
        assert!(
            text.contains("at equal confidence: 4 of 5 apps (80%)"),
            "{text}"
        );
        assert!(
            text.contains("HEU runs ≤ 25% of OMG's: 4 of 5 apps"),
            "{text}"
        );
        assert!(text.contains("3 of 5 (60%): not met"), "{text}");
        // Four of five meeting both is the target; an app without a confidence verdict does
        // not agree.
        let t = SearchTarget::of(&[
            apps[0].clone(),
            apps[1].clone(),
            apps[4].clone(),
            apps[0].clone(),
            cmp(4, 65, None),
        ]);
        assert_eq!((t.both, t.agree_at_confidence), (4, 4));
        assert!(t.met, "{t:?}");
        assert!(!SearchTarget::of(&[]).met);
    }
}
