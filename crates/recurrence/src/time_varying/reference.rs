//! A reference for tests and checks: the recurrence as written, serially in double-double
//! (about 106 bits), and its gradients from the derivation's other form — the adjoint in
//! direct form with the shifted coefficients u[t] = g[t] − Σ_k a[t+k+1][k]·u[t+k+1] and
//! grad_zi[j] = −Σ_{t ≤ order−1−j} a[t][t+j]·u[t] — so the engines' transposed adjoint is
//! checked against an independent formula, not against itself.

use crate::dd::Dd;

/// Forward in double-double: y (channels × n) from x, a (channels × n × order), zi.
pub fn forward(
    x: &[f64],
    a: &[f64],
    zi: Option<&[f64]>,
    channels: usize,
    order: usize,
) -> Vec<f64> {
    let n = x.len() / channels.max(1);
    let mut y = vec![0.0; x.len()];
    for c in 0..channels {
        let mut yd: Vec<Dd> = Vec::with_capacity(n);
        for t in 0..n {
            let mut acc = Dd::new(x[c * n + t]);
            for k in 0..order {
                let prev = if t > k {
                    yd[t - k - 1]
                } else {
                    Dd::new(zi.map_or(0.0, |z| z[c * order + k - t]))
                };
                acc = acc.sub(prev.mul_f64(a[(c * n + t) * order + k]));
            }
            yd.push(acc);
            y[c * n + t] = acc.to_f64();
        }
    }
    y
}

/// Gradients in double-double for the loss Σ g·y: (grad_x, grad_a, grad_zi), with y taken as
/// given (the engines' saved output).
pub fn backward(
    a: &[f64],
    y: &[f64],
    zi: Option<&[f64]>,
    g: &[f64],
    channels: usize,
    order: usize,
) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let n = g.len() / channels.max(1);
    let mut gx = vec![0.0; g.len()];
    let mut ga = vec![0.0; a.len()];
    let mut gzi = vec![0.0; channels * order];
    for c in 0..channels {
        let at = |t: usize, k: usize| a[(c * n + t) * order + k];
        let mut u = vec![Dd::ZERO; n];
        for t in (0..n).rev() {
            let mut acc = Dd::new(g[c * n + t]);
            for k in 0..order {
                if t + k + 1 < n {
                    acc = acc.sub(u[t + k + 1].mul_f64(at(t + k + 1, k)));
                }
            }
            u[t] = acc;
            gx[c * n + t] = acc.to_f64();
        }
        for t in 0..n {
            for k in 0..order {
                let prev = if t > k {
                    y[c * n + t - k - 1]
                } else {
                    zi.map_or(0.0, |z| z[c * order + k - t])
                };
                ga[(c * n + t) * order + k] = -(u[t].mul_f64(prev)).to_f64();
            }
        }
        for j in 0..order {
            let mut acc = Dd::ZERO;
            for (t, ut) in u.iter().enumerate().take(order.saturating_sub(j).min(n)) {
                acc = acc.sub(ut.mul_f64(at(t, t + j)));
            }
            gzi[c * order + j] = acc.to_f64();
        }
    }
    (gx, ga, gzi)
}

/// The plain serial loop in the data's own type, in torchlpc's order (terms k = 1 … p): the
/// baseline of the accuracy contract ("within 4× its error").
pub fn serial_same_type<T: crate::Element>(
    x: &[T],
    a: &[T],
    zi: Option<&[T]>,
    channels: usize,
    order: usize,
) -> Vec<T> {
    let n = x.len() / channels.max(1);
    let mut y = vec![T::ZERO; x.len()];
    for c in 0..channels {
        for t in 0..n {
            let mut acc = x[c * n + t];
            for k in 0..order {
                let prev = if t > k {
                    y[c * n + t - k - 1]
                } else {
                    zi.map_or(T::ZERO, |z| z[c * order + k - t])
                };
                let term = a[(c * n + t) * order + k].mul(prev);
                acc = acc.add(T::from_f64(-term.to_f64()));
            }
            y[c * n + t] = acc;
        }
    }
    y
}

/// max|got − want| over max|want| (0 for an all-zero want).
pub fn relative_error<T: crate::Element>(got: &[T], want: &[f64]) -> f64 {
    let scale = want.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let err = got
        .iter()
        .zip(want)
        .fold(0.0f64, |m, (g, w)| m.max((g.to_f64() - w).abs()));
    if scale > 0.0 {
        err / scale
    } else {
        err
    }
}
