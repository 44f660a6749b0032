//! Stability and the error estimate of a complex-coefficient filter, in f64: the Schur–Cohn
//! step-down test on a complex denominator, and the impulse-response norms the serial error
//! grows with. (Real coefficients never come here: they run as the real filter, whose test is
//! exact.)

use super::c64::C64;

/// The largest step-down reflection coefficient |k| of the denominator `a` (a[0] ≠ 0): below
/// 1 exactly when every pole lies inside the unit circle. Computed in f64, so a pole within
/// about 1e-12 of the circle may be judged either way.
pub(super) fn max_reflection(a: &[C64]) -> f64 {
    let mut p: Vec<C64> = a.to_vec();
    while p.len() > 1 && p[p.len() - 1] == C64::ZERO {
        p.pop();
    }
    let mut worst: f64 = 0.0;
    while p.len() > 1 {
        let m = p.len() - 1;
        let k = p[m] / p[0];
        let mag = k.abs();
        worst = worst.max(mag);
        // NaN (overflowed coefficients) counts as unstable.
        if mag >= 1.0 || mag.is_nan() {
            return worst.max(1.0);
        }
        // p'_i = conj(p_0)·p_i − p_m·conj(p_(m−i)), i < m: the degree drops by one.
        let (p0, pm) = (p[0].conj(), p[m]);
        let mut q: Vec<C64> = (0..m).map(|i| p0 * p[i] - pm * p[m - i].conj()).collect();
        let scale = q.iter().map(|c| c.abs()).fold(0.0, f64::max);
        if scale == 0.0 || !scale.is_finite() {
            return f64::INFINITY;
        }
        for c in &mut q {
            *c = *c * (1.0 / scale);
        }
        p = q;
    }
    worst
}

/// Samples of an impulse response summed at most (a pole at radius 0.9999 rings 1e-4 of its
/// start after this).
const CAP: usize = 1 << 17;

/// ‖h‖₁ of b / a (normalised, equal lengths) and of 1 / a, from their impulse responses run
/// until their tail is below 1e-17 of the sum (or `CAP` samples).
pub(super) fn norms(b: &[C64], a: &[C64]) -> (f64, f64) {
    let k = a.len() - 1;
    let (mut zb, mut za) = (vec![C64::ZERO; k], vec![C64::ZERO; k]);
    let (mut hb, mut ha) = (0.0, 0.0);
    let mut quiet = 0usize;
    for i in 0..CAP {
        let x = if i == 0 { C64::ONE } else { C64::ZERO };
        let yb = step(b, a, &mut zb, x);
        let ya = step(&unit(k), a, &mut za, x);
        hb += yb.abs();
        ha += ya.abs();
        let small = yb.abs() <= 1e-17 * hb && ya.abs() <= 1e-17 * ha;
        quiet = if small { quiet + 1 } else { 0 };
        if quiet > k.max(1) * 4 {
            break;
        }
    }
    (hb, ha)
}

/// The numerator of 1 / a: [1, 0, …].
fn unit(k: usize) -> Vec<C64> {
    let mut u = vec![C64::ZERO; k + 1];
    u[0] = C64::ONE;
    u
}

fn step(b: &[C64], a: &[C64], z: &mut [C64], x: C64) -> C64 {
    let k = a.len() - 1;
    if k == 0 {
        return b[0] * x;
    }
    let y = z[0] + b[0] * x;
    for j in 0..k - 1 {
        z[j] = z[j + 1] + x * b[j + 1] - y * a[j + 1];
    }
    z[k - 1] = x * b[k] - y * a[k];
    y
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_step_down_finds_complex_poles_outside() {
        // One pole at 0.9·e^{iπ/3}: stable; at 1.1·e^{iπ/3}: not.
        let pole = |r: f64| {
            let p = C64::new(r * 0.5, r * 3f64.sqrt() / 2.0);
            [C64::ONE, -p]
        };
        assert!((max_reflection(&pole(0.9)) - 0.9).abs() < 1e-12);
        assert!(max_reflection(&pole(1.1)) >= 1.0);
        // (1 − 0.5i z⁻¹)(1 − 1.2 z⁻¹): one pole outside.
        let a = [C64::ONE, C64::new(-1.2, -0.5), C64::new(0.0, 0.6)];
        assert!(max_reflection(&a) >= 1.0);
        // (1 − 0.5i z⁻¹)(1 − 0.8 z⁻¹): both inside.
        let a = [C64::ONE, C64::new(-0.8, -0.5), C64::new(0.0, 0.4)];
        assert!(max_reflection(&a) < 1.0);
        // ‖h‖₁ of 1 / (1 − p z⁻¹) is 1 / (1 − |p|).
        let (hb, ha) = norms(&[C64::ONE, C64::ZERO], &pole(0.9));
        assert!(
            (hb - 10.0).abs() < 1e-9 && (ha - 10.0).abs() < 1e-9,
            "{hb} {ha}"
        );
    }
}
