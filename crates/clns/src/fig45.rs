//! The seed's Fig. 4/5: mean and max error of Re and Im of the table's raw reading of S_b
//! (before rounding to codes) against table size P_CL × P_θ, for the texture filter (H100
//! model) and the FMA lerps, over a dense grid and random inputs of the reduced domain outside
//! the near region (which the methods evaluate in closed form).

use crate::certify::Inputs;
use crate::format::ClnsFormat;
use crate::sb::{sb_exact, Geometry, Reader, SbTable};
use rayon::prelude::*;
use serde::Serialize;
use sigpu_fnapprox::FitError;
use std::f64::consts::TAU;

#[derive(Clone, Debug, Serialize)]
pub struct Point {
    pub reader: Reader,
    pub p_cl: usize,
    pub p_theta: usize,
    pub table_bytes: usize,
    pub inputs: usize,
    /// |Re error| in log2 units.
    pub re_mean: f64,
    pub re_max: f64,
    /// |Im error| in radians.
    pub im_mean: f64,
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
