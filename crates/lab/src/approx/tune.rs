//! The tuning results of Li et al.'s SFU-approximation paper over the app suite: each app tuned,
//! the geometric-mean speedups per search (its Fig. 8–11) and the check of its efficiency claim,
//! HEU against OMG.

use serde::Serialize;
use sigpu_approx::apps::{self, App, APPS};
use sigpu_approx::search::Method;
use sigpu_approx::tune::{tune, AppReport, Partition};
use sigpu_approx::{ApproxError, Result};
use sigpu_runtime::cuda::Gpu;

/// What to tune: the apps (one, or the whole suite), the bound and how.
#[derive(Clone, Debug)]
pub struct SuiteRun {
    /// The apps to tune, in suite order.
    pub apps: Vec<&'static App>,
    /// The QoS ratio in (0, 1]: the error bound as a fraction of the all-SFU kernel's error.
    pub qos_ratio: f64,
    /// The search for one app; the whole suite runs all three on one measured curve.
    pub search: Method,
    /// Which warp index λ is compared with.
    pub partition: Partition,
    /// Measure every λ (the paper's Fig. 4) even for one app.
    pub curve: bool,
}

impl SuiteRun {
    /// `app` is a name or abbreviation of the suite, or `all`.
    pub fn new(app: &str, qos_ratio: f64, search: Method, partition: Partition) -> Result<Self> {
        sigpu_approx::search::check_ratio(qos_ratio)?;
        let apps = if app == "all" {
            APPS.iter().collect()
        } else {
            vec![apps::find(app)?]
        };
        Ok(SuiteRun {
            apps,
            qos_ratio,
            search,
            partition,
            curve: false,
        })
    }

    /// More than one app: every search on a full curve, and the suite's figures.
    pub fn is_suite(&self) -> bool {
        self.apps.len() > 1
    }

    fn methods(&self) -> Vec<Method> {
        if self.is_suite() {
            Method::ALL.to_vec()
        } else {
            vec![self.search]
        }
    }
}

/// The result of a run: every app's report and the suite's summary figures.
#[derive(Clone, Debug, Serialize)]
pub struct TuneSummary {
    /// The GPU's name and architecture.
    pub device: String,
    /// The QoS ratio the searches ran under.
    pub qos_ratio: f64,
    /// Which warp index λ was compared with.
    pub partition: Partition,
    /// One report per app, in suite order.
    pub apps: Vec<AppReport>,
    /// Geometric-mean speedup over the apps, per search (and for the all-SFU kernel).
    pub geomean_speedup: Vec<(String, f64)>,
    /// HEU against OMG per app (apps with both searches).
    pub heu_vs_omg: Vec<HeuVsOmg>,
    /// Apps where HEU is within one λ of OMG with ≤ 25% of its runs.
    pub heu_target_met: usize,
    /// The same against the largest λ meeting the bound.
    pub heu_target_met_vs_largest_feasible: usize,
    /// Apps where HEU agrees with OMG at equal confidence (within one λ or the same speed by
    /// repeated timings) with ≤ 25% of OMG's runs.
    pub heu_target_met_at_confidence: usize,
}

impl TuneSummary {
    /// The text `sigpu approx tune` prints: the run, the [`table`](Self::table), the
    /// geometric means and, for the whole suite (`suite`), HEU against OMG.
    pub fn text(&self, suite: bool) -> String {
        let mut out = format!(
            "{}: QoS ratio {} ({:?} warp index); speedup = T(λ=0)/T(λ), error = app metric vs \
             accurate\n",
            self.device, self.qos_ratio, self.partition
        );
        let (head, rows) = self.table();
        out += &crate::table::render(&head, &rows);
        for (m, g) in &self.geomean_speedup {
            out += &format!("geometric-mean speedup {m}: {g:.3}\n");
        }
        if suite {
            out += &format!(
                "HEU within one λ of OMG using ≤ 25% of its runs: {} of {} apps ({} of {} \
                 against the largest λ meeting the bound)\n",
                self.heu_target_met,
                self.heu_vs_omg.len(),
                self.heu_target_met_vs_largest_feasible,
                self.heu_vs_omg.len()
            );
            out += &format!(
                "HEU agrees with OMG at equal confidence using ≤ 25% of its runs: {} of {} apps\n",
                self.heu_target_met_at_confidence,
                self.heu_vs_omg.len()
            );
        }
        out
    }

    /// The table `sigpu approx tune` prints: one row per app and search.
    pub fn table(&self) -> (Vec<&'static str>, Vec<Vec<String>>) {
        let mut rows = Vec::new();
        for r in &self.apps {
            for o in &r.searches {
                rows.push(vec![
                    r.abbr.into(),
                    o.method.to_string(),
                    format!("{}/{}", o.lambda, r.max_lambda),
                    format!("{:.3}", o.speedup),
                    format!("{:.2e}", o.error),
                    format!("{:.2e}", o.bound),
                    o.runs.to_string(),
                    format!("{:.3}", r.sfu_speedup),
                    format!("{:.2e}", r.sfu_error),
                    format!("{:.3}", r.original_ms),
                ]);
            }
        }
        let head = vec![
            "app",
            "search",
            "λ/max",
            "speedup",
            "error",
            "bound",
            "runs",
            "SFU speedup",
            "SFU error",
            "orig ms",
        ];
        (head, rows)
    }
}

/// Tunes every app of `run` on `gpu`; `progress` gets a line per step.
pub fn run(gpu: &Gpu, run: &SuiteRun, progress: &dyn Fn(&str)) -> Result<TuneSummary> {
    let methods = run.methods();
    let full_curve = run.is_suite() || run.curve;
    let reports = run
        .apps
        .iter()
        .map(|app| {
            let r = run.qos_ratio;
            tune(gpu, app, r, &methods, run.partition, full_curve, progress)
        })
        .collect::<Result<Vec<_>, ApproxError>>()?;
    let mut geo = vec![(
        "sfu".to_string(),
        geomean(reports.iter().map(|r| r.sfu_speedup)),
    )];
    for m in &methods {
        let speedups = reports.iter().filter_map(|r| {
            r.searches
                .iter()
                .find(|o| o.method == *m)
                .map(|o| o.speedup)
        });
        geo.push((m.to_string(), geomean(speedups)));
    }
    let cmp: Vec<HeuVsOmg> = reports.iter().filter_map(heu_vs_omg).collect();
    Ok(TuneSummary {
        device: format!("{} ({})", gpu.info().name, gpu.arch()),
        qos_ratio: run.qos_ratio,
        partition: run.partition,
        heu_target_met: cmp.iter().filter(|c| c.meets_target).count(),
        heu_target_met_vs_largest_feasible: cmp
            .iter()
            .filter(|c| c.meets_target_vs_largest_feasible)
            .count(),
        heu_target_met_at_confidence: cmp
            .iter()
            .filter(|c| c.meets_target_at_confidence == Some(true))
            .count(),
        apps: reports,
        geomean_speedup: geo,
        heu_vs_omg: cmp,
    })
}

/// Geometric mean of positive values (NaN for none).
pub fn geomean(xs: impl IntoIterator<Item = f64>) -> f64 {
    let (sum, n) = xs
        .into_iter()
        .fold((0.0, 0usize), |(s, n), x| (s + x.ln(), n + 1));
    if n == 0 {
        f64::NAN
    } else {
        (sum / n as f64).exp()
    }
}

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
        meets_target_at_confidence: r.confident.map(|c| c.agree && heu.runs * 4 <= omg.runs),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geomean_of_values() {
        assert!((geomean([1.0, 4.0]) - 2.0).abs() < 1e-12);
        assert!(geomean([]).is_nan());
    }

    #[test]
    fn one_app_or_the_suite() {
        let one = SuiteRun::new("NBO", 0.8, Method::Heu, Partition::Slot).unwrap();
        assert_eq!((one.apps.len(), one.methods()), (1, vec![Method::Heu]));
        let all = SuiteRun::new("all", 0.8, Method::Heu, Partition::Block).unwrap();
        assert!(all.is_suite() && all.methods() == Method::ALL);
        let bad = SuiteRun::new("nbody", 1.5, Method::Heu, Partition::Slot).unwrap_err();
        assert!(bad.to_string().contains("(0, 1]"), "{bad}");
    }
}
