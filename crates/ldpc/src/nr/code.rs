//! [`NrCode`]: one 5G NR code block as a user names it, k information bits sent as n coded
//! bits (`nr:k=K,n=N[,bg=1|2]`), the way Sionna's `LDPC5GEncoder(k, n)` names it.

use super::base_graph::BaseGraph;
use super::encoder::LiftedEncoder;
use super::lifted::{lifted_code, lifted_rows};
use super::params::{choose_graph, BlockParams, K_MIN, RATE_MAX};
use super::rate_match::RateMatch;
use crate::code::Code;
use crate::error::{LdpcError, Result};

/// A 5G NR LDPC code block: k bits (K' of §5.2.2: information and any CRC) encoded with the
/// lifted base graph and rate-matched to n bits. The base graph is §7.2.2's choice for A = k
/// and R = k/n unless given. `code()` is the lifted mother code (68 Z or 52 Z bits), the code
/// every decoder runs; K − k filler bits follow the k bits in it.
#[derive(Clone, Debug)]
pub struct NrCode {
    params: BlockParams,
    n: usize,
    code: Code,
    encoder: LiftedEncoder,
    rate_match: RateMatch,
}

impl NrCode {
    /// The code block of `k` bits sent as `n` bits, on `graph` or §7.2.2's choice.
    pub fn new(k: usize, n: usize, graph: Option<BaseGraph>) -> Result<NrCode> {
        if k < K_MIN {
            return Err(LdpcError::invalid(format!(
                "k = {k}: a 5G NR code block carries at least {K_MIN} bits (BG2's K_b = 6 times Z = 2)"
            )));
        }
        if k > BaseGraph::Bg1.max_block() {
            return Err(LdpcError::invalid(format!(
                "k = {k}: a 5G NR code block carries at most 8448 bits (BG1); segment a larger \
                 transport block into code blocks (sigpu_ldpc::nr::TransportBlock)"
            )));
        }
        if n == 0 || k as f64 / n as f64 > RATE_MAX {
            return Err(LdpcError::invalid(format!(
                "k = {k}, n = {n}: code rate {:.4} is above {RATE_MAX}; give n ≥ {}",
                k as f64 / n.max(1) as f64,
                (k as f64 / RATE_MAX).ceil()
            )));
        }
        let graph = match graph {
            Some(g) => g,
            None => {
                let g = choose_graph(k, k as f64 / n as f64);
                if k > g.max_block() {
                    return Err(LdpcError::invalid(format!(
                        "k = {k} at rate {:.4} ≤ 0.25 selects BG2 (TS 38.212 §7.2.2), whose code blocks \
                         hold at most 3840 bits: give bg=1, or segment into smaller blocks",
                        k as f64 / n as f64
                    )));
                }
                g
            }
        };
        let params = BlockParams::new(graph, k, k)?;
        let code = lifted_code(graph, params.z)?;
        let encoder = LiftedEncoder::new(graph, params.z)?;
        let rate_match = RateMatch::new(params, n, None)?;
        Ok(NrCode {
            params,
            n,
            code,
            encoder,
            rate_match,
        })
    }

    /// Parses `nr:k=K,n=N[,bg=1|2]` (keys in any order).
    pub fn parse(spec: &str) -> Result<NrCode> {
        let bad = |m: String| {
            LdpcError::invalid(format!("code {spec:?}: {m}; expected nr:k=K,n=N[,bg=1|2]"))
        };
        let body = spec
            .trim()
            .strip_prefix("nr:")
            .ok_or_else(|| bad("does not start with nr:".into()))?;
        let (mut k, mut n, mut bg) = (None, None, None);
        for part in body.split(',') {
            let (key, value) = part
                .split_once('=')
                .ok_or_else(|| bad(format!("{part:?} is not key=value")))?;
            let value: usize = value
                .trim()
                .parse()
                .map_err(|_| bad(format!("{key}={value:?} is not a whole number")))?;
            let slot = match key.trim() {
                "k" => &mut k,
                "n" => &mut n,
                "bg" => &mut bg,
                other => return Err(bad(format!("unknown key {other:?}"))),
            };
            if slot.replace(value).is_some() {
                return Err(bad(format!("{key} given twice")));
            }
        }
        let k = k.ok_or_else(|| bad("k is missing".into()))?;
        let n = n.ok_or_else(|| bad("n is missing".into()))?;
        let bg = bg.map(|b| BaseGraph::from_number(b as u32)).transpose()?;
        NrCode::new(k, n, bg)
    }

    /// Whether `spec` names an NR code (`nr:` prefix).
    pub fn is_spec(spec: &str) -> bool {
        spec.trim_start().starts_with("nr:")
    }

    /// `nr:k=K,n=N,bg=G`: the canonical spelling.
    pub fn name(&self) -> String {
        format!(
            "nr:k={},n={},bg={}",
            self.k(),
            self.n,
            self.params.graph.number()
        )
    }

    /// k: the bits the block carries (K'; [`BlockParams::k`] is K, filler included).
    #[allow(clippy::misnamed_getters)]
    pub fn k(&self) -> usize {
        self.params.k_prime
    }
    /// n: the bits sent (E of §5.4.2.1).
    pub fn n(&self) -> usize {
        self.n
    }
    /// k / n.
    pub fn rate(&self) -> f64 {
        self.k() as f64 / self.n as f64
    }
    /// The base graph.
    pub fn graph(&self) -> BaseGraph {
        self.params.graph
    }
    /// The lifting size Z.
    pub fn z(&self) -> usize {
        self.params.z
    }
    /// The derived block parameters (K_b, Z, iLS, K, K').
    pub fn params(&self) -> &BlockParams {
        &self.params
    }
    /// The lifted mother code (68 Z or 52 Z bits); decoders run [`NrCode::decoding_code`].
    pub fn code(&self) -> &Code {
        &self.code
    }
    /// The block rows a decoder needs for redundancy versions `rvs`: the core's 4, and every
    /// extension row whose parity column holds a bit that one of them sends.
    pub fn rows_for(&self, rvs: &[u8]) -> Result<usize> {
        let mut last = 0usize;
        for &rv in rvs {
            let pos = self.rate_match.positions(rv)?;
            last = last.max(pos.iter().copied().max().unwrap_or(0) as usize);
        }
        let kb = self.params.graph.info_cols();
        Ok((last / self.params.z + 1)
            .saturating_sub(kb)
            .clamp(4, self.params.graph.block_rows()))
    }

    /// The code the decoders run for redundancy versions `rvs`: the lifted code cut to
    /// [`NrCode::rows_for`] block rows ([`super::lifted::lifted_rows`]), its bits the first
    /// ones of the lifted codeword.
    pub fn decoding_code(&self, rvs: &[u8]) -> Result<Code> {
        let rows = self.rows_for(rvs)?;
        if rows == self.params.graph.block_rows() {
            return Ok(self.code.clone());
        }
        lifted_rows(self.params.graph, self.params.z, rows)
    }

    /// The rate matching (circular buffer, E = n).
    pub fn rate_match(&self) -> &RateMatch {
        &self.rate_match
    }

    /// The same code with limited-buffer rate matching: a circular buffer of `n_cb` bits
    /// ([`super::rate_match::limited_buffer`] computes §5.4.2.1's N_cb).
    pub fn with_buffer(mut self, n_cb: usize) -> Result<NrCode> {
        self.rate_match = RateMatch::new(self.params, self.n, Some(n_cb))?;
        Ok(self)
    }

    /// The lifted codeword (68 Z or 52 Z bits) of `bits` (k bits, 0 or 1): the k bits, the
    /// filler zeros, the parity bits.
    pub fn encode_full(&self, bits: &[u8]) -> Result<Vec<u8>> {
        if bits.len() != self.k() {
            return Err(LdpcError::invalid(format!(
                "{}: {} bits given, the code block takes k = {}",
                self.name(),
                bits.len(),
                self.k()
            )));
        }
        if let Some(i) = bits.iter().position(|&b| b > 1) {
            return Err(LdpcError::invalid(format!(
                "{}: bit {i} is {}; bits are 0 or 1",
                self.name(),
                bits[i]
            )));
        }
        let mut info = vec![0u8; self.params.k];
        info[..self.k()].copy_from_slice(bits);
        let mut word = vec![0u8; self.code.n()];
        self.encoder.encode(&info, &mut word)?;
        Ok(word)
    }

    /// The n bits redundancy version `rv` (0–3) sends for `bits` (k bits).
    pub fn encode(&self, bits: &[u8], rv: u8) -> Result<Vec<u8>> {
        let word = self.encode_full(bits)?;
        let mut out = vec![0u8; self.n];
        self.rate_match.select(&word, rv, &mut out)?;
        Ok(out)
    }

    /// The full-length LLRs (the lifted code's 68 Z or 52 Z, ln P(0)/P(1)) of the received
    /// n LLRs of each redundancy version in `rvs`, HARQ-combined: punctured and unsent bits
    /// 0, filler bits [`super::rate_match::FILLER_LLR`].
    pub fn llr_full(&self, llrs: &[&[f32]], rvs: &[u8]) -> Result<Vec<f32>> {
        for (i, l) in llrs.iter().enumerate() {
            if l.len() != self.n {
                return Err(LdpcError::invalid(format!(
                    "{}: LLR vector {i} has {} values; each redundancy version sends n = {}",
                    self.name(),
                    l.len(),
                    self.n
                )));
            }
        }
        self.rate_match.recover(llrs, rvs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_choose() {
        let c = NrCode::parse("nr:k=8448,n=9126").unwrap();
        assert_eq!(
            (c.graph(), c.z(), c.code().n()),
            (BaseGraph::Bg1, 384, 68 * 384)
        );
        assert_eq!(c.name(), "nr:k=8448,n=9126,bg=1");
        let c = NrCode::parse("nr:n=3000,k=1000").unwrap();
        assert_eq!((c.graph(), c.z()), (BaseGraph::Bg2, 104));
        let c = NrCode::parse("nr:k=1000,n=3000,bg=1").unwrap();
        assert_eq!((c.graph(), c.z()), (BaseGraph::Bg1, 48));
    }

    #[test]
    fn bad_input_is_named() {
        let msg = |s: &str| NrCode::parse(s).unwrap_err().to_string();
        assert!(
            msg("nr:k=8449,n=20000").contains("at most 8448"),
            "{}",
            msg("nr:k=8449,n=20000")
        );
        assert!(msg("nr:k=11,n=40").contains("at least 12"));
        assert!(msg("nr:k=1000,n=1050").contains("above 0.95"));
        assert!(msg("nr:k=1000,n=3000,bg=3").contains("base graph 3"));
        assert!(msg("nr:k=5000,n=30000").contains("bg=1"));
        assert!(msg("nr:k=5000,n=30000,bg=2").contains("at most 3840"));
        assert!(msg("nr:k=x,n=3").contains("not a whole number"));
        assert!(msg("nr:k=100").contains("n is missing"));
        assert!(msg("nr:k=100,n=300,z=4").contains("unknown key"));
        assert!(msg("nr:k=100,k=100,n=300").contains("twice"));
    }
}
