//! The two base graphs of TS 38.212 §5.3.2 (Tables 5.3.2-2 and 5.3.2-3), vendored in
//! `data/nr/` with one line per nonzero entry, `row col V(iLS=0) … V(iLS=7)`. Each table is
//! parsed once and checked against its header (shape, entry count) and against the structure
//! the encoder relies on; errors name the file and line.

use crate::error::{LdpcError, Result};
use std::sync::OnceLock;

/// Base graph 1 or 2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum BaseGraph {
    /// BG1: 46 × 68, K_b = 22, for large blocks and high rates.
    Bg1,
    /// BG2: 42 × 52, K_b ≤ 10, for small blocks and low rates.
    Bg2,
}

/// One nonzero entry of a base matrix: block row, block column and the shift coefficient
/// V_{i,j} of each set index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Block row i.
    pub row: u16,
    /// Block column j.
    pub col: u16,
    /// V_{i,j} for iLS = 0 … 7.
    pub shift: [u16; 8],
}

/// A parsed base matrix.
#[derive(Clone, Debug)]
pub struct BaseMatrix {
    /// Which graph.
    pub graph: BaseGraph,
    /// Block rows (46 or 42).
    pub rows: usize,
    /// Block columns (68 or 52).
    pub cols: usize,
    /// The nonzero entries in row order, ascending column within a row.
    pub entries: Vec<Entry>,
}

/// The vendored file of each graph: (name, text).
pub(crate) const BG1_FILE: (&str, &str) = ("bg1.txt", include_str!("../../data/nr/bg1.txt"));
/// See [`BG1_FILE`].
pub(crate) const BG2_FILE: (&str, &str) = ("bg2.txt", include_str!("../../data/nr/bg2.txt"));

impl BaseGraph {
    /// The graph's number, 1 or 2.
    pub fn number(self) -> u8 {
        match self {
            BaseGraph::Bg1 => 1,
            BaseGraph::Bg2 => 2,
        }
    }

    /// `1` → BG1, `2` → BG2.
    pub fn from_number(n: u32) -> Result<BaseGraph> {
        match n {
            1 => Ok(BaseGraph::Bg1),
            2 => Ok(BaseGraph::Bg2),
            other => Err(LdpcError::invalid(format!(
                "base graph {other}: 5G NR has base graphs 1 and 2 (bg=1 or bg=2)"
            ))),
        }
    }

    /// The parsed base matrix (parsed and checked once per process).
    pub fn matrix(self) -> &'static BaseMatrix {
        static BG1: OnceLock<BaseMatrix> = OnceLock::new();
        static BG2: OnceLock<BaseMatrix> = OnceLock::new();
        let (cell, file) = match self {
            BaseGraph::Bg1 => (&BG1, BG1_FILE),
            BaseGraph::Bg2 => (&BG2, BG2_FILE),
        };
        cell.get_or_init(|| {
            BaseMatrix::parse(self, file.0, file.1)
                .expect("the vendored base graph is checked by tests")
        })
    }

    /// Systematic block columns of the graph (22 or 10): K = this · Z.
    pub fn info_cols(self) -> usize {
        match self {
            BaseGraph::Bg1 => 22,
            BaseGraph::Bg2 => 10,
        }
    }

    /// Block rows (46 or 42): the lifted H has this · Z checks.
    pub fn block_rows(self) -> usize {
        match self {
            BaseGraph::Bg1 => 46,
            BaseGraph::Bg2 => 42,
        }
    }

    /// Block columns (68 or 52): the lifted codeword before puncturing has this · Z bits.
    pub fn block_cols(self) -> usize {
        self.info_cols() + self.block_rows()
    }

    /// Largest code block K_cb (§5.2.2): 8448 for BG1, 3840 for BG2.
    pub fn max_block(self) -> usize {
        match self {
            BaseGraph::Bg1 => 8448,
            BaseGraph::Bg2 => 3840,
        }
    }
}

impl std::fmt::Display for BaseGraph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "BG{}", self.number())
    }
}

impl BaseMatrix {
    /// Parses a table and checks it against its header and the structure of the graph: the
    /// shape and entry count, entries in order without repeats, every shift below 384, the
    /// dual-diagonal core (block columns K_b … K_b + 3 in rows 0 … 3) and the identity
    /// extension (column K_b + 4 + t only in row 4 + t, shift 0).
    pub fn parse(graph: BaseGraph, file: &str, text: &str) -> Result<BaseMatrix> {
        let err = |line: usize, message: String| LdpcError::Table {
            file: file.to_owned(),
            line,
            message,
        };
        let mut lines = text.lines();
        let (_, second) = (lines.next(), lines.next());
        let second = second.ok_or_else(|| err(2, "missing the header line".into()))?;
        let field = |key: &str| -> Result<usize> {
            second
                .split_whitespace()
                .find_map(|w| w.strip_prefix(key))
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| err(2, format!("header has no {key}N field")))
        };
        let (rows, cols, count) = (field("rows=")?, field("cols=")?, field("entries=")?);
        if (rows, cols) != (graph.block_rows(), graph.block_cols()) {
            return Err(err(
                2,
                format!(
                    "{graph} is {} × {}, the header says {rows} × {cols}",
                    graph.block_rows(),
                    graph.block_cols()
                ),
            ));
        }
        let mut entries = Vec::with_capacity(count);
        for (i, line) in lines.enumerate() {
            let no = i + 3;
            let nums: Vec<u16> = line
                .split_whitespace()
                .map(|w| {
                    w.parse::<u16>()
                        .map_err(|_| err(no, format!("{w:?} is not a number")))
                })
                .collect::<Result<_>>()?;
            if nums.len() != 10 {
                return Err(err(
                    no,
                    format!(
                        "expected row, column and 8 shifts, found {} numbers",
                        nums.len()
                    ),
                ));
            }
            let entry = Entry {
                row: nums[0],
                col: nums[1],
                shift: nums[2..].try_into().expect("8 shifts"),
            };
            if entry.row as usize >= rows || entry.col as usize >= cols {
                return Err(err(
                    no,
                    format!(
                        "entry ({}, {}) lies outside {rows} × {cols}",
                        entry.row, entry.col
                    ),
                ));
            }
            if let Some(s) = entry.shift.iter().find(|&&s| s >= 384) {
                return Err(err(
                    no,
                    format!("shift {s} is not below the largest lifting size 384"),
                ));
            }
            if let Some(prev) = entries.last().copied() as Option<Entry> {
                if (prev.row, prev.col) >= (entry.row, entry.col) {
                    return Err(err(
                        no,
                        format!(
                            "entry ({}, {}) is out of order or repeated",
                            entry.row, entry.col
                        ),
                    ));
                }
            }
            entries.push(entry);
        }
        if entries.len() != count {
            return Err(err(
                2,
                format!(
                    "the header says {count} entries, the file has {}",
                    entries.len()
                ),
            ));
        }
        let matrix = BaseMatrix {
            graph,
            rows,
            cols,
            entries,
        };
        matrix.check_structure().map_err(|m| err(2, m))?;
        Ok(matrix)
    }

    /// The entries of block row `i`.
    pub fn row(&self, i: usize) -> impl Iterator<Item = &Entry> {
        self.entries.iter().filter(move |e| e.row as usize == i)
    }

    /// The entry at (i, j), if nonzero.
    pub fn get(&self, i: usize, j: usize) -> Option<&Entry> {
        self.entries
            .iter()
            .find(|e| (e.row as usize, e.col as usize) == (i, j))
    }

    fn check_structure(&self) -> std::result::Result<(), String> {
        let kb = self.graph.info_cols();
        // Core: rows 0–3 × columns kb … kb+3. Columns kb+1..kb+3 form the two-diagonal
        // staircase with shift 0; column kb has three entries, two with equal shifts, so the
        // sum of the four core rows isolates it (the encoder's first step).
        for r in 0..4 {
            for c in kb..kb + 4 {
                if c == kb {
                    continue;
                }
                let t = c - kb;
                let want = r == t - 1 || r == t;
                let have = self.get(r, c).is_some();
                if have != want {
                    return Err(format!(
                        "the dual-diagonal core has {} at ({r}, {c})",
                        if have { "an entry" } else { "no entry" }
                    ));
                }
                if have && self.get(r, c).map(|e| e.shift) != Some([0; 8]) {
                    return Err(format!(
                        "the core's staircase entry ({r}, {c}) has a nonzero shift"
                    ));
                }
            }
        }
        let first: Vec<&Entry> = (0..4).filter_map(|r| self.get(r, kb)).collect();
        if first.len() != 3 {
            return Err(format!(
                "core column {kb} has {} entries, not 3",
                first.len()
            ));
        }
        for ils in 0..8 {
            let s: Vec<u16> = first.iter().map(|e| e.shift[ils]).collect();
            if !(s[0] == s[1] || s[0] == s[2] || s[1] == s[2]) {
                return Err(format!(
                    "core column {kb}: no two of its shifts agree for iLS {ils}"
                ));
            }
        }
        // Extension: column kb + 4 + t is the identity in row 4 + t only.
        for r in 4..self.rows {
            let c = kb + r;
            let in_col: Vec<&Entry> = self
                .entries
                .iter()
                .filter(|e| e.col as usize == c)
                .collect();
            if in_col.len() != 1 || in_col[0].row as usize != r || in_col[0].shift != [0; 8] {
                return Err(format!(
                    "extension column {c} is not the identity in row {r} alone"
                ));
            }
            if let Some(e) = self
                .row(r)
                .find(|e| (e.col as usize) > c || (e.col as usize >= kb + 4 && e.col as usize != c))
            {
                return Err(format!(
                    "extension row {r} has an entry in parity column {}",
                    e.col
                ));
            }
        }
        for r in 0..4 {
            if let Some(e) = self.row(r).find(|e| e.col as usize >= kb + 4) {
                return Err(format!(
                    "core row {r} has an entry in extension column {}",
                    e.col
                ));
            }
        }
        Ok(())
    }
}
