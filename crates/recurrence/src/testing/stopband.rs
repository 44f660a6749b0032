//! Filters and signals that put the input's energy where a cascade attenuates: near-unit-circle
//! resonators, narrow band-passes, high-passes and notches, driven by chirps, steps, DC plus
//! noise, impulses, tones in the stopband and large-then-small signals. The blocked engines'
//! zero-state segment transients are largest on exactly these, so the accuracy contract's
//! property tests and sweeps draw from them.

use rand::Rng;
use std::f64::consts::PI;

/// A random cascade of 1–3 sections whose poles lie near the unit circle, with zeros that
/// make each section a resonator, band-pass, high-pass, low-pass or notch (unit peak gain
/// at the pole angle), and a name saying which.
pub fn stopband_sections(rng: &mut impl Rng) -> (String, Vec<[f64; 6]>) {
    let count = rng.random_range(1..=3usize);
    // One band for the cascade: every section near the same angle (a narrow band-pass
    // built of resonators), near 0 or near π.
    let near_pi = rng.random_bool(0.5);
    let base = if near_pi {
        PI - rng.random_range(0.0005..0.05)
    } else {
        rng.random_range(0.0005..0.05)
    };
    let kind = rng.random_range(0..5usize);
    let mut rows = Vec::with_capacity(count);
    for s in 0..count {
        let r = 1.0 - 10f64.powf(rng.random_range(-5.0..-2.0));
        let theta = (base * (1.0 + 0.02 * s as f64)).min(PI - 1e-4);
        let (a1, a2) = (-2.0 * r * theta.cos(), r * r);
        let b = match kind {
            0 => [1.0, 0.0, 0.0],  // resonator
            1 => [1.0, 0.0, -1.0], // band-pass: zeros at DC and Nyquist
            2 => [1.0, -2.0, 1.0], // high-pass: double zero at DC
            3 => [1.0, 2.0, 1.0],  // low-pass: double zero at Nyquist
            _ => {
                // notch: zeros on the unit circle beside the poles
                let t = theta * 1.001;
                [1.0, -2.0 * t.cos(), 1.0]
            }
        };
        // Unit gain at the pole angle: |B(e^{iθ})| / |A(e^{iθ})|.
        let at = |c: [f64; 3]| {
            let (re, im) = (0..3).fold((0.0, 0.0), |(re, im), k| {
                let w = -(k as f64) * theta;
                (re + c[k] * w.cos(), im + c[k] * w.sin())
            });
            (re * re + im * im).sqrt()
        };
        let g = at([1.0, a1, a2]) / at(b).max(1e-300);
        let g = if kind == 4 { 1.0 } else { g };
        rows.push([g * b[0], g * b[1], g * b[2], 1.0, a1, a2]);
    }
    let what = ["resonator", "band-pass", "high-pass", "low-pass", "notch"][kind];
    let name = format!(
        "{count} {what} section(s) near {}, r up to {:.6}",
        if near_pi { "π" } else { "0" },
        rows.iter().map(|r| r[5].sqrt()).fold(0.0, f64::max)
    );
    (name, rows)
}

/// A random signal of `n` samples with its energy away from `band` (radians per sample, the
/// filter's pass band): a chirp, DC plus noise, a step, an impulse, a tone, or a loud
/// stretch followed by a quiet one; and its name.
pub fn stopband_signal(rng: &mut impl Rng, n: usize, band: f64) -> (String, Vec<f64>) {
    let kind = rng.random_range(0..6usize);
    // A frequency far from the band: near the other end of the spectrum.
    let away = if band > PI / 2.0 { 0.05 } else { 0.9 * PI };
    let nf = n as f64;
    let x: Vec<f64> = match kind {
        0 => (0..n)
            .map(|i| {
                let t = i as f64;
                // sweeps from 0 to `away` (or from π down to it)
                let phase = if band > PI / 2.0 {
                    0.5 * away * t * t / nf
                } else {
                    PI * t - 0.5 * (PI - away) * t * t / nf
                };
                phase.sin()
            })
            .collect(),
        1 => (0..n)
            .map(|_| 1.0 + 1e-3 * rng.random_range(-1.0..1.0))
            .collect(),
        2 => {
            let at = rng.random_range(0..n);
            (0..n).map(|i| if i >= at { 1.0 } else { 0.0 }).collect()
        }
        3 => {
            let at = rng.random_range(0..n);
            (0..n).map(|i| if i == at { 1.0 } else { 0.0 }).collect()
        }
        4 => (0..n).map(|i| (away * i as f64).cos()).collect(),
        _ => {
            let cut = n / 2;
            (0..n)
                .map(|i| {
                    let v = rng.random_range(-1.0..1.0);
                    if i < cut {
                        v
                    } else {
                        1e-6 * v
                    }
                })
                .collect()
        }
    };
    let name = [
        "chirp",
        "dc+noise",
        "step",
        "impulse",
        "tone",
        "large-then-small",
    ][kind];
    (name.to_owned(), x)
}

/// scipy.signal.cheby1(8, 1, [0.9, 0.95], 'bandpass', output='sos'): a narrow band-pass near
/// Nyquist.
#[allow(clippy::excessive_precision)]
pub const CHEBY1_BP: [[f64; 6]; 8] = [
    [
        2.076518096033116e-11,
        -4.153036192066232e-11,
        2.076518096033116e-11,
        1.0,
        1.9150194316654714,
        0.9708262196040225,
    ],
    [1.0, -2.0, 1.0, 1.0, 1.9003580504979076, 0.9724264916042865],
    [1.0, -2.0, 1.0, 1.0, 1.9322736445342295, 0.9745419426752975],
    [1.0, -2.0, 1.0, 1.0, 1.892696719588571, 0.9801747971316312],
    [1.0, 2.0, 1.0, 1.0, 1.948446625557545, 0.9812585351424792],
    [1.0, 2.0, 1.0, 1.0, 1.9616642764522474, 0.9888399124426409],
    [1.0, 2.0, 1.0, 1.0, 1.895449497898582, 0.9927597618355767],
    [1.0, 2.0, 1.0, 1.0, 1.9716846497918212, 0.9963198711420174],
];

/// A resonator of radius r at angle θ, unit gain at θ.
pub fn resonator(r: f64, theta: f64) -> Vec<[f64; 6]> {
    let (a1, a2) = (-2.0 * r * theta.cos(), r * r);
    let g = ((1.0 + a1 * theta.cos() + a2 * (2.0 * theta).cos()).powi(2)
        + (a1 * theta.sin() + a2 * (2.0 * theta).sin()).powi(2))
    .sqrt();
    vec![[g, 0.0, 0.0, 1.0, a1, a2]]
}

/// A chirp from 0 to `top` radians per sample.
pub fn chirp(n: usize, top: f64) -> Vec<f64> {
    (0..n)
        .map(|i| {
            let t = i as f64;
            (0.5 * top * t * t / n as f64).sin()
        })
        .collect()
}
