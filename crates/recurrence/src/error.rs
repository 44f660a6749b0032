//! The crate's errors: [`FilterError`] for everything a filter can refuse, and [`ParseError`]
//! for a signature that could not be read (also a [`FilterError`] through `?`).

/// Why a filter could not be built or run.
#[derive(Debug, thiserror::Error)]
pub enum FilterError {
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// A coefficient that the element type cannot hold, and the like.
    #[error("{0}")]
    Coefficients(String),
    /// A launch shape the GPU code generator cannot take.
    #[error("{0}")]
    Config(String),
    /// An element type name that is none of f32, f64, i32, i64.
    #[error("unknown element type {0:?} (expected f32, f64, i32 or i64)")]
    UnknownDType(String),
    #[error(
        "the filter {signature} is unstable: a pole has magnitude {} (exact \
         step-down test on the coefficients as they run), so its output grows without bound; \
         pass --allow-unstable (library: FilterOptions.allow_unstable) to run it anyway",
        show_magnitude(*.magnitude)
    )]
    Unstable { signature: String, magnitude: f64 },
    /// Input, output or state of the wrong size, or input values the filter refuses.
    #[error("{0}")]
    Input(String),
    /// The method the accuracy contract chose has no engine for this data on this target:
    /// the message says why and the way out (never another method in its place).
    #[error("{0}")]
    Refused(String),
    #[error(transparent)]
    Gpu(#[from] sigpu_runtime::cuda::Error),
}

/// "> 1" after a pole magnitude, for a message: six decimals, more digits when six would show a
/// magnitude above 1 as `1.000000`, exponent notation when large (`1.000000e300`, not a
/// 301-digit number), and words when the root finder could not tell (NaN, or a value at 1
/// that the exact step-down test finds unstable).
fn show_magnitude(m: f64) -> String {
    if m.is_finite() && m >= 1e6 {
        return format!("{m:.6e} > 1");
    }
    (6..=17)
        .map(|digits| format!("{m:.digits$}"))
        .find(|text| m > 1.0 && text.parse::<f64>().is_ok_and(|shown| shown > 1.0))
        .map_or_else(
            || "above 1 (too close to 1, or too large, for the root finder to say how much)".into(),
            |text| format!("{text} > 1"),
        )
}

/// A signature that could not be read: where and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("signature {input:?}, column {column}: {message}")]
pub struct ParseError {
    pub input: String,
    /// 1-based character column of the offending text.
    pub column: usize,
    pub message: String,
}

#[cfg(test)]
mod tests {
    #[test]
    fn pole_magnitudes_are_short() {
        use super::show_magnitude as show;
        assert_eq!(show(1.5), "1.500000 > 1");
        assert_eq!(show(1e300), "1.000000e300 > 1");
        assert_eq!(show(1.000_000_119_209_29), "1.0000001 > 1");
        assert!(show(1.0).starts_with("above 1"));
        assert!(show(f64::NAN).starts_with("above 1"));
        let e = super::FilterError::Unstable {
            signature: "(1 : -1e300)".into(),
            magnitude: 1e300,
        };
        assert!(e.to_string().len() < 300, "{e}");
    }
}
