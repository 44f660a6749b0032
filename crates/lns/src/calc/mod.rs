//! A calculator over LNS words: one `a op b` per line (`1+2` and `1 + 2` alike), evaluated
//! in a [`Format`] with the [`Accurate`] method, with why a result is ±inf or NaN.
//!
//! Input is read with [`next_line`] in bounded pieces, so a face can run it over endless input
//! with bounded memory; each line read becomes one [`CalcResult`].

mod lines;

pub use lines::{next_line, Line, MAX_LINE, SHOWN};

use crate::{Accurate, Format};
use serde::Serialize;

/// One line's result, as the calculator reports it (and serialises it).
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CalcResult {
    /// The line number, from 1 (blank and comment lines counted).
    pub line: usize,
    /// The format's name.
    pub format: String,
    /// The line as given (trimmed), absent for a line too long or not UTF-8.
    pub expression: Option<String>,
    /// The result; null when it is ±inf or NaN (`special` says which).
    pub value: Option<f64>,
    /// `nan`, `+inf` or `-inf` when the result is one.
    pub special: Option<&'static str>,
    /// The raw LNS word in hexadecimal (`0x…`, as many digits as the word needs).
    pub word: Option<String>,
    /// Why the result is ±inf or NaN.
    pub note: Option<String>,
    /// Why the line could not be evaluated.
    pub error: Option<String>,
}

impl CalcResult {
    /// Evaluates line number `no` as read; `None` for a blank line or a `#` comment.
    pub fn of(format: Format, no: usize, line: Line) -> Option<CalcResult> {
        let mut result = CalcResult {
            line: no,
            format: format.to_string(),
            expression: None,
            value: None,
            special: None,
            word: None,
            note: None,
            error: None,
        };
        match line {
            Line::Text(text) => {
                if text.trim().is_empty() || text.trim_start().starts_with('#') {
                    return None;
                }
                result.expression = Some(text.trim().to_owned());
                match calc_line(format, &text) {
                    Ok(c) => result.set_word(format, c),
                    Err(e) => result.error = Some(e),
                }
            }
            Line::NotUtf8(at) => {
                result.error = Some(format!("not UTF-8 text (bad byte at offset {at})"));
            }
            Line::TooLong(start, length) => {
                result.error = Some(format!(
                    "{length} bytes, over the {MAX_LINE}-byte limit of a line; it starts {start:?}"
                ));
            }
        }
        Some(result)
    }

    fn set_word(&mut self, format: Format, c: Computed) {
        let digits = (format.word_bits() as usize).div_ceil(4);
        let v = format.to_f64(c.word);
        self.value = v.is_finite().then_some(v);
        self.special = match v {
            _ if v.is_nan() => Some("nan"),
            _ if v == f64::INFINITY => Some("+inf"),
            _ if v == f64::NEG_INFINITY => Some("-inf"),
            _ => None,
        };
        self.word = Some(format!("0x{:0digits$x}", c.word));
        self.note = c.note;
    }

    /// The result as one line of text, `value  word` with `  # note` when there is one;
    /// `None` for a line in error.
    pub fn text(&self) -> Option<String> {
        let word = self.word.as_ref()?;
        let v = self.value.unwrap_or(match self.special {
            Some("+inf") => f64::INFINITY,
            Some("-inf") => f64::NEG_INFINITY,
            _ => f64::NAN,
        });
        Some(match &self.note {
            Some(note) => format!("{v}  {word}  # {note}"),
            None => format!("{v}  {word}"),
        })
    }
}

/// `a op b` split into its three parts; spaces are optional (`1+2`, `1e-3*-2`, `-1 - -2`).
fn split(line: &str) -> Result<(&str, char, &str), String> {
    let text = line.trim();
    let expected = || format!("expected `a op b` (op one of + - * /), got {text:?}");
    let first = number_end(text).ok_or_else(expected)?;
    let rest = text[first..].trim_start();
    let op = rest.chars().next().ok_or_else(expected)?;
    if !"+-*/".contains(op) {
        return Err(format!("unknown operator {op:?} in {text:?}: use + - * /"));
    }
    let b = rest[1..].trim();
    match number_end(b) {
        Some(end) if end == b.len() => Ok((&text[..first], op, b)),
        _ => Err(expected()),
    }
}

/// The length of the number at the start of `s`: an optional sign, then letters, digits and
/// dots (`inf`, `nan`, `1.5`), with a sign allowed right after an exponent's `e`.
fn number_end(s: &str) -> Option<usize> {
    let bytes = s.as_bytes();
    let mut i = usize::from(matches!(bytes.first(), Some(b'+' | b'-')));
    let start = i;
    while i < bytes.len() {
        let c = bytes[i];
        let after_e = i > start && matches!(bytes[i - 1], b'e' | b'E');
        let numeric = bytes[start].is_ascii_digit() || bytes[start] == b'.';
        if c.is_ascii_alphanumeric()
            || c == b'.'
            || (numeric && after_e && (c == b'+' || c == b'-'))
        {
            i += 1;
        } else {
            break;
        }
    }
    (i > start).then_some(i)
}

/// One calculator line's result: the word, and why it is ±inf or NaN when it is.
struct Computed {
    word: u32,
    note: Option<String>,
}

/// Evaluates one line in `format`.
fn calc_line(format: Format, line: &str) -> Result<Computed, String> {
    let (a_text, op, b_text) = split(line)?;
    let num = |t: &str| -> Result<(f64, u32), String> {
        let x = t
            .parse::<f64>()
            .map_err(|_| format!("{t:?} is not a number"))?;
        Ok((x, format.from_f64(x)))
    };
    let ((x, a), (y, b)) = (num(a_text)?, num(b_text)?);
    let m = Accurate(format);
    let word = match op {
        '+' => format.add(&m, a, b),
        '-' => format.sub(&m, a, b),
        '*' => format.mul(a, b),
        _ => format.div(a, b),
    };
    let note = cause(format, (a_text, x, a), op, (b_text, y, b), word);
    Ok(Computed { word, note })
}

/// Why `word` (the result) is ±inf or NaN, if it is: an operand's value, or the operation.
fn cause(
    format: Format,
    (a_text, x, a): (&str, f64, u32),
    op: char,
    (b_text, y, b): (&str, f64, u32),
    word: u32,
) -> Option<String> {
    let r = format.to_f64(word);
    if r.is_finite() {
        return None;
    }
    let result = if r.is_nan() {
        "NaN".to_owned()
    } else {
        format!("{}inf", if r < 0.0 { "-" } else { "+" })
    };
    let (av, bv) = (format.to_f64(a), format.to_f64(b));
    let largest = ((format.max_code() as f64) * format.ulp()).exp2();
    let expression = format!("{a_text} {op} {b_text}");
    // An operand that is not a finite number of the format explains the result first.
    for (text, given, value) in [(a_text, x, av), (b_text, y, bv)] {
        if given.is_nan() {
            return Some(format!(
                "{expression}: the operand {text} is NaN, so is the result"
            ));
        }
        if given.is_finite() && value.is_infinite() {
            return Some(format!(
                "{expression}: {text} is beyond {format}'s largest value {largest:.6e} and \
                 becomes {}inf; the result is {result}",
                if value < 0.0 { "-" } else { "+" }
            ));
        }
    }
    let why = match op {
        '/' if av == 0.0 && bv == 0.0 => "0 / 0 is undefined: NaN".to_owned(),
        '/' if av.is_infinite() && bv.is_infinite() => "inf / inf is undefined: NaN".to_owned(),
        '/' if bv == 0.0 => format!("division by zero gives {result}"),
        '*' if (av == 0.0 && bv.is_infinite()) || (bv == 0.0 && av.is_infinite()) => {
            "0 · inf is undefined: NaN".to_owned()
        }
        '+' | '-' if av.is_infinite() && bv.is_infinite() => {
            "inf − inf is undefined: NaN".to_owned()
        }
        _ if av.is_infinite() || bv.is_infinite() => format!("an infinite operand gives {result}"),
        _ => format!("the result overflows {format}'s largest value {largest:.6e}: {result}"),
    };
    Some(format!("{expression}: {why}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spaces_are_optional() {
        for (line, want) in [
            ("1+2", ("1", '+', "2")),
            ("  1e-3*-2 ", ("1e-3", '*', "-2")),
            ("-1 - -2", ("-1", '-', "-2")),
            ("-1--2", ("-1", '-', "-2")),
            ("2/0", ("2", '/', "0")),
            ("inf-inf", ("inf", '-', "inf")),
            ("1E+5 + .5", ("1E+5", '+', ".5")),
        ] {
            let (a, op, b) = split(line).unwrap();
            assert_eq!((a, op, b), want, "{line}");
        }
        assert_eq!(split("-1 - -2").unwrap().2, "-2");
        for bad in ["1", "1 +", "+", "1 2", "1 + 2 + 3", "1 % 2", ""] {
            assert!(split(bad).is_err(), "{bad}");
        }
        assert!(split("3 % 2").unwrap_err().contains("unknown operator"));
    }

    #[test]
    fn inf_and_nan_say_why() {
        let f = Format::LNS16;
        let note = |line: &str| calc_line(f, line).unwrap().note.unwrap_or_default();
        assert_eq!(note("2 / 0"), "2 / 0: division by zero gives +inf");
        assert_eq!(note("-2/0"), "-2 / 0: division by zero gives -inf");
        assert_eq!(note("0/0"), "0 / 0: 0 / 0 is undefined: NaN");
        assert_eq!(note("inf - inf"), "inf - inf: inf − inf is undefined: NaN");
        assert_eq!(note("0 * inf"), "0 * inf: 0 · inf is undefined: NaN");
        assert!(note("1e6 + 1").contains("1e6 is beyond lns16's largest value"));
        assert!(note("300 * 300").contains("the result overflows lns16's largest value"));
        assert!(note("nan + 1").contains("the operand nan is NaN"));
        assert_eq!(note("1 + 2"), "");
    }
}
