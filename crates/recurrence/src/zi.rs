//! SciPy's steady-state initial conditions: `lfilter_zi` for (b, a) and `sosfilt_zi` for
//! second-order sections.

use crate::error::FilterError;
use crate::filter::FilterOptions;
use crate::numbers::short;
use crate::sos::Sos;

/// SciPy's `lfilter_zi(b, a)`: the initial state that starts the filter in the steady state of
/// a unit step (multiply by x[0]). Length max(len(a), len(b)) − 1.
pub fn lfilter_zi(b: &[f64], a: &[f64]) -> Result<Vec<f64>, FilterError> {
    let lead = a
        .iter()
        .position(|&v| v != 0.0)
        .ok_or_else(|| FilterError::Coefficients("a has no non-zero coefficient".into()))?;
    let a = &a[lead..];
    if b.is_empty() {
        return Err(FilterError::Coefficients("b is empty".into()));
    }
    if let Some(v) = a.iter().chain(b).find(|v| !v.is_finite()) {
        return Err(FilterError::Coefficients(format!(
            "coefficient {} is not finite",
            short(*v)
        )));
    }
    let n = a.len().max(b.len());
    let mut an = vec![0.0; n];
    let mut bn = vec![0.0; n];
    for (i, v) in a.iter().enumerate() {
        an[i] = v / a[0];
    }
    for (i, v) in b.iter().enumerate() {
        bn[i] = v / a[0];
    }
    let k = n - 1;
    if k == 0 {
        return Ok(Vec::new());
    }
    // (I − companion(a)ᵀ) zi = b[1:] − a[1:]·b[0]; companion(a)ᵀ has −a[1:] in its first
    // column and ones above the diagonal.
    let mut m = vec![vec![0.0f64; k + 1]; k];
    for (i, row) in m.iter_mut().enumerate() {
        row[i] += 1.0;
        row[0] += an[i + 1];
        if i + 1 < k {
            row[i + 1] -= 1.0;
        }
        row[k] = bn[i + 1] - an[i + 1] * bn[0];
    }
    // Gaussian elimination with partial pivoting.
    for col in 0..k {
        let piv = (col..k)
            .max_by(|&p, &q| m[p][col].abs().total_cmp(&m[q][col].abs()))
            .unwrap_or(col);
        m.swap(col, piv);
        let d = m[col][col];
        if d == 0.0 {
            return Err(FilterError::Coefficients(
                "lfilter_zi: the filter has a pole at z = 1 (no steady state)".into(),
            ));
        }
        let pivot_row = m[col].clone();
        for row in m.iter_mut().skip(col + 1) {
            let f = row[col] / d;
            if f != 0.0 {
                for (v, p) in row.iter_mut().zip(&pivot_row).skip(col) {
                    *v -= f * p;
                }
            }
        }
    }
    let mut zi = vec![0.0; k];
    for r in (0..k).rev() {
        let mut v = m[r][k];
        for c in r + 1..k {
            v -= m[r][c] * zi[c];
        }
        zi[r] = v / m[r][r];
    }
    Ok(zi)
}

/// SciPy's `sosfilt_zi`: the steady state of each section for a unit step, scaled by the DC
/// gains of the sections before it; multiply by x[0] for a start without a transient.
/// Shape `(n_sections, 2)`, flattened.
pub fn sosfilt_zi(sos: &[[f64; 6]]) -> Result<Vec<f64>, FilterError> {
    // Validate as an f64 cascade (finite, a0 = 1); stability is not required for the algebra.
    let opts = FilterOptions {
        allow_unstable: true,
        ..FilterOptions::default()
    };
    Sos::<f64>::new(sos, opts)?;
    let mut out = Vec::with_capacity(2 * sos.len());
    let mut scale = 1.0;
    for row in sos {
        let zi = lfilter_zi(&row[..3], &row[3..])?;
        out.extend(zi.iter().map(|v| v * scale));
        let (nb, na) = (row[0] + row[1] + row[2], row[3] + row[4] + row[5]);
        scale *= nb / na;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zi_is_scipys() {
        // scipy.signal.sosfilt_zi(butter(4, 0.05, output='sos'))
        let zi = sosfilt_zi(&crate::sos::tests::butter4()).unwrap();
        let want = [
            0.0057768879174478,
            -0.00431003020598291,
            0.9941918731056267,
            -0.8812248727583222,
        ];
        for (a, b) in zi.iter().zip(want) {
            assert!((a - b).abs() < 1e-9, "{zi:?}");
        }
    }
}
