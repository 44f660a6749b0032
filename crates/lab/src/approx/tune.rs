//! The tuning results of Li et al.'s SFU-approximation paper over the app suite: each app tuned,
//! the geometric-mean speedups per search (its Fig. 8–11), the energy of each pick against the
//! accurate kernel and the check of its efficiency claim, HEU against OMG ([`super::heu_target`]).

use super::heu_target::{heu_vs_omg, HeuVsOmg, SearchTarget};
use serde::Serialize;
use sigpu_approx::apps::{self, App, APPS};
use sigpu_approx::energy::Energy;
use sigpu_approx::noise::Verdict;
use sigpu_approx::search::Method;
use sigpu_approx::tune::{tune, AppReport, Partition, TuneOptions};
use sigpu_approx::{ApproxError, Result};
use sigpu_runtime::cuda::Gpu;
use std::time::Instant;

/// Seconds of back-to-back runs per energy figure unless asked otherwise.
pub const ENERGY_SECONDS: f64 = 0.25;

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
    /// Seconds of back-to-back runs per energy figure (NVML); 0 for none.
    pub energy_seconds: f64,
    /// Also the per-call-site search on apps whose kernel mixes functions, against the best
    /// single λ.
    pub per_site: bool,
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
            energy_seconds: ENERGY_SECONDS,
            per_site: false,
        })
    }

    /// Sets the seconds per energy figure: a finite number in [0, 60] (0: no energy).
    pub fn with_energy_seconds(mut self, seconds: f64) -> Result<Self> {
        if !(seconds.is_finite() && (0.0..=60.0).contains(&seconds)) {
            return Err(ApproxError::User(format!(
                "energy seconds must be a number in [0, 60] (0: no energy); got {seconds}"
            )));
        }
        self.energy_seconds = seconds;
        Ok(self)
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
    /// Where the energy figures come from (NVML's counter and the seconds per figure), or
    /// why there are none.
    pub energy: String,
    /// Geometric mean over the apps of joules per run at each search's pick (and at λ_max)
    /// over those at λ = 0: below 1 saves energy (empty without energy figures).
    pub geomean_energy_ratio: Vec<(String, f64)>,
    /// Wall-clock seconds of the whole run.
    pub seconds: f64,
    /// Apps where the per-call-site search ran (kernels that mix functions, with
    /// `per_site`).
    pub per_site_apps: usize,
    /// Of those, apps where the per-site setting is faster than the best single λ at
    /// confidence, both within the bound.
    pub per_site_beats_single: usize,
    /// HEU against OMG per app (apps with both searches).
    pub heu_vs_omg: Vec<HeuVsOmg>,
    /// The target's figures: HEU within one λ of OMG at equal confidence, with ≤ 25% of
    /// OMG's runs, each counted and both together.
    pub search_target: SearchTarget,
    /// Apps where HEU is within one λ of OMG (single-curve pick) with ≤ 25% of its runs.
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
             accurate; energy: {}\n",
            self.device, self.qos_ratio, self.partition, self.energy
        );
        let (head, rows) = self.table();
        out += &crate::table::render(&head, &rows);
        for (m, g) in &self.geomean_speedup {
            out += &format!("geometric-mean speedup {m}: {g:.3}\n");
        }
        for (m, g) in &self.geomean_energy_ratio {
            out += &format!(
                "geometric-mean energy per run {m}: {g:.3} of the accurate kernel's (saving \
                 {:.1}%)\n",
                100.0 * (1.0 - g)
            );
        }
        out += &self.per_site_text();
        if suite {
            out += &self.search_target.text();
            out += &format!(
                "HEU within one λ of OMG using ≤ 25% of its runs: {} of {} apps ({} of {} \
                 against the largest λ meeting the bound)\n",
                self.heu_target_met,
                self.heu_vs_omg.len(),
                self.heu_target_met_vs_largest_feasible,
                self.heu_vs_omg.len()
            );
            out += &format!("{:.0} s in all\n", self.seconds);
        }
        out
    }

    /// One line per app with a per-call-site search and the count of those that beat the
    /// best single λ (nothing when none ran).
    pub fn per_site_text(&self) -> String {
        let mut out = String::new();
        for r in &self.apps {
            let Some(p) = &r.per_site else { continue };
            let c = &p.comparison;
            out += &format!(
                "per-call-site {}: {} — {:.4} ms, error {:.2e} ≤ {:.2e}, {} settings; best single \
                 λ = {}: {:.4} ms; {}\n",
                r.abbr,
                p.setting,
                c.a.mean,
                p.error,
                p.bound,
                p.runs,
                p.single_lambda,
                c.b.mean,
                match c.verdict {
                    Verdict::Faster => "per-site faster at confidence",
                    Verdict::Slower => "single λ faster at confidence",
                    Verdict::Equal => "the same speed at confidence",
                }
            );
        }
        if self.per_site_apps > 0 {
            out += &format!(
                "per-call-site tuning beats the best single λ on {} of {} apps that mix \
                 functions\n",
                self.per_site_beats_single, self.per_site_apps
            );
        }
        out
    }

    /// The table `sigpu approx tune` prints: one row per app and search.
    pub fn table(&self) -> (Vec<&'static str>, Vec<Vec<String>>) {
        let mut rows = Vec::new();
        for r in &self.apps {
            for o in &r.searches {
                let acc = r.energy.as_ref().map(|e| e.accurate);
                let chosen = r.energy.as_ref().and_then(|e| e.of(o.method));
                let (acc_j, acc_w) = energy_cells(acc.as_ref());
                let (j, w) = energy_cells(chosen.map(|c| &c.energy));
                let saving = chosen.map_or("n/a".into(), |c| format!("{:.1}%", 100.0 * c.saving));
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
                    acc_j,
                    acc_w,
                    j,
                    w,
                    saving,
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
            "acc mJ/run",
            "acc W",
            "mJ/run",
            "W",
            "energy saving",
        ];
        (head, rows)
    }
}

/// Millijoules per run and watts, `n/a` without a figure.
fn energy_cells(e: Option<&Energy>) -> (String, String) {
    match e {
        Some(e) => (
            format!("{:.2}", e.joules_per_run * 1e3),
            format!("{:.0}", e.watts),
        ),
        None => ("n/a".into(), "n/a".into()),
    }
}

/// Tunes every app of `run` on `gpu`; `progress` gets a line per step.
pub fn run(gpu: &Gpu, run: &SuiteRun, progress: &dyn Fn(&str)) -> Result<TuneSummary> {
    let started = Instant::now();
    let methods = run.methods();
    let counter = if run.energy_seconds > 0.0 {
        sigpu_approx::energy::counter(gpu)
    } else {
        Err("not measured (energy seconds 0)".to_owned())
    };
    let energy = match &counter {
        Ok(c) => format!(
            "NVML energy counter of {}, {} s of back-to-back runs per figure",
            c.name(),
            run.energy_seconds
        ),
        Err(why) => format!("n/a: {why}"),
    };
    let opts = TuneOptions {
        ratio: run.qos_ratio,
        methods: &methods,
        partition: run.partition,
        full_curve: run.is_suite() || run.curve,
        energy: counter.as_ref().ok().map(|c| (c, run.energy_seconds)),
        per_site: run.per_site,
    };
    let reports = run
        .apps
        .iter()
        .map(|app| tune(gpu, app, &opts, progress))
        .collect::<Result<Vec<_>, ApproxError>>()?;
    let device = format!("{} ({})", gpu.info().name, gpu.arch());
    let mut summary = summarize(device, run, reports, energy);
    summary.seconds = started.elapsed().as_secs_f64();
    Ok(summary)
}

/// The summary of the apps' reports (`energy`: where the energy figures come from, or why
/// there are none); its `seconds` are left 0 for the caller to set.
pub fn summarize(
    device: String,
    run: &SuiteRun,
    reports: Vec<AppReport>,
    energy: String,
) -> TuneSummary {
    let methods = run.methods();
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
    TuneSummary {
        device,
        qos_ratio: run.qos_ratio,
        partition: run.partition,
        energy,
        geomean_energy_ratio: energy_ratios(&reports, &methods),
        seconds: 0.0,
        per_site_apps: reports.iter().filter(|r| r.per_site.is_some()).count(),
        per_site_beats_single: (reports.iter())
            .filter(|r| r.per_site.as_ref().is_some_and(|p| p.beats_single))
            .count(),
        search_target: SearchTarget::of(&cmp),
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
    }
}

/// Geometric means over the apps of E(λ)/E(0) (joules per run) at λ_max and at each search's
/// pick; empty when no app has energy figures.
pub fn energy_ratios(reports: &[AppReport], methods: &[Method]) -> Vec<(String, f64)> {
    let energies: Vec<_> = reports.iter().filter_map(|r| r.energy.as_ref()).collect();
    if energies.is_empty() {
        return Vec::new();
    }
    let mut out = vec![(
        "sfu".to_string(),
        geomean(energies.iter().map(|e| 1.0 - e.all_sfu_saving)),
    )];
    for &m in methods {
        let ratios = energies
            .iter()
            .filter_map(|e| e.of(m).map(|c| 1.0 - c.saving));
        out.push((m.to_string(), geomean(ratios)));
    }
    out
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

    #[test]
    fn energy_seconds_are_a_bounded_number() {
        let run = || SuiteRun::new("NBO", 0.8, Method::Heu, Partition::Slot).unwrap();
        assert_eq!(run().energy_seconds, ENERGY_SECONDS);
        assert_eq!(run().with_energy_seconds(0.0).unwrap().energy_seconds, 0.0);
        for bad in [f64::NAN, f64::INFINITY, -0.1, 61.0] {
            let e = run().with_energy_seconds(bad).unwrap_err().to_string();
            assert!(e.contains("[0, 60]"), "{bad}: {e}");
        }
    }

    #[test]
    fn the_summary_prints_energy_or_na_and_both_target_conditions() {
        use crate::approx::figures::tests::report;
        use sigpu_approx::energy::Energy;
        use sigpu_approx::noise::HeuVsOmg as Confident;
        use sigpu_approx::tune::energy::AppEnergy;
        let all = SuiteRun::new("all", 0.8, Method::Heu, Partition::Slot).unwrap();
        // Without NVML: every energy cell is n/a and no energy mean is printed.
        let bare = summarize(
            "GPU".into(),
            &all,
            vec![report("BLA", 1.3)],
            "n/a: no NVML".into(),
        );
        let text = bare.text(true);
        assert!(text.contains("energy: n/a: no NVML"), "{text}");
        let (head, rows) = bare.table();
        let col = head.iter().position(|h| *h == "energy saving").unwrap();
        assert!(rows.iter().all(|r| r[col] == "n/a" && r[col - 1] == "n/a"));
        assert!(!text.contains("geometric-mean energy"));
        // With energy: λ = 3 (every search's pick) costs 85% of λ = 0.
        let mut r = report("BLA", 1.3);
        let searched = r.searches.clone();
        r.energy = Some(
            AppEnergy::measure(&searched, (8, 1.0, 0.5), |l, _| {
                Ok::<_, std::convert::Infallible>(Energy {
                    joules_per_run: 0.010 - 0.0005 * l as f64,
                    watts: 500.0,
                    runs: 10,
                    seconds: 0.25,
                })
            })
            .unwrap(),
        );
        // HEU ran 4 points of OMG's 5 and agrees at confidence.
        r.confident = Some(Confident {
            heu: 3,
            omg: 3,
            comparison: None,
            agree: true,
        });
        let s = summarize("GPU".into(), &all, vec![r], "NVML".into());
        let (_, rows) = s.table();
        assert_eq!(rows[1][col], "15.0%", "{rows:?}");
        assert_eq!(
            (rows[1][col - 4].as_str(), rows[1][col - 3].as_str()),
            ("10.00", "500")
        );
        let text = s.text(true);
        assert!(
            text.contains("geometric-mean energy per run heu: 0.850"),
            "{text}"
        );
        assert!(
            text.contains("at equal confidence: 1 of 1 apps (100%)"),
            "{text}"
        );
        assert!(
            text.contains("HEU runs ≤ 25% of OMG's: 0 of 1 apps"),
            "{text}"
        );
        assert_eq!((s.search_target.both, s.search_target.met), (0, false));
        let json = serde_json::to_value(&s).unwrap();
        assert_eq!(json["search_target"]["agree_at_confidence"], 1);
        assert_eq!(json["apps"][0]["energy"]["chosen"][1]["method"], "heu");
    }
}
