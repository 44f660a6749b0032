//! Transport blocks (TS 38.212 §7.2 / §6.2 for the LDPC channels): CRC attachment (§5.1:
//! CRC24A above 3824 bits, else CRC16), code-block segmentation with CRC24B (§5.2.2), per
//! block encoding, rate matching to E_r bits and bit interleaving (§5.4.2), and code-block
//! concatenation (§5.5); and the receive side: splitting the G LLRs back into blocks,
//! de-interleaving and de-rate-matching (HARQ-combining redundancy versions), decoding every
//! block in one call, and the CRC checks per code block and per transport block.

use super::base_graph::BaseGraph;
use super::crc::Crc;
use super::encoder::LiftedEncoder;
use super::lifted::lifted_code;
use super::params::{choose_graph, BlockParams};
use super::rate_match::{deinterleave, interleave, limited_buffer, RateMatch};
use crate::code::Code;
use crate::decoder::{Decoder, Llrs};
use crate::error::{LdpcError, Result};

/// The CRC of each code block of a segmented transport block.
const CB_CRC: Crc = Crc::Crc24B;

/// A transport block of A bits sent as G coded bits with Q_m bits per symbol (one layer).
#[derive(Clone, Debug)]
pub struct TransportBlock {
    a: usize,
    g: usize,
    qm: usize,
    tb_crc: Crc,
    c: usize,
    /// Whether each code block carries a CRC24B (C > 1).
    cb_crc: bool,
    params: BlockParams,
    code: Code,
    encoder: LiftedEncoder,
    /// The rate matching of each code block (E_r of §5.4.2.1).
    blocks: Vec<RateMatch>,
}

/// What decoding a transport block gives.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct TbDecoded {
    /// The A decoded bits.
    pub bits: Vec<u8>,
    /// Per code block: its CRC24B passed (always true for a single block, which has none)
    /// and the decoder's hard decision satisfied every check.
    pub blocks_ok: Vec<bool>,
    /// The transport block's CRC passed.
    pub tb_ok: bool,
}

impl TransportBlock {
    /// A transport block of `a` bits in `g` coded bits of `qm`-bit symbols; the base graph is
    /// §7.2.2's for A and R = A / G unless given.
    pub fn new(a: usize, g: usize, qm: usize, graph: Option<BaseGraph>) -> Result<TransportBlock> {
        if a < 8 {
            return Err(LdpcError::invalid(format!(
                "transport block of A = {a} bits: give at least 8"
            )));
        }
        super::rate_match::check_bits_per_symbol(qm)?;
        if g == 0 || !g.is_multiple_of(qm) {
            return Err(LdpcError::invalid(format!(
                "G = {g} coded bits with Q_m = {qm}: G must be a positive multiple of Q_m"
            )));
        }
        let graph = graph.unwrap_or_else(|| choose_graph(a, a as f64 / g as f64));
        let tb_crc = Crc::for_transport_block(a);
        let b = a + tb_crc.len();
        let k_cb = graph.max_block();
        let (c, l) = if b <= k_cb {
            (1, 0)
        } else {
            (b.div_ceil(k_cb - CB_CRC.len()), CB_CRC.len())
        };
        let b_prime = b + c * l;
        if !b_prime.is_multiple_of(c) {
            let fits = |a: usize| {
                let b = a + Crc::for_transport_block(a).len();
                let c = if b <= k_cb { 1 } else { b.div_ceil(k_cb - 24) };
                let l = if c > 1 { 24 } else { 0 };
                (b + c * l).is_multiple_of(c)
            };
            let below = (1..a).rev().find(|&x| fits(x)).unwrap_or(0);
            let above = (a + 1..).find(|&x| fits(x)).expect("some larger size fits");
            return Err(LdpcError::invalid(format!(
                "transport block of A = {a} bits on {graph}: {c} code blocks would hold {b_prime} / {c} \
                 bits each, not a whole number (TS 38.214's sizes always divide); nearest sizes that do: {below} and {above}"
            )));
        }
        let params = BlockParams::new(graph, b, b_prime / c)?;
        let code = lifted_code(graph, params.z)?;
        let encoder = LiftedEncoder::new(graph, params.z)?;
        // §5.4.2.1 with N_L = 1 and every block scheduled (C' = C): the first
        // C − mod(G/Qm, C) blocks get Qm·⌊G/(Qm·C)⌋ bits, the rest Qm·⌈G/(Qm·C)⌉.
        let symbols = g / qm;
        let blocks = (0..c)
            .map(|r| {
                let e = if r < c - symbols % c { qm * (symbols / c) } else { qm * symbols.div_ceil(c) };
                if e == 0 || params.k_prime as f64 / e as f64 > super::params::RATE_MAX {
                    return Err(LdpcError::invalid(format!(
                        "transport block of A = {a} bits in G = {g}: code block {r} gets E = {e} bits for its \
                         {} bits, a rate above {}; give a larger G",
                        params.k_prime,
                        super::params::RATE_MAX
                    )));
                }
                RateMatch::new(params, e, None)
            })
            .collect::<Result<_>>()?;
        Ok(TransportBlock {
            a,
            g,
            qm,
            tb_crc,
            c,
            cb_crc: c > 1,
            params,
            code,
            encoder,
            blocks,
        })
    }

    /// The same block with limited-buffer rate matching for TBS_LBRM = `tbs_lbrm` (§5.4.2.1).
    pub fn with_limited_buffer(mut self, tbs_lbrm: usize) -> Result<TransportBlock> {
        let n_cb = limited_buffer(self.params.n(), tbs_lbrm, self.c);
        self.blocks = (self.blocks.iter())
            .map(|b| RateMatch::new(self.params, b.e(), Some(n_cb)))
            .collect::<Result<_>>()?;
        Ok(self)
    }

    /// A, the transport block's bits.
    pub fn a(&self) -> usize {
        self.a
    }
    /// G, the coded bits sent per transmission.
    pub fn g(&self) -> usize {
        self.g
    }
    /// C, the code blocks.
    pub fn blocks(&self) -> usize {
        self.c
    }
    /// The transport block's CRC.
    pub fn tb_crc(&self) -> Crc {
        self.tb_crc
    }
    /// The parameters shared by every code block (K', K, Z, base graph).
    pub fn params(&self) -> &BlockParams {
        &self.params
    }
    /// The lifted code every block is decoded with.
    pub fn code(&self) -> &Code {
        &self.code
    }
    /// E_r of each code block.
    pub fn block_lengths(&self) -> Vec<usize> {
        self.blocks.iter().map(RateMatch::e).collect()
    }

    /// The C code blocks of `bits` (A bits) before encoding, K bits each: the transport
    /// block's bits with its CRC, cut into blocks, each with its CRC24B when C > 1, then
    /// filler zeros.
    pub fn segment(&self, bits: &[u8]) -> Result<Vec<Vec<u8>>> {
        if bits.len() != self.a {
            return Err(LdpcError::invalid(format!(
                "transport block: {} bits given, A = {}",
                bits.len(),
                self.a
            )));
        }
        if let Some(i) = bits.iter().position(|&b| b > 1) {
            return Err(LdpcError::invalid(format!(
                "transport block: bit {i} is {}; bits are 0 or 1",
                bits[i]
            )));
        }
        let b = self.tb_crc.attach(bits);
        let data = self.params.k_prime - if self.cb_crc { CB_CRC.len() } else { 0 };
        Ok(b.chunks(data)
            .map(|chunk| {
                let mut block = if self.cb_crc {
                    CB_CRC.attach(chunk)
                } else {
                    chunk.to_vec()
                };
                block.resize(self.params.k, 0);
                block
            })
            .collect())
    }

    /// The G bits redundancy version `rv` sends for `bits` (A bits): every code block
    /// encoded, rate-matched to E_r, interleaved, concatenated.
    pub fn encode(&self, bits: &[u8], rv: u8) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(self.g);
        let mut word = vec![0u8; self.code.n()];
        for (block, rm) in self.segment(bits)?.iter().zip(&self.blocks) {
            self.encoder.encode(block, &mut word)?;
            let mut e = vec![0u8; rm.e()];
            rm.select(&word, rv, &mut e)?;
            let mut f = vec![0u8; rm.e()];
            interleave(&e, self.qm, &mut f)?;
            out.extend_from_slice(&f);
        }
        Ok(out)
    }

    /// The full-length LLRs of every code block (C × the lifted code's length, block after
    /// block) from the G received LLRs of each redundancy version in `rvs`, HARQ-combined.
    pub fn llr_blocks(&self, llrs: &[&[f32]], rvs: &[u8]) -> Result<Vec<f32>> {
        if llrs.len() != rvs.len() || llrs.is_empty() {
            return Err(LdpcError::invalid(format!(
                "{} LLR vectors for {} redundancy versions: give one per rv",
                llrs.len(),
                rvs.len()
            )));
        }
        if let Some((i, l)) = llrs.iter().enumerate().find(|(_, l)| l.len() != self.g) {
            return Err(LdpcError::invalid(format!(
                "transport block: LLR vector {i} has {} values; each transmission sends G = {}",
                l.len(),
                self.g
            )));
        }
        let n = self.code.n();
        let mut full = vec![0f32; self.c * n];
        for (l, &rv) in llrs.iter().zip(rvs) {
            let mut at = 0;
            for (rm, out) in self.blocks.iter().zip(full.chunks_exact_mut(n)) {
                let mut e = vec![0f32; rm.e()];
                deinterleave(&l[at..at + rm.e()], self.qm, &mut e)?;
                rm.combine(&e, rv, out)?;
                at += rm.e();
            }
        }
        for (rm, out) in self.blocks.iter().zip(full.chunks_exact_mut(n)) {
            rm.set_filler(out);
        }
        Ok(full)
    }

    /// Decodes the transmissions `llrs` (G LLRs each, ln P(0)/P(1)) of redundancy versions
    /// `rvs` with `decoder` (made for [`TransportBlock::code`]): all code blocks in one call.
    pub fn decode(
        &self,
        llrs: &[&[f32]],
        rvs: &[u8],
        decoder: &mut dyn Decoder,
    ) -> Result<TbDecoded> {
        if decoder.code().n() != self.code.n() || decoder.code().edges() != self.code.edges() {
            return Err(LdpcError::invalid(format!(
                "the decoder is for {}, this transport block's code is {}",
                decoder.code().name(),
                self.code.name()
            )));
        }
        let full = self.llr_blocks(llrs, rvs)?;
        let mut hard = vec![0u8; full.len()];
        decoder.decode(Llrs::F32(&full), &mut hard)?;
        Ok(self.desegment(&hard))
    }

    /// The transport block from the decoded code blocks (C × the lifted code's length):
    /// each block's CRC24B checked, the blocks concatenated, the transport block's CRC checked.
    pub fn desegment(&self, hard: &[u8]) -> TbDecoded {
        let n = self.code.n();
        let kp = self.params.k_prime;
        let mut b = Vec::with_capacity(self.a + self.tb_crc.len());
        let mut blocks_ok = Vec::with_capacity(self.c);
        for word in hard.chunks_exact(n) {
            let ok = self.code.is_codeword(word) && (!self.cb_crc || CB_CRC.check(&word[..kp]));
            blocks_ok.push(ok);
            let data = kp - if self.cb_crc { CB_CRC.len() } else { 0 };
            b.extend_from_slice(&word[..data]);
        }
        b.truncate(self.a + self.tb_crc.len());
        let tb_ok = self.tb_crc.check(&b);
        b.truncate(self.a);
        TbDecoded {
            bits: b,
            blocks_ok,
            tb_ok,
        }
    }
}
