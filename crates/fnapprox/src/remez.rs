//! Minimax polynomial approximation on [0, 1] by the Remez exchange algorithm.

use crate::linalg::solve;

/// A best-approximation polynomial in the variable s ∈ [0, 1].
#[derive(Clone, Debug, PartialEq)]
pub struct Minimax {
    /// Coefficients in ascending degree: p(s) = Σ c_j s^j.
    pub coeffs: Vec<f64>,
    /// max |f − p| over a dense sampling of [0, 1].
    pub max_error: f64,
}

/// Samples per reference point used to locate error extrema.
pub(crate) const SAMPLES_PER_POINT: usize = 64;

/// Evaluates Σ c_j s^j by Horner's rule in f64.
pub(crate) fn horner(coeffs: &[f64], s: f64) -> f64 {
    coeffs.iter().rev().fold(0.0, |acc, &c| acc * s + c)
}

/// The sample points [`minimax`] uses for `degree`: uniform on [0, 1], endpoints included.
pub(crate) fn sample_points(degree: usize) -> Vec<f64> {
    let m = SAMPLES_PER_POINT * (degree + 2);
    (0..=m).map(|i| i as f64 / m as f64).collect()
}

/// The minimax polynomial of `degree` for `f` on [0, 1] (absolute error).
pub fn minimax(f: &dyn Fn(f64) -> f64, degree: usize) -> Minimax {
    let xs = sample_points(degree);
    let ys: Vec<f64> = xs.iter().map(|&s| f(s)).collect();
    minimax_sampled(&xs, &ys, degree)
}

/// The minimax polynomial of `degree` for the samples (xs, ys), xs ascending in [0, 1].
///
/// Starts from the samples nearest the Chebyshev extrema and exchanges the reference set until
/// the largest error is within 1e-6 (relative) of the levelled error, or 60 iterations pass;
/// returns the best polynomial seen. Working on samples keeps `f` out of the loop: each fit
/// costs one evaluation of `f` per sample.
pub(crate) fn minimax_sampled(xs: &[f64], ys: &[f64], degree: usize) -> Minimax {
    let n = degree + 2;
    let last = xs.len() - 1;
    let mut reference: Vec<usize> = (0..n)
        .map(|i| {
            ((0.5 - 0.5 * (std::f64::consts::PI * i as f64 / (n - 1) as f64).cos()) * last as f64)
                .round() as usize
        })
        .collect();
    reference.dedup();
    let mut best = Minimax {
        coeffs: vec![0.0; degree + 1],
        max_error: f64::INFINITY,
    };
    for _ in 0..60 {
        if reference.len() != n {
            break;
        }
        let Some(coeffs) = levelled_fit(xs, ys, &reference, degree) else {
            break;
        };
        let errors: Vec<f64> = xs
            .iter()
            .zip(ys)
            .map(|(&s, &y)| y - horner(&coeffs, s))
            .collect();
        let max_error = errors.iter().fold(0.0f64, |m, e| m.max(e.abs()));
        let levelled = reference
            .iter()
            .map(|&i| errors[i].abs())
            .fold(0.0f64, f64::max);
        if max_error < best.max_error {
            best = Minimax { coeffs, max_error };
        }
        if max_error - levelled <= 1e-6 * max_error || max_error == 0.0 {
            break;
        }
        match exchange(&errors, n) {
            Some(next) => reference = next,
            None => break,
        }
    }
    best
}

/// Solves p(s_i) + (−1)^i E = y_i at the reference samples for the coefficients of p.
fn levelled_fit(xs: &[f64], ys: &[f64], reference: &[usize], degree: usize) -> Option<Vec<f64>> {
    let rows = reference
        .iter()
        .enumerate()
        .map(|(i, &r)| {
            let mut row: Vec<f64> = (0..=degree).map(|j| xs[r].powi(j as i32)).collect();
            row.push(if i % 2 == 0 { 1.0 } else { -1.0 });
            row
        })
        .collect();
    let rhs = reference.iter().map(|&r| ys[r]).collect();
    let mut x = solve(rows, rhs)?;
    x.pop();
    Some(x)
}

/// A new reference: one extremum per run of equal error sign, trimmed to `n` alternating
/// samples that keep the global maximum.
fn exchange(errors: &[f64], n: usize) -> Option<Vec<usize>> {
    let mut extrema: Vec<usize> = Vec::new();
    for (i, &e) in errors.iter().enumerate() {
        match extrema.last_mut() {
            Some(last) if errors[*last].signum() == e.signum() || e == 0.0 => {
                if e.abs() > errors[*last].abs() {
                    *last = i;
                }
            }
            _ => extrema.push(i),
        }
    }
    if extrema.len() < n {
        return None;
    }
    while extrema.len() > n {
        // Drop the smaller end: the alternation is preserved and the largest errors stay.
        if errors[extrema[0]].abs() < errors[extrema[extrema.len() - 1]].abs() {
            extrema.remove(0);
        } else {
            extrema.pop();
        }
    }
    Some(extrema)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reproduces_a_polynomial_of_its_degree() {
        let f = |s: f64| 1.0 - 2.0 * s + 0.5 * s * s;
        let m = minimax(&f, 2);
        assert!(m.max_error < 1e-13, "{m:?}");
        assert!((m.coeffs[1] + 2.0).abs() < 1e-10);
    }

    #[test]
    fn best_line_through_a_parabola() {
        // The minimax line for s² on [0, 1] is s − 1/8, with error 1/8.
        let m = minimax(&|s: f64| s * s, 1);
        assert!((m.max_error - 0.125).abs() < 1e-6, "{m:?}");
        assert!((m.coeffs[0] + 0.125).abs() < 1e-6 && (m.coeffs[1] - 1.0).abs() < 1e-6);
    }

    #[test]
    fn exp_cubic_equioscillates_within_the_chebyshev_bounds() {
        // Degree 3 on an interval of length 1: error = e^ξ / (4! · 2^3 · 2^4) for some ξ ∈ [0, 1].
        let m = minimax(&f64::exp, 3);
        assert!(
            m.max_error > 1.0 / 3072.0 && m.max_error < std::f64::consts::E / 3072.0,
            "{m:?}"
        );
        // Chebyshev's theorem: the best error is attained d + 2 = 5 times with alternating signs.
        let errs: Vec<f64> = (0..=4000)
            .map(|i| i as f64 / 4000.0)
            .map(|s| s.exp() - horner(&m.coeffs, s))
            .collect();
        let mut peaks = Vec::new();
        for w in errs.windows(3) {
            if w[1].abs() >= w[0].abs()
                && w[1].abs() >= w[2].abs()
                && w[1].abs() > 0.99 * m.max_error
            {
                peaks.push(w[1].signum());
            }
        }
        let ends = [errs[0], errs[4000]]
            .iter()
            .filter(|e| e.abs() > 0.99 * m.max_error)
            .count();
        assert_eq!(peaks.len() + ends, 5, "{peaks:?}");
    }
}
