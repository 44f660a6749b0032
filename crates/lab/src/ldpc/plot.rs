//! Error-rate charts of sweeps (`sigpu ldpc simulate --plot`, `sigpu ldpc plot`): log-scale
//! BER / FER against SNR in dB, drawn by `sigpu-plot` with decade grid lines, FER dashed
//! beside its BER in the same colour, each point with its 95% confidence interval as an error
//! bar, and points without a single error drawn instead of being left out: as ▽ at the
//! interval's upper end (the rate is below it with 95% confidence) where that end lies below
//! the curve's last measured point, else as ↓ half a decade below that point, since a bound
//! above the curve would read as an error floor (with no error the BER's bound over frames is
//! the FER's). The legend says which is which; the note under it names the intervals drawn
//! ([`interval_note`]).

use anyhow::{Context, Result};
use serde::Serialize;
use sigpu_ldpc::interleave::Interleaving;
use sigpu_ldpc::sim::sweep::{SnrAxis, Sweep};
use sigpu_ldpc::sim::{BerCiMethod, PointResult};
use sigpu_plot::{Format, Interval, LineChart, Series, Stroke, Style};
use std::path::Path;

/// One curve: (SNR dB, rate) points with their 95% confidence intervals.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Curve {
    /// Legend text: `BER` or `FER`, then the sweep's label.
    pub label: String,
    /// Dashed stroke (a FER beside the solid BER of the same colour).
    pub dashed: bool,
    /// (SNR in dB, error rate) per point, in sweep order.
    pub points: Vec<(f64, f64)>,
    /// The 95% interval of each point, in the order of `points`.
    pub ci: Vec<[f64; 2]>,
    /// How each interval was made, in the order of `points`: `wilson` (FER), `frames-t` or
    /// `frames-worst-case` (BER, [`BerCiMethod`]).
    pub ci_method: Vec<&'static str>,
}

/// Which intervals the chart's error bars are, one line each: the FER's Wilson interval, the
/// BER's frame-level one, and the worst case over spreads for BER points read from files that
/// lack the spread of errors between frames. Points without an error are left out: they are
/// drawn as ▽, and with no error both BER methods give the same bound.
pub fn interval_note(curves: &[Curve]) -> String {
    let has = |m: &str| {
        curves.iter().any(|c| {
            let drawn = c.points.iter().map(|p| p.1 > 0.0);
            drawn.zip(&c.ci_method).any(|(bar, &x)| bar && x == m)
        })
    };
    let mut lines = vec!["error bars: 95% confidence intervals".to_owned()];
    if has("wilson") {
        lines[0].push_str("; FER: Wilson score interval over frames");
    }
    let (t, worst) = (
        has(BerCiMethod::FramesT.name()),
        has(BerCiMethod::FramesWorstCase.name()),
    );
    let ber = "BER: over frames, as bit errors cluster in frames";
    match (t, worst) {
        (true, false) => lines.push(format!("{ber} (Wilson on n / design effect, t quantile)")),
        (false, true) => lines.extend([
            format!("{ber}; these files lack the per-frame spread, so the bars"),
            "are the widest interval of any spread of their bit errors over the failed frames"
                .to_owned(),
        ]),
        (true, true) => lines.extend([
            format!("{ber} (Wilson on n / design effect, t quantile); points from"),
            "files without the per-frame spread: the widest interval of any spread over the frames"
                .to_owned(),
        ]),
        (false, false) => {}
    }
    lines.join("\n")
}

/// The legend's text for a zero point drawn below its curve.
const BELOW_LABEL: &str =
    "no errors observed; their 95% bound lies above the curve: drawn below its last point";

/// Where a curve's points without an error are drawn.
struct ZeroMarks {
    /// ▽ at the 95% upper bound, where the bound lies below the curve's last measured point
    /// before it (or the curve has none): the bound says something there.
    at_bound: Vec<(f64, f64)>,
    /// ↓ half a decade below the last measured point before it, where the bound lies at or
    /// above that point: drawn at the bound, the mark would read as an error floor (the BER
    /// bound over frames is the FER's, far above the measured BER).
    below: Vec<(f64, f64)>,
}

/// Sorts `c`'s zero points into [`ZeroMarks`]. "The last measured point before it" is the
/// measured point of the largest SNR below the zero point's, else the curve's lowest.
fn zero_marks(c: &Curve) -> ZeroMarks {
    let measured: Vec<(f64, f64)> = (c.points.iter().copied())
        .filter(|p| p.1 > 0.0 && p.0.is_finite())
        .collect();
    let mut marks = ZeroMarks {
        at_bound: Vec::new(),
        below: Vec::new(),
    };
    for (p, ci) in c.points.iter().zip(&c.ci) {
        if p.1 != 0.0 || ci[1].is_nan() || ci[1] <= 0.0 {
            continue;
        }
        let before = (measured.iter())
            .filter(|m| m.0 < p.0)
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .or_else(|| measured.iter().min_by(|a, b| a.1.total_cmp(&b.1)));
        match before {
            Some(&(_, last)) if ci[1] >= last => marks.below.push((p.0, last / 10f64.sqrt())),
            _ => marks.at_bound.push((p.0, ci[1])),
        }
    }
    marks
}

/// The chart and its style; curves `i` that share `i / per_colour` share a colour.
pub fn error_rate_chart(
    title: &str,
    axis: SnrAxis,
    curves: &[Curve],
    per_colour: usize,
) -> (LineChart, Style) {
    let measured = |c: &Curve| {
        c.points
            .iter()
            .zip(&c.ci)
            .filter(|(p, _)| p.1 > 0.0 && p.0.is_finite())
            .map(|(&p, &ci)| (p, ci))
            .collect::<Vec<_>>()
    };
    let zeros: Vec<ZeroMarks> = curves.iter().map(zero_marks).collect();
    let (mut x0, mut x1, mut y0, mut y1) = (
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::INFINITY,
        f64::NEG_INFINITY,
    );
    for (c, z) in curves.iter().zip(&zeros) {
        let measured = c.points.iter().copied().filter(|p| p.1 > 0.0);
        // Zero points are drawn where their marks stand; the lower ends of intervals may sit
        // below the axis (they are cut at its floor).
        for &(x, _) in &c.points {
            (x0, x1) = (x0.min(x), x1.max(x));
        }
        for (_, y) in measured.chain(z.at_bound.iter().chain(&z.below).copied()) {
            (y0, y1) = (y0.min(y.log10()), y1.max(y.log10()));
        }
    }
    if !x0.is_finite() {
        (x0, x1) = (0.0, 1.0);
    }
    if !y0.is_finite() {
        (y0, y1) = (-6.0, 0.0);
    }
    let margin = ((x1 - x0) * 0.04).max(0.02);
    // Whole decades from at most 1e-1 up to at most 1 (a rate), at least one decade tall.
    let low = y0.floor().min(-1.0);
    let high = y1.ceil().min(0.0).max(low + 1.0);
    let chart = LineChart {
        title: title.to_owned(),
        x_label: format!("{} (dB)", axis.label()),
        y_label: "error rate (BER: per bit, FER: per frame)".into(),
        log_x: false,
        log_y: true,
        series: curves
            .iter()
            .map(|c| Series {
                name: c.label.clone(),
                points: measured(c).into_iter().map(|(p, _)| p).collect(),
            })
            .collect(),
    };
    let style = Style {
        strokes: (0..curves.len())
            .map(|i| Stroke {
                dashed: curves[i].dashed,
                colour: Some(i / per_colour.max(1)),
            })
            .collect(),
        x_range: Some((x0 - margin, x1 + margin)),
        y_range: Some((10f64.powf(low), 10f64.powf(high))),
        intervals: curves
            .iter()
            .map(|c| {
                measured(c)
                    .into_iter()
                    .map(|(p, ci)| Interval {
                        x: p.0,
                        lo: ci[0],
                        hi: ci[1],
                    })
                    .collect()
            })
            .collect(),
        upper_bounds: zeros.iter().map(|z| z.at_bound.clone()).collect(),
        below: zeros.iter().map(|z| z.below.clone()).collect(),
        below_label: Some(BELOW_LABEL.to_owned()),
        note: Some(interval_note(curves)),
    };
    (chart, style)
}

/// Draws the chart of `curves` into `path`, PNG or SVG by its extension.
pub fn save(
    path: &Path,
    title: &str,
    axis: SnrAxis,
    curves: &[Curve],
    per_colour: usize,
) -> Result<()> {
    Format::of(path)?;
    let (chart, style) = error_rate_chart(title, axis, curves, per_colour);
    chart
        .save(path, &style)
        .with_context(|| format!("drawing {}", path.display()))
}

/// The BER (and with `fer` the FER) curve of each sweep file, labelled with its decoder; a
/// QAM sweep without the bit interleaver says so, to tell it from one with it.
pub fn sweep_curves(sweeps: &[Sweep], axis: SnrAxis, fer: bool) -> Vec<Curve> {
    let mut curves = Vec::new();
    for sweep in sweeps {
        let label = match sweep.bit_interleaver {
            Interleaving::None if sweep.modulation.ends_with("qam") => {
                format!("no bit interleaver, {}", sweep.decoder)
            }
            _ => sweep.decoder.to_string(),
        };
        let curve = |what: &str, rate: fn(&PointResult) -> (f64, [f64; 2], &'static str)| Curve {
            label: format!("{what} {label}"),
            dashed: what == "FER",
            points: sweep
                .points
                .iter()
                .map(|p| (axis.of(p), rate(p).0))
                .collect(),
            ci: sweep.points.iter().map(|p| rate(p).1).collect(),
            ci_method: sweep.points.iter().map(|p| rate(p).2).collect(),
        };
        curves.push(curve("BER", |p| (p.ber, p.ber_ci, p.ber_ci_method.name())));
        if fer {
            curves.push(curve("FER", |p| (p.fer, p.fer_ci, "wilson")));
        }
    }
    curves
}

/// What [`plot_files`] drew: the picture, the SNR axis and the curves as drawn (label,
/// dashed FER or not, the (SNR, rate) points), as `sigpu ldpc plot --json` prints it.
#[derive(Serialize)]
pub struct Drawn {
    /// The picture written.
    pub output: String,
    /// `es_n0_db` or `eb_n0_db`.
    pub x: &'static str,
    /// The curves.
    pub series: Vec<Curve>,
}

/// The BER (with `fer` also the FER, dashed) of each sweep file of `inputs` in one chart
/// titled `title` (default: the first file's code and modulation), into `output`.
pub fn plot_files(
    inputs: &[std::path::PathBuf],
    axis: SnrAxis,
    fer: bool,
    title: Option<&str>,
    output: &Path,
) -> Result<Drawn> {
    Format::of(output).context("--output")?;
    // A file changed by hand is refused as on --resume: its points would be drawn as results.
    let read = |path: &std::path::PathBuf| -> sigpu_ldpc::Result<Sweep> {
        let sweep = Sweep::read(path)?;
        let code = sigpu_ldpc::Code::standard(&sweep.code).ok();
        sweep.validate(path, code.as_ref())?;
        Ok(sweep)
    };
    let sweeps = (inputs.iter())
        .map(|path| read(path).with_context(|| format!("--input {}", path.display())))
        .collect::<Result<Vec<_>>>()?;
    let curves = sweep_curves(&sweeps, axis, fer);
    let title = (title.map(str::to_owned))
        .unwrap_or_else(|| format!("{}, {}", sweeps[0].code, sweeps[0].modulation));
    save(output, &title, axis, &curves, if fer { 2 } else { 1 })
        .with_context(|| format!("--output {}", output.display()))?;
    Ok(Drawn {
        output: output.display().to_string(),
        x: match axis {
            SnrAxis::EbN0 => "eb_n0_db",
            SnrAxis::EsN0 => "es_n0_db",
        },
        series: curves,
    })
}

/// One sweep's BER and FER, titled with its code, modulation and decoder, into `path`.
pub fn save_sweep(path: &Path, sweep: &Sweep, axis: SnrAxis) -> Result<()> {
    let curves = sweep_curves(std::slice::from_ref(sweep), axis, true)
        .into_iter()
        .map(|c| Curve {
            label: c.label[..3].to_owned(),
            ..c
        })
        .collect::<Vec<_>>();
    let title = format!("{}, {}, {}", sweep.code, sweep.modulation, sweep.decoder);
    save(path, &title, axis, &curves, 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(db: f64, ber: f64, fer: f64) -> PointResult {
        let mut p: PointResult = serde_json::from_value(serde_json::json!({
            "es_n0_db": db, "eb_n0_db": db + 3.0, "frames": 10, "frame_errors": 1, "bit_errors": 1,
            "info_bits": 100, "ber": ber, "fer": fer, "ber_ci": [0.0, 1.0], "fer_ci": [0.0, 1.0],
            "mean_iterations": 1.0, "seconds": 1.0
        }))
        .unwrap();
        // Read without Σ e², the point has the worst case over spreads; the chart draws
        // whatever interval it is given.
        assert_eq!(p.ber_ci_method, BerCiMethod::FramesWorstCase);
        (p.ber, p.ber_ci) = (ber, [0.0, 1.0]);
        p
    }

    #[test]
    fn the_note_names_the_intervals_drawn() {
        let curve = |methods: &[&'static str]| Curve {
            label: "x".into(),
            dashed: false,
            points: vec![(1.0, 0.1); methods.len()],
            ci: vec![[0.0, 1.0]; methods.len()],
            ci_method: methods.to_vec(),
        };
        let note = interval_note(&[curve(&["frames-t"]), curve(&["wilson"])]);
        assert!(
            note.contains("FER: Wilson") && note.contains("BER: over frames"),
            "{note}"
        );
        assert!(!note.contains("widest"), "{note}");
        // A point without errors is drawn as ▽, not as a bar of its method.
        let mut zero = curve(&["frames-t", "frames-worst-case"]);
        zero.points[0].1 = 0.0;
        assert_eq!(
            interval_note(&[zero]),
            interval_note(&[curve(&["frames-worst-case"])])
        );
        let old = interval_note(&[curve(&["frames-worst-case"])]);
        assert!(
            old.contains("widest interval of any spread") && !old.contains("FER"),
            "{old}"
        );
        let both = interval_note(&[curve(&["frames-t", "frames-worst-case"])]);
        assert!(both.contains("t quantile") && both.contains("without the per-frame spread"));
        // Every line fits the chart's width: 860 pixels from x = 30, ~7.5 pixels a character
        // in the charts' 18-pixel font (a 100-character line of the note takes 745).
        for line in [note, old, both].iter().flat_map(|n| n.lines()) {
            assert!(line.chars().count() <= 104, "{line}");
        }
    }

    #[test]
    fn draws_every_positive_point_with_fer_dashed() {
        let sweep = Sweep {
            code: "c <1>".into(),
            modulation: "16qam".into(),
            demapper: "Exact".into(),
            bit_interleaver: Interleaving::None,
            decoder: "d".into(),
            nr: None,
            seed: 1,
            min_errors: 1,
            max_frames: 1,
            points: vec![
                point(1.0, 0.1, 0.5),
                point(1.5, 1e-3, 0.01),
                point(2.0, 0.0, 0.0),
            ],
        };
        let curves = sweep_curves(std::slice::from_ref(&sweep), SnrAxis::EbN0, true);
        assert_eq!(curves[0].label, "BER no bit interleaver, d");
        assert!(curves[1].dashed && curves[1].points[0] == (4.0, 0.5));
        let (chart, style) = error_rate_chart("t", SnrAxis::EsN0, &curves, 2);
        // Measured points are drawn with their intervals; the zero point as an upper bound.
        assert_eq!(chart.series[0].points.len(), 2);
        assert_eq!(style.intervals[0].len(), 2);
        // Its bound (1) lies above the last measured BER: drawn below that point instead.
        assert!(style.upper_bounds[0].is_empty());
        assert_eq!(
            style.below[0],
            vec![(5.0, 1e-3 / 10f64.sqrt())],
            "Eb/N0 = Es/N0 + 3 dB here"
        );
        let dir = std::env::temp_dir().join(format!("sigpu-ldpc-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        save_sweep(&dir.join("s.png"), &sweep, SnrAxis::EsN0).unwrap();
        assert_eq!(&std::fs::read(dir.join("s.png")).unwrap()[..4], b"\x89PNG");
        save_sweep(&dir.join("s.svg"), &sweep, SnrAxis::EsN0).unwrap();
        let svg = std::fs::read_to_string(dir.join("s.svg")).unwrap();
        assert!(svg.contains("c &lt;1&gt;") && svg.contains("Es/N0 (dB)"));
        assert!(save_sweep(&dir.join("s.txt"), &sweep, SnrAxis::EsN0).is_err());
        // Nothing to draw still makes a chart (the axes of an empty sweep).
        let empty = Sweep {
            points: vec![],
            ..sweep
        };
        save_sweep(&dir.join("e.svg"), &empty, SnrAxis::EsN0).unwrap();
        let _ = std::fs::remove_dir_all(dir);
    }

    /// A BER curve falling to 1e-6 and then a point without an error: its bound over frames
    /// (the FER's, 3.7e-4 after 10,000 frames) lies far above the curve, and drawn there it
    /// looked like an error floor. The FER's own zero point, whose bound lies below its last
    /// measured point, stays at the bound.
    #[test]
    fn zero_points_are_not_drawn_as_floors() {
        let curve = |label: &str, points: Vec<(f64, f64)>, bound: f64| Curve {
            label: label.into(),
            dashed: label == "FER",
            ci: (points.iter())
                .map(|p| {
                    if p.1 > 0.0 {
                        [p.1 / 2.0, p.1 * 2.0]
                    } else {
                        [0.0, bound]
                    }
                })
                .collect(),
            ci_method: vec!["frames-t"; points.len()],
            points,
        };
        let ber = curve(
            "BER",
            vec![(1.0, 1e-2), (2.0, 1e-4), (3.0, 1e-6), (4.0, 0.0)],
            3.7e-4,
        );
        let fer = curve(
            "FER",
            vec![(1.0, 0.5), (2.0, 0.1), (3.0, 0.02), (4.0, 0.0)],
            3.7e-4,
        );
        let (_, style) = error_rate_chart("t", SnrAxis::EsN0, &[ber, fer], 2);
        assert!(style.upper_bounds[0].is_empty());
        let (x, y) = style.below[0][0];
        assert!(x == 4.0 && y < 1e-6 && y > 1e-7, "{y}");
        assert_eq!(style.upper_bounds[1], vec![(4.0, 3.7e-4)]);
        assert!(style.below[1].is_empty());
        let floor = style.y_range.unwrap().0;
        assert!(floor <= y, "the mark is inside the axis: {floor}");
        assert!(style.below_label.as_deref().unwrap().chars().count() <= 104);
    }
}
