//! A filter with complex (or real) coefficients as a user gives it, and what it is when its
//! coefficients are all real.

use super::c64::C64;
use crate::error::FilterError;
use crate::planner::FilterSpec;

/// A filter whose coefficients may be complex: SciPy's `(b, a)` or second-order sections
/// `[b0, b1, b2, a0 = 1, a1, a2]`.
#[derive(Clone, Debug, PartialEq)]
pub enum ComplexSpec {
    /// Numerator and denominator; a[0] normalises.
    Ba {
        /// Numerator.
        b: Vec<C64>,
        /// Denominator.
        a: Vec<C64>,
    },
    /// Second-order sections, SciPy's `(n_sections, 6)` rows.
    Sos(Vec<[C64; 6]>),
}

impl ComplexSpec {
    /// A (b, a) filter from real and imaginary parts (`b_im` / `a_im` empty: real).
    pub fn ba(b_re: &[f64], b_im: &[f64], a_re: &[f64], a_im: &[f64]) -> Result<Self, FilterError> {
        Ok(ComplexSpec::Ba {
            b: join(b_re, b_im, "b")?,
            a: join(a_re, a_im, "a")?,
        })
    }

    /// Sections from real and imaginary parts of the flattened `(n_sections, 6)` array
    /// (`im` empty: real).
    pub fn sos(re: &[f64], im: &[f64]) -> Result<Self, FilterError> {
        let all = join(re, im, "sos")?;
        if all.is_empty() || !all.len().is_multiple_of(6) {
            return Err(FilterError::Coefficients(format!(
                "sos holds {} values: it must be (n_sections, 6) with at least one section",
                all.len()
            )));
        }
        Ok(ComplexSpec::Sos(
            all.chunks_exact(6)
                .map(|r| [r[0], r[1], r[2], r[3], r[4], r[5]])
                .collect(),
        ))
    }

    /// The same filter with real coefficients, when every imaginary part is zero.
    pub fn as_real(&self) -> Option<FilterSpec> {
        let real = |v: &[C64]| v.iter().all(|c| c.im == 0.0);
        match self {
            ComplexSpec::Ba { b, a } if real(b) && real(a) => Some(FilterSpec::Ba {
                b: b.iter().map(|c| c.re).collect(),
                a: a.iter().map(|c| c.re).collect(),
            }),
            ComplexSpec::Sos(rows) if rows.iter().all(|r| real(r)) => Some(FilterSpec::Sos(
                rows.iter().map(|r| r.map(|c| c.re)).collect(),
            )),
            _ => None,
        }
    }

    /// Checks what SciPy checks (and finiteness): non-empty b and a, a[0] ≠ 0, sections
    /// with a0 = 1.
    pub(super) fn validate(&self) -> Result<(), FilterError> {
        let bad = |what: &str, v: &[C64]| -> Result<(), FilterError> {
            if let Some(i) = v.iter().position(|c| !c.is_finite()) {
                return Err(FilterError::Coefficients(format!(
                    "{what}[{i}] is not finite: coefficients must be finite"
                )));
            }
            Ok(())
        };
        match self {
            ComplexSpec::Ba { b, a } => {
                if b.is_empty() || a.is_empty() {
                    return Err(FilterError::Coefficients(
                        "b and a must not be empty".into(),
                    ));
                }
                bad("b", b)?;
                bad("a", a)?;
                if a[0] == C64::ZERO {
                    return Err(FilterError::Coefficients(
                        "a[0] must be nonzero (the filter is normalised by it)".into(),
                    ));
                }
                if a.len().max(b.len()) > crate::MAX_ORDER + 1 {
                    return Err(FilterError::Coefficients(format!(
                        "order {} is above the most the filters take ({})",
                        a.len().max(b.len()) - 1,
                        crate::MAX_ORDER
                    )));
                }
            }
            ComplexSpec::Sos(rows) => {
                if rows.len() > crate::MAX_SECTIONS {
                    return Err(FilterError::Coefficients(format!(
                        "{} sections is more than the most the filters take ({})",
                        rows.len(),
                        crate::MAX_SECTIONS
                    )));
                }
                for (s, r) in rows.iter().enumerate() {
                    bad(&format!("sos[{s}]"), r)?;
                    if r[3] != C64::ONE {
                        return Err(FilterError::Coefficients(format!(
                            "sos[{s}, 3] is not 1: each section must have a0 = 1, as SciPy \
                             requires"
                        )));
                    }
                }
            }
        }
        Ok(())
    }
}

impl std::fmt::Display for ComplexSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let list = |v: &[C64]| {
            v.iter()
                .map(|c| format!("{}{:+}j", crate::short(c.re), c.im))
                .collect::<Vec<_>>()
                .join(", ")
        };
        match self {
            ComplexSpec::Ba { b, a } => write!(f, "b = [{}], a = [{}]", list(b), list(a)),
            ComplexSpec::Sos(rows) => write!(f, "{} complex second-order section(s)", rows.len()),
        }
    }
}

/// Real and imaginary parts as complex values (`im` empty: all real).
fn join(re: &[f64], im: &[f64], what: &str) -> Result<Vec<C64>, FilterError> {
    if !im.is_empty() && im.len() != re.len() {
        return Err(FilterError::Coefficients(format!(
            "{what}: {} real parts but {} imaginary parts",
            re.len(),
            im.len()
        )));
    }
    Ok(re
        .iter()
        .enumerate()
        .map(|(i, &r)| C64::new(r, im.get(i).copied().unwrap_or(0.0)))
        .collect())
}
