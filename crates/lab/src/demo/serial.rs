//! The one-core baseline beside the demo's CPU filter: the serial direct form II transposed
//! loop, the algorithm `scipy.signal.lfilter` runs. SciPy runs it in the common type of b, a
//! and x, float64 for the demo's float64 coefficients; so does this loop, reading the f32
//! samples as SciPy would after promoting them. The demo cannot call SciPy itself; this is
//! the speed a SciPy user gets on one core, measured on the same machine in the same run.

use std::time::Instant;

/// `lfilter(b, a, x)` with zero initial state, sample by sample, into `y` (SciPy's loop: the
/// output from b[0]·x and the first state, then every state from the next one, x and y).
///
/// # Panics
/// If `a` is empty or `a[0]` is zero, or `x` and `y` differ in length.
pub fn tdf2(b: &[f64], a: &[f64], x: &[f32], y: &mut [f64]) {
    assert!(
        a.first().is_some_and(|&a0| a0 != 0.0),
        "a[0] must be non-zero"
    );
    assert_eq!(x.len(), y.len(), "x and y differ in length");
    let n = b.len().max(a.len());
    let coef = |c: &[f64], i: usize| c.get(i).copied().unwrap_or(0.0) / a[0];
    let (b, a): (Vec<f64>, Vec<f64>) = (0..n).map(|i| (coef(b, i), coef(a, i))).unzip();
    let mut z = vec![0.0f64; n];
    for (&xv, out) in x.iter().zip(y) {
        let xv = f64::from(xv);
        let yv = b[0] * xv + z[0];
        for i in 1..n {
            z[i - 1] = b[i] * xv + z[i] - a[i] * yv;
        }
        *out = yv;
    }
}

/// The median speed of [`tdf2`] over `x` in `runs` runs, in samples per second.
pub fn tdf2_samples_per_s(b: &[f64], a: &[f64], x: &[f32], runs: usize) -> f64 {
    let mut y = vec![0.0f64; x.len()];
    let mut times: Vec<f64> = (0..runs.max(1))
        .map(|_| {
            let start = Instant::now();
            tdf2(b, a, x, &mut y);
            std::hint::black_box(&y);
            start.elapsed().as_secs_f64()
        })
        .collect();
    times.sort_by(f64::total_cmp);
    x.len() as f64 / times[times.len() / 2]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tdf2_is_scipys_lfilter() {
        // The recurrence written out: y[n] = (b·x − a[1..]·y) / a[0], zero history.
        let (b, a) = ([0.5, 0.25, -0.125], [2.0, -1.5, 0.5]);
        let x: Vec<f32> = (0..64)
            .map(|i| ((i * 37 % 11) as f32 - 5.0) / 3.0)
            .collect();
        let mut y = vec![0.0; x.len()];
        tdf2(&b, &a, &x, &mut y);
        let mut want = vec![0.0f64; x.len()];
        for n in 0..x.len() {
            let mut v = 0.0;
            for j in 0..3 {
                if n >= j {
                    v += b[j] * f64::from(x[n - j]);
                    if j > 0 {
                        v -= a[j] * want[n - j];
                    }
                }
            }
            want[n] = v / a[0];
        }
        for (g, w) in y.iter().zip(&want) {
            assert!((g - w).abs() <= 1e-12 * w.abs().max(1.0), "{g} vs {w}");
        }
        assert!(tdf2_samples_per_s(&b, &a, &x, 3) > 0.0);
    }
}
