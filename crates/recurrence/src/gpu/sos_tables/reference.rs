//! The serial references of the cascade: scipy's `sosfilt` loop in the element type (the
//! accuracy contract's yardstick) and in double-double (the exact answer), and the error
//! measure the checks and benchmarks compare them with.

use crate::dd::Dd;
use crate::elem::Element;

/// scipy's `sosfilt` loop in `T` (sample by sample through every section, transposed direct
/// form II): the serial run whose error the accuracy contract is measured against. Returns
/// (y, zf) for `channels` channels, zi / zf [channel][section][2].
pub fn sosfilt_serial<T: Element>(
    coefs: &[[T; 6]],
    x: &[T],
    channels: usize,
    zi: Option<&[T]>,
) -> (Vec<T>, Vec<T>) {
    let ns = coefs.len();
    let n = x.len().checked_div(channels).unwrap_or(0);
    let mut y = vec![T::ZERO; x.len()];
    let mut zf = vec![T::ZERO; channels * ns * 2];
    for ch in 0..channels {
        let z = &mut zf[ch * ns * 2..(ch + 1) * ns * 2];
        if let Some(zi) = zi {
            z.copy_from_slice(&zi[ch * ns * 2..(ch + 1) * ns * 2]);
        }
        for i in 0..n {
            let mut u = x[ch * n + i];
            for (s, c) in coefs.iter().enumerate() {
                let yv = c[0].mul(u).add(z[2 * s]);
                let neg = |a: T| a.mul(T::from_f64(-1.0));
                z[2 * s] = c[1].mul(u).add(neg(c[4].mul(yv))).add(z[2 * s + 1]);
                z[2 * s + 1] = c[2].mul(u).add(neg(c[5].mul(yv)));
                u = yv;
            }
            y[ch * n + i] = u;
        }
    }
    (y, zf)
}

/// The same loop in double-double on the given coefficients (as f64): an extended-precision
/// reference. Returns (y, zf) rounded to f64.
pub fn sosfilt_extended(
    coefs: &[[f64; 6]],
    x: &[f64],
    channels: usize,
    zi: Option<&[f64]>,
) -> (Vec<f64>, Vec<f64>) {
    let ns = coefs.len();
    let n = x.len().checked_div(channels).unwrap_or(0);
    let mut y = vec![0.0; x.len()];
    let mut zf = vec![0.0; channels * ns * 2];
    let c: Vec<[Dd; 6]> = coefs.iter().map(|r| r.map(Dd::new)).collect();
    for ch in 0..channels {
        let mut z: Vec<Dd> = (0..ns * 2)
            .map(|k| Dd::new(zi.map_or(0.0, |zi| zi[ch * ns * 2 + k])))
            .collect();
        for i in 0..n {
            let mut u = Dd::new(x[ch * n + i]);
            for (s, c) in c.iter().enumerate() {
                let yv = c[0].mul(u).add(z[2 * s]);
                z[2 * s] = c[1].mul(u).add(c[4].mul(yv).neg()).add(z[2 * s + 1]);
                z[2 * s + 1] = c[2].mul(u).add(c[5].mul(yv).neg());
                u = yv;
            }
            y[ch * n + i] = u.to_f64();
        }
        for (k, v) in z.iter().enumerate() {
            zf[ch * ns * 2 + k] = v.to_f64();
        }
    }
    (y, zf)
}

/// max |got − want| / max |want| over each channel of length `n` (the worst channel); NaN in
/// `got` counts as infinite.
pub fn channel_error<T: Element>(got: &[T], want: &[f64], channels: usize) -> f64 {
    let n = want.len().checked_div(channels).unwrap_or(0);
    (0..channels)
        .map(|c| {
            let w = &want[c * n..(c + 1) * n];
            let scale = w
                .iter()
                .fold(0.0f64, |m, v| m.max(v.abs()))
                .max(f64::MIN_POSITIVE);
            got[c * n..(c + 1) * n]
                .iter()
                .zip(w)
                .map(|(g, w)| {
                    let g = g.to_f64();
                    if g.is_nan() {
                        f64::INFINITY
                    } else {
                        (g - w).abs() / scale
                    }
                })
                .fold(0.0, f64::max)
        })
        .fold(0.0, f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::sos_tables::sos_coefficients;
    use crate::testing::BUTTER8_01;

    #[test]
    fn serial_matches_extended_and_halves_chain() {
        // zi/zf round trip: two halves with the carried state equal the whole.
        let coefs = sos_coefficients::<f64>(&BUTTER8_01).unwrap();
        let x: Vec<f64> = (0..1001)
            .map(|i| ((i * 7919) % 101) as f64 / 50.0 - 1.0)
            .collect();
        let (y, zf) = sosfilt_extended(&BUTTER8_01, &x, 1, None);
        let (y1, z1) = sosfilt_extended(&BUTTER8_01, &x[..400], 1, None);
        let (y2, z2) = sosfilt_extended(&BUTTER8_01, &x[400..], 1, Some(&z1));
        // The carried state is rounded to f64 between the halves: equal to that rounding.
        assert!(channel_error(&[y1, y2].concat(), &y, 1) < 1e-15);
        assert!(z2.iter().zip(&zf).all(|(a, b)| (a - b).abs() < 1e-15));
        let (ys, _) = sosfilt_serial(&coefs, &x, 1, None);
        assert!(channel_error(&ys, &y, 1) < 1e-13);
    }
}
