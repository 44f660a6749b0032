//! MacKay's alist format for sparse parity-check matrices: `N M`, the largest column and row
//! degrees, the N column degrees, the M row degrees, then one line per column listing its
//! rows and one line per row listing its columns, 1-based, padded with zeros to the largest
//! degree (padding may be omitted).

use crate::code::Code;
use crate::error::{LdpcError, Result};
use std::fmt::Write as _;
use std::path::Path;

// `Code::resolve` lives here, not in code.rs, so that this module depends on `Code` and not
// the other way round.
impl Code {
    /// A standard code by name ([`Code::standard`]), a 5G NR code (`nr:k=K,n=N[,bg=1|2]`:
    /// the code its decoders run for rv 0, [`crate::nr::NrCode::decoding_code`]), or an alist
    /// file when `spec` is a path to one.
    pub fn resolve(spec: &str) -> Result<Code> {
        let path = Path::new(spec);
        if crate::nr::NrCode::is_spec(spec) {
            crate::nr::NrCode::parse(spec).and_then(|c| c.decoding_code(&[0]))
        } else if spec.ends_with(".alist") || path.is_file() {
            read_alist(path)
        } else {
            Code::standard(spec)
        }
    }
}

/// Reads an alist file; every error names the file and line.
pub fn read_alist(path: &Path) -> Result<Code> {
    let what = "an alist text file (MacKay's format)";
    let text =
        sigpu_runtime::input::read_text(path, 64 << 20, what).map_err(|source| LdpcError::Io {
            path: path.to_owned(),
            source,
        })?;
    let name = path
        .file_stem()
        .map_or_else(|| "alist".into(), |s| s.to_string_lossy().into_owned());
    parse_alist(&name, &text).map_err(|(line, message)| LdpcError::Alist {
        file: path.to_owned(),
        line,
        message,
    })
}

type Parse<T> = std::result::Result<T, (usize, String)>;

/// Every degree in 1..=max, else an error on `line`.
fn degrees_within(degrees: &[usize], max: usize, line: usize, what: &str) -> Parse<()> {
    match degrees.iter().enumerate().find(|(_, &d)| d == 0 || d > max) {
        Some((i, d)) => Err((
            line,
            format!("{what} {} has degree {d}, outside 1..={max}", i + 1),
        )),
        None => Ok(()),
    }
}

/// The column lists and the row lists (each with its line) must describe the same matrix:
/// every entry of either side is listed by the other, so neither side can add an edge the
/// other lacks (the code is built from the rows).
fn columns_match_rows(cols: &[(usize, Vec<usize>)], rows: &[(usize, Vec<usize>)]) -> Parse<()> {
    let sets = |lists: &[(usize, Vec<usize>)]| -> Vec<std::collections::HashSet<usize>> {
        lists
            .iter()
            .map(|(_, l)| l.iter().copied().collect())
            .collect()
    };
    let (col_sets, row_sets) = (sets(cols), sets(rows));
    for (c, (no, list)) in cols.iter().enumerate() {
        if let Some(&r) = list.iter().find(|&&r| !row_sets[r - 1].contains(&(c + 1))) {
            let c = c + 1;
            return Err((
                *no,
                format!("column {c} lists row {r}, but row {r} does not list column {c}"),
            ));
        }
    }
    for (r, (no, list)) in rows.iter().enumerate() {
        if let Some(&c) = list.iter().find(|&&c| !col_sets[c - 1].contains(&(r + 1))) {
            let r = r + 1;
            return Err((
                *no,
                format!("row {r} lists column {c}, but column {c} does not list row {r}"),
            ));
        }
    }
    Ok(())
}

/// Parses alist text; errors are `(line, message)`.
pub fn parse_alist(name: &str, text: &str) -> std::result::Result<Code, (usize, String)> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty());
    let last = text.lines().count().max(1);
    let mut next_line = |what: &str| -> std::result::Result<(usize, Vec<usize>), (usize, String)> {
        let (no, line) = lines
            .next()
            .ok_or_else(|| (last, format!("file ends where {what} was expected")))?;
        let numbers = line
            .split_whitespace()
            .map(|t| {
                t.parse::<usize>()
                    .map_err(|_| (no, format!("{t:?} in {what} is not a whole number")))
            })
            .collect::<std::result::Result<Vec<_>, _>>()?;
        Ok((no, numbers))
    };
    let expect_len = |no: usize, v: &[usize], len: usize, what: &str| {
        if v.len() == len {
            Ok(())
        } else {
            Err((
                no,
                format!("{what}: expected {len} numbers, found {}", v.len()),
            ))
        }
    };
    let (no, dims) = next_line("`N M`")?;
    expect_len(no, &dims, 2, "`N M`")?;
    let (n, m) = (dims[0], dims[1]);
    if n == 0 || m == 0 || m >= n {
        return Err((no, format!("N = {n}, M = {m}: need 0 < M < N")));
    }
    let (no, maxes) = next_line("the largest column and row degrees")?;
    expect_len(no, &maxes, 2, "the largest degrees")?;
    let (col_deg_line, col_deg) = next_line("the column degrees")?;
    expect_len(col_deg_line, &col_deg, n, "the column degrees")?;
    let (row_deg_line, row_deg) = next_line("the row degrees")?;
    expect_len(row_deg_line, &row_deg, m, "the row degrees")?;
    degrees_within(&col_deg, maxes[0], col_deg_line, "column")?;
    degrees_within(&row_deg, maxes[1], row_deg_line, "row")?;
    let mut read_lists = |count: usize, degrees: &[usize], bound: usize, what: &str| {
        let mut lists = Vec::with_capacity(count);
        for (i, &degree) in degrees.iter().enumerate().take(count) {
            let (no, entries) = next_line(&format!("the list of {what} {}", i + 1))?;
            let list: Vec<usize> = entries.iter().copied().filter(|&x| x != 0).collect();
            if list.len() != degree {
                return Err((
                    no,
                    format!(
                        "{what} {} lists {} entries but its degree is {degree}",
                        i + 1,
                        list.len()
                    ),
                ));
            }
            if let Some(&x) = list.iter().find(|&&x| x > bound) {
                return Err((no, format!("{what} {}: index {x} exceeds {bound}", i + 1)));
            }
            // A parity-check matrix holds 0 or 1: an index listed twice is a malformed file
            // (and the other side's lists could not agree with it).
            let mut sorted = list.clone();
            sorted.sort_unstable();
            if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
                let other = if what == "column" { "row" } else { "column" };
                return Err((no, format!("{what} {} lists {other} {} twice", i + 1, w[0])));
            }
            lists.push((no, list));
        }
        Ok(lists)
    };
    let cols = read_lists(n, &col_deg, m, "column")?;
    let rows = read_lists(m, &row_deg, n, "row")?;
    columns_match_rows(&cols, &rows)?;
    let check_rows: Vec<Vec<u32>> = rows
        .iter()
        .map(|(_, r)| r.iter().map(|&c| (c - 1) as u32).collect())
        .collect();
    Code::from_rows(name, n, n - m, &check_rows).map_err(|e| (row_deg_line, e.to_string()))
}

/// The alist text of a code (1-based, zero-padded to the largest degree).
pub fn to_alist(code: &Code) -> String {
    let (n, m) = (code.n(), code.m());
    let col_deg: Vec<usize> = code
        .col_start()
        .windows(2)
        .map(|w| (w[1] - w[0]) as usize)
        .collect();
    let row_deg: Vec<usize> = code
        .row_start()
        .windows(2)
        .map(|w| (w[1] - w[0]) as usize)
        .collect();
    let (max_col, max_row) = (code.max_col_degree(), code.max_row_degree());
    let join =
        |v: &mut dyn Iterator<Item = usize>| v.map(|x| x.to_string()).collect::<Vec<_>>().join(" ");
    let mut out = format!("{n} {m}\n{max_col} {max_row}\n");
    let _ = writeln!(out, "{}", join(&mut col_deg.iter().copied()));
    let _ = writeln!(out, "{}", join(&mut row_deg.iter().copied()));
    for c in 0..n {
        let edges =
            &code.col_edges()[code.col_start()[c] as usize..code.col_start()[c + 1] as usize];
        let rows = edges.iter().map(|&e| code.edge_row(e as usize) + 1);
        let pad = std::iter::repeat_n(0, max_col - edges.len());
        let _ = writeln!(out, "{}", join(&mut rows.chain(pad)));
    }
    for r in 0..m {
        let cols = code.row(r).iter().map(|&c| c as usize + 1);
        let pad = std::iter::repeat_n(0, max_row - code.row(r).len());
        let _ = writeln!(out, "{}", join(&mut cols.chain(pad)));
    }
    out
}

/// Writes a code as an alist file, atomically.
pub fn write_alist(code: &Code, path: &Path) -> Result<()> {
    sigpu_runtime::fs::write_atomic(path, to_alist(code).as_bytes()).map_err(|source| {
        LdpcError::Io {
            path: path.to_owned(),
            source,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // The (7,4) Hamming code.
    const HAMMING: &str = "7 3\n3 4\n1 1 1 2 2 2 3\n4 4 4\n1 0 0\n2 0 0\n3 0 0\n1 2 0\n1 3 0\n2 3 0\n1 2 3\n1 4 5 7\n2 4 6 7\n3 5 6 7\n";

    #[test]
    fn round_trips() {
        let code = parse_alist("hamming", HAMMING).unwrap();
        assert_eq!((code.n(), code.k(), code.edges()), (7, 4, 12));
        assert_eq!(to_alist(&code), HAMMING);
        assert!(code.is_codeword(&[1, 1, 1, 0, 0, 0, 1]));
        assert!(!code.is_codeword(&[1, 0, 0, 0, 0, 0, 0]));
    }

    #[test]
    fn errors_name_the_line() {
        let bad =
            |from: &str, to: &str| parse_alist("h", &HAMMING.replacen(from, to, 1)).unwrap_err();
        assert_eq!(bad("7 3\n", "7\n").0, 1);
        assert_eq!(bad("1 2 0\n", "1 x 0\n").0, 8);
        assert!(bad("1 2 0\n", "1 0 0\n")
            .1
            .contains("column 4 lists 1 entries"));
        assert!(bad("1 4 5 7\n", "1 4 5 9\n")
            .1
            .contains("index 9 exceeds 7"));
        assert!(bad("1 1 1 2 2 2 3\n", "1 1 1 2 2 2\n")
            .1
            .contains("expected 7 numbers"));
        let (line, msg) = bad("3 5 6 7\n", "3 5 6 1\n");
        assert!(
            msg.contains("does not list") && (8..=14).contains(&line),
            "{line} {msg}"
        );
        // Row 1 lists column 2 as well (its degree and the largest raised to match), which
        // column 2 does not list: the rows would add an edge the columns lack.
        let extra = HAMMING
            .replacen("3 4\n", "3 5\n", 1)
            .replacen("4 4 4\n", "5 4 4\n", 1)
            .replacen("1 4 5 7\n", "1 4 5 7 2\n", 1);
        assert_eq!(
            parse_alist("h", &extra).unwrap_err(),
            (
                12,
                "row 1 lists column 2, but column 2 does not list row 1".to_owned()
            )
        );
        // A degree-2 column listing row 1 twice: once taken silently from the row lists.
        assert_eq!(
            bad("1 2 0\n", "1 1 0\n"),
            (8, "column 4 lists row 1 twice".to_owned())
        );
        assert_eq!(
            bad("1 4 5 7\n", "1 4 4 7\n"),
            (12, "row 1 lists column 4 twice".to_owned())
        );
        let (line, msg) = parse_alist("h", &HAMMING[..40]).unwrap_err();
        assert!(msg.contains("file ends") || line > 0, "{msg}");
    }
}
