//! A `(b, a)` filter run on the CPU as second-order sections: its zeros and poles paired into
//! biquads (as SciPy's `zpk2sos` pairs them) and run by the blocked section engine in one pass
//! over memory, instead of the pole cascade's numerator pass or the serial loop.
//!
//! **When.** The contract's choice for the (b, a) form comes first ([`Lfilter`]); where it
//! is `pole-cascade` or `serial` for an f64 signal, the planner converts the filter and keeps
//! the sections where their bound keeps the contract by the pole cascade's rule (16× below
//! SciPy's serial bound, or below it for orders ≤ 2). The bound counts the section engine's
//! rounding ([`Sos`]'s report) and what the conversion changes: the sections multiply back to
//! b and a only to their f64 rounding, a residual δb moving the output by up to
//! ‖δb‖₁·‖h_{1/A}‖₁ per unit max|x| (in the choice) and δa by ‖δa‖₁·‖h_{1/A}‖₁·‖h‖₁ (reported,
//! left out of the choice as for the pole cascade, whose sections these poles are).
//!
//! **Zeros.** Roots of b at −1 and +1 (the numerators of Butterworth, Chebyshev and Bessel
//! low-, high- and band-passes: multiple roots, which root finders resolve only to ε^(1/m))
//! are divided out exactly first; the rest are found and polished as the poles are, and a
//! numerator whose roots do not settle or pair is left to the (b, a) method.
//!
//! **Limits.** Calls with zi run the (b, a) method (its state is not the sections'); zf is
//! computed from the last samples in f64 ([`Lfilter::final_states`]). f32 signals keep the
//! (b, a) method (sections rounded to f32 would move the filter; not measured yet).

use crate::bounds::l1_impulse;
use crate::design::Lfilter;
use crate::elem::{DType, Element};
use crate::engine::{Batch, Recurrence, Timing};
use crate::error::FilterError;
use crate::filter::{cpu_device, Strategy};
use crate::report::{Method, Report};
use crate::sos::Sos;
use std::time::Instant;

/// A (b, a) filter run as second-order sections, with the contract's (b, a) filter for calls
/// with zi and for zf.
pub(super) struct BaSections<T: Element> {
    sos: Sos<T>,
    ba: Lfilter<T>,
    report: Report,
}

/// `ba` (the contract's filter for the (b, a) form) as sections where that applies and keeps
/// the contract (module docs); None otherwise.
pub(super) fn convert<T: Element>(ba: Lfilter<T>) -> Result<BaSections<T>, Lfilter<T>> {
    let options = *ba.options();
    let applies = T::DTYPE == DType::F64
        && matches!(ba.report().method, Method::PoleCascade | Method::Serial)
        && options.strategy != Strategy::Serial
        && !options.allow_unstable;
    if !applies {
        return Err(ba);
    }
    let (b, a) = ba.coefficients();
    let Some(rows) = sections_of(b, a) else {
        return Err(ba);
    };
    let Ok(sos) = Sos::<T>::new(&rows, options) else {
        return Err(ba);
    };
    if sos.report().method != Method::Sos {
        return Err(ba);
    }
    let numerators: Vec<[f64; 3]> = rows.iter().map(|r| [r[0], r[1], r[2]]).collect();
    let denominators: Vec<[f64; 3]> = rows.iter().map(|r| [r[3], r[4], r[5]]).collect();
    let (db, _) = crate::poles::product_residual(&numerators, b);
    let (da, _) = crate::poles::product_residual(&denominators, a);
    let (l1a, _) = l1_impulse(&[1.0], a);
    let (l1h, _) = l1_impulse(b, a);
    let chosen = sos.report().error_bound + db * l1a;
    let serial = ba.report().reference_bound;
    let k = a.len() - 1;
    if !(16.0 * chosen <= serial || (k <= 2 && chosen <= serial)) {
        return Err(ba);
    }
    let report = Report {
        method: Method::Sections,
        error_bound: chosen + da * l1a * l1h,
        reference_bound: serial,
    };
    Ok(BaSections { sos, ba, report })
}

/// b / a (a[0] = 1) as rows `[b0 b1 b2 1 a1 a2]`: poles paired into sections nearest the
/// unit circle last, each given the zeros nearest its poles (taken from the sections nearest
/// the circle first, as `zpk2sos` does), b's leading coefficient in the first section. None
/// where b starts with 0, has more zeros than the sections hold, or its roots or A's do not
/// settle or pair into conjugates.
fn sections_of(b: &[f64], a: &[f64]) -> Option<Vec<[f64; 6]>> {
    let fb: Vec<f64> = a[1..].iter().map(|v| -v).collect();
    let mut poles = crate::poles::roots(&fb);
    if !crate::poles::polish(&a[1..], &mut poles) {
        return None;
    }
    let poles = crate::poles::quadratic_factors(&poles)?;
    let zeros = numerator_factors(b)?;
    if zeros.len() > poles.len() {
        return None;
    }
    let mut free: Vec<Option<[f64; 3]>> = zeros.into_iter().map(Some).collect();
    let mut numerators = vec![[1.0, 0.0, 0.0]; poles.len()];
    for (s, (_, p)) in poles.iter().enumerate().rev() {
        let at = upper_root(p);
        let nearest = free
            .iter()
            .enumerate()
            .filter_map(|(i, z)| z.map(|z| (i, upper_root(&z))))
            .min_by(|(_, z), (_, w)| dist(*z, at).total_cmp(&dist(*w, at)));
        if let Some((i, _)) = nearest {
            numerators[s] = free[i].take()?;
        }
    }
    let gain = b[0];
    Some(
        poles
            .iter()
            .zip(&numerators)
            .enumerate()
            .map(|(s, ((_, p), z))| {
                let g = if s == 0 { gain } else { 1.0 };
                [g * z[0], g * z[1], g * z[2], 1.0, p[1], p[2]]
            })
            .collect(),
    )
}

/// b's roots as quadratic factors `[1, c1, c2]` (b[0] divided out): exact roots at −1 and +1
/// first, by synthetic division while the remainder stays at the rounding of b's
/// coefficients, then the rest found and polished.
fn numerator_factors(b: &[f64]) -> Option<Vec<[f64; 3]>> {
    let m = b.iter().rposition(|&v| v != 0.0)?;
    if b[0] == 0.0 {
        return None;
    }
    let mut p: Vec<f64> = b[..=m].to_vec();
    let mut roots: Vec<(f64, f64)> = Vec::new();
    for r in [-1.0f64, 1.0] {
        while p.len() > 1 {
            let mut q = Vec::with_capacity(p.len() - 1);
            let mut acc = 0.0f64;
            for &c in &p[..p.len() - 1] {
                acc = c + r * acc;
                q.push(acc);
            }
            let rem = p[p.len() - 1] + r * acc;
            let scale: f64 = p.iter().map(|v| v.abs()).sum();
            if rem.abs() > 64.0 * f64::EPSILON * scale {
                break;
            }
            p = q;
            roots.push((r, 0.0));
        }
    }
    if p.len() > 1 {
        let lead = p[0];
        let monic: Vec<f64> = p[1..].iter().map(|v| v / lead).collect();
        let fb: Vec<f64> = monic.iter().map(|v| -v).collect();
        let mut rest = crate::poles::roots(&fb);
        if !crate::poles::polish(&monic, &mut rest) {
            return None;
        }
        roots.extend(rest);
    }
    let factors = crate::poles::quadratic_factors(&roots)?;
    Some(factors.into_iter().map(|(_, q)| q).collect())
}

/// A root of z² + c1·z + c2 (z + c1 where c2 = 0): the one with the non-negative imaginary
/// part, or the larger real one.
fn upper_root(q: &[f64; 3]) -> (f64, f64) {
    let (c1, c2) = (q[1], q[2]);
    if c2 == 0.0 {
        return (-c1, 0.0);
    }
    let disc = c1 * c1 - 4.0 * c2;
    if disc < 0.0 {
        (-0.5 * c1, 0.5 * (-disc).sqrt())
    } else {
        let s = disc.sqrt();
        let (r1, r2) = (0.5 * (-c1 + s), 0.5 * (-c1 - s));
        (if r1.abs() >= r2.abs() { r1 } else { r2 }, 0.0)
    }
}

fn dist(p: (f64, f64), q: (f64, f64)) -> f64 {
    (p.0 - q.0).hypot(p.1 - q.1)
}

impl<T: Element> Recurrence<T> for BaSections<T> {
    fn report(&self) -> &Report {
        &self.report
    }

    /// max(len(a), len(b)) − 1: SciPy's (b, a) zi / zf length per channel.
    fn state_len(&self) -> usize {
        Recurrence::state_len(&self.ba)
    }

    fn sections(&self) -> Option<usize> {
        None
    }

    fn device(&self) -> String {
        cpu_device(self.sos.options(), Method::Sos)
    }

    /// Without zi: the sections (non-finite input found through their state), zf from the
    /// last samples. With zi: the (b, a) method.
    fn run(&self, batch: Batch<'_, T>) -> Result<Timing, FilterError> {
        if batch.zi.is_some() {
            return self.ba.run(batch);
        }
        let start = Instant::now();
        let s = self.state_len();
        batch.samples(s, &format!("of state {s} (max(len(b), len(a)) - 1)"))?;
        let Batch {
            x,
            channels,
            y,
            zf,
            fresh,
            ..
        } = batch;
        self.sos.run(Batch {
            x,
            channels,
            y: &mut *y,
            zi: None,
            zf: None,
            fresh,
        })?;
        if let Some(zf) = zf {
            zf.copy_from_slice(&self.ba.final_states(x, y, channels, None));
        }
        Ok(Timing::since(start))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roots_at_minus_and_plus_one_divide_out_exactly() {
        // Low-pass numerator (1 + z⁻¹)⁴ and band-pass (1 − z⁻²)², each times a gain.
        let lowpass = [1.0, 4.0, 6.0, 4.0, 1.0].map(|v| v * 4.2e-4);
        let f = numerator_factors(&lowpass).unwrap();
        assert_eq!(f, vec![[1.0, 2.0, 1.0], [1.0, 2.0, 1.0]]);
        let bandpass = [1.0, 0.0, -2.0, 0.0, 1.0].map(|v| v * 3e-3);
        let f = numerator_factors(&bandpass).unwrap();
        assert_eq!(f.len(), 2);
        let (residual, _) = crate::poles::product_residual(&f, &[1.0, 0.0, -2.0, 0.0, 1.0]);
        assert_eq!(residual, 0.0);
        // Other roots are found: (1 − 0.5 z⁻¹)(1 + 0.25 z⁻¹) = 1 − 0.25 z⁻¹ − 0.125 z⁻².
        let f = numerator_factors(&[2.0, -0.5, -0.25]).unwrap();
        let (residual, _) = crate::poles::product_residual(&f, &[1.0, -0.25, -0.125]);
        assert!(residual <= 1e-16, "{residual}");
        // A delay (b[0] = 0) is left to the (b, a) method.
        assert!(numerator_factors(&[0.0, 1.0]).is_none());
    }

    #[test]
    fn each_section_gets_the_zeros_nearest_its_poles() {
        // Two resonators (poles near ±i·0.9 and near 0.5) and zeros on the unit circle near
        // each: the numerators go with the nearest poles, the gain into the first section.
        let poles = [[1.0, 0.0, 0.81], [1.0, -1.0, 0.25]];
        let zeros = [[1.0, 0.0, 1.0], [1.0, -2.0 * 0.8f64.cos(), 1.0]];
        let mul = |p: &[[f64; 3]; 2]| -> Vec<f64> {
            let (x, y) = (p[0], p[1]);
            vec![
                x[0] * y[0],
                x[0] * y[1] + x[1] * y[0],
                x[0] * y[2] + x[1] * y[1] + x[2] * y[0],
                x[1] * y[2] + x[2] * y[1],
                x[2] * y[2],
            ]
        };
        let b: Vec<f64> = mul(&zeros).iter().map(|v| 0.5 * v).collect();
        let rows = sections_of(&b, &mul(&poles)).unwrap();
        // Nearest the unit circle last: the poles at radius 0.9 with the zeros at ±i.
        assert!((rows[1][5] - 0.81).abs() < 1e-14 && rows[1][1].abs() < 1e-12, "{rows:?}");
        assert!((rows[1][2] - 1.0).abs() < 1e-12, "{rows:?}");
        assert!((rows[0][0] - 0.5).abs() < 1e-15, "{rows:?}");
        assert!((rows[0][1] / rows[0][0] + 2.0 * 0.8f64.cos()).abs() < 1e-12, "{rows:?}");
    }
}
