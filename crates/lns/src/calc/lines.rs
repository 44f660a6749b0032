//! Lines of text read in bounded pieces: a line longer than [`MAX_LINE`] bytes is skipped to
//! its end and reported with its first bytes, a line that is not UTF-8 is reported on its own,
//! and memory stays bounded whatever the input.

use std::io::BufRead;

/// The longest line read, in bytes (a calculator line is a few dozen).
pub const MAX_LINE: usize = 64 * 1024;

/// Bytes of an overlong line shown in its error.
pub const SHOWN: usize = 80;

/// One line of input as read.
#[derive(Debug, PartialEq)]
pub enum Line {
    /// The line, without its `\n` (or `\r\n`).
    Text(String),
    /// Not UTF-8: the byte offset of the first bad byte.
    NotUtf8(usize),
    /// Longer than [`MAX_LINE`]: its first [`SHOWN`] bytes (lossily decoded) and its length.
    TooLong(String, u64),
}

/// Reads the next line with at most `MAX_LINE + 1` bytes held, whatever the input; `None` at
/// the end.
pub fn next_line(input: &mut impl BufRead, buf: &mut Vec<u8>) -> std::io::Result<Option<Line>> {
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
}
