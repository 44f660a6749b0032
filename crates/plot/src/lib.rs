//! Line charts for sigpu's reports: written as SVG (text, diffable) and rendered to PNG with
//! resvg, with DejaVu Sans bundled (`fonts/`, Bitstream Vera license) so labels render anywhere.

use std::fmt::Write as _;
use std::path::Path;

/// One named line of (x, y) points.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// A chart with linear or logarithmic (base 10) axes.
#[derive(Clone, Debug, PartialEq)]
pub struct LineChart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub log_x: bool,
    pub log_y: bool,
    pub series: Vec<Series>,
}

#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    #[error("chart has no finite points to draw")]
    Empty,
    #[error("rendering the SVG: {0}")]
    Render(String),
    #[error("writing {path}: {source}")]
    Write {
        path: String,
        source: std::io::Error,
    },
}

const PALETTE: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
];
// Canvas size and plot-area margins (the right margin holds the legend), in pixels.
const W: f64 = 720.0;
const H: f64 = 440.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 170.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 55.0;

impl LineChart {
    fn transform(&self, (x, y): (f64, f64)) -> Option<(f64, f64)> {
        let x = if self.log_x { x.log10() } else { x };
        let y = if self.log_y { y.log10() } else { y };
        (x.is_finite() && y.is_finite()).then_some((x, y))
    }

    /// The chart as a standalone SVG document.
    pub fn to_svg(&self) -> Result<String, PlotError> {
        let pts: Vec<(f64, f64)> = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().filter_map(|&p| self.transform(p)))
            .collect();
        if pts.is_empty() {
            return Err(PlotError::Empty);
        }
        let (mut x0, mut x1, mut y0, mut y1) = pts.iter().fold(
            (
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::INFINITY,
                f64::NEG_INFINITY,
            ),
            |(a, b, c, d), &(x, y)| (a.min(x), b.max(x), c.min(y), d.max(y)),
        );
        if x1 == x0 {
            (x0, x1) = (x0 - 1.0, x1 + 1.0);
        }
        if y1 == y0 {
            (y0, y1) = (y0 - 1.0, y1 + 1.0);
        }
        let pad = (y1 - y0) * 0.05;
        let (y0, y1) = (y0 - pad, y1 + pad);
        let (pw, ph) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
        let sx = |x: f64| LEFT + (x - x0) / (x1 - x0) * pw;
        let sy = |y: f64| TOP + ph - (y - y0) / (y1 - y0) * ph;
        let mut s = String::new();
        let _ = writeln!(
            s,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="DejaVu Sans, sans-serif" font-size="12">"#
        );
        let _ = writeln!(s, r#"<rect width="{W}" height="{H}" fill="white"/>"#);
        let _ = writeln!(
            s,
            r#"<text x="{}" y="22" font-size="15" text-anchor="middle">{}</text>"#,
            LEFT + pw / 2.0,
            escape(&self.title)
        );
        let _ = writeln!(
            s,
            r#"<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="none" stroke="black"/>"#
        );
        for i in 0..=5 {
            let (fx, fy) = (
                x0 + (x1 - x0) * i as f64 / 5.0,
                y0 + (y1 - y0) * i as f64 / 5.0,
            );
            let label = |v: f64, log: bool| tick(if log { 10f64.powf(v) } else { v });
            let _ = writeln!(
                s,
                r##"<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="#ddd"/><text x="{0}" y="{3}" text-anchor="middle">{4}</text>"##,
                sx(fx),
                TOP,
                TOP + ph,
                TOP + ph + 16.0,
                label(fx, self.log_x)
            );
            let _ = writeln!(
                s,
                r##"<line x1="{0}" y1="{1}" x2="{2}" y2="{1}" stroke="#ddd"/><text x="{3}" y="{4}" text-anchor="end">{5}</text>"##,
                LEFT,
                sy(fy),
                LEFT + pw,
                LEFT - 6.0,
                sy(fy) + 4.0,
                label(fy, self.log_y)
            );
        }
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
            LEFT + pw / 2.0,
            H - 12.0,
            escape(&self.x_label)
        );
        let _ = writeln!(
            s,
            r#"<text x="16" y="{0}" text-anchor="middle" transform="rotate(-90 16 {0})">{1}</text>"#,
            TOP + ph / 2.0,
            escape(&self.y_label)
        );
        for (i, series) in self.series.iter().enumerate() {
            let colour = PALETTE[i % PALETTE.len()];
            let path: Vec<String> = series
                .points
                .iter()
                .filter_map(|&p| self.transform(p))
                .map(|(x, y)| format!("{:.1},{:.1}", sx(x), sy(y)))
                .collect();
            let _ = writeln!(
                s,
                r#"<polyline fill="none" stroke="{colour}" stroke-width="2" points="{}"/>"#,
                path.join(" ")
            );
            for p in &path {
                let (x, y) = p.split_once(',').unwrap_or(("0", "0"));
                let _ = writeln!(s, r#"<circle cx="{x}" cy="{y}" r="2.5" fill="{colour}"/>"#);
            }
            let ly = TOP + 10.0 + 18.0 * i as f64;
            let _ = writeln!(
                s,
                r#"<line x1="{0}" y1="{1}" x2="{2}" y2="{1}" stroke="{colour}" stroke-width="2"/><text x="{3}" y="{4}">{5}</text>"#,
                W - RIGHT + 12.0,
                ly,
                W - RIGHT + 32.0,
                W - RIGHT + 38.0,
                ly + 4.0,
                escape(&series.name)
            );
        }
        s.push_str("</svg>\n");
        Ok(s)
    }

    /// Writes `<base>.svg` and `<base>.png`, each atomically.
    pub fn write(&self, base: &Path) -> Result<(), PlotError> {
        let svg = self.to_svg()?;
        let png = svg_to_png(&svg)?;
        for (ext, bytes) in [("svg", svg.as_bytes()), ("png", png.as_slice())] {
            let path = base.with_extension(ext);
            sigpu_runtime::fs::write_atomic(&path, bytes).map_err(|source| PlotError::Write {
                path: path.display().to_string(),
                source,
            })?;
        }
        Ok(())
    }
}

/// Renders an SVG document to PNG bytes at its own size.
pub fn svg_to_png(svg: &str) -> Result<Vec<u8>, PlotError> {
    use resvg::{tiny_skia, usvg};
    let mut options = usvg::Options::default();
    // The bundled DejaVu Sans first, so a machine without fonts (a GPU server) still labels its
    // charts; system fonts after it.
    options
        .fontdb_mut()
        .load_font_data(include_bytes!("../fonts/DejaVuSans.ttf").to_vec());
    options.fontdb_mut().load_system_fonts();
    let tree = usvg::Tree::from_str(svg, &options).map_err(|e| PlotError::Render(e.to_string()))?;
    let size = tree.size().to_int_size();
    let mut pixmap = tiny_skia::Pixmap::new(size.width(), size.height())
        .ok_or_else(|| PlotError::Render("empty image".into()))?;
    resvg::render(&tree, tiny_skia::Transform::default(), &mut pixmap.as_mut());
    pixmap
        .encode_png()
        .map_err(|e| PlotError::Render(e.to_string()))
}

/// A short axis label: plain decimals for moderate magnitudes, scientific otherwise.
fn tick(v: f64) -> String {
    if v != 0.0 && !(1e-3..1e5).contains(&v.abs()) {
        return format!("{v:.2e}");
    }
    let s = format!("{v:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_owned()
}

fn escape(t: &str) -> String {
    t.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart() -> LineChart {
        LineChart {
            title: "a <test>".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            log_x: false,
            log_y: true,
            series: vec![
                Series {
                    name: "up".into(),
                    points: vec![(1.0, 1.0), (2.0, 10.0), (3.0, 100.0)],
                },
                Series {
                    name: "zero is skipped on a log axis".into(),
                    points: vec![(1.0, 0.0), (2.0, 5.0)],
                },
            ],
        }
    }

    #[test]
    fn svg_has_every_point_and_escapes_text() {
        let svg = chart().to_svg().unwrap();
        assert_eq!(svg.matches("<circle").count(), 4);
        assert!(svg.contains("a &lt;test&gt;"));
    }

    #[test]
    fn renders_a_png_and_writes_both_files() {
        let dir = std::env::temp_dir().join(format!("sigpu-plot-{}", std::process::id()));
        chart().write(&dir.join("c")).unwrap();
        let png = std::fs::read(dir.join("c.png")).unwrap();
        assert_eq!(&png[1..4], b"PNG");
        assert!(std::fs::read_to_string(dir.join("c.svg"))
            .unwrap()
            .starts_with("<svg"));
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn ticks_are_short() {
        assert_eq!(tick(2.5), "2.5");
        assert_eq!(tick(10.0), "10");
        assert_eq!(tick(1e-6), "1.00e-6");
        assert_eq!(tick(0.0), "0");
    }

    #[test]
    fn empty_charts_are_an_error() {
        let mut c = chart();
        c.series.clear();
        assert!(matches!(c.to_svg(), Err(PlotError::Empty)));
    }
}
