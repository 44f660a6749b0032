//! Line charts for sigpu's reports: written as SVG (text, diffable) and rendered to PNG with
//! resvg, with DejaVu Sans bundled (`fonts/`, Bitstream Vera license) so labels render anywhere.
//! [`Style`] adds dashed or colour-grouped series, decade ticks and fixed ranges.
//!
//! ```
//! use sigpu_plot::{LineChart, Series};
//!
//! let chart = LineChart {
//!     title: "throughput".into(),
//!     x_label: "length".into(),
//!     y_label: "G elements/s".into(),
//!     log_x: true,
//!     log_y: false,
//!     series: vec![Series { name: "f32".into(), points: vec![(1e3, 1.0), (1e6, 40.0)] }],
//! };
//! let svg = chart.to_svg()?;
//! assert!(svg.starts_with("<svg") && svg.contains("f32"));
//! # Ok::<(), sigpu_plot::PlotError>(())
//! ```

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

/// How one series is drawn beyond the defaults (a solid line in palette colour i for series i).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Stroke {
    pub dashed: bool,
    /// Palette index, so that related series (e.g. a BER and its FER) share a colour.
    pub colour: Option<usize>,
}

/// What a chart may set beyond [`LineChart`]'s fields; [`LineChart::to_svg`] draws with
/// `Style::default()`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Style {
    /// Per series, by index; series without one are drawn as by default.
    pub strokes: Vec<Stroke>,
    /// A logarithmic axis gets grid lines and labels at whole decades (`1e-3`, `1e-2`, …)
    /// instead of five even steps.
    pub decade_ticks: bool,
    /// Axis ranges in data units, drawn as given (no padding), instead of the data's. With
    /// both, a chart without points draws its empty axes instead of failing.
    pub x_range: Option<(f64, f64)>,
    pub y_range: Option<(f64, f64)>,
    /// Width of the legend column in pixels (default 170); the canvas widens with it.
    pub legend_width: Option<f64>,
}

/// The plot area and the data range it shows (in transformed units: log10 on log axes).
struct Frame {
    x0: f64,
    x1: f64,
    y0: f64,
    y1: f64,
    /// Canvas width and legend column width.
    w: f64,
    right: f64,
}

impl Frame {
    fn pw(&self) -> f64 {
        self.w - LEFT - self.right
    }
    fn sx(&self, x: f64) -> f64 {
        LEFT + (x - self.x0) / (self.x1 - self.x0) * self.pw()
    }
    fn sy(&self, y: f64) -> f64 {
        let ph = H - TOP - BOTTOM;
        TOP + ph - (y - self.y0) / (self.y1 - self.y0) * ph
    }
}

impl LineChart {
    fn transform(&self, (x, y): (f64, f64)) -> Option<(f64, f64)> {
        let x = if self.log_x { x.log10() } else { x };
        let y = if self.log_y { y.log10() } else { y };
        (x.is_finite() && y.is_finite()).then_some((x, y))
    }

    /// The chart as a standalone SVG document.
    pub fn to_svg(&self) -> Result<String, PlotError> {
        self.to_svg_styled(&Style::default())
    }

    /// The chart as a standalone SVG document, drawn with `style`.
    pub fn to_svg_styled(&self, style: &Style) -> Result<String, PlotError> {
        let frame = self.frame(style)?;
        let mut s = String::new();
        self.draw_axes(&mut s, &frame, style);
        for (i, series) in self.series.iter().enumerate() {
            let stroke = style.strokes.get(i).copied().unwrap_or_default();
            self.draw_series(&mut s, &frame, i, series, stroke);
        }
        s.push_str("</svg>\n");
        Ok(s)
    }

    /// The ranges to draw: the style's, else the data's (padded by 5% in y).
    fn frame(&self, style: &Style) -> Result<Frame, PlotError> {
        let pts: Vec<(f64, f64)> = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().filter_map(|&p| self.transform(p)))
            .collect();
        let given = |range: Option<(f64, f64)>, log: bool| {
            range.map(|(a, b)| if log { (a.log10(), b.log10()) } else { (a, b) })
        };
        let (x_given, y_given) = (
            given(style.x_range, self.log_x),
            given(style.y_range, self.log_y),
        );
        if pts.is_empty() && (x_given.is_none() || y_given.is_none()) {
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
        let (x0, x1) = x_given.unwrap_or((x0, x1));
        let (y0, y1) = y_given.unwrap_or((y0 - pad, y1 + pad));
        let right = style.legend_width.unwrap_or(RIGHT);
        Ok(Frame {
            x0,
            x1,
            y0,
            y1,
            w: W + right - RIGHT,
            right,
        })
    }

    /// Canvas, title, plot box, grid with tick labels, axis labels.
    fn draw_axes(&self, s: &mut String, f: &Frame, style: &Style) {
        let (w, pw, ph) = (f.w, f.pw(), H - TOP - BOTTOM);
        let _ = writeln!(
            s,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{H}" font-family="DejaVu Sans, sans-serif" font-size="12">"#
        );
        let _ = writeln!(s, r#"<rect width="{w}" height="{H}" fill="white"/>"#);
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
        let label = |v: f64, log: bool| tick(if log { 10f64.powf(v) } else { v });
        let decades = |log: bool| log && style.decade_ticks;
        let xs = ticks(f.x0, f.x1, decades(self.log_x));
        let ys = ticks(f.y0, f.y1, decades(self.log_y));
        // Vertical and horizontal grid lines alternate, as they always have in these files.
        for i in 0..xs.len().max(ys.len()) {
            if let Some(&fx) = xs.get(i) {
                let _ = writeln!(
                    s,
                    r##"<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="#ddd"/><text x="{0}" y="{3}" text-anchor="middle">{4}</text>"##,
                    f.sx(fx),
                    TOP,
                    TOP + ph,
                    TOP + ph + 16.0,
                    label(fx, self.log_x)
                );
            }
            if let Some(&fy) = ys.get(i) {
                let text = if decades(self.log_y) {
                    format!("1e{fy}")
                } else {
                    label(fy, self.log_y)
                };
                let _ = writeln!(
                    s,
                    r##"<line x1="{0}" y1="{1}" x2="{2}" y2="{1}" stroke="#ddd"/><text x="{3}" y="{4}" text-anchor="end">{5}</text>"##,
                    LEFT,
                    f.sy(fy),
                    LEFT + pw,
                    LEFT - 6.0,
                    f.sy(fy) + 4.0,
                    text
                );
            }
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
    }

    /// Series `i`: its polyline, a dot per point and its legend entry.
    fn draw_series(&self, s: &mut String, f: &Frame, i: usize, series: &Series, stroke: Stroke) {
        let colour = PALETTE[stroke.colour.unwrap_or(i) % PALETTE.len()];
        let dash = if stroke.dashed {
            r#" stroke-dasharray="6,4""#
        } else {
            ""
        };
        let path: Vec<String> = series
            .points
            .iter()
            .filter_map(|&p| self.transform(p))
            .map(|(x, y)| format!("{:.1},{:.1}", f.sx(x), f.sy(y)))
            .collect();
        let _ = writeln!(
            s,
            r#"<polyline fill="none" stroke="{colour}" stroke-width="2"{dash} points="{}"/>"#,
            path.join(" ")
        );
        for p in &path {
            let (x, y) = p.split_once(',').unwrap_or(("0", "0"));
            let _ = writeln!(s, r#"<circle cx="{x}" cy="{y}" r="2.5" fill="{colour}"/>"#);
        }
        let ly = TOP + 10.0 + 18.0 * i as f64;
        let _ = writeln!(
            s,
            r#"<line x1="{0}" y1="{1}" x2="{2}" y2="{1}" stroke="{colour}" stroke-width="2"{dash}/><text x="{3}" y="{4}">{5}</text>"#,
            f.w - f.right + 12.0,
            ly,
            f.w - f.right + 32.0,
            f.w - f.right + 38.0,
            ly + 4.0,
            escape(&series.name)
        );
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

/// Where the grid lines of an axis from `a` to `b` go: six even steps, or every whole decade
/// (log axes, in log10 units) when `decades`.
fn ticks(a: f64, b: f64, decades: bool) -> Vec<f64> {
    if decades {
        return ((a.ceil() as i32)..=(b.floor() as i32))
            .map(f64::from)
            .collect();
    }
    (0..=5).map(|i| a + (b - a) * i as f64 / 5.0).collect()
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
        // Outputs get no directory made for them (sigpu_runtime::fs).
        std::fs::create_dir_all(&dir).unwrap();
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
    fn styles_dash_share_colours_and_put_ticks_at_decades() {
        let style = Style {
            strokes: vec![
                Stroke::default(),
                Stroke {
                    dashed: true,
                    colour: Some(0),
                },
            ],
            decade_ticks: true,
            y_range: Some((1e-4, 1e3)),
            legend_width: Some(300.0),
            ..Style::default()
        };
        let svg = chart().to_svg_styled(&style).unwrap();
        assert_eq!(
            svg.matches("stroke-dasharray").count(),
            2,
            "line and legend"
        );
        assert_eq!(svg.matches(r##"stroke="#1f77b4""##).count(), 4);
        for d in -4..=3 {
            assert!(svg.contains(&format!(">1e{d}</text>")), "{d}");
        }
        assert!(svg.contains(r#"width="850""#));
        // The default style draws as `to_svg` does.
        assert_eq!(
            chart().to_svg_styled(&Style::default()).unwrap(),
            chart().to_svg().unwrap()
        );
    }

    #[test]
    fn fixed_ranges_draw_an_empty_chart() {
        let mut c = chart();
        c.series.iter_mut().for_each(|s| s.points.clear());
        let style = Style {
            x_range: Some((0.0, 1.0)),
            y_range: Some((1e-6, 1.0)),
            ..Style::default()
        };
        assert!(c.to_svg_styled(&style).unwrap().starts_with("<svg"));
        assert!(matches!(c.to_svg(), Err(PlotError::Empty)));
    }

    #[test]
    fn empty_charts_are_an_error() {
        let mut c = chart();
        c.series.clear();
        assert!(matches!(c.to_svg(), Err(PlotError::Empty)));
    }
}
