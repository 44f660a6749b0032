//! `sigpu lns calc` over a stream: lines `a op b` read one at a time through the library's
//! calculator ([`sigpu_lns::calc`]), each result written as it comes — as text, or as the
//! elements of one JSON array (so memory stays bounded on endless input).

use anyhow::{Context, Result};
use sigpu_lns::calc::{next_line, CalcResult};
use sigpu_lns::Format;
use std::io::{BufRead, Write};

/// Evaluates every line of `input` in `format` and writes the results to `out` (a JSON array
/// with `json`); a line's error goes to `on_error` with its number, after `out` is flushed
/// (in text mode; in JSON it is an element of the array). Returns whether any line failed.
/// A bare `io::Error` is a failed write to `out` (reading `input` has its own context).
pub fn stream(
    format: Format,
    json: bool,
    input: &mut impl BufRead,
    out: &mut impl Write,
    on_error: impl Fn(usize, &str),
) -> Result<bool> {
    let (mut buf, mut no, mut count, mut failed) = (Vec::new(), 0, 0, false);
    if json {
        write!(out, "[")?;
    }
    while let Some(line) = next_line(input, &mut buf).context("reading stdin")? {
        no += 1;
        let Some(result) = CalcResult::of(format, no, line) else {
            continue;
        };
        failed |= result.error.is_some();
        if json {
            let sep = if count == 0 { "\n" } else { ",\n" };
            write!(out, "{sep}{}", serde_json::to_string(&result)?)?;
        } else if let Some(e) = &result.error {
            out.flush()?;
            on_error(no, e);
        } else if let Some(text) = result.text() {
            writeln!(out, "{text}")?;
        }
        count += 1;
    }
    if json {
        writeln!(out, "{}]", if count == 0 { "" } else { "\n" })?;
    }
    out.flush()?;
    Ok(failed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_json_streams_and_a_failed_line_is_reported_by_number() {
        let format: Format = "lns16".parse().unwrap();
        let errors = std::cell::RefCell::new(Vec::new());
        let mut out = Vec::new();
        let input = b"1 + 2\n\n1 / 0\nfoo\n";
        let failed = stream(format, false, &mut &input[..], &mut out, |no, _| {
            errors.borrow_mut().push(no)
        })
        .unwrap();
        assert!(failed);
        // Blank lines count: "foo" is line 4; 1 / 0 is +inf with its reason, not an error.
        assert_eq!(*errors.borrow(), [4]);
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("2.99") && text.contains("inf"), "{text}");
        let mut out = Vec::new();
        stream(format, true, &mut &b"1 + 2\n"[..], &mut out, |_, _| {}).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v.as_array().unwrap().len(), 1);
    }
}
