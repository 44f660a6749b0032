//! DVB parity-bit accumulator tables (ETSI EN 302 307-1 Annex B/C, EN 302 755 Annex A/B), as
//! vendored in `data/` (see `data/PROVENANCE.md`), and the parity-check matrix they define.
//!
//! Construction (EN 302 307-1 §5.3.2): with M = N − K checks and q = M/360, information bit
//! i = 360·r + l (table row r) joins check (a + l·q) mod M for every address a of row r; parity
//! bit j joins checks j and j + 1 (the last one check M − 1 only), the accumulator staircase.

use crate::error::{LdpcError, Result};

/// Bits per table row group: the DVB codes are quasi-cyclic with this circulant size.
pub const GROUP: usize = 360;

/// One parsed table: the header's parameters and the address rows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DvbTable {
    /// Codeword length N.
    pub n: usize,
    /// Information bits K.
    pub k: usize,
    /// q: the parity stride (N − K) / 360.
    pub q: usize,
    /// `rows[r]` = accumulator addresses of information bits 360·r … 360·r + 359.
    pub rows: Vec<Vec<u32>>,
    /// Ones in H, as the header states and the rows confirm.
    pub edges: usize,
}

/// One address row: addresses below `m`, none repeated.
fn parse_row(line: &str, m: usize) -> std::result::Result<Vec<u32>, String> {
    let mut row: Vec<u32> = Vec::new();
    for token in line.split_whitespace() {
        let a: u32 = token
            .parse()
            .map_err(|_| format!("{token:?} is not an address"))?;
        if a as usize >= m {
            return Err(format!(
                "address {a} is out of range: there are M = N − K = {m} checks"
            ));
        }
        if row.contains(&a) {
            return Err(format!("address {a} repeats within the row"));
        }
        row.push(a);
    }
    Ok(row)
}

impl DvbTable {
    /// Parses a table file's text, checking it against its own header: the number of rows, each
    /// address in range and not repeated within its row, and the edge count. `file` names the
    /// source in errors, which also give the line.
    pub fn parse(file: &str, text: &str) -> Result<DvbTable> {
        let err = |line: usize, message: String| LdpcError::Table {
            file: file.to_owned(),
            line,
            message,
        };
        let mut header = None;
        let mut rows = Vec::new();
        let mut last_line = 0;
        for (i, line) in text.lines().enumerate() {
            let lineno = i + 1;
            last_line = lineno;
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            if let Some(comment) = line.strip_prefix('#') {
                if comment.contains("N=") {
                    header = Some(Header::parse(comment).map_err(|m| err(lineno, m))?);
                }
                continue;
            }
            let Some(h) = &header else {
                return Err(err(
                    lineno,
                    "address row before the `# frame= N= K= ... edges=` header".into(),
                ));
            };
            let row = parse_row(line, h.n - h.k).map_err(|m| err(lineno, m))?;
            if rows.len() == h.rows {
                return Err(err(
                    lineno,
                    format!("more address rows than the header's rows={}", h.rows),
                ));
            }
            rows.push(row);
        }
        let h = header.ok_or_else(|| {
            err(
                1,
                "no `# frame= N= K= rate= q= rows= edges=` header line".into(),
            )
        })?;
        if rows.len() != h.rows {
            return Err(err(
                last_line,
                format!(
                    "{} address rows, but the header says rows={}",
                    rows.len(),
                    h.rows
                ),
            ));
        }
        let m = h.n - h.k;
        let addresses: usize = rows.iter().map(Vec::len).sum();
        let edges = GROUP * addresses + 2 * m - 1;
        if edges != h.edges {
            return Err(err(
                last_line,
                format!(
                    "checksum mismatch: the rows hold {addresses} addresses, i.e. {edges} edges \
                     (360·addresses + 2M − 1), but the header says edges={}",
                    h.edges
                ),
            ));
        }
        Ok(DvbTable {
            n: h.n,
            k: h.k,
            q: h.q,
            rows,
            edges,
        })
    }

    /// The check rows of H, each a sorted list of columns: the information part from the
    /// table, then the staircase.
    pub fn check_rows(&self) -> Vec<Vec<u32>> {
        let m = self.n - self.k;
        let mut checks: Vec<Vec<u32>> = vec![Vec::new(); m];
        for (r, row) in self.rows.iter().enumerate() {
            for l in 0..GROUP {
                let bit = (r * GROUP + l) as u32;
                for &a in row {
                    checks[(a as usize + l * self.q) % m].push(bit);
                }
            }
        }
        for (j, check) in checks.iter_mut().enumerate() {
            if j > 0 {
                check.push((self.k + j - 1) as u32);
            }
            check.push((self.k + j) as u32);
            check.sort_unstable();
        }
        checks
    }
}

/// The second header line: `frame=normal N=64800 K=32400 rate=1/2 q=90 rows=90 edges=226799`.
struct Header {
    n: usize,
    k: usize,
    q: usize,
    rows: usize,
    edges: usize,
}

impl Header {
    fn parse(text: &str) -> std::result::Result<Header, String> {
        let field = |key: &str| -> std::result::Result<usize, String> {
            let value = text
                .split_whitespace()
                .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
                .ok_or_else(|| format!("header has no {key}= field"))?;
            value
                .parse()
                .map_err(|_| format!("header field {key}={value:?} is not a whole number"))
        };
        let h = Header {
            n: field("N")?,
            k: field("K")?,
            q: field("q")?,
            rows: field("rows")?,
            edges: field("edges")?,
        };
        if h.k == 0 || h.k >= h.n {
            return Err(format!(
                "header has K={} but N={}: need 0 < K < N",
                h.k, h.n
            ));
        }
        let m = h.n - h.k;
        if !m.is_multiple_of(GROUP) || h.q != m / GROUP {
            return Err(format!(
                "header has q={} but (N − K)/360 = {m}/360 is not that",
                h.q
            ));
        }
        if !h.k.is_multiple_of(GROUP) || h.rows != h.k / GROUP {
            return Err(format!(
                "header has rows={} but K/360 = {}/360 is not that",
                h.rows, h.k
            ));
        }
        Ok(h)
    }
}

/// A standard code's table, embedded in the binary.
pub(crate) struct Embedded {
    /// e.g. `dvbt2-normal-1/2`.
    pub name: &'static str,
    /// The vendored file name, e.g. `dvbt2_normal_1-2.txt`.
    pub file: &'static str,
    pub text: &'static str,
}

macro_rules! tables {
    ($($std:literal $frame:literal $a:literal $b:literal),* $(,)?) => {
        &[$(Embedded {
            name: concat!($std, "-", $frame, "-", $a, "/", $b),
            file: concat!($std, "_", $frame, "_", $a, "-", $b, ".txt"),
            text: include_str!(concat!("../data/", $std, "_", $frame, "_", $a, "-", $b, ".txt")),
        }),*]
    };
}

/// Every DVB-T2 and DVB-S2 code, in the order the standards list them.
pub(crate) const EMBEDDED: &[Embedded] = tables![
    "dvbt2" "normal" "1" "2", "dvbt2" "normal" "3" "5", "dvbt2" "normal" "2" "3",
    "dvbt2" "normal" "3" "4", "dvbt2" "normal" "4" "5", "dvbt2" "normal" "5" "6",
    "dvbt2" "short" "1" "4", "dvbt2" "short" "1" "3", "dvbt2" "short" "2" "5",
    "dvbt2" "short" "1" "2", "dvbt2" "short" "3" "5", "dvbt2" "short" "2" "3",
    "dvbt2" "short" "3" "4", "dvbt2" "short" "4" "5", "dvbt2" "short" "5" "6",
    "dvbs2" "normal" "1" "4", "dvbs2" "normal" "1" "3", "dvbs2" "normal" "2" "5",
    "dvbs2" "normal" "1" "2", "dvbs2" "normal" "3" "5", "dvbs2" "normal" "2" "3",
    "dvbs2" "normal" "3" "4", "dvbs2" "normal" "4" "5", "dvbs2" "normal" "5" "6",
    "dvbs2" "normal" "8" "9", "dvbs2" "normal" "9" "10",
    "dvbs2" "short" "1" "4", "dvbs2" "short" "1" "3", "dvbs2" "short" "2" "5",
    "dvbs2" "short" "1" "2", "dvbs2" "short" "3" "5", "dvbs2" "short" "2" "3",
    "dvbs2" "short" "3" "4", "dvbs2" "short" "4" "5", "dvbs2" "short" "5" "6",
    "dvbs2" "short" "8" "9",
];

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = "# test\n# frame=x N=1080 K=720 rate=2/3 q=1 rows=2 edges=1799\n0 1\n2\n";

    #[test]
    fn parses_a_consistent_table() {
        let t = DvbTable::parse("small.txt", SMALL).unwrap();
        assert_eq!((t.n, t.k, t.q, t.edges), (1080, 720, 1, 1799));
        let rows = t.check_rows();
        assert_eq!(rows.iter().map(Vec::len).sum::<usize>(), 1799);
    }

    fn error_of(text: &str) -> String {
        DvbTable::parse("bad.txt", text).unwrap_err().to_string()
    }

    #[test]
    fn rejects_a_checksum_mismatch_with_file_and_line() {
        let e = error_of(&SMALL.replace("edges=1799", "edges=1800"));
        assert!(e.starts_with("bad.txt:4: checksum mismatch"), "{e}");
        // A dropped address changes the count the same way.
        let e = error_of(&SMALL.replace("0 1\n", "0\n"));
        assert!(e.contains("checksum mismatch"), "{e}");
    }

    #[test]
    fn rejects_bad_rows_naming_the_line() {
        assert!(error_of(&SMALL.replace("0 1\n", "0 x\n")).starts_with("bad.txt:3: \"x\""));
        assert!(error_of(&SMALL.replace("0 1\n", "0 360\n")).contains(":3: address 360 is out"));
        assert!(error_of(&SMALL.replace("0 1\n", "1 1\n")).contains(":3: address 1 repeats"));
        assert!(error_of(&format!("{SMALL}5\n")).contains(":5: more address rows"));
        assert!(error_of(&SMALL.replace("rows=2", "rows=3")).contains("rows=3"));
        assert!(error_of("0 1\n").contains(":1: address row before"));
        assert!(error_of(&SMALL.replace("K=720", "K=700")).contains(":2:"));
    }
}
