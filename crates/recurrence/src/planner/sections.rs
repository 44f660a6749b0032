//! A `(b, a)` filter run on the CPU as second-order sections: its zeros and poles paired into
//! biquads (as SciPy's `zpk2sos` pairs them) and run by the blocked section engine in one pass
//! over memory, instead of the pole cascade's numerator pass or the serial loop.
//!
//! **When.** The contract's choice for the (b, a) form comes first ([`Lfilter`]); where it
//! is `pole-cascade` or `serial` for an f64 signal, the planner converts the filter and keeps
//! the sections where their bound keeps the contract by the pole cascade's rule (16× below
//! SciPy's serial bound, or below it for orders ≤ 2). The bound counts the section engine's
//! rounding ([`Sos`]'s report) and what the conversion changes: the sections multiply back to
//! b and a only to their f64 rounding, residuals δb and δa moving the output by up to
//! ‖h_{δb/A}‖₁ and ‖h_{δa/A}‖₁·‖h‖₁ per unit max|x| (norms of the difference filters, which
//! see where a residual lies: one at z = −1 barely moves a low-pass). That change is
//! systematic (an input at the frequencies it moves meets all of it), so it must also stay at
//! the output's rounding (64 ε·‖h‖₁) or 2^12 below the serial bound.
//!
//! **Zeros.** Roots of b at −1 and +1 (the numerators of Butterworth, Chebyshev and Bessel
//! low-, high- and band-passes: multiple roots, which root finders resolve only to ε^(1/m))
//! are divided out exactly first; the rest are found and polished as the poles are, and a
//! numerator whose roots do not settle or pair is left to the (b, a) method.
//!
//! **Limits.** Calls with zi run the (b, a) method (its state is not the sections'); zf is
//! computed from the last samples in f64 ([`Lfilter::final_states`]). f32 signals keep the
//! (b, a) method: sections rounded to f32 move designs with poles near ±1 by more than SciPy's
//! f32 error (measured on the GPU, 4–6× on notches near DC and Nyquist).

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
pub(super) fn convert<T: Element>(ba: Lfilter<T>) -> Result<BaSections<T>, Box<Lfilter<T>>> {
    let options = *ba.options();
    let applies = T::DTYPE == DType::F64
        && matches!(ba.report().method, Method::PoleCascade | Method::Serial)
        && options.strategy != Strategy::Serial
        && !options.allow_unstable;
    if !applies {
        return Err(Box::new(ba));
    }
    match as_sections(&ba) {
        Some((sos, report)) => Ok(BaSections { sos, ba, report }),
        None => Err(Box::new(ba)),
    }
}

/// `ba` as blocked sections with the conversion's report, where the sections keep the
/// contract by the pole cascade's rule (module docs); None otherwise. The GPU planner takes
/// it for the f64 designs the contract runs serially.
pub(super) fn as_sections<T: Element>(ba: &Lfilter<T>) -> Option<(Sos<T>, Report)> {
    let options = *ba.options();
    if options.strategy == Strategy::Serial || options.allow_unstable {
        return None;
    }
    let (b, a) = ba.coefficients();
    let rows = sections_of(b, a)?;
    let sos = Sos::<T>::new(&rows, options).ok()?;
    if sos.report().method != Method::Sos {
        return None;
    }
    // The rows as the dtype holds them (f32 sections round their coefficients).
    let held = sos.sections();
    let numerators: Vec<[f64; 3]> = held.iter().map(|r| [r[0], r[1], r[2]]).collect();
    let denominators: Vec<[f64; 3]> = held.iter().map(|r| [r[3], r[4], r[5]]).collect();
    let (db, _) = crate::poles::product_difference(&numerators, b);
    let (da, _) = crate::poles::product_difference(&denominators, a);
    // What the conversion changes, per unit max|x|: δb·x through 1/A, and (to first order)
    // δa·y through 1/A — impulse-response norms of the difference filters themselves, which
    // see where the residual lies (a residual at z = −1 barely moves a low-pass).
    let (l1h, _) = l1_impulse(b, a);
    let moved_b = l1_impulse(&db, a).0;
    let moved_a = l1_impulse(&da, a).0 * l1h;
    let moved = moved_b + moved_a;
    let bound = sos.report().error_bound + moved;
    let serial = ba.report().reference_bound;
    let k = a.len() - 1;
    // The change is systematic: an input at the frequencies it moves (a step through a
    // high-pass whose rounded b leaks DC) meets all of it, while SciPy's serial error stays
    // far below its worst case. So it must stay at the output's rounding (64 ε·‖h‖₁) or 2^12
    // below the serial bound (measured: butter(6, 0.00375) high-pass moved 1.5e-3 against a
    // serial bound of 0.13 and was 7× SciPy's error on a chirp; butter(4, 0.1) moves 1.5e-15,
    // 6 ε·‖h‖₁; butter(8, 0.02) 4.8e-14 against 2.8e-3).
    let systematic_ok = moved <= (64.0 * f64::EPSILON * l1h).max(serial / 4096.0);
    if !systematic_ok || !(16.0 * bound <= serial || (k <= 2 && bound <= serial)) {
        return None;
    }
    let report = Report {
        method: Method::Sections,
        error_bound: bound,
        reference_bound: serial,
    };
    Some((sos, report))
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
        let start = Instant::now();
        run_ba_as(&self.sos, &self.ba, batch)?;
        Ok(Timing::since(start))
    }
}

/// A (b, a) design run as `sections` (converted from it): from a zero state, y by the sections
/// and zf, where asked, from the last samples in f64 (the sections' state is not the (b, a)
/// one); with zi, by the (b, a) filter itself, whose state zi is.
pub(super) fn run_ba_as<T: Element>(
    sections: &dyn Recurrence<T>,
    ba: &Lfilter<T>,
    batch: Batch<'_, T>,
) -> Result<Timing, FilterError> {
    if batch.zi.is_some() {
        return ba.run(batch);
    }
    let s = ba.state_len();
    batch.samples(s, &format!("of state {s} (max(len(b), len(a)) - 1)"))?;
    let Batch {
        x,
        channels,
        y,
        zf,
        fresh,
        ..
    } = batch;
    let timing = sections.run(Batch {
        x,
        channels,
        y: &mut *y,
        zi: None,
        zf: None,
        fresh,
    })?;
    if let Some(zf) = zf {
        zf.copy_from_slice(&ba.final_states(x, y, channels, None));
    }
    Ok(timing)
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
        assert!(
            (rows[1][5] - 0.81).abs() < 1e-14 && rows[1][1].abs() < 1e-12,
            "{rows:?}"
        );
        assert!((rows[1][2] - 1.0).abs() < 1e-12, "{rows:?}");
        assert!((rows[0][0] - 0.5).abs() < 1e-15, "{rows:?}");
        assert!(
            (rows[0][1] / rows[0][0] + 2.0 * 0.8f64.cos()).abs() < 1e-12,
            "{rows:?}"
        );
    }

    /// scipy.signal.butter(6, 0.003751694708275593, 'highpass'): its b rounded to f64 leaks DC
    /// that the exact roots at +1 of the sections do not (‖h_{δb/A}‖₁ = 1.5e-3 against a serial
    /// bound of 0.13); on a chirp in its stopband the sections' error was 7× SciPy's, so the
    /// filter keeps the (b, a) method. butter(4, 0.1) converts.
    #[test]
    #[allow(clippy::excessive_precision)]
    fn a_conversion_that_moves_the_filter_is_not_taken() {
        let b = [
            0.9774877261726824,
            -5.8649263570360946,
            14.662315892590236,
            -19.54975452345365,
            14.662315892590236,
            -5.8649263570360946,
            0.9774877261726824,
        ];
        let a = [
            1.0,
            -5.954461298827283,
            14.773342223051186,
            -19.548740988909802,
            14.550782759657729,
            -5.776404949787451,
            0.9554822548182413,
        ];
        let opts = crate::FilterOptions::default();
        let ba = Lfilter::<f64>::new(&b, &a, opts).unwrap();
        assert_eq!(ba.report().method, Method::Serial);
        assert!(sections_of(&b, &a).is_some());
        assert!(convert(ba).is_err());
        let b = [
            0.00041659920440659937,
            0.0016663968176263975,
            0.002499595226439596,
            0.0016663968176263975,
            0.00041659920440659937,
        ];
        let a = [
            1.0,
            -3.180638548874719,
            3.8611943489942133,
            -2.112155355110969,
            0.43826514226197977,
        ];
        let s = convert(Lfilter::<f64>::new(&b, &a, opts).unwrap())
            .ok()
            .unwrap();
        assert_eq!(s.report().method, Method::Sections);
        // f32 signals keep the (b, a) method.
        assert!(convert(Lfilter::<f32>::new(&b, &a, opts).unwrap()).is_err());
    }
}
