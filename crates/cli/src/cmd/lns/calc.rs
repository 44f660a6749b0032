//! `sigpu lns calc`: a calculator over LNS words, one `a op b` per line of stdin (`1+2` and
//! `1 + 2` alike).
//!
//! Input is read in bounded pieces: a line longer than [`MAX_LINE`] bytes is skipped to its
//! end and reported with its first 80 bytes, a line that is not UTF-8 is reported on its own;
//! either way the other lines go on. With `--json` the results are one JSON array, written as
//! they come (so memory stays bounded on endless input).

use anyhow::{Context, Result};
use clap::Args;
use sigpu_lns::{Accurate, Format};
use std::io::{BufRead, Write};
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct CalcArgs {
    /// lns16, lns32 or i<I>f<F>.
    #[arg(long, default_value = "lns16")]
    pub format: Format,
}

/// The longest line read, in bytes (a calculator line is a few dozen).
pub const MAX_LINE: usize = 64 * 1024;

/// Bytes of an overlong line shown in its error.
const SHOWN: usize = 80;

/// One line of input as read.
#[derive(Debug, PartialEq)]
enum Line {
    /// The line, without its `\n` (or `\r\n`).
    Text(String),
    /// Not UTF-8: the byte offset of the first bad byte.
    NotUtf8(usize),
    /// Longer than [`MAX_LINE`]: its first [`SHOWN`] bytes (lossily decoded) and its length.
    TooLong(String, u64),
}

/// Reads the next line with at most `MAX_LINE + 1` bytes held, whatever the input; `None` at
/// the end.
fn next_line(input: &mut impl BufRead, buf: &mut Vec<u8>) -> std::io::Result<Option<Line>> {
    buf.clear();
    let (mut length, mut any) = (0u64, false);
    loop {
        let chunk = input.fill_buf()?;
        if chunk.is_empty() {
            break;
        }
        any = true;
        let (take, end) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i, true),
            None => (chunk.len(), false),
        };
        length += take as u64;
        let room = (MAX_LINE + 1).saturating_sub(buf.len());
        buf.extend_from_slice(&chunk[..take.min(room)]);
        input.consume(take + end as usize);
        if end {
            break;
        }
    }
    if !any {
        return Ok(None);
    }
    if buf.last() == Some(&b'\r') && length <= MAX_LINE as u64 + 1 {
        buf.pop();
        length -= 1;
    }
    if length > MAX_LINE as u64 {
        let shown = String::from_utf8_lossy(&buf[..SHOWN.min(buf.len())]).into_owned();
        return Ok(Some(Line::TooLong(shown, length)));
    }
    Ok(Some(match std::str::from_utf8(buf) {
        Ok(text) => Line::Text(text.to_owned()),
        Err(e) => Line::NotUtf8(e.valid_up_to()),
    }))
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

#[derive(serde::Serialize)]
struct CalcResult {
    line: usize,
    format: String,
    /// The line as given (trimmed), absent for a line too long or not UTF-8.
    #[serde(skip_serializing_if = "Option::is_none")]
    expression: Option<String>,
    /// The result; null when it is ±inf or NaN (`special` says which).
    #[serde(skip_serializing_if = "Option::is_none")]
    value: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    special: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    word: Option<String>,
    /// Why the result is ±inf or NaN.
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

pub fn run(json: bool, args: &CalcArgs) -> Result<ExitCode> {
    let format = args.format;
    let digits = (format.word_bits() as usize).div_ceil(4);
    let mut failed = false;
    let (stdin, stdout) = (std::io::stdin(), std::io::stdout());
    let (mut input, mut out) = (stdin.lock(), stdout.lock());
    let mut buf = Vec::new();
    let mut count = 0usize;
    if json {
        write!(out, "[")?;
    }
    let mut no = 0usize;
    while let Some(line) = next_line(&mut input, &mut buf).context("reading stdin")? {
        no += 1;
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
                    continue;
                }
                result.expression = Some(text.trim().to_owned());
                match calc_line(format, &text) {
                    Ok(c) => {
                        let v = format.to_f64(c.word);
                        result.value = v.is_finite().then_some(v);
                        result.special = match v {
                            _ if v.is_nan() => Some("nan"),
                            _ if v == f64::INFINITY => Some("+inf"),
                            _ if v == f64::NEG_INFINITY => Some("-inf"),
                            _ => None,
                        };
                        result.word = Some(format!("0x{:0digits$x}", c.word));
                        result.note = c.note;
                    }
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
        failed |= result.error.is_some();
        if json {
            let sep = if count == 0 { "\n" } else { ",\n" };
            write!(out, "{sep}{}", serde_json::to_string(&result)?)?;
        } else if let Some(e) = &result.error {
            out.flush()?;
            eprintln!("line {no}: {e}");
        } else if let Some(word) = &result.word {
            let v = result.value.unwrap_or(match result.special {
                Some("+inf") => f64::INFINITY,
                Some("-inf") => f64::NEG_INFINITY,
                _ => f64::NAN,
            });
            match &result.note {
                Some(note) => writeln!(out, "{v}  {word}  # {note}")?,
                None => writeln!(out, "{v}  {word}")?,
            }
        }
        count += 1;
    }
    if json {
        writeln!(out, "{}]", if count == 0 { "" } else { "\n" })?;
    }
    out.flush()?;
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8]) -> Vec<Line> {
        let mut reader = std::io::BufReader::with_capacity(4096, input);
        let mut buf = Vec::new();
        let mut out = Vec::new();
        while let Some(line) = next_line(&mut reader, &mut buf).unwrap() {
            assert!(buf.capacity() <= 2 * (MAX_LINE + 1) + 4096);
            out.push(line);
        }
        out
    }

    #[test]
    fn lines_are_bounded_and_bad_ones_reported_alone() {
        let mut input = b"1 + 2\r\n".to_vec();
        input.extend(std::iter::repeat_n(b'7', 200_000));
        input.extend_from_slice(b"\n\xff\xfe\n3*4");
        let got = lines(&input);
        assert_eq!(got[0], Line::Text("1 + 2".into()));
        assert_eq!(got[1], Line::TooLong("7".repeat(80), 200_000));
        assert_eq!(got[2], Line::NotUtf8(0));
        assert_eq!(got[3], Line::Text("3*4".into()));
        assert_eq!(got.len(), 4);
        // Exactly at the limit is a line; one byte more is not.
        let at = "1".repeat(MAX_LINE);
        assert!(matches!(&lines(at.as_bytes())[0], Line::Text(t) if t.len() == MAX_LINE));
        let over = "1".repeat(MAX_LINE + 1);
        assert!(
            matches!(lines(over.as_bytes())[0], Line::TooLong(_, n) if n == MAX_LINE as u64 + 1)
        );
    }

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
