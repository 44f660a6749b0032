//! Signatures: the PLR paper's notation `(a0, a-1, …, a-p : b-1, …, b-k)` for
//!
//! y_i = a0·x_i + a-1·x_{i-1} + … + a-p·x_{i-p} + b-1·y_{i-1} + … + b-k·y_{i-k},
//!
//! and SciPy's `lfilter(b, a)` convention, which writes the same filter as
//! a[0]·y_n = Σ b[j]·x_{n-j} − Σ_{j≥1} a[j]·y_{n-j}.
//!
//! Beware the clash of letters: the PLR paper's `a` are SciPy's `b` (feed-forward) and the PLR paper's `b`
//! are minus SciPy's `a` (feed-back). This crate names them by role: `feedforward` and
//! `feedback`, always in the PLR paper's sign convention.

use crate::error::{FilterError, ParseError};
use std::fmt;

/// One coefficient as written: its text (for messages and exact integers) and value.
#[derive(Clone, Debug, PartialEq)]
pub struct Coef {
    pub text: String,
    pub value: f64,
    /// The exact value when the text is an integer literal.
    pub int: Option<i64>,
}

impl Coef {
    pub fn from_f64(value: f64) -> Coef {
        let int = (value.fract() == 0.0 && value.abs() < 9.007_199_254_740_992e15)
            .then_some(value as i64);
        Coef {
            text: crate::numbers::short(value),
            value,
            int,
        }
    }

    pub fn from_i64(value: i64) -> Coef {
        Coef {
            text: value.to_string(),
            value: value as f64,
            int: Some(value),
        }
    }
}

/// A linear recurrence with constant coefficients, split by the PLR paper into a map
/// `(a0, …, a-p : 0)` and a recurrence `(1 : b-1, …, b-k)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Signature {
    /// a0, a-1, …, a-p: applied to x_i, x_{i-1}, … (at least one).
    pub feedforward: Vec<Coef>,
    /// b-1, …, b-k: applied to y_{i-1}, …, y_{i-k} (at least one; order k).
    pub feedback: Vec<Coef>,
    /// Length of the filter state (`zi`/`zf`): SciPy's max(len(b), len(a)) − 1.
    pub state_len: usize,
}

impl Signature {
    /// Parses the PLR paper's notation: `(1 : 1)`, `(0.2 : 0.8)`,
    /// `(0.81, -1.62, 0.81 : 1.6, -0.64)`. The parentheses may be left out (`1 : 1`, as the
    /// PLR web tool takes it). Numbers are decimal or in exponent notation; both sides need at
    /// least one; `(… : 0)` is a pure map (FIR filter).
    pub fn parse(input: &str) -> Result<Signature, ParseError> {
        let err = |column: usize, message: String| ParseError {
            input: input.to_owned(),
            column: column + 1,
            message,
        };
        let trimmed_start = input.len() - input.trim_start().len();
        let mut body = input.trim();
        let mut offset = trimmed_start;
        match (body.starts_with('('), body.ends_with(')')) {
            (true, true) if body.len() >= 2 => {
                body = &body[1..body.len() - 1];
                offset += 1;
            }
            (true, _) => return Err(err(input.len(), "missing the closing ')'".into())),
            (false, true) => return Err(err(offset, "missing the opening '('".into())),
            _ => {}
        }
        if body.trim().is_empty() {
            return Err(err(
                offset,
                "empty signature: expected `(a0, a-1, … : b-1, …, b-k)`".into(),
            ));
        }
        let colons: Vec<usize> = body.match_indices(':').map(|(i, _)| i).collect();
        let colon = match colons.as_slice() {
            [c] => *c,
            [] => {
                return Err(err(
                    offset,
                    "no ':' separating the non-recursive from the recursive coefficients, \
                     e.g. `(0.2 : 0.8)`"
                        .into(),
                ))
            }
            [_, second, ..] => return Err(err(offset + second, "more than one ':'".into())),
        };
        let list = |text: &str, start: usize, side: &str| -> Result<Vec<Coef>, ParseError> {
            if text.trim().is_empty() {
                return Err(err(
                    start,
                    format!("no {side} coefficients (write 0 for none)"),
                ));
            }
            let mut out = Vec::new();
            let mut pos = start;
            for item in text.split(',') {
                let lead = item.len() - item.trim_start().len();
                let token = item.trim();
                out.push(parse_number(token).map_err(|m| err(pos + lead, m))?);
                pos += item.len() + 1;
            }
            Ok(out)
        };
        let feedforward = list(&body[..colon], offset, "non-recursive")?;
        let feedback = list(&body[colon + 1..], offset + colon + 1, "recursive")?;
        Ok(Signature::new(feedforward, feedback))
    }

    /// From the two coefficient lists in the PLR paper's convention; the state length is SciPy's
    /// for the equivalent `lfilter` call.
    pub fn new(feedforward: Vec<Coef>, feedback: Vec<Coef>) -> Signature {
        let state_len = (feedforward.len().max(1) - 1).max(feedback.len());
        Signature {
            feedforward,
            feedback,
            state_len,
        }
    }

    /// SciPy's `lfilter(b, a)`: y = b/a[0] applied to x, minus a[1..]/a[0] applied to past y.
    /// Coefficients are divided by a[0] (exactly, when a[0] = 1). `a = [a0]` alone is a pure
    /// map; the state length stays SciPy's max(len(b), len(a)) − 1.
    pub fn from_lfilter(b: &[f64], a: &[f64]) -> Result<Signature, FilterError> {
        let err = |m: String| Err(FilterError::Coefficients(m));
        if b.is_empty() {
            return err("b (the numerator) is empty".into());
        }
        if a.is_empty() {
            return err("a (the denominator) is empty".into());
        }
        if let Some((i, v)) = b.iter().enumerate().find(|(_, v)| !v.is_finite()) {
            return err(format!("b[{i}] is {v}: coefficients must be finite"));
        }
        if let Some((i, v)) = a.iter().enumerate().find(|(_, v)| !v.is_finite()) {
            return err(format!("a[{i}] is {v}: coefficients must be finite"));
        }
        let a0 = a[0];
        if a0 == 0.0 {
            return err("a[0] is 0: the leading denominator coefficient must be non-zero".into());
        }
        let feedforward: Vec<Coef> = b.iter().map(|&v| Coef::from_f64(v / a0)).collect();
        // Trailing zeros of a add no pole (scipy accepts any number): they leave the recurrence,
        // so they do not count toward the order cap; the state keeps scipy's length.
        let poles = a.iter().rposition(|&v| v != 0.0).unwrap_or(0);
        let mut feedback: Vec<Coef> = (a[1..=poles].iter())
            .map(|&v| Coef::from_f64(-v / a0))
            .collect();
        let state_len = b.len().max(a.len()) - 1;
        if feedback.is_empty() {
            feedback.push(Coef::from_i64(0));
        }
        Ok(Signature {
            feedforward,
            feedback,
            state_len,
        })
    }

    /// The recurrence order k (number of feed-back coefficients).
    pub fn order(&self) -> usize {
        self.feedback.len()
    }

    /// The largest pole magnitude of the recurrence: the largest |z| with
    /// z^k = b-1·z^(k-1) + … + b-k. Above 1 the output grows without bound.
    pub fn max_pole_magnitude(&self) -> f64 {
        let b: Vec<f64> = self.feedback.iter().map(|c| c.value).collect();
        crate::poles::max_root_magnitude(&b)
    }
}

fn parse_number(token: &str) -> Result<Coef, String> {
    if token.is_empty() {
        return Err("missing a number (two commas in a row, or a trailing comma?)".into());
    }
    let plain = token.strip_prefix('+').unwrap_or(token);
    let is_numeric = plain
        .strip_prefix('-')
        .unwrap_or(plain)
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'));
    let value: f64 = match plain.parse() {
        Ok(v) if is_numeric => v,
        _ => return Err(format!("{token:?} is not a number")),
    };
    if !value.is_finite() {
        return Err(format!("{token:?} is not finite"));
    }
    Ok(Coef {
        text: token.to_owned(),
        value,
        int: plain.parse::<i64>().ok(),
    })
}

impl fmt::Display for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let join = |c: &[Coef]| {
            c.iter()
                .map(|c| c.text.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        write!(
            f,
            "({} : {})",
            join(&self.feedforward),
            join(&self.feedback)
        )
    }
}

impl std::str::FromStr for Signature {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, ParseError> {
        Signature::parse(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(c: &[Coef]) -> Vec<f64> {
        c.iter().map(|c| c.value).collect()
    }

    #[test]
    fn parses_the_plr_papers_examples() {
        let s = Signature::parse("(1 : 1)").unwrap();
        assert_eq!(values(&s.feedforward), [1.0]);
        assert_eq!(values(&s.feedback), [1.0]);
        assert_eq!(s.feedback[0].int, Some(1));
        assert_eq!(s.state_len, 1);
        let s = Signature::parse("(0.2 : 0.8)").unwrap();
        assert_eq!(
            (values(&s.feedforward), values(&s.feedback)),
            (vec![0.2], vec![0.8])
        );
        let s = Signature::parse("(0.81, -1.62, 0.81 : 1.6, -0.64)").unwrap();
        assert_eq!(values(&s.feedforward), [0.81, -1.62, 0.81]);
        assert_eq!(values(&s.feedback), [1.6, -0.64]);
        assert_eq!(s.state_len, 2);
        assert_eq!(s.to_string(), "(0.81, -1.62, 0.81 : 1.6, -0.64)");
        let s = Signature::parse(" 0.280990 : 0.719010 ").unwrap();
        assert_eq!(values(&s.feedback), [0.71901]);
        let s = Signature::parse("(1:0,1)").unwrap();
        assert_eq!(values(&s.feedback), [0.0, 1.0]);
        let s = Signature::parse("(1e-2, +2 : -1.5E-1)").unwrap();
        assert_eq!(values(&s.feedforward), [0.01, 2.0]);
        assert_eq!(s.feedforward[1].int, Some(2));
    }

    #[test]
    fn malformed_signatures_say_where() {
        let cases = [
            ("", "empty"),
            ("()", "empty"),
            ("(1 : 1", "closing"),
            ("1 : 1)", "opening"),
            ("(1, 2)", "no ':'"),
            ("(1 : 1 : 1)", "more than one"),
            ("( : 1)", "no non-recursive"),
            ("(1 : )", "no recursive"),
            ("(1 : 0.8x)", "\"0.8x\" is not a number"),
            ("(1,,2 : 1)", "missing a number"),
            ("(1 : 1,)", "missing a number"),
            ("(inf : 1)", "not a number"),
            ("(1 : 1e999)", "not finite"),
            ("(0x10 : 1)", "not a number"),
        ];
        for (input, want) in cases {
            let e = Signature::parse(input).expect_err(input);
            let shown = e.to_string();
            assert!(shown.contains(want), "{input:?}: {shown}");
            assert!(shown.contains("column"), "{shown}");
        }
        let e = Signature::parse("(1 : 0.8x)").unwrap_err();
        assert_eq!(e.column, 6, "{e}");
        let e = Signature::parse("(1, 2 : 3, 4, zz)").unwrap_err();
        assert_eq!(e.column, 15, "{e}");
    }

    #[test]
    fn lfilter_convention() {
        // y[n] = 0.2 x[n] + 0.8 y[n-1]  is  lfilter([0.2], [1, -0.8]).
        let s = Signature::from_lfilter(&[0.2], &[1.0, -0.8]).unwrap();
        assert_eq!(
            (values(&s.feedforward), values(&s.feedback)),
            (vec![0.2], vec![0.8])
        );
        // a[0] normalises everything.
        let s = Signature::from_lfilter(&[1.0, 2.0], &[2.0, -1.0, 0.5]).unwrap();
        assert_eq!(values(&s.feedforward), [0.5, 1.0]);
        assert_eq!(values(&s.feedback), [0.5, -0.25]);
        assert_eq!(s.state_len, 2);
        // FIR: a = [1]; SciPy's state is len(b) - 1.
        let s = Signature::from_lfilter(&[1.0, 1.0, 1.0], &[1.0]).unwrap();
        assert_eq!(values(&s.feedback), [0.0]);
        assert_eq!(s.state_len, 2);
        let s = Signature::from_lfilter(&[3.0], &[1.0]).unwrap();
        assert_eq!(s.state_len, 0);
        assert!(Signature::from_lfilter(&[1.0], &[0.0, 1.0])
            .unwrap_err()
            .to_string()
            .contains("a[0]"));
        assert!(Signature::from_lfilter(&[], &[1.0])
            .unwrap_err()
            .to_string()
            .contains("b"));
        assert!(Signature::from_lfilter(&[1.0, f64::NAN], &[1.0])
            .unwrap_err()
            .to_string()
            .contains("b[1]"));
    }

    #[test]
    fn pole_magnitudes() {
        let p = |s: &str| Signature::parse(s).unwrap().max_pole_magnitude();
        assert!((p("(0.2 : 0.8)") - 0.8).abs() < 1e-12);
        assert!((p("(1 : 1)") - 1.0).abs() < 1e-9);
        assert!((p("(0.04 : 1.6, -0.64)") - 0.8).abs() < 1e-6);
        assert!((p("(1 : 2, -1)") - 1.0).abs() < 1e-6);
        assert!((p("(1 : 0, 1)") - 1.0).abs() < 1e-9);
        assert!((p("(1 : 1.25)") - 1.25).abs() < 1e-12);
        assert!((p("(1 : 0)")).abs() < 1e-12);
    }
}
