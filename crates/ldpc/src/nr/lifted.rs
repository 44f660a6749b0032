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
    lifted_rows(graph, z, graph.block_rows())
}

/// The lifted code cut to its first `rows` block rows (4 ≤ rows ≤ 46 or 42) and the
/// K_b + `rows` block columns they touch: the code a decoder needs when the parity bits of the
/// later extension columns are never sent. Each dropped check holds one dropped bit, of
/// degree 1 and LLR 0, so its messages to every other bit are 0 in every decoder: dropping
/// it changes no decision, and saves the work (a rate-0.93 BG1 block needs 4 of 46 rows).
pub fn lifted_rows(graph: BaseGraph, z: usize, rows: usize) -> Result<Code> {
    if !(4..=graph.block_rows()).contains(&rows) {
        return Err(LdpcError::invalid(format!(
            "{graph}: {rows} block rows; between 4 (the core) and {}",
            graph.block_rows()
        )));
    }
    let ils = set_index(z).ok_or_else(|| {
        LdpcError::invalid(format!(
            "lifting size Z = {z} is not one of TS 38.212's 51 (a · 2^j ≤ 384, a ∈ {{2, 3, 5, 7, 9, 11, 13, 15}})"
        ))
    })?;
    let base = graph.matrix();
    let block_rows = rows;
    let mut rows: Vec<Vec<u32>> = vec![Vec::new(); block_rows * z];
    for e in base
        .entries
        .iter()
        .filter(|e| (e.row as usize) < block_rows)
    {
        let p = e.shift[ils] as usize % z;
        let (i, j) = (e.row as usize, e.col as usize);
        for t in 0..z {
            rows[i * z + t].push((j * z + (t + p) % z) as u32);
        }
    }
    let name = if block_rows == graph.block_rows() {
        lifted_name(graph, z)
    } else {
        format!("{}-rows{block_rows}", lifted_name(graph, z))
    };
    let cols = graph.info_cols() + block_rows;
    Ok(Code::from_rows(&name, cols * z, graph.info_cols() * z, &rows)?.with_lifting(graph, z))
}
