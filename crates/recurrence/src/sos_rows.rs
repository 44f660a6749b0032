//! scipy's second-order-section rows `[b0, b1, b2, a0, a1, a2]` checked once, for every cascade
//! that runs them: the CPU's [`crate::Sos`] and the GPU's fused kernel
//! ([`crate::gpu::sos_tables::sos_coefficients`]) refuse the same rows with the same words.

use crate::elem::Element;
use crate::error::FilterError;
use crate::numbers::short;
use crate::stability::section_verdict;

/// How many sections a cascade takes, and its name for the message that refuses more.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SectionLimit {
    /// The most sections the cascade takes.
    pub max: usize,
    /// The cascade, as the message names it ("the CPU cascade").
    pub engine: &'static str,
}

/// The rows of `sos` checked for element type `T` (f32 or f64): at least one and at most
/// `limit.max` sections, finite values, a0 = 1 exactly (scipy does not normalise rows), every
/// value representable in `T`, and — when `check_stability` — every section stable in `T`
/// by [`section_verdict`] (poles on the unit circle pass, as scipy runs them). Returns the rows
/// rounded to `T`, as f64 (exact: they are `T`'s values).
pub(crate) fn checked_rows<T: Element>(
    sos: &[[f64; 6]],
    limit: SectionLimit,
    check_stability: bool,
) -> Result<Vec<[f64; 6]>, FilterError> {
    if !T::DTYPE.is_float() {
        return Err(FilterError::Coefficients(format!(
            "second-order sections run in f32 or f64, not {}",
            T::DTYPE
        )));
    }
    if sos.is_empty() {
        return Err(FilterError::Coefficients(
            "sos has no sections: expected shape (n_sections, 6)".into(),
        ));
    }
    if sos.len() > limit.max {
        return Err(FilterError::Coefficients(format!(
            "sos has {} sections; {} takes at most {}",
            sos.len(),
            limit.engine,
            limit.max
        )));
    }
    let mut rows = Vec::with_capacity(sos.len());
    for (s, row) in sos.iter().enumerate() {
        if let Some(i) = row.iter().position(|v| !v.is_finite()) {
            return Err(FilterError::Coefficients(format!(
                "sos[{s}, {i}] is {}: coefficients must be finite",
                short(row[i])
            )));
        }
        if row[3] != 1.0 {
            return Err(FilterError::Coefficients(format!(
                "sos[{s}, 3] (a0 of section {s}) is {}; every row must be [b0, b1, b2, 1, a1, a2] \
                 with a0 = 1, as scipy.signal.sosfilt requires (divide the row by its a0)",
                short(row[3])
            )));
        }
        let mut r = [0.0; 6];
        for i in 0..6 {
            let v = T::from_f64(row[i]);
            if !v.is_finite() {
                return Err(FilterError::Coefficients(format!(
                    "sos[{s}, {i}] = {} does not fit in {}",
                    short(row[i]),
                    T::DTYPE
                )));
            }
            r[i] = v.to_f64();
        }
        if check_stability {
            if let Err(magnitude) = section_verdict(r[4], r[5]) {
                return Err(FilterError::Unstable {
                    signature: format!("sos section {s} [{}]", row_text(&r)),
                    magnitude,
                });
            }
        }
        rows.push(r);
    }
    Ok(rows)
}

/// A row's values, short, comma-separated (for messages).
fn row_text(r: &[f64; 6]) -> String {
    r.iter().map(|&v| short(v)).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    const CPU: SectionLimit = SectionLimit {
        max: 128,
        engine: "the CPU cascade",
    };

    #[test]
    fn marginal_sections_pass_and_outside_poles_are_refused() {
        // A pure integrator and a double pole at 1 run, as in scipy.
        assert!(checked_rows::<f64>(&[[1.0, 0.0, 0.0, 1.0, -1.0, 0.0]], CPU, true).is_ok());
        assert!(checked_rows::<f32>(&[[1.0, 0.0, 0.0, 1.0, -2.0, 1.0]], CPU, true).is_ok());
        let e = checked_rows::<f64>(&[[1.0, 0.0, 0.0, 1.0, -2.5, 1.0]], CPU, true).unwrap_err();
        assert!(matches!(e, FilterError::Unstable { .. }), "{e}");
        assert!(e.to_string().contains("sos section 0"), "{e}");
        // Unless asked not to check.
        assert!(checked_rows::<f64>(&[[1.0, 0.0, 0.0, 1.0, -2.5, 1.0]], CPU, false).is_ok());
    }

    #[test]
    fn the_limit_names_the_cascade() {
        let sos = vec![[1.0, 0.0, 0.0, 1.0, 0.0, 0.0]; 3];
        let limit = SectionLimit {
            max: 2,
            engine: "the GPU cascade",
        };
        let e = checked_rows::<f32>(&sos, limit, true)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("3 sections; the GPU cascade takes at most 2"),
            "{e}"
        );
    }
}
