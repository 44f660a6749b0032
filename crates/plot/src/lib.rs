//! The charts of sigpu's reports, drawn with [`plotters`] (SVG back-end) and rendered to PNG
//! with resvg. DejaVu Sans is bundled (`fonts/`, Bitstream Vera licence) and is the only font
//! either step uses, so a machine without system fonts (a CI runner, a GPU server) draws the
//! same labels and the same layout as any other.
//!
//! What every chart gets: ticks at 1-2-5 steps (whole decades on a logarithmic axis, with
//! 1-2-5 mantissas when the axis spans less than a decade), labels in plain decimals, SI
//! prefixes (`k`, `M`, `G`) or powers of ten, both axes described, and the legend in its own
//! band under the plot area, so it can neither hide data nor be cut off. [`Style`] adds dashed
//! or colour-grouped series, fixed ranges, error bars and upper bounds (points where nothing
//! was observed, e.g. a BER with zero bit errors, drawn as ▽ at the bound instead of dropped).
//!
//! ```
//! use sigpu_plot::{Format, LineChart, Series};
//!
//! let chart = LineChart {
//!     title: "throughput".into(),
//!     x_label: "length (elements)".into(),
//!     y_label: "throughput (G elements/s)".into(),
//!     log_x: true,
//!     log_y: false,
//!     series: vec![Series { name: "f32".into(), points: vec![(1e3, 1.0), (1e6, 40.0)] }],
//! };
//! let svg = chart.to_svg()?;
//! assert!(svg.contains("<svg") && svg.contains("f32"));
//! let png = chart.render(Format::Png)?;
//! assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
//! # Ok::<(), sigpu_plot::PlotError>(())
//! ```

#![warn(missing_docs)]

use plotters::chart::MeshStyle;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

mod ticks;
pub use ticks::{linear_ticks, log_ticks, TickLabels};

/// One named line of (x, y) points.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// The legend's text for this line.
    pub name: String,
    /// (x, y) in data units, in drawing order; points that are not finite, or not positive on a
    /// logarithmic axis, are skipped.
    pub points: Vec<(f64, f64)>,
}

/// A chart with linear or logarithmic (base 10) axes.
#[derive(Clone, Debug, PartialEq)]
pub struct LineChart {
    /// Printed above the plot area.
    pub title: String,
    /// Axis descriptions, with units: "throughput (G elements/s)".
    pub x_label: String,
    /// As `x_label`, for the y axis.
    pub y_label: String,
    /// A logarithmic x axis; points with x ≤ 0 are then skipped.
    pub log_x: bool,
    /// A logarithmic y axis; points with y ≤ 0 are then skipped.
    pub log_y: bool,
    /// The lines, in legend order; series i is drawn in palette colour i unless its
    /// [`Stroke`] says otherwise.
    pub series: Vec<Series>,
}

/// Why a chart could not be drawn or written.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    /// Nothing to draw: a line chart without a drawable point (and without both fixed ranges),
    /// or a bar chart without a finite value.
    #[error("chart has no finite points to draw")]
    Empty,
    /// plotters or resvg failed; their message.
    #[error("rendering the chart: {0}")]
    Render(String),
    /// An output file named with an extension other than `.png` or `.svg`.
    #[error("{path}: the picture format follows the extension: .png or .svg")]
    Format {
        /// The file name as given.
        path: String,
    },
    /// The picture could not be written.
    #[error("writing {path}: {source}")]
    Write {
        /// The file that could not be written.
        path: String,
        /// The operating system's error.
        source: std::io::Error,
    },
}

/// A picture format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// A standalone SVG document.
    Svg,
    /// A PNG image rendered from the SVG with the bundled font.
    Png,
}

impl Format {
    /// The format a file name asks for by its extension (`.png`, `.svg`, any case).
    pub fn of(path: &Path) -> Result<Format, PlotError> {
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        match ext.to_ascii_lowercase().as_str() {
            "png" => Ok(Format::Png),
            "svg" => Ok(Format::Svg),
            _ => Err(PlotError::Format {
                path: path.display().to_string(),
            }),
        }
    }
}

/// An axis range in data units: (low, high).
type Range = (f64, f64);

/// Colour-blind-friendly defaults (matplotlib's tab10 order).
const PALETTE: [RGBColor; 8] = [
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0xd6, 0x27, 0x28),
    RGBColor(0x2c, 0xa0, 0x2c),
    RGBColor(0xff, 0x7f, 0x0e),
    RGBColor(0x94, 0x67, 0xbd),
    RGBColor(0x8c, 0x56, 0x4b),
    RGBColor(0xe3, 0x77, 0xc2),
    RGBColor(0x17, 0xbe, 0xcf),
];
const GRID: RGBColor = RGBColor(0xdd, 0xdd, 0xdd);
const FONT: &str = "sans-serif";
/// Canvas width and the height of the part above the legend band, in pixels.
const W: u32 = 860;
const PLOT_H: u32 = 500;

/// How one series is drawn beyond the defaults (a solid line in palette colour i for series i).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Stroke {
    /// Draw the line dashed (e.g. a model or a bound beside a measurement).
    pub dashed: bool,
    /// Palette index, so that related series (e.g. a BER and its FER) share a colour.
    pub colour: Option<usize>,
}

/// A confidence interval at `x`, drawn as an error bar from `lo` to `hi`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    /// Where the bar stands, in x data units.
    pub x: f64,
    /// Lower end, in y data units.
    pub lo: f64,
    /// Upper end, in y data units.
    pub hi: f64,
}

/// What a chart may set beyond [`LineChart`]'s fields; [`LineChart::to_svg`] draws with
/// `Style::default()`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Style {
    /// Per series, by index; series without one are drawn as by default.
    pub strokes: Vec<Stroke>,
    /// Axis ranges in data units, drawn as given (no padding), instead of the data's. With
    /// both, a chart without points draws its empty axes instead of failing.
    pub x_range: Option<(f64, f64)>,
    /// As `x_range`, for the y axis.
    pub y_range: Option<(f64, f64)>,
    /// Per series, by index: error bars (e.g. 95% confidence intervals).
    pub intervals: Vec<Vec<Interval>>,
    /// Per series, by index: (x, bound) where nothing was observed and only an upper bound
    /// is known, drawn as ▽ at the bound in the series' colour.
    pub upper_bounds: Vec<Vec<(f64, f64)>>,
    /// Per series, by index: (x, y) where nothing was observed and the upper bound lies above
    /// the series' measured points beside it (drawn there it would read as a floor): drawn as
    /// ↓ at y, which the caller places below the series' last measured point. The legend
    /// says so in one row ([`Style::below_label`]).
    pub below: Vec<Vec<(f64, f64)>>,
    /// The legend's text for the ↓ marks (default: "no errors observed: drawn below the last
    /// measured point").
    pub below_label: Option<String>,
    /// Lines under the legend that explain marks, numbers or names on the chart (one row per
    /// `\n`-separated line).
    pub note: Option<String>,
}

impl LineChart {
    fn transform(&self, (x, y): (f64, f64)) -> Option<(f64, f64)> {
        let ok = |v: f64, log: bool| v.is_finite() && (!log || v > 0.0);
        (ok(x, self.log_x) && ok(y, self.log_y)).then_some((x, y))
    }

    /// The chart as a standalone SVG document.
    pub fn to_svg(&self) -> Result<String, PlotError> {
        self.to_svg_styled(&Style::default())
    }

    /// The chart as a standalone SVG document, drawn with `style`.
    pub fn to_svg_styled(&self, style: &Style) -> Result<String, PlotError> {
        let (xr, yr) = self.ranges(style)?;
        let legend = Legend::of(self, style);
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, (W, PLOT_H + legend.height()))
                .into_drawing_area();
            root.fill(&WHITE).map_err(render)?;
            let (top, bottom) = root.split_vertically(PLOT_H);
            self.draw(&top, axis(xr, self.log_x), axis(yr, self.log_y), style)?;
            legend.draw(&bottom)?;
            root.present().map_err(render)?;
        }
        Ok(without_control_characters(svg))
    }

    /// The chart in `format`, drawn with the default style.
    pub fn render(&self, format: Format) -> Result<Vec<u8>, PlotError> {
        self.render_styled(format, &Style::default())
    }

    /// The chart in `format`, drawn with `style`.
    pub fn render_styled(&self, format: Format, style: &Style) -> Result<Vec<u8>, PlotError> {
        encode(self.to_svg_styled(style)?, format)
    }

    /// Writes the chart to `path` (atomically), as PNG or SVG by its extension.
    pub fn save(&self, path: &Path, style: &Style) -> Result<(), PlotError> {
        let bytes = self.render_styled(Format::of(path)?, style)?;
        write(path, &bytes)
    }

    /// Writes `<base>.svg` and `<base>.png`, each atomically.
    pub fn write(&self, base: &Path) -> Result<(), PlotError> {
        self.write_styled(base, &Style::default())
    }

    /// Writes `<base>.svg` and `<base>.png`, each atomically, drawn with `style`.
    pub fn write_styled(&self, base: &Path, style: &Style) -> Result<(), PlotError> {
        write_both(base, self.to_svg_styled(style)?)
    }

    /// The ranges to draw: the style's, else the data's (padded by 5% on linear axes; on log
    /// axes widened to whole decades when the data span one or more).
    fn ranges(&self, style: &Style) -> Result<(Range, Range), PlotError> {
        let mut pts: Vec<(f64, f64)> = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().filter_map(|&p| self.transform(p)))
            .collect();
        // Bounds and interval ends belong in the picture too.
        for b in style.upper_bounds.iter().chain(&style.below).flatten() {
            pts.extend(self.transform(*b));
        }
        for i in style.intervals.iter().flatten() {
            pts.extend(self.transform((i.x, i.hi)));
        }
        if pts.is_empty() && (style.x_range.is_none() || style.y_range.is_none()) {
            return Err(PlotError::Empty);
        }
        let span = |vals: Vec<f64>, log: bool| {
            let (lo, hi) = vals
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
                    (a.min(v), b.max(v))
                });
            pad(lo, hi, log)
        };
        let x = match style.x_range {
            Some(r) => r,
            None => span(pts.iter().map(|p| p.0).collect(), self.log_x),
        };
        let y = match style.y_range {
            Some(r) => r,
            None => span(pts.iter().map(|p| p.1).collect(), self.log_y),
        };
        Ok((x, y))
    }

    fn draw(
        &self,
        area: &DrawingArea<SVGBackend, Shift>,
        (x, x_labels): (Axis, TickLabels),
        (y, y_labels): (Axis, TickLabels),
        style: &Style,
    ) -> Result<(), PlotError> {
        let label_font = (FONT, 18).into_font();
        let y_width = y_labels
            .texts()
            .map(|t| {
                area.estimate_text_size(&t, &TextStyle::from(label_font.clone()))
                    .map_or(40, |s| s.0)
            })
            .max()
            .unwrap_or(40);
        let mut chart = ChartBuilder::on(area)
            .caption(&self.title, title_font(&self.title, W))
            .margin_top(14)
            .margin_right(30)
            .margin_left(10)
            .x_label_area_size(52)
            .y_label_area_size(y_width + 34)
            .build_cartesian_2d(x, y)
            .map_err(render)?;
        let (xf, yf) = (|v: &f64| x_labels.label(*v), |v: &f64| y_labels.label(*v));
        house_mesh(
            &mut chart.configure_mesh(),
            [&self.x_label, &self.y_label],
            [&xf, &yf],
        )
        .x_labels(32)
        .label_style(label_font.clone())
        .draw()
        .map_err(render)?;
        for (i, series) in self.series.iter().enumerate() {
            let stroke = style.strokes.get(i).copied().unwrap_or_default();
            let colour = PALETTE[stroke.colour.unwrap_or(i) % PALETTE.len()];
            let points: Vec<(f64, f64)> = series
                .points
                .iter()
                .filter_map(|&p| self.transform(p))
                .collect();
            let line = ShapeStyle::from(&colour).stroke_width(2);
            if stroke.dashed {
                chart
                    .draw_series(DashedLineSeries::new(points.clone(), 8, 5, line))
                    .map_err(render)?;
            } else {
                chart
                    .draw_series(LineSeries::new(points.clone(), line))
                    .map_err(render)?;
            }
            chart
                .draw_series(points.iter().map(|&p| Circle::new(p, 3, colour.filled())))
                .map_err(render)?;
            let thin = ShapeStyle::from(&colour).stroke_width(1);
            let bars = style.intervals.get(i).map_or(&[][..], Vec::as_slice);
            let floor = chart.y_range().start;
            for b in bars.iter().filter(|b| b.x.is_finite() && b.hi.is_finite()) {
                let lo = if self.log_y && b.lo <= 0.0 {
                    floor
                } else {
                    b.lo
                };
                let (lo, hi) = (lo.max(floor), b.hi);
                if self.log_y && hi <= 0.0 {
                    continue;
                }
                chart
                    .draw_series([PathElement::new(vec![(b.x, lo), (b.x, hi)], thin)])
                    .map_err(render)?;
                for end in [lo, hi] {
                    chart
                        .draw_series([EmptyElement::at((b.x, end))
                            + PathElement::new(vec![(-4, 0), (4, 0)], thin)])
                        .map_err(render)?;
                }
            }
            let bounds = style.upper_bounds.get(i).map_or(&[][..], Vec::as_slice);
            for &p in bounds.iter().filter(|&&p| self.transform(p).is_some()) {
                chart
                    .draw_series([EmptyElement::at(p) + down_triangle(line)])
                    .map_err(render)?;
            }
            let below = style.below.get(i).map_or(&[][..], Vec::as_slice);
            for &p in below.iter().filter(|&&p| self.transform(p).is_some()) {
                chart
                    .draw_series([EmptyElement::at(p) + down_arrow(line)])
                    .map_err(render)?;
            }
        }
        Ok(())
    }
}

/// ▽, 11 pixels wide, centred on its anchor.
fn down_triangle(style: ShapeStyle) -> PathElement<(i32, i32)> {
    PathElement::new(vec![(-6, -5), (6, -5), (0, 6), (-6, -5)], style)
}

/// ↓, 15 pixels tall, its tip on its anchor.
fn down_arrow(style: ShapeStyle) -> PathElement<(i32, i32)> {
    PathElement::new(vec![(0, -14), (0, 0), (-5, -6), (0, 0), (5, -6)], style)
}

/// One axis: its coordinate with the key points of [`ticks`], and their labels.
type Axis = plotters::coord::combinators::WithKeyPoints<Box<dyn DynRanged>>;

fn axis((lo, hi): (f64, f64), log: bool) -> (Axis, TickLabels) {
    let labels = if log {
        log_ticks(lo, hi)
    } else {
        linear_ticks(lo, hi)
    };
    let coord: Box<dyn DynRanged> = if log {
        Box::new(LogCoord::from((lo..hi).log_scale()))
    } else {
        Box::new(plotters::coord::types::RangedCoordf64::from(lo..hi))
    };
    (coord.with_key_points(labels.values.clone()), labels)
}

/// An object-safe view of the two f64 coordinates, so one drawing routine serves all four
/// combinations of linear and logarithmic axes.
pub(crate) trait DynRanged {
    fn map_value(&self, value: &f64, limit: (i32, i32)) -> i32;
    fn range_value(&self) -> std::ops::Range<f64>;
}

impl<T: Ranged<ValueType = f64>> DynRanged for T {
    fn map_value(&self, value: &f64, limit: (i32, i32)) -> i32 {
        self.map(value, limit)
    }
    fn range_value(&self) -> std::ops::Range<f64> {
        self.range()
    }
}

impl Ranged for Box<dyn DynRanged> {
    type FormatOption = plotters::coord::ranged1d::DefaultFormatting;
    type ValueType = f64;
    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        self.as_ref().map_value(value, limit)
    }
    fn key_points<Hint: plotters::coord::ranged1d::KeyPointHint>(&self, _: Hint) -> Vec<f64> {
        // The key points are always bound by `with_key_points`.
        Vec::new()
    }
    fn range(&self) -> std::ops::Range<f64> {
        self.as_ref().range_value()
    }
}

fn pad(lo: f64, hi: f64, log: bool) -> (f64, f64) {
    if log {
        // Whole decades when that adds little; else 5% of the span each side.
        let (a, b) = (lo.log10(), hi.log10());
        let (fa, cb) = (a.floor(), b.ceil());
        if b - a >= 1.0 && (a - fa) + (cb - b) <= 0.15 * (b - a) {
            return (10f64.powf(fa), 10f64.powf(cb));
        }
        let m = ((b - a) * 0.05).max(0.02);
        return (10f64.powf(a - m), 10f64.powf(b + m));
    }
    if hi - lo < 1e-12 * lo.abs().max(1e-300) || hi == lo {
        let d = if lo == 0.0 { 1.0 } else { lo.abs() * 0.1 };
        return (lo - d, hi + d);
    }
    let m = (hi - lo) * 0.05;
    (lo - m, hi + m)
}

/// The legend band under the plot: one entry per series (line sample, dot, name), laid out in
/// as many equal columns as fit, then the note.
struct Legend {
    entries: Vec<(String, RGBColor, Mark)>,
    bound_entry: bool,
    /// The ↓ marks' row ([`Style::below`]), when there are any.
    below_entry: Option<String>,
    note: Option<String>,
    columns: usize,
    /// The canvas width, pixels.
    width: u32,
}

/// The grid and axes every chart shares: grey major lines only, the axis descriptions
/// `desc` (x, y) in one size, and `labels` (x, y) writing the ticks. The caller sets what
/// differs (tick counts, label font) and draws.
fn house_mesh<'m, 'a, 'b, X, Y, DB>(
    mesh: &'m mut MeshStyle<'a, 'b, X, Y, DB>,
    desc: [&str; 2],
    labels: [&'b dyn Fn(&f64) -> String; 2],
) -> &'m mut MeshStyle<'a, 'b, X, Y, DB>
where
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
    DB: DrawingBackend,
{
    mesh.y_labels(32)
        .bold_line_style(GRID)
        .light_line_style(TRANSPARENT)
        .x_desc(desc[0])
        .y_desc(desc[1])
        .x_label_formatter(labels[0])
        .y_label_formatter(labels[1])
        .axis_desc_style((FONT, 19))
}

const ROW: u32 = 24;

/// A legend entry's sample: a line (solid or dashed) with a dot, or a bar's colour.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Mark {
    Line,
    Dashed,
    Bar,
}

impl Legend {
    fn of(chart: &LineChart, style: &Style) -> Legend {
        let entries: Vec<(String, RGBColor, Mark)> = chart
            .series
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let stroke = style.strokes.get(i).copied().unwrap_or_default();
                let c = PALETTE[stroke.colour.unwrap_or(i) % PALETTE.len()];
                let mark = if stroke.dashed {
                    Mark::Dashed
                } else {
                    Mark::Line
                };
                (s.name.clone(), c, mark)
            })
            .collect();
        let widest = entries.iter().map(|e| text_width(&e.0)).max().unwrap_or(0) + 60;
        let columns = ((W - 40) / widest.max(1)).clamp(1, 4) as usize;
        Legend {
            entries,
            bound_entry: style.upper_bounds.iter().any(|b| !b.is_empty()),
            below_entry: style.below.iter().any(|b| !b.is_empty()).then(|| {
                (style.below_label.clone()).unwrap_or_else(|| {
                    "no errors observed: drawn below the last measured point".to_owned()
                })
            }),
            note: style.note.clone(),
            columns,
            width: W,
        }
    }

    fn rows(&self) -> u32 {
        self.entries.len().div_ceil(self.columns) as u32
    }

    fn height(&self) -> u32 {
        let note_lines = self.note.as_deref().map_or(0, |n| n.lines().count() as u32);
        let extra =
            u32::from(self.bound_entry) + u32::from(self.below_entry.is_some()) + note_lines;
        (self.rows() + extra) * ROW + 12
    }

    fn draw(&self, area: &DrawingArea<SVGBackend, Shift>) -> Result<(), PlotError> {
        let font = (FONT, 18).into_font();
        let col_w = (self.width as i32 - 40) / self.columns as i32;
        for (k, (name, colour, mark)) in self.entries.iter().enumerate() {
            let (col, row) = ((k % self.columns) as i32, (k / self.columns) as i32);
            let (x, y) = (30 + col * col_w, 4 + row * ROW as i32 + ROW as i32 / 2);
            let line = ShapeStyle::from(colour).stroke_width(2);
            if *mark == Mark::Bar {
                area.draw(&Rectangle::new(
                    [(x + 6, y - 7), (x + 24, y + 7)],
                    colour.filled(),
                ))
                .map_err(render)?;
            } else if *mark == Mark::Dashed {
                for s in [0, 12, 24] {
                    area.draw(&PathElement::new(vec![(x + s, y), (x + s + 7, y)], line))
                        .map_err(render)?;
                }
            } else {
                area.draw(&PathElement::new(vec![(x, y), (x + 30, y)], line))
                    .map_err(render)?;
            }
            if *mark != Mark::Bar {
                area.draw(&Circle::new((x + 15, y), 3, colour.filled()))
                    .map_err(render)?;
            }
            area.draw(&Text::new(
                name.clone(),
                (x + 38, y),
                TextStyle::from(font.clone()).pos(text_pos_left()),
            ))
            .map_err(render)?;
        }
        let mut y = 4 + self.rows() as i32 * ROW as i32 + ROW as i32 / 2;
        if self.bound_entry {
            let grey = ShapeStyle::from(&BLACK).stroke_width(2);
            area.draw(&(EmptyElement::at((45, y)) + down_triangle(grey)))
                .map_err(render)?;
            area.draw(&Text::new(
                "no errors observed: drawn at the 95% upper confidence bound".to_owned(),
                (68, y),
                TextStyle::from(font.clone()).pos(text_pos_left()),
            ))
            .map_err(render)?;
            y += ROW as i32;
        }
        if let Some(label) = &self.below_entry {
            let grey = ShapeStyle::from(&BLACK).stroke_width(2);
            area.draw(&(EmptyElement::at((45, y + 7)) + down_arrow(grey)))
                .map_err(render)?;
            area.draw(&Text::new(
                label.clone(),
                (68, y),
                TextStyle::from(font.clone()).pos(text_pos_left()),
            ))
            .map_err(render)?;
            y += ROW as i32;
        }
        // One row per line of the note.
        for line in self.note.iter().flat_map(|n| n.lines()) {
            area.draw(&Text::new(
                line.to_owned(),
                (30, y),
                TextStyle::from(font.clone()).pos(text_pos_left()),
            ))
            .map_err(render)?;
            y += ROW as i32;
        }
        Ok(())
    }
}

fn text_pos_left() -> plotters::style::text_anchor::Pos {
    use plotters::style::text_anchor::{HPos, Pos, VPos};
    Pos::new(HPos::Left, VPos::Center)
}

/// Registers the bundled font under the family name every chart uses, once.
fn fonts() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // A failure here would mean the bundled file is not a font: the tests catch it.
        let _ = plotters::style::register_font(FONT, FontStyle::Normal, DEJAVU);
    });
}

static DEJAVU: &[u8] = include_bytes!("../fonts/DejaVuSans.ttf");

/// The title's font: 24 (pixel size ≈ 19) or smaller, so that the title fits the canvas.
fn title_font(title: &str, width: u32) -> FontDesc<'static> {
    fonts();
    let fits = |size: u32| {
        (FONT, size as f64)
            .into_font()
            .box_size(title)
            .is_ok_and(|b| b.0 + 40 <= width)
    };
    let size = (14..=24).rev().find(|&s| fits(s)).unwrap_or(14);
    (FONT, size as f64).into_font()
}

/// The width of `text` in pixels at the legend's font size.
fn text_width(text: &str) -> u32 {
    fonts();
    (FONT, 18)
        .into_font()
        .box_size(text)
        .map_or(8 * text.chars().count() as u32, |s| s.0)
}

/// `svg` with every control character but tab, line feed and carriage return replaced by
/// U+FFFD: XML forbids them (a NUL from a name would make the document unreadable to every
/// SVG reader, resvg included), and the chart's own markup has none, so only text from a
/// title, a label or a series name is touched.
fn without_control_characters(svg: String) -> String {
    if !svg.chars().any(forbidden_in_xml) {
        return svg;
    }
    svg.chars()
        .map(|c| if forbidden_in_xml(c) { '\u{FFFD}' } else { c })
        .collect()
}

fn forbidden_in_xml(c: char) -> bool {
    c.is_control() && !matches!(c, '\t' | '\n' | '\r')
}

fn render<E: std::fmt::Display>(e: E) -> PlotError {
    PlotError::Render(e.to_string())
}

fn encode(svg: String, format: Format) -> Result<Vec<u8>, PlotError> {
    match format {
        Format::Svg => Ok(svg.into_bytes()),
        Format::Png => svg_to_png(&svg),
    }
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), PlotError> {
    sigpu_runtime::fs::write_atomic(path, bytes).map_err(|source| PlotError::Write {
        path: path.display().to_string(),
        source,
    })
}

fn write_both(base: &Path, svg: String) -> Result<(), PlotError> {
    let png = svg_to_png(&svg)?;
    write(&base.with_extension("png"), &png)?;
    write(&base.with_extension("svg"), svg.as_bytes())
}

/// Renders an SVG document to PNG bytes at its own size, with the bundled font only.
pub fn svg_to_png(svg: &str) -> Result<Vec<u8>, PlotError> {
    use resvg::{tiny_skia, usvg};
    let mut options = usvg::Options {
        font_family: "DejaVu Sans".into(),
        ..usvg::Options::default()
    };
    let db = options.fontdb_mut();
    db.load_font_data(DEJAVU.to_vec());
    db.set_sans_serif_family("DejaVu Sans");
    let tree = usvg::Tree::from_str(svg, &options).map_err(render)?;
    let size = tree.size().to_int_size();
    let mut pixmap = tiny_skia::Pixmap::new(size.width(), size.height())
        .ok_or_else(|| PlotError::Render("empty image".into()))?;
    pixmap.fill(tiny_skia::Color::WHITE);
    resvg::render(&tree, tiny_skia::Transform::default(), &mut pixmap.as_mut());
    pixmap.encode_png().map_err(render)
}

/// A grouped bar chart: one group of bars per category, one bar per series.
#[derive(Clone, Debug, PartialEq)]
pub struct BarChart {
    /// Printed above the plot area.
    pub title: String,
    /// Description of the category axis.
    pub x_label: String,
    /// Description of the value axis, with units: "speedup (×)".
    pub y_label: String,
    /// The bar series' names, in the order of each group's values.
    pub series: Vec<String>,
    /// The categories, left to right.
    pub groups: Vec<BarGroup>,
    /// A dashed horizontal line at this value (e.g. speedup 1), with its legend text.
    pub reference: Option<(f64, String)>,
    /// Lines under the legend that explain marks, numbers or names on the chart (one row per
    /// `\n`-separated line).
    pub note: Option<String>,
}

/// One category's bars; `labels` are small texts above the bars (e.g. a count), by series.
#[derive(Clone, Debug, PartialEq)]
pub struct BarGroup {
    /// The category's label, under its group.
    pub name: String,
    /// One value per series, in [`BarChart::series`] order; `None` (or a non-finite value)
    /// leaves that bar out.
    pub values: Vec<Option<f64>>,
    /// Text above each bar, by series; `None` for none.
    pub labels: Vec<Option<String>>,
}

impl BarChart {
    /// The chart as a standalone SVG document.
    pub fn to_svg(&self) -> Result<String, PlotError> {
        fonts();
        let ymax = self
            .groups
            .iter()
            .flat_map(|g| g.values.iter().flatten())
            .copied()
            .filter(|v| v.is_finite())
            .chain(self.reference.iter().map(|r| r.0))
            .fold(f64::NAN, f64::max);
        if !ymax.is_finite() {
            return Err(PlotError::Empty);
        }
        let mut entries: Vec<(String, RGBColor, Mark)> = self
            .series
            .iter()
            .enumerate()
            .map(|(i, s)| (s.clone(), bar_colour(i), Mark::Bar))
            .collect();
        if let Some((_, text)) = &self.reference {
            entries.push((text.clone(), BLACK, Mark::Dashed));
        }
        let n = self.groups.len().max(1);
        // Room for each group's name under its bars.
        let width = W.max(110 + 100 * n as u32);
        let mut legend = Legend {
            entries,
            bound_entry: false,
            below_entry: None,
            note: self.note.clone(),
            columns: 1,
            width,
        };
        let widest = legend
            .entries
            .iter()
            .map(|e| text_width(&e.0))
            .max()
            .unwrap_or(0)
            + 60;
        legend.columns = ((width - 40) / widest.max(1)).clamp(1, 5) as usize;
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, (width, PLOT_H + legend.height()))
                .into_drawing_area();
            root.fill(&WHITE).map_err(render)?;
            let (top, bottom) = root.split_vertically(PLOT_H);
            let (y, y_labels) = axis((0.0, ymax * 1.12), false);
            let centres: Vec<f64> = (0..n).map(|i| i as f64 + 0.5).collect();
            let inner: Box<dyn DynRanged> =
                Box::new(plotters::coord::types::RangedCoordf64::from(0.0..n as f64));
            let x = inner.with_key_points(centres);
            let mut chart = ChartBuilder::on(&top)
                .caption(&self.title, title_font(&self.title, width))
                .margin_top(14)
                .margin_right(20)
                .margin_left(10)
                .x_label_area_size(52)
                .y_label_area_size(70)
                .build_cartesian_2d(x, y)
                .map_err(render)?;
            let names: Vec<&str> = self.groups.iter().map(|g| g.name.as_str()).collect();
            let xf = |v: &f64| {
                let i = v.floor() as usize;
                names.get(i).map_or(String::new(), |s| (*s).to_owned())
            };
            let yf = |v: &f64| y_labels.label(*v);
            house_mesh(
                &mut chart.configure_mesh(),
                [&self.x_label, &self.y_label],
                [&xf, &yf],
            )
            .x_labels(64)
            .disable_x_mesh()
            .label_style((FONT, 16))
            .draw()
            .map_err(render)?;
            let per = self.series.len().max(1) as f64;
            let w = 0.8 / per;
            for (gi, g) in self.groups.iter().enumerate() {
                for (bi, v) in g.values.iter().enumerate() {
                    let Some(v) = v.filter(|v| v.is_finite()) else {
                        continue;
                    };
                    let x0 = gi as f64 + 0.1 + w * bi as f64;
                    chart
                        .draw_series([Rectangle::new(
                            [(x0, 0.0), (x0 + w * 0.92, v)],
                            bar_colour(bi).filled(),
                        )])
                        .map_err(render)?;
                    if let Some(Some(text)) = g.labels.get(bi) {
                        let style = (FONT, 14).into_font().color(&BLACK).pos(
                            plotters::style::text_anchor::Pos::new(
                                plotters::style::text_anchor::HPos::Center,
                                plotters::style::text_anchor::VPos::Bottom,
                            ),
                        );
                        chart
                            .draw_series([Text::new(text.clone(), (x0 + w * 0.46, v), style)])
                            .map_err(render)?;
                    }
                }
            }
            if let Some((r, _)) = &self.reference {
                chart
                    .draw_series(DashedLineSeries::new(
                        [(0.0, *r), (n as f64, *r)],
                        6,
                        4,
                        ShapeStyle::from(&BLACK).stroke_width(1),
                    ))
                    .map_err(render)?;
            }
            legend.draw(&bottom)?;
            root.present().map_err(render)?;
        }
        Ok(without_control_characters(svg))
    }

    /// Writes `<base>.svg` and `<base>.png`, each atomically.
    pub fn write(&self, base: &Path) -> Result<(), PlotError> {
        write_both(base, self.to_svg()?)
    }
}

fn bar_colour(i: usize) -> RGBColor {
    [
        RGBColor(0x7f, 0x7f, 0x7f),
        PALETTE[0],
        PALETTE[1],
        PALETTE[2],
        PALETTE[3],
    ][i % 5]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the SVG has a text element reading exactly `t` (plotters writes the text on a
    /// line of its own).
    fn has_text(svg: &str, t: &str) -> bool {
        svg.contains(&format!(">\n{t}\n</text>"))
    }

    fn chart() -> LineChart {
        LineChart {
            title: "a <test>".into(),
            x_label: "x (s)".into(),
            y_label: "y (m)".into(),
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

    /// A control character in a name (a NUL from a sweep's code name) would be written raw
    /// into the SVG, which no XML reader accepts.
    #[test]
    fn control_characters_in_text_never_reach_the_svg() {
        let mut c = chart();
        c.title = "code\u{0}name\u{1b}[31m".into();
        c.series[0].name = "a\u{7}b\u{7f}".into();
        let svg = c.to_svg().unwrap();
        assert!(!svg.chars().any(forbidden_in_xml), "{svg:?}");
        assert!(svg.contains("code\u{FFFD}name\u{FFFD}[31m"));
        assert!(has_text(&svg, "a\u{FFFD}b\u{FFFD}"));
        assert_eq!(&svg_to_png(&svg).unwrap()[..4], b"\x89PNG");
    }

    #[test]
    fn svg_has_every_drawable_point_labels_and_escapes_text() {
        let svg = chart().to_svg().unwrap();
        assert_eq!(
            svg.matches("<circle").count(),
            3 + 1 + 2,
            "points + legend dots"
        );
        assert!(svg.contains("a &lt;test&gt;"));
        assert!(has_text(&svg, "x (s)") && has_text(&svg, "y (m)"));
        // 1-2-5 steps on a log axis of two decades.
        for label in ["1", "2", "5", "10", "20", "50", "100"] {
            assert!(has_text(&svg, label), "{label}");
        }
    }

    #[test]
    fn renders_a_png_and_writes_both_files() {
        let dir = std::env::temp_dir().join(format!("sigpu-plot-{}", std::process::id()));
        // Outputs get no directory made for them (sigpu_runtime::fs).
        std::fs::create_dir_all(&dir).unwrap();
        chart().write(&dir.join("c")).unwrap();
        let png = std::fs::read(dir.join("c.png")).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        assert!(std::fs::read_to_string(dir.join("c.svg"))
            .unwrap()
            .contains("<svg"));
        chart().save(&dir.join("d.PNG"), &Style::default()).unwrap();
        assert_eq!(&std::fs::read(dir.join("d.PNG")).unwrap()[1..4], b"PNG");
        let err = chart().save(&dir.join("e.pdf"), &Style::default());
        assert!(matches!(err, Err(PlotError::Format { .. })));
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn png_text_is_drawn_with_the_bundled_font() {
        // Text renders to dark pixels only when a font was found: compare a chart's PNG with
        // and without a long title in the same spot.
        let dark = |c: &LineChart| {
            let png = c.render(Format::Png).unwrap();
            let img = resvg::tiny_skia::Pixmap::decode_png(&png).unwrap();
            img.pixels().iter().filter(|p| p.red() < 100).count()
        };
        let mut titled = chart();
        titled.title = "W".repeat(40);
        assert!(dark(&titled) > dark(&chart()) + 500);
    }

    #[test]
    fn styles_dash_share_colours_bars_and_bounds() {
        let style = Style {
            strokes: vec![
                Stroke::default(),
                Stroke {
                    dashed: true,
                    colour: Some(0),
                },
            ],
            y_range: Some((1e-4, 1e3)),
            intervals: vec![vec![Interval {
                x: 2.0,
                lo: 5.0,
                hi: 20.0,
            }]],
            upper_bounds: vec![vec![], vec![(3.0, 1e-3)]],
            note: Some("a note".into()),
            ..Style::default()
        };
        let svg = chart().to_svg_styled(&style).unwrap();
        for d in ["10⁻⁴", "10⁻³", "10³"] {
            assert!(has_text(&svg, d), "{d}");
        }
        assert!(has_text(&svg, "a note") && svg.contains("upper confidence bound"));
        assert!(!svg.contains("below the last measured point"));
        // ↓ marks: drawn (one path each, beside the ▽) and explained in the legend.
        let below = Style {
            below: vec![vec![(3.0, 2.0)]],
            ..style.clone()
        };
        let with = chart().to_svg_styled(&below).unwrap();
        assert!(has_text(
            &with,
            "no errors observed: drawn below the last measured point"
        ));
        assert_eq!(
            with.matches("<polyline").count(),
            svg.matches("<polyline").count() + 2,
            "the mark and its legend sample"
        );
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
        assert!(c.to_svg_styled(&style).unwrap().contains("<svg"));
        assert!(matches!(c.to_svg(), Err(PlotError::Empty)));
    }

    #[test]
    fn empty_charts_are_an_error() {
        let mut c = chart();
        c.series.clear();
        assert!(matches!(c.to_svg(), Err(PlotError::Empty)));
    }

    #[test]
    fn bar_charts_label_groups_and_explain_numbers() {
        let chart = BarChart {
            title: "speedup".into(),
            x_label: "application".into(),
            y_label: "speedup (×)".into(),
            series: vec!["a".into(), "b".into()],
            groups: vec![
                BarGroup {
                    name: "bilateral".into(),
                    values: vec![Some(1.2), Some(0.9)],
                    labels: vec![None, Some("7".into())],
                },
                BarGroup {
                    name: "nbody".into(),
                    values: vec![Some(1.5), None],
                    labels: vec![],
                },
            ],
            reference: Some((1.0, "no speedup".into())),
            note: Some("numbers: runs".into()),
        };
        let svg = chart.to_svg().unwrap();
        for t in ["bilateral", "nbody", "7", "no speedup", "numbers: runs"] {
            assert!(has_text(&svg, t), "{t}");
        }
    }
}
