//! The parameters TS 38.212 derives for a code block: the base graph (§7.2.2 / §6.2.2), K_b,
//! the lifting size Z, K and the filler bits (§5.2.2), and N before rate matching (§5.3.2).

use super::base_graph::BaseGraph;
use super::lifting::{set_index, smallest_lifting};
use crate::error::{LdpcError, Result};

/// The smallest code block accepted: BG2's smallest K_b (6) times the smallest Z (2).
pub const K_MIN: usize = 12;

/// The highest code rate accepted, k/n (a higher rate leaves too few parity bits to decode).
pub const RATE_MAX: f64 = 0.95;

/// The base graph §7.2.2 picks for a payload of `a` bits at code rate `rate`: BG2 when
/// A ≤ 292, or A ≤ 3824 and R ≤ 0.67, or R ≤ 0.25; BG1 otherwise.
pub fn choose_graph(a: usize, rate: f64) -> BaseGraph {
    if a <= 292 || (a <= 3824 && rate <= 0.67) || rate <= 0.25 {
        BaseGraph::Bg2
    } else {
        BaseGraph::Bg1
    }
}

/// K_b of §5.2.2: 22 for BG1; for BG2 10, 9, 8 or 6 as B (the bits entering segmentation)
/// exceeds 640, 560, 192 or not.
pub fn kb(graph: BaseGraph, b: usize) -> usize {
    match graph {
        BaseGraph::Bg1 => 22,
        BaseGraph::Bg2 if b > 640 => 10,
        BaseGraph::Bg2 if b > 560 => 9,
        BaseGraph::Bg2 if b > 192 => 8,
        BaseGraph::Bg2 => 6,
    }
}

/// The lifted code of one code block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct BlockParams {
    /// The base graph.
    pub graph: BaseGraph,
    /// K_b: Z is the smallest lifting size with K_b · Z ≥ K'.
    pub kb: usize,
    /// The lifting size Z.
    pub z: usize,
    /// Its set index iLS (Table 5.3.2-1), which picks the shift column.
    pub ils: usize,
    /// K': the bits of the block that carry data (information and CRC).
    pub k_prime: usize,
    /// K = 22 Z (BG1) or 10 Z (BG2): K' plus the filler bits.
    pub k: usize,
}

impl BlockParams {
    /// The parameters of a block of `k_prime` bits on `graph`, where `b` bits entered
    /// segmentation (it sets BG2's K_b; `b = k_prime` for a single block without segmentation).
    pub fn new(graph: BaseGraph, b: usize, k_prime: usize) -> Result<BlockParams> {
        if k_prime > graph.max_block() {
            return Err(LdpcError::invalid(format!(
                "a {graph} code block holds at most {} bits, not {k_prime}",
                graph.max_block()
            )));
        }
        let kb = kb(graph, b);
        let z = smallest_lifting(kb, k_prime).ok_or_else(|| {
            LdpcError::invalid(format!("no lifting size Z ≤ 384 has {kb} · Z ≥ {k_prime}"))
        })?;
        let ils = set_index(z).expect("a listed lifting size has a set");
        Ok(BlockParams {
            graph,
            kb,
            z,
            ils,
            k_prime,
            k: graph.info_cols() * z,
        })
    }

    /// Filler bits K − K' (known zeros, positions K' … K − 1 of the block).
    pub fn filler(&self) -> usize {
        self.k - self.k_prime
    }

    /// Bits of the lifted codeword: 68 Z (BG1) or 52 Z (BG2), the first 2Z punctured.
    pub fn mother_len(&self) -> usize {
        self.graph.block_cols() * self.z
    }

    /// N of §5.3.2, the encoder's output after the 2Z punctured bits: 66 Z or 50 Z.
    pub fn n(&self) -> usize {
        self.mother_len() - 2 * self.z
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn graph_choice_follows_the_rule() {
        assert_eq!(choose_graph(292, 0.9), BaseGraph::Bg2);
        assert_eq!(choose_graph(293, 0.9), BaseGraph::Bg1);
        assert_eq!(choose_graph(3824, 0.67), BaseGraph::Bg2);
        assert_eq!(choose_graph(3824, 0.68), BaseGraph::Bg1);
        assert_eq!(choose_graph(3825, 0.5), BaseGraph::Bg1);
        assert_eq!(choose_graph(8000, 0.25), BaseGraph::Bg2);
    }

    #[test]
    fn kb_thresholds() {
        let g = BaseGraph::Bg2;
        assert_eq!(
            [
                kb(g, 641),
                kb(g, 640),
                kb(g, 561),
                kb(g, 560),
                kb(g, 193),
                kb(g, 192)
            ],
            [10, 9, 9, 8, 8, 6]
        );
        assert_eq!(kb(BaseGraph::Bg1, 40), 22);
    }

    #[test]
    fn block_of_the_largest_sizes() {
        let p = BlockParams::new(BaseGraph::Bg1, 8448, 8448).unwrap();
        assert_eq!(
            (p.z, p.ils, p.k, p.filler(), p.n()),
            (384, 1, 8448, 0, 25344)
        );
        let p = BlockParams::new(BaseGraph::Bg2, 3840, 3840).unwrap();
        assert_eq!((p.z, p.k, p.n()), (384, 3840, 19200));
        // 1000 bits on BG2: K_b = 10, Z = 104 (10 · 96 < 1000), K = 1040, 40 filler bits.
        let p = BlockParams::new(BaseGraph::Bg2, 1000, 1000).unwrap();
        assert_eq!((p.kb, p.z, p.ils, p.k, p.filler()), (10, 104, 6, 1040, 40));
        assert!(BlockParams::new(BaseGraph::Bg2, 3841, 3841).is_err());
        assert!(BlockParams::new(BaseGraph::Bg1, 8449, 8449).is_err());
    }
}
