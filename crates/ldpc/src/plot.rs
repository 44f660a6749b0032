//! Error-rate curves as SVG: log-scale rate against SNR in dB, one polyline per series.
//! Hand-written SVG needs no font files; browsers and converters render it.

use std::fmt::Write as _;

/// One curve.
pub struct Series {
    pub label: String,
    /// (SNR dB, rate); rates ≤ 0 are left out (nothing to draw on a log axis).
    pub points: Vec<(f64, f64)>,
    /// Dashed stroke (e.g. FER beside a solid BER of the same colour).
    pub dashed: bool,
}

const COLOURS: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
];

/// The SVG document; series that share a colour index `i / per_colour` are drawn alike.
pub fn error_rate_svg(title: &str, x_label: &str, series: &[Series], per_colour: usize) -> String {
    let (w, h, left, right, top, bottom) = (1100.0, 520.0, 80.0, 480.0, 50.0, 60.0);
    let pts = series
        .iter()
        .flat_map(|s| s.points.iter().filter(|p| p.1 > 0.0));
    let (mut x0, mut x1, mut y0, mut y1) = (
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::INFINITY,
        f64::NEG_INFINITY,
    );
    for &(x, y) in pts {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y.log10());
        y1 = y1.max(y.log10());
    }
    if !x0.is_finite() {
        (x0, x1, y0, y1) = (0.0, 1.0, -6.0, 0.0);
    }
    if x1 - x0 < 1e-9 {
        x1 = x0 + 1.0;
    }
    let (d0, d1) = (
        y0.floor().min(-1.0),
        y1.ceil()
            .max(y0.floor() + 1.0)
            .min(0.0)
            .max(y0.floor() + 1.0),
    );
    let px = |x: f64| left + (x - x0) / (x1 - x0) * (w - left - right);
    let py = |d: f64| top + (d1 - d) / (d1 - d0) * (h - top - bottom);
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"12\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"{}\" y=\"28\" text-anchor=\"middle\" font-size=\"14\">{}</text>\n",
        (left + w - right) / 2.0,
        escape(title)
    );
    for d in (d0 as i32)..=(d1 as i32) {
        let y = py(d as f64);
        let _ = writeln!(s, "<line x1=\"{left}\" x2=\"{}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"#ddd\"/><text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">1e{d}</text>", w - right, left - 6.0, y + 4.0);
    }
    let steps = 10;
    for i in 0..=steps {
        let x = x0 + (x1 - x0) * i as f64 / steps as f64;
        let xp = px(x);
        let _ = writeln!(s, "<line x1=\"{xp:.1}\" x2=\"{xp:.1}\" y1=\"{top}\" y2=\"{}\" stroke=\"#eee\"/><text x=\"{xp:.1}\" y=\"{}\" text-anchor=\"middle\">{x:.2}</text>", h - bottom, h - bottom + 16.0);
    }
    let _ = writeln!(s, "<rect x=\"{left}\" y=\"{top}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"black\"/>", w - left - right, h - top - bottom);
    let _ = writeln!(
        s,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
        (left + w - right) / 2.0,
        h - 18.0,
        escape(x_label)
    );
    for (i, series) in series.iter().enumerate() {
        let colour = COLOURS[(i / per_colour.max(1)) % COLOURS.len()];
        let dash = if series.dashed {
            " stroke-dasharray=\"6,4\""
        } else {
            ""
        };
        let coords: Vec<String> = series
            .points
            .iter()
            .filter(|p| p.1 > 0.0)
            .map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y.log10())))
            .collect();
        let _ = writeln!(
            s,
            "<polyline fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\"{dash} points=\"{}\"/>",
            coords.join(" ")
        );
        for c in &coords {
            let (cx, cy) = c.split_once(',').unwrap_or(("0", "0"));
            let _ = writeln!(
                s,
                "<circle cx=\"{cx}\" cy=\"{cy}\" r=\"2.5\" fill=\"{colour}\"/>"
            );
        }
        let ly = top + 10.0 + 18.0 * i as f64;
        let _ = writeln!(s, "<line x1=\"{}\" x2=\"{}\" y1=\"{ly}\" y2=\"{ly}\" stroke=\"{colour}\" stroke-width=\"2\"{dash}/><text x=\"{}\" y=\"{}\">{}</text>", w - right + 10.0, w - right + 34.0, w - right + 40.0, ly + 4.0, escape(&series.label));
    }
    s.push_str("</svg>\n");
    s
}

fn escape(t: &str) -> String {
    t.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_every_positive_point() {
        let svg = error_rate_svg(
            "t <1>",
            "Es/N0 (dB)",
            &[Series {
                label: "BER".into(),
                points: vec![(1.0, 0.1), (1.5, 1e-3), (2.0, 0.0)],
                dashed: false,
            }],
            1,
        );
        assert_eq!(svg.matches("<circle").count(), 2);
        assert!(svg.contains("t &lt;1&gt;") && svg.starts_with("<svg"));
    }
}
