//! SciPy's `lfilter_zi` and `sosfilt_zi` for complex coefficients: the state of a step
//! response's steady state, solved in complex f64 as SciPy solves it.

use super::c64::C64;
use super::serial::normalised;
use super::spec::ComplexSpec;
use crate::error::FilterError;

/// `lfilter_zi(b, a)`: solves (I − Aᵀ)·zi = b[1:] − a[1:]·b[0] with A the companion matrix
/// of the normalised a (Gaussian elimination with partial pivoting).
pub fn lfilter_zi(b: &[C64], a: &[C64]) -> Result<Vec<C64>, FilterError> {
    ComplexSpec::Ba {
        b: b.to_vec(),
        a: a.to_vec(),
    }
    .validate()?;
    let (b, a) = normalised(b, a);
    let k = a.len() - 1;
    // Row i of I − Aᵀ: 1 on the diagonal, plus a[i+1] in column 0, −1 above the diagonal.
    let mut m = vec![vec![C64::ZERO; k]; k];
    for (i, row) in m.iter_mut().enumerate() {
        row[i] = C64::ONE;
        row[0] = row[0] + a[i + 1];
        if i + 1 < k {
            row[i + 1] = C64::real(-1.0);
        }
    }
    let mut rhs: Vec<C64> = (0..k).map(|i| b[i + 1] - a[i + 1] * b[0]).collect();
    solve(&mut m, &mut rhs)?;
    Ok(rhs)
}

/// `sosfilt_zi(sos)`: per section `lfilter_zi` scaled by the DC gain of the sections before
/// it, `[section][2]`.
pub fn sosfilt_zi(sos: &[[C64; 6]]) -> Result<Vec<C64>, FilterError> {
    ComplexSpec::Sos(sos.to_vec()).validate()?;
    let mut scale = C64::ONE;
    let mut out = Vec::with_capacity(2 * sos.len());
    for r in sos {
        let zi = lfilter_zi(&r[..3], &r[3..])?;
        out.extend(zi.iter().map(|&z| scale * z));
        scale = scale * ((r[0] + r[1] + r[2]) / (r[3] + r[4] + r[5]));
    }
    Ok(out)
}

fn solve(m: &mut [Vec<C64>], rhs: &mut [C64]) -> Result<(), FilterError> {
    let k = rhs.len();
    for col in 0..k {
        let pivot = (col..k)
            .max_by(|&i, &j| m[i][col].abs().total_cmp(&m[j][col].abs()))
            .expect("col < k");
        if m[pivot][col] == C64::ZERO {
            return Err(FilterError::Coefficients(
                "lfilter_zi: the filter has a pole at z = 1 (its steady state to a step is \
                 unbounded), so there is no step-response state"
                    .into(),
            ));
        }
        m.swap(col, pivot);
        rhs.swap(col, pivot);
        let (top, below) = m.split_at_mut(col + 1);
        let pivot_row = &top[col];
        for (i, r) in below.iter_mut().enumerate() {
            let f = r[col] / pivot_row[col];
            for (v, &p) in r[col..].iter_mut().zip(&pivot_row[col..]) {
                *v = *v - f * p;
            }
            rhs[col + 1 + i] = rhs[col + 1 + i] - f * rhs[col];
        }
    }
    for row in (0..k).rev() {
        let mut s = rhs[row];
        for c in row + 1..k {
            s = s - m[row][c] * rhs[c];
        }
        rhs[row] = s / m[row][row];
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_step_state_is_steady() {
        // A step through the filter from lfilter_zi stays at its DC gain from the start.
        let b = [C64::new(0.3, 0.1), C64::new(0.2, -0.2)];
        let a = [C64::ONE, C64::new(-0.4, 0.3)];
        let zi = lfilter_zi(&b, &a).unwrap();
        let (bn, an) = normalised(&b, &a);
        let gain = (b[0] + b[1]) / (a[0] + a[1]);
        let f = super::super::serial::Serial::Ba { b: bn, a: an };
        let mut z = zi.clone();
        let x = [1.0f64, 0.0, 1.0, 0.0, 1.0, 0.0];
        let mut y = [0.0; 6];
        f.run(&x, &mut y, &mut z);
        for i in 0..3 {
            assert!((C64::new(y[2 * i], y[2 * i + 1]) - gain).abs() < 1e-14);
        }
        // Sections: the same filter as one section gives the same state.
        let sos = [[b[0], b[1], C64::ZERO, C64::ONE, a[1], C64::ZERO]];
        let zs = sosfilt_zi(&sos).unwrap();
        assert!((zs[0] - zi[0]).abs() < 1e-15 && zs[1].abs() < 1e-15);
        let pole_at_one = lfilter_zi(&[C64::ONE], &[C64::ONE, C64::real(-1.0)]);
        assert!(pole_at_one.unwrap_err().to_string().contains("z = 1"));
    }
}
