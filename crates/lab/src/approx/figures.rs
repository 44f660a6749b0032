//! The seed's figures from tuning reports: Fig. 4 (normalised T and E against λ per app) as
//! line charts, Fig. 8–11 (speedup per app and search at a QoS ratio) as a grouped bar chart.

use super::tune::{geomean, TuneSummary};
use anyhow::{Context, Result};
use sigpu_approx::search::Method;
use sigpu_approx::tune::AppReport;
use sigpu_plot::{LineChart, Series};
use std::fmt::Write as _;
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
        let svg = fig8_svg(&summary.apps, summary.qos_ratio, &summary.device);
        let png = sigpu_plot::svg_to_png(&svg)?;
        for (ext, bytes) in [("svg", svg.as_bytes()), ("png", png.as_slice())] {
            let path = dir.join(format!("fig8_speedup.{ext}"));
            sigpu_runtime::fs::write_atomic(&path, bytes)
                .with_context(|| format!("writing {}", path.display()))?;
        }
    }
    Ok(())
}

/// Fig. 4 for one app: T(λ)/T(0) and E(λ)/E(λ_max) on one axis.
pub fn fig4(r: &AppReport) -> LineChart {
    let t0 = r.curve.first().map_or(1.0, |p| p.time);
    let emax = r.sfu_error.max(f64::MIN_POSITIVE);
    LineChart {
        title: format!(
            "{} ({}): time and error vs λ ({:?} warp index)",
            r.abbr, r.app, r.partition
        ),
        x_label: "λ (warps on the SFU path)".into(),
        y_label: "T(λ)/T(0), E(λ)/E(λmax)".into(),
        log_x: false,
        log_y: false,
        series: vec![
            Series {
                name: "time".into(),
                points: r
                    .curve
                    .iter()
                    .map(|p| (p.lambda as f64, p.time / t0))
                    .collect(),
            },
            Series {
                name: "error".into(),
                points: r
                    .curve
                    .iter()
                    .map(|p| (p.lambda as f64, p.error / emax))
                    .collect(),
            },
        ],
    }
}

/// One app's bars: (speedup, runs) for SFU, SMP, HEU and OMG (runs 0 where not a search).
type Bars = [Option<(f64, usize)>; 4];

const COLORS: [&str; 4] = ["#7f7f7f", "#1f77b4", "#d62728", "#2ca02c"];

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
                r.abbr.to_string(),
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
    groups.push(("GM".into(), means));
    groups
}

/// The chart's frame: width, height, margins and the y scale.
struct Frame {
    w: f64,
    h: f64,
    left: f64,
    bottom: f64,
    top: f64,
    ymax: f64,
}

impl Frame {
    fn y(&self, v: f64) -> f64 {
        let plot_h = self.h - self.bottom - self.top;
        self.top + plot_h * (1.0 - v / self.ymax)
    }

    /// Title, horizontal grid lines with their labels, and the dashed line at speedup 1.
    fn axes(&self, s: &mut String, ratio: f64, device: &str) {
        let (w, h, left) = (self.w, self.h, self.left);
        *s = format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"11\">\n\
             <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
             <text x=\"{}\" y=\"20\" text-anchor=\"middle\" font-size=\"14\">Speedup over the accurate kernel at QoS ratio {ratio} ({device})</text>\n",
            w / 2.0
        );
        let mut tick = 0.0;
        while tick <= self.ymax {
            let _ = writeln!(
                s,
                "<line x1=\"{left}\" x2=\"{}\" y1=\"{y0:.1}\" y2=\"{y0:.1}\" stroke=\"#ddd\"/><text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{tick:.2}</text>",
                w - 10.0,
                left - 4.0,
                self.y(tick) + 4.0,
                y0 = self.y(tick)
            );
            tick += if self.ymax > 3.0 { 0.5 } else { 0.25 };
        }
        let _ = writeln!(
            s,
            "<line x1=\"{left}\" x2=\"{}\" y1=\"{y1:.1}\" y2=\"{y1:.1}\" stroke=\"black\" stroke-dasharray=\"4 3\"/>",
            w - 10.0,
            y1 = self.y(1.0)
        );
    }

    /// One group's bars, each search's run count above its bar, and the group's label.
    fn group(&self, s: &mut String, gi: usize, name: &str, bars: &Bars) {
        let x0 = self.left + 10.0 + 70.0 * gi as f64;
        for (bi, bar) in bars.iter().enumerate() {
            let Some((v, runs)) = bar else { continue };
            if !v.is_finite() {
                continue;
            }
            let x = x0 + 13.0 * bi as f64;
            let _ = writeln!(
                s,
                "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"12\" height=\"{:.1}\" fill=\"{}\"/>",
                self.y(*v),
                (self.y(0.0) - self.y(*v)).max(0.0),
                COLORS[bi]
            );
            if *runs > 0 {
                let _ = writeln!(
                    s,
                    "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"8\" fill=\"#2a2\">{runs}</text>",
                    x + 6.0,
                    self.y(*v) - 2.0
                );
            }
        }
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{name}</text>",
            x0 + 26.0,
            self.h - self.bottom + 16.0
        );
    }

    fn legend(&self, s: &mut String) {
        for (i, label) in ["SFU (λ max)", "SMP", "HEU", "OMG"].iter().enumerate() {
            let lx = self.left + 120.0 * i as f64;
            let _ = writeln!(
                s,
                "<rect x=\"{lx}\" y=\"{}\" width=\"10\" height=\"10\" fill=\"{}\"/><text x=\"{}\" y=\"{}\">{label}</text>",
                self.h - 20.0,
                COLORS[i],
                lx + 14.0,
                self.h - 11.0
            );
        }
    }
}

/// Fig. 8–11: speedup over the accurate kernel per app for SFU (all approximate), SMP, HEU
/// and OMG, with each search's run count above its bar and the geometric means at the end.
pub fn fig8_svg(reports: &[AppReport], ratio: f64, device: &str) -> String {
    let groups = groups(reports);
    let ymax = groups
        .iter()
        .flat_map(|g| g.1.iter().flatten().map(|v| v.0))
        .filter(|v| v.is_finite())
        .fold(1.0f64, f64::max)
        * 1.15;
    let frame = Frame {
        w: 60.0 + 70.0 * groups.len() as f64,
        h: 420.0,
        left: 60.0,
        bottom: 50.0,
        top: 50.0,
        ymax,
    };
    let mut s = String::new();
    frame.axes(&mut s, ratio, device);
    for (gi, (name, bars)) in groups.iter().enumerate() {
        frame.group(&mut s, gi, name, bars);
    }
    frame.legend(&mut s);
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use sigpu_approx::search::{Outcome, Point};

    fn report(abbr: &'static str, speedup: f64) -> AppReport {
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
        assert_eq!(g[3].0, "GM");
        let gm_sfu = g[3].1[0].unwrap().0;
        assert!(
            gm_sfu.is_nan(),
            "a NaN speedup makes the mean NaN: {gm_sfu}"
        );
        let svg = fig8_svg(&reports[..2], 0.8, "test GPU");
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
        for label in [
            ">BLA<",
            ">NBO<",
            ">GM<",
            ">SFU (λ max)<",
            ">OMG<",
            "(test GPU)",
        ] {
            assert!(svg.contains(label), "{label} missing");
        }
        // Bars: 4 per group, 3 groups, and the 4 legend swatches.
        assert_eq!(svg.matches("width=\"12\"").count(), 12);
        assert_eq!(svg.matches("width=\"10\"").count(), 4);
    }
}
