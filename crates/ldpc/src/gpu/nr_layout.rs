//! The host side of the GPU 5G NR decoder's tables (`kernels/ldpc_nr_qc.cuh` reads them): one
//! entry per code, its base graph cut to the decoded block rows as (column, shift) pairs, one
//! descriptor per block of threads and one per codeword, and the 8-bit input with its mask of
//! known bits. Plain data, built and tested without a GPU.

use crate::channel::Quantizer;
use crate::code::Code;
use crate::decoder::{Llrs, KNOWN_LLR};
use crate::error::{LdpcError, Result};

/// Threads per block of the one-lane kernel (`NR_THREADS`): Z lanes of one codeword, or
/// ⌊384 / Z⌋ codewords.
pub const NR_THREADS: usize = 384;

/// Which of the two quasi-cyclic kernels runs: one check lane per thread
/// (`ldpc_nr_layered8`, 384 threads per block) or two, packed in 32-bit words
/// (`ldpc_nr_layered8x2`, 192 threads per block). Both give the same results.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub enum NrKernel {
    /// One check lane per thread.
    #[default]
    Lanes,
    /// Two check lanes per thread, SIMD in a word.
    Pairs,
}

impl NrKernel {
    /// Threads per block.
    pub fn threads(self) -> usize {
        match self {
            NrKernel::Lanes => NR_THREADS,
            NrKernel::Pairs => NR_THREADS / 2,
        }
    }

    /// Threads one codeword of lifting `z` takes.
    pub fn threads_per_word(self, z: usize) -> usize {
        match self {
            NrKernel::Lanes => z,
            NrKernel::Pairs => z.div_ceil(2),
        }
    }

    /// Codewords of lifting `z` per block.
    pub fn group(self, z: usize) -> usize {
        (self.threads() / self.threads_per_word(z)).max(1)
    }

    /// The kernel's entry point.
    pub fn entry(self) -> &'static str {
        match self {
            NrKernel::Lanes => "ldpc_nr_layered8",
            NrKernel::Pairs => "ldpc_nr_layered8x2",
        }
    }
}
/// The most circulants in a block row (`NR_MAX_DEGREE`).
const MAX_DEGREE: usize = 19;
/// Block-row degrees the one-lane kernel runs as straight-line code (`nr_row_case` in
/// `ldpc_nr_qc.cuh`); rows of other degrees take its slower general loop.
pub const STRAIGHT_LINE_DEGREES: [usize; 9] = [3, 4, 5, 6, 7, 8, 9, 10, 19];
/// Shared words for a code's graph (`NR_GRAPH_WORDS`).
const GRAPH_WORDS: usize = 512;
/// Words per code entry (`NR_CODE_WORDS`).
const CODE_WORDS: usize = 8;
/// Words per block descriptor and per codeword descriptor.
const BLOCK_WORDS: usize = 4;
const WORD_WORDS: usize = 4;

/// One code as the kernel sees it.
#[derive(Clone, Debug)]
pub struct NrCodeTable {
    /// Lifting size.
    pub z: usize,
    /// Block rows decoded.
    pub rows: usize,
    /// Bits per codeword.
    pub n: usize,
    /// Checks per codeword (rows · Z).
    pub m: usize,
    /// Edges of the lifted graph (circulants · Z).
    pub edges: usize,
    /// The posterior a known bit starts at (the CPU twin's).
    pub known: i16,
    /// Row starts (rows + 1), then `column · Z << 16 | shift mod Z` per circulant (the
    /// column's first bit, so that the kernel adds rather than multiplies).
    pub graph: Vec<u32>,
}

impl NrCodeTable {
    /// The table of `code`, a lifted NR code (whole or cut to its first block rows).
    pub fn new(code: &Code) -> Result<NrCodeTable> {
        let (graph, z, rows) = crate::decoder::lifted_structure(code)?;
        let ils = crate::nr::lifting::set_index(z).expect("a lifted code has a valid Z");
        let mut starts = vec![0u32];
        let mut edges = Vec::new();
        for i in 0..rows {
            let row: Vec<_> = (graph.matrix().entries.iter())
                .filter(|e| e.row as usize == i)
                .collect();
            if row.len() > MAX_DEGREE {
                return Err(LdpcError::invalid(format!(
                    "{}: block row {i} has {} circulants; the GPU decoder takes at most {MAX_DEGREE}",
                    code.name(),
                    row.len()
                )));
            }
            for e in row {
                // column · Z ≤ 67 · 384 and the shift < 384 both fit 16 bits.
                edges
                    .push(((e.col as usize * z) as u32) << 16 | (e.shift[ils] as usize % z) as u32);
            }
            starts.push(edges.len() as u32);
        }
        let circulants = edges.len();
        starts.extend(edges);
        if starts.len() > GRAPH_WORDS {
            return Err(LdpcError::invalid(format!(
                "{}: {} graph words exceed the GPU decoder's {GRAPH_WORDS}",
                code.name(),
                starts.len()
            )));
        }
        Ok(NrCodeTable {
            z,
            rows,
            n: code.n(),
            m: code.m(),
            edges: circulants * z,
            known: (i16::MAX as usize - 127 * code.max_col_degree()) as i16,
            graph: starts,
        })
    }

    /// Codewords one block of threads of `kernel` decodes at once.
    pub fn group(&self, kernel: NrKernel) -> usize {
        kernel.group(self.z)
    }

    /// 32-bit words of one codeword's hard decisions (and of its known mask).
    pub fn hard_words(&self) -> usize {
        self.n.div_ceil(32)
    }
}

/// One codeword of a batch: the index of its code in the batch's code list and its LLRs
/// (exactly that code's N of them).
#[derive(Clone, Copy, Debug)]
pub struct WordInput<'a> {
    /// Index into the batch's codes.
    pub code: usize,
    /// N LLRs.
    pub llr: Llrs<'a>,
}

/// Everything one launch needs, in host memory: the tables, the descriptors, the quantised
/// input, and where each codeword's results land.
#[derive(Clone, Debug, Default)]
pub struct NrBatchLayout {
    /// Code entries, `CODE_WORDS` each.
    pub codes: Vec<u32>,
    /// Every code's graph, one after another.
    pub graph: Vec<u32>,
    /// Block descriptors (code, codewords, first slot), `BLOCK_WORDS` each.
    pub blocks: Vec<u32>,
    /// Per slot (codeword in block order): LLR offset, hard offset, state offset.
    pub words: Vec<u32>,
    /// Quantised LLRs, codewords in input order.
    pub llr: Vec<i8>,
    /// Known-bit masks, laid out as the hard decisions.
    pub known: Vec<u32>,
    /// Input codeword of each slot.
    pub slot_word: Vec<usize>,
    /// Per input codeword: offset of its hard decisions (words) and its N.
    pub hard_at: Vec<(usize, usize)>,
    /// Check-state words (u64) and hard-decision words in all.
    pub state_len: usize,
    /// Hard-decision words in all.
    pub hard_len: usize,
    /// Dynamic shared memory per block (the largest code's posteriors).
    pub shared: usize,
    /// Edges of all codewords (for edge-iterations/s).
    pub edges: usize,
    /// Bits of all codewords.
    pub bits: usize,
}

impl NrBatchLayout {
    /// The layout of `words` over `codes` for `kernel`; codewords of one code share blocks in
    /// input order.
    pub fn new(
        codes: &[NrCodeTable],
        words: &[WordInput<'_>],
        q: Quantizer,
        kernel: NrKernel,
    ) -> Result<Self> {
        let mut out = NrBatchLayout::default();
        for c in codes {
            out.codes.extend([
                c.z as u32,
                c.rows as u32,
                c.n as u32,
                c.hard_words() as u32,
                c.known as u16 as u32,
                out.graph.len() as u32,
                c.graph.len() as u32,
                0,
            ]);
            debug_assert_eq!(out.codes.len() % CODE_WORDS, 0);
            out.graph.extend(&c.graph);
        }
        // Inputs: LLRs and masks in input order.
        let (mut llr_at, mut state_at) = (Vec::new(), Vec::new());
        for (i, w) in words.iter().enumerate() {
            let Some(c) = codes.get(w.code) else {
                return Err(LdpcError::invalid(format!(
                    "codeword {i}: code {} of {}",
                    w.code,
                    codes.len()
                )));
            };
            if w.llr.len() != c.n {
                return Err(LdpcError::invalid(format!(
                    "codeword {i}: {} LLRs for a code of N = {}",
                    w.llr.len(),
                    c.n
                )));
            }
            llr_at.push(out.llr.len());
            out.hard_at.push((out.hard_len, c.n));
            state_at.push(out.state_len);
            out.llr.resize(out.llr.len() + c.n, 0);
            out.known.resize(out.hard_len + c.hard_words(), 0);
            let at = *llr_at.last().expect("pushed");
            quantize_word(
                w.llr,
                q,
                &mut out.llr[at..at + c.n],
                &mut out.known[out.hard_len..],
            );
            out.hard_len += c.hard_words();
            out.state_len += c.m;
            out.edges += c.edges;
            out.bits += c.n;
        }
        // Blocks: each code's codewords, G at a time.
        for (ci, c) in codes.iter().enumerate() {
            let mine: Vec<usize> = (0..words.len()).filter(|&i| words[i].code == ci).collect();
            if !mine.is_empty() {
                out.shared = out.shared.max(c.group(kernel).min(mine.len()) * c.n * 2);
            }
            for chunk in mine.chunks(c.group(kernel)) {
                let first = out.slot_word.len();
                out.blocks
                    .extend([ci as u32, chunk.len() as u32, first as u32, 0]);
                for &i in chunk {
                    out.slot_word.push(i);
                    out.words.extend([
                        llr_at[i] as u32,
                        out.hard_at[i].0 as u32,
                        state_at[i] as u32,
                        0,
                    ]);
                }
            }
        }
        debug_assert_eq!(out.blocks.len() % BLOCK_WORDS, 0);
        debug_assert_eq!(out.words.len() % WORD_WORDS, 0);
        if out.llr.len() > u32::MAX as usize || out.state_len > u32::MAX as usize {
            return Err(LdpcError::invalid(
                "a GPU NR batch of more than 4 G LLRs or checks: decode it in parts",
            ));
        }
        Ok(out)
    }

    /// Whether `other` needs buffers of the same sizes (LLRs, masks, check state, hard
    /// decisions, codewords).
    pub fn same_sizes(&self, other: &NrBatchLayout) -> bool {
        (
            self.llr.len(),
            self.known.len(),
            self.state_len,
            self.hard_len,
            self.word_count(),
        ) == (
            other.llr.len(),
            other.known.len(),
            other.state_len,
            other.hard_len,
            other.word_count(),
        )
    }

    /// Blocks of threads the launch runs.
    pub fn block_count(&self) -> usize {
        self.blocks.len() / BLOCK_WORDS
    }

    /// Codewords in the batch.
    pub fn word_count(&self) -> usize {
        self.hard_at.len()
    }

    /// Unpacks codeword `i`'s hard decisions from the kernel's packed words.
    pub fn unpack(&self, hard: &[u32], i: usize, out: &mut [u8]) {
        let (at, n) = self.hard_at[i];
        for (v, bit) in out[..n].iter_mut().enumerate() {
            *bit = ((hard[at + v / 32] >> (v % 32)) & 1) as u8;
        }
    }
}

/// Quantises one codeword as the CPU quasi-cyclic decoder loads it: |LLR| ≥ [`KNOWN_LLR`] is a
/// known bit (mask bit set, value ±127), other LLRs the quantiser's 8 bits.
fn quantize_word(llr: Llrs<'_>, q: Quantizer, out: &mut [i8], mask: &mut [u32]) {
    match llr {
        Llrs::F32(v) => {
            for (i, (o, &l)) in out.iter_mut().zip(v).enumerate() {
                if l.abs() >= KNOWN_LLR {
                    *o = if l > 0.0 { 127 } else { -127 };
                    mask[i / 32] |= 1 << (i % 32);
                } else {
                    *o = q.quantize(l);
                }
            }
        }
        Llrs::I8 { values, scale } if scale == q.scale => {
            for (o, &l) in out.iter_mut().zip(values) {
                *o = l.max(-127);
            }
        }
        Llrs::I8 { values, scale } => {
            for (o, &l) in out.iter_mut().zip(values) {
                *o = q.quantize(l as f32 / scale);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nr::NrCode;

    #[test]
    fn tables_fit_the_kernel_for_both_graphs_at_the_extreme_liftings() {
        for (k, n) in [(8448, 25344), (3840, 19200), (40, 200), (22, 66)] {
            let Ok(nr) = NrCode::new(k, n, None) else {
                continue;
            };
            let t = NrCodeTable::new(nr.code()).unwrap();
            assert!(t.graph.len() <= GRAPH_WORDS);
            for kernel in [NrKernel::Lanes, NrKernel::Pairs] {
                let g = t.group(kernel);
                assert!(g * kernel.threads_per_word(t.z) <= kernel.threads());
                assert!(g * t.n * 2 <= 68 * NR_THREADS * 2);
            }
            assert_eq!(t.edges, nr.code().edges());
        }
    }

    /// Every block row of both base graphs (whole, and cut to the fewest rows a code keeps)
    /// has a straight-line copy in the one-lane kernel.
    #[test]
    fn every_block_row_of_both_base_graphs_runs_straight_line_code() {
        for (k, n) in [
            (8448, 25344),
            (8448, 8448 + 4 * 384),
            (3840, 19200),
            (3840, 3840 + 4 * 384),
        ] {
            let t = NrCodeTable::new(NrCode::new(k, n, None).unwrap().code()).unwrap();
            for r in 0..t.rows {
                let d = (t.graph[r + 1] - t.graph[r]) as usize;
                assert!(
                    STRAIGHT_LINE_DEGREES.contains(&d),
                    "k = {k}, n = {n}: row {r} has degree {d}"
                );
            }
        }
    }

    #[test]
    fn a_mixed_batch_groups_codewords_per_code_and_keeps_input_order_for_outputs() {
        let a = NrCodeTable::new(NrCode::new(8448, 25344, None).unwrap().code()).unwrap();
        let b = NrCodeTable::new(NrCode::new(40, 200, None).unwrap().code()).unwrap();
        let la = vec![1.0f32; a.n];
        let mut lb = vec![-1.0f32; b.n];
        lb[3] = 2000.0;
        let words = [
            WordInput {
                code: 1,
                llr: Llrs::F32(&lb),
            },
            WordInput {
                code: 0,
                llr: Llrs::F32(&la),
            },
            WordInput {
                code: 1,
                llr: Llrs::F32(&lb),
            },
        ];
        let q = Quantizer::new(8.0).unwrap();
        let l = NrBatchLayout::new(&[a.clone(), b.clone()], &words, q, NrKernel::Lanes).unwrap();
        // Code 0's word alone, then code 1's two words in one block.
        assert_eq!(l.block_count(), 2);
        assert_eq!(l.slot_word, vec![1, 0, 2]);
        assert_eq!(l.llr.len(), a.n + 2 * b.n);
        assert_eq!(l.known[0], 1 << 3);
        assert_eq!(l.llr[3], 127);
        assert_eq!(l.llr[0], -8);
        assert_eq!(l.edges, a.edges + 2 * b.edges);
        let bad = [WordInput {
            code: 0,
            llr: Llrs::F32(&lb),
        }];
        assert!(NrBatchLayout::new(&[a], &bad, q, NrKernel::Pairs).is_err());
    }
}
