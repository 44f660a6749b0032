//! Error-rate charts of sweeps (`sigpu ldpc simulate --plot`, `sigpu ldpc plot`): log-scale
//! BER / FER against SNR in dB, drawn by `sigpu-plot` with decade grid lines, FER dashed
//! beside its BER in the same colour.

use anyhow::Result;
use serde::Serialize;
use sigpu_ldpc::interleave::Interleaving;
use sigpu_ldpc::sim::sweep::{SnrAxis, Sweep};
use sigpu_ldpc::sim::PointResult;
use sigpu_plot::{LineChart, Series, Stroke, Style};

/// One curve: (SNR dB, rate) points; rates ≤ 0 are not drawn (nothing to draw on a log axis).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Curve {
    pub label: String,
    /// Dashed stroke (a FER beside the solid BER of the same colour).
    pub dashed: bool,
    pub points: Vec<(f64, f64)>,
}

/// The points a log axis can show.
fn drawn(c: &Curve) -> impl Iterator<Item = (f64, f64)> + '_ {
    c.points.iter().copied().filter(|p| p.1 > 0.0)
}

/// The SVG document; curves `i` that share `i / per_colour` share a colour.
pub fn error_rate_svg(
    title: &str,
    axis: SnrAxis,
    curves: &[Curve],
    per_colour: usize,
) -> Result<String> {
    let (mut x0, mut x1, mut y0, mut y1) = (
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::INFINITY,
        f64::NEG_INFINITY,
    );
    for (x, y) in curves.iter().flat_map(drawn) {
        (x0, x1) = (x0.min(x), x1.max(x));
        (y0, y1) = (y0.min(y.log10()), y1.max(y.log10()));
    }
    if !x0.is_finite() {
        (x0, x1, y0, y1) = (0.0, 1.0, -6.0, 0.0);
    }
    if x1 - x0 < 1e-9 {
        x1 = x0 + 1.0;
    }
    // Whole decades from at most 1e-1 up to at most 1 (a rate), at least one decade tall.
    let low = y0.floor().min(-1.0);
    let high = y1
        .ceil()
        .max(y0.floor() + 1.0)
        .min(0.0)
        .max(y0.floor() + 1.0);
    let chart = LineChart {
        title: title.to_owned(),
        x_label: format!("{} (dB)", axis.label()),
        y_label: "error rate".into(),
        log_x: false,
        log_y: true,
        series: curves
            .iter()
            .map(|c| Series {
                name: c.label.clone(),
                points: drawn(c).collect(),
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
        decade_ticks: true,
        x_range: Some((x0, x1)),
        y_range: Some((10f64.powf(low), 10f64.powf(high))),
        legend_width: Some(480.0),
    };
    Ok(chart.to_svg_styled(&style)?)
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
        let curve = |what: &str, rate: fn(&PointResult) -> f64| Curve {
            label: format!("{what} {label}"),
            dashed: what == "FER",
            points: sweep.points.iter().map(|p| (axis.of(p), rate(p))).collect(),
        };
        curves.push(curve("BER", |p| p.ber));
        if fer {
            curves.push(curve("FER", |p| p.fer));
        }
    }
    curves
}

/// One sweep's BER and FER, titled with its code, modulation and decoder.
pub fn sweep_svg(sweep: &Sweep, axis: SnrAxis) -> Result<String> {
    let curves = sweep_curves(std::slice::from_ref(sweep), axis, true)
        .into_iter()
        .map(|c| Curve {
            label: c.label[..3].to_owned(),
            ..c
        })
        .collect::<Vec<_>>();
    let title = format!("{}, {}, {}", sweep.code, sweep.modulation, sweep.decoder);
    error_rate_svg(&title, axis, &curves, 2)
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
        p.ber = ber;
        p
    }

    #[test]
    fn draws_every_positive_point_with_fer_dashed() {
        let sweep = Sweep {
            code: "c <1>".into(),
            modulation: "16qam".into(),
            demapper: "Exact".into(),
            bit_interleaver: Interleaving::None,
            decoder: "d".into(),
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
        let svg = sweep_svg(&sweep, SnrAxis::EsN0).unwrap();
        assert_eq!(svg.matches("<circle").count(), 4);
        assert!(svg.contains("c &lt;1&gt;") && svg.starts_with("<svg"));
        assert!(svg.contains(">1e-3</text>") && svg.contains("Es/N0 (dB)"));
        // Nothing to draw still makes a chart (the axes of an empty sweep).
        let empty = Sweep {
            points: vec![],
            ..sweep
        };
        assert!(sweep_svg(&empty, SnrAxis::EsN0)
            .unwrap()
            .starts_with("<svg"));
    }
}
