//! The CLNS paper's Fig. 4/5: mean and max error of Re and Im of the table's raw reading of S_b
//! (before rounding to codes) against table size P_CL × P_θ, for the texture filter (H100
//! model) and the FMA lerps, over a dense grid and random inputs of the reduced domain outside
//! the near region (which the methods evaluate in closed form).

use super::TextTable;
use anyhow::{Context, Result};
use rayon::prelude::*;
use serde::Serialize;
use sigpu_clns::certify::Inputs;
use sigpu_clns::sb::sb_exact;
use sigpu_clns::{ClnsFormat, Geometry, Reader, SbTable};
use sigpu_fnapprox::FitError;
use sigpu_plot::{LineChart, Series};
use std::f64::consts::TAU;
use std::path::Path;

/// Fig. 4/5 at one table size and reader: the raw reading's error statistics.
#[derive(Clone, Debug, Serialize)]
pub struct Point {
    /// Texture filter (H100 model) or FMA lerps.
    pub reader: Reader,
    /// Table points along the magnitude axis (P_CL).
    pub p_cl: usize,
    /// Table points along θ (P_θ).
    pub p_theta: usize,
    /// Table size in bytes.
    pub table_bytes: usize,
    /// Inputs the statistics are over.
    pub inputs: usize,
    /// |Re error| in log2 units.
    pub re_mean: f64,
    /// Largest |Re error|, log2 units.
    pub re_max: f64,
    /// |Im error| in radians.
    pub im_mean: f64,
    /// Largest |Im error|, radians.
    pub im_max: f64,
}

/// Square tables P × P for each P in `sizes`, both readers, inputs of `format` (z over its
/// essential-zero range).
pub fn fig45(format: ClnsFormat, sizes: &[usize], inputs: &Inputs) -> Result<Vec<Point>, FitError> {
    let mut points = Vec::new();
    for &p in sizes {
        for reader in [Reader::Texture, Reader::Fma] {
            let g = Geometry::new(format, p, p);
            let t = SbTable::new(format, g, reader)?;
            let errs: Vec<(f64, f64)> = (0..inputs.len())
                .into_par_iter()
                .filter(|&i| !g.in_near_region(inputs.z()[i], inputs.theta()[i]))
                .map(|i| {
                    let (z, th) = (inputs.z()[i], inputs.theta()[i]);
                    let (re, im) = sb_exact(format, z, th);
                    let v = t.read(z, th);
                    ((v[0] as f64 - re).abs(), (v[1] as f64 - im).abs() * TAU)
                })
                .collect();
            let n = errs.len().max(1) as f64;
            points.push(Point {
                reader,
                p_cl: p,
                p_theta: p,
                table_bytes: t.grid.bytes(),
                inputs: errs.len(),
                re_mean: errs.iter().map(|e| e.0).sum::<f64>() / n,
                re_max: errs.iter().map(|e| e.0).fold(0.0, f64::max),
                im_mean: errs.iter().map(|e| e.1).sum::<f64>() / n,
                im_max: errs.iter().map(|e| e.1).fold(0.0, f64::max),
            });
        }
    }
    Ok(points)
}

/// The sizes the committed figures use.
pub const SIZES: [usize; 7] = [8, 16, 32, 64, 128, 256, 512];

/// The text `sigpu clns fig45` prints for `points` of `format`.
pub fn text(format: ClnsFormat, points: &[Point]) -> String {
    format!(
        "S_b table error outside the near region ({} inputs of {format}; H100 filter model):\n{}",
        points.first().map_or(0, |p| p.inputs),
        table(points).render()
    )
}

/// The points as a table: reader, size, KiB, then mean and max of each part.
pub fn table(points: &[Point]) -> TextTable {
    TextTable::new(
        &[
            "reader",
            "P_CL×P_θ",
            "KiB",
            "Re mean",
            "Re max",
            "Im mean (rad)",
            "Im max (rad)",
        ],
        points.iter(),
        |p| {
            vec![
                format!("{:?}", p.reader).to_lowercase(),
                format!("{}×{}", p.p_cl, p.p_theta),
                format!("{:.0}", p.table_bytes as f64 / 1024.0),
                format!("{:.2e}", p.re_mean),
                format!("{:.2e}", p.re_max),
                format!("{:.2e}", p.im_mean),
                format!("{:.2e}", p.im_max),
            ]
        },
    )
}

/// Writes fig4-re.{svg,png} and fig5-im.{svg,png} into `dir` (created if missing).
pub fn plot(points: &[Point], dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("--plot {}", dir.display()))?;
    type Pick = fn(&Point) -> (f64, f64);
    let figures: [(&str, &str, Pick, &str); 2] = [
        (
            "fig4-re",
            "Fig. 4 of Vouzis & Arnold's CLNS paper: error of Re S_b against table size",
            |p| (p.re_mean, p.re_max),
            "absolute error of Re S_b (log2 units)",
        ),
        (
            "fig5-im",
            "Fig. 5 of Vouzis & Arnold's CLNS paper: error of Im S_b against table size",
            |p| (p.im_mean, p.im_max),
            "absolute error of Im S_b (radians)",
        ),
    ];
    for (name, title, pick, y_label) in figures {
        let mut series = Vec::new();
        for (reader, label) in [(Reader::Texture, "texture"), (Reader::Fma, "FMA")] {
            for (stat, max) in [("mean", false), ("max", true)] {
                let points = points
                    .iter()
                    .filter(|p| p.reader == reader)
                    .map(|p| {
                        let (mean, worst) = pick(p);
                        (p.p_cl as f64, if max { worst } else { mean })
                    })
                    .collect();
                series.push(Series {
                    name: format!("{label}, {stat} error"),
                    points,
                });
            }
        }
        let chart = LineChart {
            title: title.into(),
            x_label: "table points per axis, P_CL = P_θ".into(),
            y_label: y_label.into(),
            log_x: true,
            log_y: true,
            series,
        };
        let base = dir.join(name);
        chart
            .write(&base)
            .with_context(|| format!("writing {}", base.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_falls_with_table_size() {
        let f = ClnsFormat::CLNS16;
        let inputs = Inputs::standard(f, 701, 3000, 2);
        let p = fig45(f, &[16, 64], &inputs).unwrap();
        let get = |r: Reader, n: usize| p.iter().find(|x| x.reader == r && x.p_cl == n).unwrap();
        for r in [Reader::Texture, Reader::Fma] {
            // Bilinear error is O(h²): 4× the points per axis, ≥ 8× less mean error.
            assert!(get(r, 64).re_mean * 8.0 < get(r, 16).re_mean, "{r:?}");
            assert!(get(r, 64).im_mean * 8.0 < get(r, 16).im_mean, "{r:?}");
        }
    }
}
