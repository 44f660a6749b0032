//! Certificates of S_b methods: errors of the rounded (Re code, Im angle) against the exact
//! S_b, over a dense grid of the whole reduced domain, every input of the singular corner, and
//! random inputs. Errors are in ulps of each part: 2^-F (log2 units) and 2^-P turns.

use crate::format::{ClnsFormat, HALF_TURN};
use crate::sb::{essential_zero_code, sb_exact, Sb};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::Serialize;

/// The (z code, θ angle) inputs a certificate covers.
#[derive(Clone, Debug, Default)]
pub struct Inputs {
    pub z: Vec<i64>,
    pub theta: Vec<u32>,
}

impl Inputs {
    /// Every `stride`-th code of z ∈ [essential zero, 0] × every `stride`-th angle of θ ∈ [0, π]
    /// (both ends included), every input within 64 codes of the singular corner (z = 0,
    /// θ = π), and `random` uniform inputs.
    pub fn standard(format: ClnsFormat, stride: u32, random: usize, seed: u64) -> Inputs {
        let stride = stride.max(1) as i64;
        let z0 = essential_zero_code(format);
        let shift = format.angle_shift();
        let half = (HALF_TURN >> shift) as i64; // π in angle codes
        let mut zs: Vec<i64> = (0..)
            .map(|k| -k * stride)
            .take_while(|&z| z >= z0)
            .collect();
        if *zs.last().expect("z = 0 is always there") != z0 {
            zs.push(z0);
        }
        let mut ts: Vec<i64> = (0..)
            .map(|k| k * stride)
            .take_while(|&t| t <= half)
            .collect();
        if *ts.last().expect("θ = 0 is always there") != half {
            ts.push(half);
        }
        let mut inputs = Inputs::default();
        let mut push = |z: i64, t: i64| {
            // Z = −1 exactly never reaches S_b: x + (−x) is zero before it.
            if z == 0 && t == half {
                return;
            }
            inputs.z.push(z);
            inputs.theta.push(((t as u64) << shift) as u32);
        };
        for &z in &zs {
            for &t in &ts {
                push(z, t);
            }
        }
        for z in (-64i64).max(z0)..=0 {
            for t in (half - 64).max(0)..=half {
                push(z, t);
            }
        }
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for _ in 0..random {
            push(rng.random_range(z0..=0), rng.random_range(0..=half));
        }
        inputs
    }

    pub fn len(&self) -> usize {
        self.z.len()
    }

    pub fn is_empty(&self) -> bool {
        self.z.is_empty()
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Certificate {
    pub format: String,
    pub method: String,
    pub device: String,
    pub inputs: usize,
    /// Largest and mean |Re error| in ulps of 2^-F.
    pub re_max_ulps: f64,
    pub re_mean_ulps: f64,
    /// Largest and mean |Im error| in ulps of 2^-P turns.
    pub im_max_ulps: f64,
    pub im_mean_ulps: f64,
    /// Share of inputs with both parts within 1 ulp (faithful).
    pub share_faithful: f64,
    /// Where each maximum was reached: (z code, θ angle code).
    pub re_worst: (i64, u64),
    pub im_worst: (i64, u64),
    /// First-order bound on the relative error of one CLNS add from S_b's rounding:
    /// ln 2 · re_max · 2^-F + 2π · im_max · 2^-P (the operands themselves are exact).
    pub add_relative_bound: f64,
}

/// Certifies results `got[i]` = (Re code, Im angle) for `inputs`.
pub fn certify_results(
    format: ClnsFormat,
    method: &str,
    device: &str,
    inputs: &Inputs,
    got: &[(i64, u32)],
) -> Certificate {
    let f_ulp = format.log.ulp();
    let p_ulp = format.angle_ulp_turns();
    let shift = format.angle_shift();
    let errors: Vec<(f64, f64)> = (0..inputs.len())
        .into_par_iter()
        .map(|i| {
            let (z, t) = (inputs.z[i], inputs.theta[i]);
            let (re, im) = if z < essential_zero_code(format) {
                (0.0, 0.0)
            } else {
                sb_exact(format, z, t)
            };
            let (gr, ga) = got[i];
            let re_err = (gr as f64 * f_ulp - re).abs() / f_ulp;
            // Signed angle difference in turns, wrapped to (−1/2, 1/2].
            let ga_turns = (ga as i32) as f64 / 4_294_967_296.0;
            let d = ga_turns - im;
            let d = d - d.round();
            (re_err, d.abs() / p_ulp)
        })
        .collect();
    let n = errors.len().max(1) as f64;
    let argmax = |pick: fn(&(f64, f64)) -> f64| {
        errors
            .iter()
            .enumerate()
            .max_by(|a, b| pick(a.1).total_cmp(&pick(b.1)))
            .map_or(0, |(i, _)| i)
    };
    let (ri, ii) = (argmax(|e| e.0), argmax(|e| e.1));
    let at = |i: usize| {
        inputs
            .z
            .get(i)
            .map_or((0, 0), |&z| (z, (inputs.theta[i] >> shift) as u64))
    };
    let re_max = errors.get(ri).map_or(0.0, |e| e.0);
    let im_max = errors.get(ii).map_or(0.0, |e| e.1);
    Certificate {
        format: format.to_string(),
        method: method.to_owned(),
        device: device.to_owned(),
        inputs: errors.len(),
        re_max_ulps: re_max,
        re_mean_ulps: errors.iter().map(|e| e.0).sum::<f64>() / n,
        im_max_ulps: im_max,
        im_mean_ulps: errors.iter().map(|e| e.1).sum::<f64>() / n,
        share_faithful: errors.iter().filter(|e| e.0 < 1.0 && e.1 < 1.0).count() as f64 / n,
        re_worst: at(ri),
        im_worst: at(ii),
        add_relative_bound: std::f64::consts::LN_2 * re_max * f_ulp
            + std::f64::consts::TAU * im_max * p_ulp,
    }
}

/// Certifies a CPU evaluator.
pub fn certify(m: &(impl Sb + ?Sized), method: &str, inputs: &Inputs) -> Certificate {
    let got: Vec<(i64, u32)> = (0..inputs.len())
        .into_par_iter()
        .map(|i| m.sb(inputs.z[i], inputs.theta[i]))
        .collect();
    certify_results(m.format(), method, "cpu", inputs, &got)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sb::{Geometry, Method};

    #[test]
    fn f64_is_correctly_rounded_and_tables_are_close() {
        let f = ClnsFormat::CLNS16;
        let inputs = Inputs::standard(f, 509, 2000, 1);
        let g = Geometry::default_for(f);
        let c = certify(&Method::F64.cpu(f, g).unwrap().unwrap(), "f64", &inputs);
        assert!(
            c.re_max_ulps <= 0.5 + 1e-6 && c.im_max_ulps <= 0.5 + 1e-6,
            "{c:?}"
        );
        assert_eq!(c.share_faithful, 1.0);
        for m in [Method::Tex, Method::Fma] {
            let c = certify(&m.cpu(f, g).unwrap().unwrap(), &m.to_string(), &inputs);
            assert!(c.re_max_ulps < 8.0 && c.im_max_ulps < 8.0, "{c:?}");
        }
    }
}
