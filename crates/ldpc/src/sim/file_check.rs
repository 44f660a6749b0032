//! What the points of a sweep file must satisfy before they are resumed or drawn: a file is
//! text anyone can edit, and a point kept from it is published again beside the new ones, so
//! every count is checked against the others, the code's sizes and the stopping rule the
//! file names.

use super::point::{spread_fits, PointResult};
use super::sweep::Sweep;
use crate::channel::Modulation;
use crate::code::Code;

/// Points closer than this (dB) are one point.
pub(super) const SAME_DB: f64 = 1e-6;

/// The first point of `sweep` (or its decoder) that is not what a sweep writes, as a message
/// naming it; `code` (when known) checks the information bits per frame and the Eb/N0 of
/// each point against the code's size and rate.
pub(super) fn check(sweep: &Sweep, code: Option<&Code>) -> Result<(), String> {
    let config = sweep.decoder.config()?;
    // Mean iterations past the configured most are not a decoder's (10000: the most any
    // configuration runs).
    let most_iterations = config.map_or(10_000, |c| c.iterations) as f64;
    // An NR file names its block's k, n and Q_m itself (its `code` is no `Code` name).
    let (rate, bits_per_symbol, mut k_seen) = match &sweep.nr {
        Some(nr) => (
            Some(nr.k as f64 / nr.n as f64),
            Some(nr.qm),
            Some(nr.k as u64),
        ),
        None => (
            code.map(|c| c.rate()),
            (sweep.modulation.parse::<Modulation>().ok()).map(|m| m.bits_per_symbol()),
            code.map(|c| c.k() as u64),
        ),
    };
    let mut seen: Vec<f64> = Vec::new();
    for p in &sweep.points {
        let name = format!("the point at Es/N0 {} dB", p.es_n0_db);
        let bad = |why: String| Err(format!("{name}: {why}"));
        if !(p.es_n0_db.is_finite() && p.eb_n0_db.is_finite()) {
            return bad("its SNR is not a number".into());
        }
        if let Some(&twin) = seen.iter().find(|&&x| (x - p.es_n0_db).abs() < SAME_DB) {
            return bad(format!("listed twice (also at {twin} dB)"));
        }
        seen.push(p.es_n0_db);
        if let (Some(rate), Some(bits)) = (rate, bits_per_symbol) {
            let eb = p.es_n0_db - 10.0 * (rate * bits as f64).log10();
            if (eb - p.eb_n0_db).abs() > SAME_DB {
                return bad(format!(
                    "Eb/N0 {} dB, where the code's rate and {} give {eb} dB",
                    p.eb_n0_db, sweep.modulation
                ));
            }
        }
        check_counts(p, &mut k_seen).or_else(&bad)?;
        if p.frames > sweep.max_frames {
            return bad(format!(
                "{} frames, beyond the file's max_frames {}",
                p.frames, sweep.max_frames
            ));
        }
        let rates = [p.mean_iterations, p.seconds];
        if !rates.iter().all(|x| x.is_finite() && *x >= 0.0) || p.mean_iterations > most_iterations
        {
            return bad(format!(
                "mean_iterations {} and seconds {}: not a decoder's",
                p.mean_iterations, p.seconds
            ));
        }
    }
    Ok(())
}

/// The counts of one point against each other: frame errors within the frames, bit errors
/// between one per failed frame and K per failed frame, the information bits K per frame
/// (the same K at every point, the code's when known), Σ eᵢ² a spread of those bit errors (or
/// 0: files from before it was kept), and the rates the counts give.
fn check_counts(p: &PointResult, k_seen: &mut Option<u64>) -> Result<(), String> {
    let (f, m, e) = (p.frames, p.frame_errors, p.bit_errors);
    if f == 0 {
        return Err(format!("0 frames (with {m} frame errors)"));
    }
    if m > f {
        return Err(format!("{m} frame errors in {f} frames"));
    }
    if !p.info_bits.is_multiple_of(f) {
        return Err(format!(
            "{} information bits: not a whole number per frame ({f} frames)",
            p.info_bits
        ));
    }
    let k = p.info_bits / f;
    match *k_seen {
        Some(want) if want != k => {
            return Err(format!(
                "{k} information bits per frame, where the code has {want}"
            ))
        }
        _ => *k_seen = Some(k),
    }
    if e < m || (m == 0 && e > 0) || (e as u128) > m as u128 * k as u128 {
        return Err(format!(
            "{e} bit errors in {m} failed frames of {k} information bits (each failed frame \
             has 1 to {k})"
        ));
    }
    if p.bit_errors_sq != 0 && !spread_fits(f, k, m, e, p.bit_errors_sq) {
        return Err(format!(
            "bit_errors_sq {} fits no spread of {e} bit errors over {m} frames",
            p.bit_errors_sq
        ));
    }
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b.abs().max(1e-300);
    let (ber, fer) = (e as f64 / p.info_bits as f64, m as f64 / f as f64);
    if !close(p.ber, ber) || !close(p.fer, fer) {
        return Err(format!(
            "BER {} and FER {}, where its counts give {ber} and {fer}",
            p.ber, p.fer
        ));
    }
    Ok(())
}
