//! The seed's figures from tuning reports: Fig. 4 (normalised T and E against λ per app) as
//! line charts, Fig. 8–11 (speedup per app and search at a QoS ratio) as a grouped bar chart.

use crate::search::Method;
use crate::tune::{geomean, AppReport};
use sigpu_plot::{LineChart, Series};
use std::fmt::Write as _;

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

/// Fig. 8–11: speedup over the accurate kernel per app for SFU (all approximate), SMP, HEU
/// and OMG, with each search's run count above its bar and the geometric means at the end.
pub fn fig8_svg(reports: &[AppReport], ratio: f64, device: &str) -> String {
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
    let ymax = groups
        .iter()
        .flat_map(|g| g.1.iter().flatten().map(|v| v.0))
        .filter(|v| v.is_finite())
        .fold(1.0f64, f64::max)
        * 1.15;
    let (w, h, left, bottom, top) = (60.0 + 70.0 * groups.len() as f64, 420.0, 60.0, 50.0, 50.0);
    let plot_h = h - bottom - top;
    let y = |v: f64| top + plot_h * (1.0 - v / ymax);
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"11\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"{}\" y=\"20\" text-anchor=\"middle\" font-size=\"14\">Speedup over the accurate kernel at QoS ratio {ratio} ({device})</text>\n",
        w / 2.0
    );
    let mut tick = 0.0;
    while tick <= ymax {
        let _ = writeln!(
            s,
            "<line x1=\"{left}\" x2=\"{}\" y1=\"{y0:.1}\" y2=\"{y0:.1}\" stroke=\"#ddd\"/><text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{tick:.2}</text>",
            w - 10.0,
            left - 4.0,
            y(tick) + 4.0,
            y0 = y(tick)
        );
        tick += if ymax > 3.0 { 0.5 } else { 0.25 };
    }
    let _ = writeln!(
        s,
        "<line x1=\"{left}\" x2=\"{}\" y1=\"{y1:.1}\" y2=\"{y1:.1}\" stroke=\"black\" stroke-dasharray=\"4 3\"/>",
        w - 10.0,
        y1 = y(1.0)
    );
    for (gi, (name, bars)) in groups.iter().enumerate() {
        let x0 = left + 10.0 + 70.0 * gi as f64;
        for (bi, bar) in bars.iter().enumerate() {
            let Some((v, runs)) = bar else { continue };
            if !v.is_finite() {
                continue;
            }
            let x = x0 + 13.0 * bi as f64;
            let _ = writeln!(
                s,
                "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"12\" height=\"{:.1}\" fill=\"{}\"/>",
                y(*v),
                (y(0.0) - y(*v)).max(0.0),
                COLORS[bi]
            );
            if *runs > 0 {
                let _ = writeln!(
                    s,
                    "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"8\" fill=\"#2a2\">{runs}</text>",
                    x + 6.0,
                    y(*v) - 2.0
                );
            }
        }
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{name}</text>",
            x0 + 26.0,
            h - bottom + 16.0
        );
    }
    for (i, label) in ["SFU (λ max)", "SMP", "HEU", "OMG"].iter().enumerate() {
        let lx = left + 120.0 * i as f64;
        let _ = writeln!(
            s,
            "<rect x=\"{lx}\" y=\"{}\" width=\"10\" height=\"10\" fill=\"{}\"/><text x=\"{}\" y=\"{}\">{label}</text>",
            h - 20.0,
            COLORS[i],
            lx + 14.0,
            h - 11.0
        );
    }
    s.push_str("</svg>\n");
    s
}
