//! What the fused kernel's correction check reads on input in the cascade's pass band: the
//! ratio of its correction terms (Σ_j |state_j|·max_i|F_j(i)| of a section) to the output for a
//! steady sinusoid, computed from the transfer functions. It grows as the poles near the unit
//! circle by the pass band (butter(8, 0.1): 4.9; (8, 0.05): 9.7; (8, 0.02): 24), and the check
//! scales its limit with it ([`crate::gpu::same_type_correction_limit`]).

/// A complex number as (re, im).
type C64 = (f64, f64);

fn mul(a: C64, b: C64) -> C64 {
    (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0)
}

fn div(a: C64, b: C64) -> C64 {
    let d = b.0 * b.0 + b.1 * b.1;
    ((a.0 * b.0 + a.1 * b.1) / d, (a.1 * b.0 - a.0 * b.1) / d)
}

fn abs(a: C64) -> f64 {
    a.0.hypot(a.1)
}

/// Frequencies on [0, π] the ratio is taken at.
const GRID: usize = 2048;

/// The largest, over the frequencies where the cascade's gain is at least half its peak, of
/// max_s (|H_s − b0|·|U_s|·f_peak[s][0] + |b2 − a2 H_s|·|U_s|·f_peak[s][1]) / |H|: section s's
/// transposed-direct-form states under a unit sinusoid (U_s its input, H_s its gain, H the
/// cascade's) weighted as the kernel weighs them. `held`: rows [b0 b1 b2 1 a1 a2].
pub fn passband_correction(held: &[[f64; 6]], f_peak: &[[f64; 2]]) -> f64 {
    let per_frequency: Vec<(f64, f64)> = (0..=GRID)
        .map(|k| {
            let w = std::f64::consts::PI * k as f64 / GRID as f64;
            let z1 = (w.cos(), -w.sin());
            let z2 = mul(z1, z1);
            let mut u: C64 = (1.0, 0.0);
            let mut worst = 0.0f64;
            for (c, fp) in held.iter().zip(f_peak) {
                let num = (c[0] + c[1] * z1.0 + c[2] * z2.0, c[1] * z1.1 + c[2] * z2.1);
                let den = (1.0 + c[4] * z1.0 + c[5] * z2.0, c[4] * z1.1 + c[5] * z2.1);
                let h = div(num, den);
                let d0 = abs((h.0 - c[0], h.1));
                let d1 = abs((c[2] - c[5] * h.0, -c[5] * h.1));
                worst = worst.max((d0 * fp[0] + d1 * fp[1]) * abs(u));
                u = mul(u, h);
            }
            (abs(u), worst)
        })
        .collect();
    let peak = per_frequency.iter().fold(0.0f64, |m, p| m.max(p.0));
    per_frequency
        .iter()
        .filter(|(gain, _)| *gain >= 0.5 * peak && *gain > 0.0)
        .fold(0.0f64, |m, (gain, worst)| m.max(worst / gain))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::sos_tables::{sos_coefficients, SosConfig, SosTables};
    use crate::testing::{BUTTER8_002, BUTTER8_01};
    use crate::DType;

    /// The ratio tracks what the kernel's emulation measures on passband input (white noise,
    /// steps): butter(8, 0.1) 4.9 (measured 3.3–4.7), butter(8, 0.02) 24 (23.6–24.0).
    #[test]
    fn the_passband_ratio_of_butterworth_low_passes() {
        let at = |sos: &[[f64; 6]]| {
            let config = SosConfig::default().normalized(DType::F32).unwrap();
            SosTables::new(sos_coefficients::<f32>(sos).unwrap(), config).passband_correction
        };
        let (wide, narrow) = (at(&BUTTER8_01), at(&BUTTER8_002));
        assert!((4.8..5.0).contains(&wide), "{wide}");
        assert!((24.0..24.5).contains(&narrow), "{narrow}");
        // a pass-through section has no state to correct
        assert_eq!(
            passband_correction(&[[1.0, 0.0, 0.0, 1.0, 0.0, 0.0]], &[[1.0, 0.0]]),
            0.0
        );
    }
}
