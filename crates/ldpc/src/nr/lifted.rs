//! The lifted parity-check matrix (§5.3.2): every nonzero base entry (i, j) becomes the Z × Z
//! identity cyclically shifted right by P = V_{i,j} mod Z, so check i·Z + t of the lifted H
//! joins bit j·Z + (t + P) mod Z.

use super::base_graph::BaseGraph;
use super::lifting::set_index;
use crate::code::Code;
use crate::error::{LdpcError, Result};

/// The name of the lifted code of `graph` at lifting size `z`: `nr-bg1-z384`.
pub fn lifted_name(graph: BaseGraph, z: usize) -> String {
    format!("nr-bg{}-z{z}", graph.number())
}

/// The lifted code of `graph` at lifting size `z`, all 68 Z (BG1) or 52 Z (BG2) bits: the
/// first K = 22 Z or 10 Z systematic (the first 2 Z of them punctured in transmission), then
/// the parity bits. H is (46 or 42) Z × (68 or 52) Z and of full rank, so K = N − M.
pub fn lifted_code(graph: BaseGraph, z: usize) -> Result<Code> {
    let ils = set_index(z).ok_or_else(|| {
        LdpcError::invalid(format!(
            "lifting size Z = {z} is not one of TS 38.212's 51 (a · 2^j ≤ 384, a ∈ {{2, 3, 5, 7, 9, 11, 13, 15}})"
        ))
    })?;
    let base = graph.matrix();
    let mut rows: Vec<Vec<u32>> = vec![Vec::new(); base.rows * z];
    for e in &base.entries {
        let p = e.shift[ils] as usize % z;
        let (i, j) = (e.row as usize, e.col as usize);
        for t in 0..z {
            rows[i * z + t].push((j * z + (t + p) % z) as u32);
        }
    }
    Code::from_rows(
        &lifted_name(graph, z),
        base.cols * z,
        graph.info_cols() * z,
        &rows,
    )
}
