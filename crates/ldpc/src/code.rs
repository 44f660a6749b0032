//! A binary LDPC code given by its parity-check matrix H, stored both by rows (checks) and by
//! columns (bits), with edges numbered in row order: the numbering every decoder's message
//! array uses.

use crate::error::{LdpcError, Result};
use crate::table::{DvbTable, EMBEDDED};
use serde::Serialize;

/// A parity-check matrix with its edge numbering.
#[derive(Clone, Debug)]
pub struct Code {
    name: String,
    n: usize,
    k: usize,
    /// Edges of check r are `row_start[r] .. row_start[r + 1]`.
    row_start: Vec<u32>,
    /// The column (bit) of each edge, in row order, ascending within a row.
    edge_col: Vec<u32>,
    /// Edges of column c are `col_edges[col_start[c] .. col_start[c + 1]]`.
    col_start: Vec<u32>,
    /// Edge numbers grouped by column, ascending (so by row) within a column.
    col_edges: Vec<u32>,
    /// True when the last N − K columns are the DVB staircase, which gives the linear-time
    /// systematic encoder.
    staircase: bool,
    /// For the DVB codes, q = M/360: checks c and c + q are consecutive in a circulant.
    q: Option<usize>,
    /// For a lifted 5G NR code (whole or cut to its first block rows): its base graph and
    /// lifting size, which give the structural encoder.
    lifted: Option<(crate::nr::BaseGraph, usize)>,
}

/// A group of checks updated together by the layered schedule ([`Code::layers`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layer {
    /// The layer's checks (rows of H in decoding order).
    pub rows: std::ops::Range<usize>,
    /// Two checks of the layer share a bit.
    pub conflict: bool,
}

/// Facts about a code for listings and reports.
#[derive(Clone, Debug, Serialize)]
pub struct CodeInfo {
    /// The code's name.
    pub name: String,
    /// Codeword length N.
    pub n: usize,
    /// Information bits K.
    pub k: usize,
    /// K / N.
    pub rate: f64,
    /// Ones in H.
    pub edges: usize,
    /// `(degree, columns)` of every column degree present, highest first.
    pub column_degrees: Vec<(usize, usize)>,
    /// `(degree, rows)` of every check degree present, highest first.
    pub row_degrees: Vec<(usize, usize)>,
    /// Whether the staircase encoder encodes it.
    pub encodable: bool,
}

impl CodeInfo {
    /// `NAME (M × N, E ones)`: the code and its parity-check matrix's size (M = N − K).
    pub fn matrix(&self) -> String {
        let (name, m, n, ones) = (&self.name, self.n - self.k, self.n, self.edges);
        format!("{name} ({m} × {n}, {ones} ones)")
    }
}

impl Code {
    /// Builds a code from its check rows (each a list of distinct columns < `n`). `k` is the
    /// information length, N − M for a full-rank H.
    pub fn from_rows(name: &str, n: usize, k: usize, rows: &[Vec<u32>]) -> Result<Code> {
        let m = rows.len();
        if n == 0 || m == 0 || k + m != n {
            return Err(LdpcError::invalid(format!(
                "code {name}: N = {n} bits, M = {m} checks and K = {k} do not satisfy K = N − M > 0"
            )));
        }
        let mut row_start = Vec::with_capacity(m + 1);
        let mut edge_col = Vec::new();
        row_start.push(0u32);
        for (r, row) in rows.iter().enumerate() {
            let mut sorted = row.clone();
            sorted.sort_unstable();
            if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
                return Err(LdpcError::invalid(format!(
                    "code {name}: check {r} lists column {} twice",
                    w[0]
                )));
            }
            if let Some(&c) = sorted.last().filter(|&&c| c as usize >= n) {
                return Err(LdpcError::invalid(format!(
                    "code {name}: check {r} names column {c}, but N = {n}"
                )));
            }
            edge_col.extend_from_slice(&sorted);
            row_start.push(edge_col.len() as u32);
        }
        let mut col_count = vec![0u32; n + 1];
        for &c in &edge_col {
            col_count[c as usize + 1] += 1;
        }
        if let Some(c) = (0..n).find(|&c| col_count[c + 1] == 0) {
            return Err(LdpcError::invalid(format!(
                "code {name}: column {c} takes part in no check"
            )));
        }
        let mut col_start = col_count;
        for c in 0..n {
            col_start[c + 1] += col_start[c];
        }
        let mut fill = col_start.clone();
        let mut col_edges = vec![0u32; edge_col.len()];
        for (e, &c) in edge_col.iter().enumerate() {
            col_edges[fill[c as usize] as usize] = e as u32;
            fill[c as usize] += 1;
        }
        let mut code = Code {
            name: name.to_owned(),
            n,
            k,
            row_start,
            edge_col,
            col_start,
            col_edges,
            staircase: false,
            q: None,
            lifted: None,
        };
        code.staircase = code.has_staircase();
        Ok(code)
    }

    /// The code a DVB table defines.
    pub fn from_table(name: &str, table: &DvbTable) -> Result<Code> {
        let mut code = Code::from_rows(name, table.n, table.k, &table.check_rows())?;
        debug_assert_eq!(code.edges(), table.edges);
        code.q = Some(table.q);
        Ok(code)
    }

    /// A standard code by name (`dvbt2-normal-1/2`, `dvbs2-short-8/9`, ...).
    pub fn standard(name: &str) -> Result<Code> {
        let wanted = name.trim().to_ascii_lowercase();
        let entry =
            EMBEDDED
                .iter()
                .find(|e| e.name == wanted)
                .ok_or_else(|| LdpcError::UnknownCode {
                    name: name.to_owned(),
                    known: Code::standard_names().join(", "),
                })?;
        Code::from_table(entry.name, &DvbTable::parse(entry.file, entry.text)?)
    }

    /// Names of every built-in code.
    pub fn standard_names() -> Vec<&'static str> {
        EMBEDDED.iter().map(|e| e.name).collect()
    }

    /// The code's name: a standard name or the alist file's.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// q = M/360 of a DVB table code (None for alist codes).
    pub fn q(&self) -> Option<usize> {
        self.q
    }
    /// Codeword length N.
    pub fn n(&self) -> usize {
        self.n
    }
    /// Information length K.
    pub fn k(&self) -> usize {
        self.k
    }
    /// Number of checks M = N − K.
    pub fn m(&self) -> usize {
        self.n - self.k
    }
    /// K / N.
    pub fn rate(&self) -> f64 {
        self.k as f64 / self.n as f64
    }
    /// Ones in H.
    pub fn edges(&self) -> usize {
        self.edge_col.len()
    }
    /// CSR row starts of H (M + 1 entries).
    pub fn row_start(&self) -> &[u32] {
        &self.row_start
    }
    /// CSR column of each edge, row after row.
    pub fn edge_col(&self) -> &[u32] {
        &self.edge_col
    }
    /// CSC column starts of H (N + 1 entries).
    pub fn col_start(&self) -> &[u32] {
        &self.col_start
    }
    /// The edges of each column, column after column (indices into the CSR order).
    pub fn col_edges(&self) -> &[u32] {
        &self.col_edges
    }
    /// Columns of check `r`.
    pub fn row(&self, r: usize) -> &[u32] {
        &self.edge_col[self.row_start[r] as usize..self.row_start[r + 1] as usize]
    }
    /// The largest check degree.
    pub fn max_row_degree(&self) -> usize {
        self.row_start
            .windows(2)
            .map(|w| (w[1] - w[0]) as usize)
            .max()
            .unwrap_or(0)
    }
    /// The largest bit degree.
    pub fn max_col_degree(&self) -> usize {
        self.col_start
            .windows(2)
            .map(|w| (w[1] - w[0]) as usize)
            .max()
            .unwrap_or(0)
    }
    /// Whether [`crate::Encoder`] can encode this code (a DVB staircase, or a lifted NR code).
    pub fn is_encodable(&self) -> bool {
        self.staircase || self.lifted.is_some()
    }

    /// The base graph and lifting size of a lifted 5G NR code.
    pub fn lifted(&self) -> Option<(crate::nr::BaseGraph, usize)> {
        self.lifted
    }

    /// Marks the code as `graph` lifted by `z` (its first block rows), which gives it the NR
    /// encoder.
    pub(crate) fn with_lifting(mut self, graph: crate::nr::BaseGraph, z: usize) -> Code {
        self.lifted = Some((graph, z));
        self
    }

    /// True when every check of `word` (one bit per byte, 0 or 1) is satisfied.
    pub fn is_codeword(&self, word: &[u8]) -> bool {
        word.len() == self.n
            && (0..self.m())
                .all(|r| self.row(r).iter().fold(0u8, |s, &c| s ^ word[c as usize]) & 1 == 0)
    }

    /// The code's parameters and degree distributions, as `sigpu ldpc codes` lists them.
    pub fn info(&self) -> CodeInfo {
        let histogram = |starts: &[u32]| {
            let mut h = std::collections::BTreeMap::new();
            for w in starts.windows(2) {
                *h.entry((w[1] - w[0]) as usize).or_insert(0) += 1;
            }
            h.into_iter().rev().collect()
        };
        CodeInfo {
            name: self.name.clone(),
            n: self.n,
            k: self.k,
            rate: self.rate(),
            edges: self.edges(),
            column_degrees: histogram(&self.col_start),
            row_degrees: histogram(&self.row_start),
            encodable: self.is_encodable(),
        }
    }

    /// The same code with its checks in the order decoders should visit them. For a DVB code
    /// that is check c = s + q·t ordered by (s, t): the 360 checks of each circulant together
    /// (the standard's layers). Then the edges of neighbouring information
    /// bits of a 360-bit group lie in neighbouring checks, so a pass over the bits walks the
    /// message array with a steady stride instead of jumping. Other codes keep their order.
    /// Flooding results do not depend on check order; the layered schedule follows it.
    pub fn decoding_order(&self) -> Code {
        let Some(q) = self.q else {
            return self.clone();
        };
        let mut order: Vec<usize> = (0..self.m()).collect();
        order.sort_by_key(|&c| (c % q, c / q));
        let rows: Vec<Vec<u32>> = order.iter().map(|&r| self.row(r).to_vec()).collect();
        let mut code = Code::from_rows(&self.name, self.n, self.k, &rows)
            .expect("a row permutation of a valid code is valid");
        code.q = self.q;
        code
    }

    /// The layers of the layered schedule, for a code in decoding order: for a DVB code the
    /// 360 consecutive checks of each circulant (q layers), otherwise every check alone. A
    /// layer's checks are updated together: each reads the posteriors as they were when the
    /// layer began, and the layer's c2v changes are summed into them afterwards. Checks of a
    /// layer that share no bit give exactly the check-by-check result; `conflict` marks the
    /// layers where two checks share a bit (table rows with two addresses congruent mod q).
    pub fn layers(&self) -> Vec<Layer> {
        let size = match self.q {
            Some(q) if self.m() == 360 * q => 360,
            _ => 1,
        };
        (0..self.m())
            .step_by(size)
            .map(|first| {
                let rows = first..(first + size).min(self.m());
                let mut cols: Vec<u32> = rows.clone().flat_map(|r| self.row(r)).copied().collect();
                cols.sort_unstable();
                let conflict = cols.windows(2).any(|w| w[0] == w[1]);
                Layer { rows, conflict }
            })
            .collect()
    }

    /// Column K + j is in checks j and j + 1 only (the last one in check M − 1 only).
    fn has_staircase(&self) -> bool {
        let m = self.m();
        (0..m).all(|j| {
            let col = self.k + j;
            let rows: Vec<usize> = self.col_edges
                [self.col_start[col] as usize..self.col_start[col + 1] as usize]
                .iter()
                .map(|&e| self.edge_row(e as usize))
                .collect();
            if j + 1 < m {
                rows == [j, j + 1]
            } else {
                rows == [j]
            }
        })
    }

    /// The check an edge belongs to (binary search over row starts).
    pub fn edge_row(&self, e: usize) -> usize {
        self.row_start.partition_point(|&s| s as usize <= e) - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_names_list_the_known_ones() {
        let e = Code::standard("dvbt2-normal-9/10").unwrap_err().to_string();
        assert!(
            e.contains("\"dvbt2-normal-9/10\"") && e.contains("dvbs2-normal-9/10"),
            "{e}"
        );
    }

    #[test]
    fn rejects_inconsistent_rows() {
        assert!(Code::from_rows("x", 3, 1, &[vec![0, 0], vec![1, 2]]).is_err());
        assert!(Code::from_rows("x", 3, 1, &[vec![0, 3], vec![1, 2]]).is_err());
        assert!(Code::from_rows("x", 4, 2, &[vec![0, 1], vec![1, 2]]).is_err());
    }
}
