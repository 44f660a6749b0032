//! The figures of Li et al.'s SFU-approximation paper (ICS 2016) from tuning reports: Fig. 4 (normalised T and E against λ per app) as
//! line charts, Fig. 8–11 (speedup per app and search at a QoS ratio) as a grouped bar chart,
//! and the energy per run of the same picks against the accurate kernel (NVML) in the same form.

use super::tune::{geomean, TuneSummary};
use anyhow::{Context, Result};
use sigpu_approx::search::{Method, Point};
use sigpu_approx::tune::AppReport;
use sigpu_plot::{BarChart, BarGroup, LineChart, Series};
use std::path::Path;

/// Writes the figures of `summary` into `dir` (created if needed): Fig. 4 (SVG + PNG) for
/// every app with a curve of more than two points and, for a suite run, Fig. 8–11.
pub fn write(dir: &Path, summary: &TuneSummary, suite: bool) -> Result<()> {
    std::fs::create_dir_all(dir)
        .with_context(|| format!("--plot {}: cannot create the folder", dir.display()))?;
    for r in summary.apps.iter().filter(|r| r.curve.len() > 2) {
        fig4(r)
            .write(&dir.join(format!("fig4_{}", r.app)))
            .with_context(|| format!("writing Fig. 4 for {}", r.app))?;
    }
    if suite {
        fig8(&summary.apps, summary.qos_ratio, &summary.device)
            .write(&dir.join("fig8_speedup"))
            .context("writing Fig. 8")?;
    }
    if let Some(chart) = fig8_energy(&summary.apps, summary.qos_ratio, &summary.device) {
        chart
            .write(&dir.join("fig8_energy"))
            .context("writing the energy figure")?;
    }
    Ok(())
}

/// Fig. 4 for one app: T(λ)/T(0) and E(λ)/E(λ_max) on one axis.
pub fn fig4(r: &AppReport) -> LineChart {
    let partition = format!("{:?}", r.partition).to_lowercase();
    fig4_of(r.app, &partition, &r.curve, r.sfu_error)
}

/// [`fig4`] from a report's parts (also how saved results are redrawn).
pub fn fig4_of(app: &str, partition: &str, curve: &[Point], sfu_error: f64) -> LineChart {
    let t0 = curve.first().map_or(1.0, |p| p.time);
    let emax = sfu_error.max(f64::MIN_POSITIVE);
    let index = match partition {
        "slot" => "λ: hardware warp slots (%warpid < λ) on the SFU path",
        "block" => "λ: warps of each block (by index) on the SFU path",
        _ => "λ (warps on the SFU path)",
    };
    let name = match long_name(app) {
        Some(long) => format!("{app} ({long})"),
        None => app.to_owned(),
    };
    LineChart {
        title: format!("{name}: time and error against λ ({partition} warp index)"),
        x_label: index.into(),
        y_label: "time T(λ)/T(0), error E(λ)/E(λmax) (ratios)".into(),
        log_x: false,
        log_y: false,
        series: vec![
            Series {
                name: "time T(λ)/T(0)".into(),
                points: curve
                    .iter()
                    .map(|p| (p.lambda as f64, p.time / t0))
                    .collect(),
            },
            Series {
                name: "error E(λ)/E(λmax)".into(),
                points: curve
                    .iter()
                    .map(|p| (p.lambda as f64, p.error / emax))
                    .collect(),
            },
        ],
    }
}

/// What the suite's short app names stand for, as the figures explain them.
const LONG_NAMES: [(&str, &str); 12] = [
    ("blackscholes", "Black-Scholes option pricing"),
    ("montecarlo", "Monte-Carlo option pricing"),
    ("cp", "Coulombic potential"),
    ("lavamd", "lavaMD particle pair potential"),
    ("nbody", "all-pairs n-body"),
    ("corr", "correlation preprocessing"),
    ("gaussian", "Gaussian elimination"),
    ("boxmuller", "Box-Muller normal random numbers"),
    ("cfd", "computational fluid dynamics step factor"),
    ("mriq", "MRI-Q, MRI reconstruction"),
    ("bilateral", "bilateral image filter"),
    ("srad", "speckle-reducing anisotropic diffusion"),
];

/// The long name of an app of the suite, `None` for another name.
pub fn long_name(app: &str) -> Option<&'static str> {
    LONG_NAMES.iter().find(|(a, _)| *a == app).map(|(_, l)| *l)
}

/// The Fig. 8 note lines that expand the abbreviated names among `apps`, a few per line.
fn abbreviations<'a>(apps: impl Iterator<Item = &'a str>) -> Vec<String> {
    // Names that read as words already are not repeated.
    const PLAIN: [&str; 4] = ["blackscholes", "montecarlo", "nbody", "bilateral"];
    let expanded: Vec<String> = apps
        .filter(|a| !PLAIN.contains(a))
        .filter_map(|a| long_name(a).map(|l| format!("{a}: {l}")))
        .collect();
    expanded.chunks(4).map(|c| c.join(" · ")).collect()
}

/// Fig. 8–11 per app and the geometric means: (label, bars).
fn groups(reports: &[AppReport]) -> Vec<(String, Bars)> {
    let speed = |r: &AppReport, m: Method| {
        r.searches
            .iter()
            .find(|o| o.method == m)
            .map(|o| (o.speedup, o.runs))
    };
    let mut groups: Vec<(String, Bars)> = reports
        .iter()
        .map(|r| {
            (
                r.app.to_string(),
                [
                    Some((r.sfu_speedup, 0)),
                    speed(r, Method::Smp),
                    speed(r, Method::Heu),
                    speed(r, Method::Omg),
                ],
            )
        })
        .collect();
    let gm = |k: usize| geomean(groups.iter().filter_map(|g| g.1[k].map(|v| v.0)));
    let means = [gm(0), gm(1), gm(2), gm(3)].map(|v| Some((v, 0)));
    groups.push(("geometric mean".into(), means));
    groups
}

/// Fig. 8–11: speedup over the accurate kernel per app for SFU (all approximate), SMP, HEU
/// and OMG, with each search's run count above its bar and the geometric means at the end.
pub fn fig8(reports: &[AppReport], ratio: f64, device: &str) -> BarChart {
    let partition = reports
        .first()
        .map(|r| format!("{:?}", r.partition).to_lowercase())
        .unwrap_or_default();
    fig8_of(groups(reports), ratio, &partition, device)
}

/// One app's bars by name: (speedup, runs) for SFU, SMP, HEU and OMG (runs 0 where not a
/// search).
pub type Bars = [Option<(f64, usize)>; 4];

/// [`fig8`] from (app, bars) groups, the geometric means last (also how saved results are
/// redrawn).
pub fn fig8_of(groups: Vec<(String, Bars)>, ratio: f64, partition: &str, device: &str) -> BarChart {
    let mut note = vec![
        "number above a bar: kernel runs the search measured before it settled on its λ".into(),
    ];
    note.extend(abbreviations(groups.iter().map(|g| g.0.as_str())));
    BarChart {
        title: format!(
            "Speedup over the accurate kernel at QoS ratio {ratio}, {partition} warp index ({device})"
        ),
        x_label: "application".into(),
        y_label: "speedup over the accurate kernel (×)".into(),
        series: vec![
            "all SFU (λ = λmax, no error bound)".into(),
            "SMP: every λ down from λmax".into(),
            "HEU: linear-approaching search".into(),
            "OMG: exhaustive search".into(),
        ],
        groups: groups
            .into_iter()
            .map(|(name, bars)| BarGroup {
                name,
                values: bars.iter().map(|b| b.map(|v| v.0)).collect(),
                labels: bars
                    .iter()
                    .map(|b| b.filter(|v| v.1 > 0).map(|v| v.1.to_string()))
                    .collect(),
            })
            .collect(),
        reference: Some((1.0, "speedup 1 (the accurate kernel)".into())),
        note: Some(note.join("\n")),
    }
}

/// The energy companion of Fig. 8–11: joules per run at each search's pick (and at λ_max)
/// over those of the accurate kernel (λ = 0), per app, with the saving in percent above each
/// bar and the geometric means at the end; `None` when no app has energy figures.
pub fn fig8_energy(reports: &[AppReport], ratio: f64, device: &str) -> Option<BarChart> {
    let with: Vec<&AppReport> = reports.iter().filter(|r| r.energy.is_some()).collect();
    if with.is_empty() {
        return None;
    }
    let bars = |r: &AppReport| -> [Option<f64>; 4] {
        let Some(e) = &r.energy else {
            return [None; 4];
        };
        let of = |m| e.of(m).map(|c| 1.0 - c.saving);
        [
            Some(1.0 - e.all_sfu_saving),
            of(Method::Smp),
            of(Method::Heu),
            of(Method::Omg),
        ]
    };
    let mut groups: Vec<(String, [Option<f64>; 4])> =
        with.iter().map(|r| (r.app.to_string(), bars(r))).collect();
    let gm = |k: usize| geomean(groups.iter().filter_map(|g| g.1[k]));
    let means = [gm(0), gm(1), gm(2), gm(3)].map(|v| Some(v).filter(|v| v.is_finite()));
    groups.push(("geometric mean".into(), means));
    let partition = with
        .first()
        .map(|r| format!("{:?}", r.partition).to_lowercase())
        .unwrap_or_default();
    let mut note = vec![
        "number above a bar: energy saved per run, 1 − E(λ)/E(0), in percent (NVML energy \
         counter, board power)"
            .to_owned(),
    ];
    note.extend(abbreviations(groups.iter().map(|g| g.0.as_str())));
    Some(BarChart {
        title: format!(
            "Energy per run against the accurate kernel at QoS ratio {ratio}, {partition} warp \
             index ({device})"
        ),
        x_label: "application".into(),
        y_label: "energy per run E(λ)/E(0) (ratio; below 1 saves)".into(),
        series: vec![
            "all SFU (λ = λmax, no error bound)".into(),
            "SMP pick".into(),
            "HEU pick".into(),
            "OMG pick".into(),
        ],
        groups: groups
            .into_iter()
            .map(|(name, bars)| BarGroup {
                name,
                values: bars.to_vec(),
                labels: bars
                    .iter()
                    .map(|b| b.map(|v| format!("{:.0}", 100.0 * (1.0 - v))))
                    .collect(),
            })
            .collect(),
        reference: Some((1.0, "the accurate kernel's energy (ratio 1)".into())),
        note: Some(note.join("\n")),
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use sigpu_approx::search::{Outcome, Point};

    /// A report of `abbr` with an SFU speedup, each search at λ = 3 of 8 with 3, 4, 5 runs.
    pub(crate) fn report(abbr: &'static str, speedup: f64) -> AppReport {
        let outcome = |(i, &method): (usize, &Method)| Outcome {
            method,
            lambda: 3,
            time: 0.7,
            error: 0.01,
            bound: 0.08,
            speedup: speedup * 0.9 + i as f64 * 0.1,
            runs: 3 + i,
            max_lambda: 8,
            trace: vec![],
        };
        AppReport {
            app: abbr,
            abbr,
            precision: sigpu_approx::catalog::Precision::F32,
            functions: "exp",
            metric: sigpu_approx::apps::Metric::L1Relative,
            partition: sigpu_approx::tune::Partition::Slot,
            rewrites: Default::default(),
            max_lambda: 8,
            qos_ratio: 0.8,
            registers_original: 1,
            registers_lambda: 2,
            original_ms: 1.0,
            sfu_ms: 0.5,
            sfu_speedup: speedup,
            sfu_error: 0.1,
            curve: vec![Point {
                lambda: 0,
                time: 1.0,
                error: 0.0,
            }],
            searches: Method::ALL.iter().enumerate().map(outcome).collect(),
            confident: None,
            energy: None,
            per_site: None,
            seconds: 1.0,
        }
    }

    #[test]
    fn fig8_has_a_group_per_app_and_the_geometric_means() {
        let reports = [
            report("BLA", 1.3),
            report("NBO", 1.1),
            report("CFD", f64::NAN),
        ];
        let g = groups(&reports);
        assert_eq!(g.len(), 4);
        assert_eq!(g[3].0, "geometric mean");
        let gm_sfu = g[3].1[0].unwrap().0;
        assert!(
            gm_sfu.is_nan(),
            "a NaN speedup makes the mean NaN: {gm_sfu}"
        );
        let svg = fig8(&reports[..2], 0.8, "test GPU").to_svg().unwrap();
        for label in ["BLA", "NBO", "geometric mean", "OMG: exhaustive search"] {
            assert!(svg.contains(&format!(">\n{label}\n<")), "{label} missing");
        }
        assert!(svg.contains("(test GPU)"));
        // The run counts above the search bars: 3 + i runs for search i, in 2 apps.
        for runs in ["3", "4", "5"] {
            assert_eq!(svg.matches(&format!(">\n{runs}\n<")).count(), 2, "{runs}");
        }
    }

    #[test]
    fn the_energy_figure_shows_each_pick_against_the_accurate_kernel() {
        use sigpu_approx::energy::Energy;
        use sigpu_approx::tune::energy::AppEnergy;
        let mut with = report("BLA", 1.3);
        let searched = with.searches.clone();
        let joules = |l: u32| 0.010 - 0.0005 * l as f64;
        with.energy = Some(
            AppEnergy::measure(&searched, (8, 1.0, 0.5), |l, _| {
                Ok::<_, std::convert::Infallible>(Energy {
                    joules_per_run: joules(l),
                    watts: 500.0,
                    runs: 10,
                    seconds: 0.25,
                })
            })
            .unwrap(),
        );
        assert!(fig8_energy(&[report("NBO", 1.1)], 0.8, "GPU").is_none());
        let chart = fig8_energy(&[with, report("NBO", 1.1)], 0.8, "test GPU").unwrap();
        // Only apps with energy figures, and the geometric mean.
        let names: Vec<&str> = chart.groups.iter().map(|g| g.name.as_str()).collect();
        assert_eq!(names, ["BLA", "geometric mean"]);
        // λ_max = 8 saves 40%; each search chose λ = 3: 15%.
        assert_eq!(chart.groups[0].values[0], Some(0.6));
        assert!((chart.groups[0].values[2].unwrap() - 0.85).abs() < 1e-12);
        assert_eq!(chart.groups[0].labels[2].as_deref(), Some("15"));
        let svg = chart.to_svg().unwrap();
        for text in ["HEU pick", "energy per run E(λ)/E(0)", "(test GPU)"] {
            assert!(svg.contains(text), "{text} missing");
        }
    }

    #[test]
    fn abbreviated_app_names_are_expanded_in_the_figures() {
        let names = [
            "blackscholes",
            "cp",
            "corr",
            "mriq",
            "srad",
            "geometric mean",
        ];
        let lines = abbreviations(names.into_iter());
        assert_eq!(
            lines,
            [
                "cp: Coulombic potential · corr: correlation preprocessing · mriq: MRI-Q, MRI \
                 reconstruction · srad: speckle-reducing anisotropic diffusion"
            ]
        );
        let groups = names.map(|n| (n.to_owned(), [Some((1.0, 0)); 4])).to_vec();
        let svg = fig8_of(groups, 0.8, "slot", "test GPU").to_svg().unwrap();
        assert!(svg.contains("cp: Coulombic potential"), "the note is drawn");
        let curve = [Point {
            lambda: 0,
            time: 1.0,
            error: 0.0,
        }];
        assert!(fig4_of("cp", "slot", &curve, 1.0)
            .title
            .starts_with("cp (Coulombic potential): "));
        assert!(fig4_of("mine", "slot", &curve, 1.0)
            .title
            .starts_with("mine: "));
    }
}
