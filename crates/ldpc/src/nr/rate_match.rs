//! Rate matching of a code block (TS 38.212 §5.4.2.1) and its receive side.
//!
//! The encoder's output d_0 … d_{N−1} (the lifted codeword without its first 2Z bits,
//! N = 66 Z or 50 Z) is a circular buffer of N_cb bits (N_cb = N, or the limited buffer
//! min(N, ⌊TBS_LBRM / (C · 2/3)⌋)). Redundancy version rv starts reading at k0 (Table
//! 5.4.2.1-2) and takes E bits, skipping filler bits and wrapping round the buffer as often
//! as E needs (repetition, for rates below the mother code's).
//!
//! The receive side adds each received LLR into the full-length LLR vector of the lifted code
//! at the bit it came from: punctured and unselected bits stay 0, repeated bits add up, filler
//! bits (known zeros) get [`FILLER_LLR`]. Adding the vectors of several transmissions is
//! HARQ incremental-redundancy combining.

use super::base_graph::BaseGraph;
use super::params::BlockParams;
use crate::error::{LdpcError, Result};

/// The LLR given to filler bits, known to be 0 (LLR = ln P(0)/P(1), so large and positive):
/// "+∞" for every decoder (the float decoders clamp messages at 50, the 8-bit ones saturate).
pub const FILLER_LLR: f32 = 1.0e4;

/// The rate matching of one code block: which bits of the lifted codeword each redundancy
/// version sends, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RateMatch {
    params: BlockParams,
    n_cb: usize,
    e: usize,
}

/// N_cb with limited-buffer rate matching (I_LBRM = 1): min(N, ⌊TBS_LBRM / (C · R_LBRM)⌋),
/// R_LBRM = 2/3, for a transport block of `c` code blocks.
pub fn limited_buffer(n: usize, tbs_lbrm: usize, c: usize) -> usize {
    n.min(3 * tbs_lbrm / (2 * c.max(1)))
}

/// k0 of Table 5.4.2.1-2: where redundancy version `rv` starts in a buffer of `n_cb` bits.
pub fn k0(graph: BaseGraph, rv: u8, n_cb: usize, z: usize) -> Result<usize> {
    let (num, den) = match (graph, rv) {
        (_, 0) => return Ok(0),
        (BaseGraph::Bg1, 1) => (17, 66),
        (BaseGraph::Bg1, 2) => (33, 66),
        (BaseGraph::Bg1, 3) => (56, 66),
        (BaseGraph::Bg2, 1) => (13, 50),
        (BaseGraph::Bg2, 2) => (25, 50),
        (BaseGraph::Bg2, 3) => (43, 50),
        (_, rv) => return Err(bad_rv(rv)),
    };
    Ok(num * n_cb / (den * z) * z)
}

fn bad_rv(rv: u8) -> LdpcError {
    LdpcError::invalid(format!("redundancy version {rv}: rv is 0, 1, 2 or 3"))
}

impl RateMatch {
    /// Rate matching of a block with `params` to `e` bits from a buffer of `n_cb` bits
    /// (None: the full buffer N).
    pub fn new(params: BlockParams, e: usize, n_cb: Option<usize>) -> Result<RateMatch> {
        let n = params.n();
        let n_cb = n_cb.unwrap_or(n);
        // The buffer holds at least every systematic bit after the punctured 2Z (filler
        // included), so each pass round it meets a bit to send.
        let data_end = params.k - 2 * params.z;
        if n_cb > n || n_cb <= data_end {
            return Err(LdpcError::invalid(format!(
                "circular buffer N_cb = {n_cb}: it must lie in ({data_end}, {n}] for this block (N = {n})"
            )));
        }
        if e == 0 {
            return Err(LdpcError::invalid("rate matching to E = 0 bits"));
        }
        Ok(RateMatch { params, n_cb, e })
    }

    /// E: the bits sent per redundancy version.
    pub fn e(&self) -> usize {
        self.e
    }
    /// N_cb: the circular buffer's length.
    pub fn n_cb(&self) -> usize {
        self.n_cb
    }
    /// The block's parameters.
    pub fn params(&self) -> &BlockParams {
        &self.params
    }

    /// What redundancy version `rv` sends as runs of consecutive lifted-codeword positions
    /// `[start, end)`, in the order sent: from k0 round the buffer, each pass split at the
    /// filler bits, until E bits are taken.
    pub fn runs(&self, rv: u8) -> Result<Vec<(usize, usize)>> {
        let z = self.params.z;
        let k0 = k0(self.params.graph, rv, self.n_cb, z)?;
        // Filler bits sit at buffer positions K' − 2Z … K − 2Z − 1.
        let (f0, f1) = (
            self.params.k_prime.saturating_sub(2 * z),
            self.params.k - 2 * z,
        );
        let mut runs = Vec::new();
        let (mut left, mut j) = (self.e, k0 % self.n_cb);
        while left > 0 {
            // The run from j to the next filler start or the buffer's end.
            let end = if j < f0 { f0.min(self.n_cb) } else { self.n_cb };
            let start = if (f0..f1).contains(&j) {
                f1.min(self.n_cb)
            } else {
                j
            };
            let take = end.saturating_sub(start).min(left);
            if take > 0 {
                runs.push((start + 2 * z, start + 2 * z + take));
                left -= take;
            }
            j = if start + take >= self.n_cb {
                0
            } else {
                start + take
            };
        }
        Ok(runs)
    }

    /// The bits redundancy version `rv` sends, as positions in the lifted codeword
    /// (0 … 68 Z or 52 Z − 1), in the order sent.
    pub fn positions(&self, rv: u8) -> Result<Vec<u32>> {
        let mut out = Vec::with_capacity(self.e);
        for (a, b) in self.runs(rv)? {
            out.extend((a..b).map(|p| p as u32));
        }
        Ok(out)
    }

    /// The E bits `rv` sends of `codeword` (the lifted codeword, 68 Z or 52 Z bits).
    pub fn select(&self, codeword: &[u8], rv: u8, out: &mut [u8]) -> Result<()> {
        self.check_lengths("codeword", codeword.len(), out.len())?;
        let mut at = 0;
        for (a, b) in self.runs(rv)? {
            out[at..at + b - a].copy_from_slice(&codeword[a..b]);
            at += b - a;
        }
        Ok(())
    }

    /// Adds the E received LLRs of `rv` into `full` (the lifted codeword's length) at the
    /// bits they came from; call [`RateMatch::set_filler`] once on the sum.
    pub fn combine(&self, llr: &[f32], rv: u8, full: &mut [f32]) -> Result<()> {
        self.check_lengths("LLR vector", full.len(), llr.len())?;
        let mut at = 0;
        for (a, b) in self.runs(rv)? {
            for (f, &l) in full[a..b].iter_mut().zip(&llr[at..at + b - a]) {
                *f += l;
            }
            at += b - a;
        }
        Ok(())
    }

    /// Sets the filler bits of a full-length LLR vector to [`FILLER_LLR`].
    pub fn set_filler(&self, full: &mut [f32]) {
        full[self.params.k_prime..self.params.k].fill(FILLER_LLR);
    }

    /// The full-length LLR vector of the lifted code from the received LLRs of one or more
    /// redundancy versions (`llrs[i]` sent with `rvs[i]`), HARQ-combined.
    pub fn recover(&self, llrs: &[&[f32]], rvs: &[u8]) -> Result<Vec<f32>> {
        if llrs.len() != rvs.len() || llrs.is_empty() {
            return Err(LdpcError::invalid(format!(
                "{} LLR vectors for {} redundancy versions: give one per rv",
                llrs.len(),
                rvs.len()
            )));
        }
        let mut full = vec![0f32; self.params.mother_len()];
        for (l, &rv) in llrs.iter().zip(rvs) {
            self.combine(l, rv, &mut full)?;
        }
        self.set_filler(&mut full);
        Ok(full)
    }

    fn check_lengths(&self, what: &str, full: usize, e: usize) -> Result<()> {
        let n = self.params.mother_len();
        if full != n || e != self.e {
            return Err(LdpcError::invalid(format!(
                "rate matching: the {what} has {} values and the rate-matched side {e}; this block needs {n} and E = {}",
                full, self.e
            )));
        }
        Ok(())
    }
}

/// The bit interleaver of §5.4.2.2 for `qm` bits per symbol: f_{i + j·Qm} = e_{i·E/Qm + j}
/// (the E bits written row by row into Qm rows and read column by column).
pub fn interleave<T: Copy>(e: &[T], qm: usize, f: &mut [T]) -> Result<()> {
    check_qm(e.len(), qm, f.len())?;
    let cols = e.len() / qm;
    for j in 0..cols {
        for i in 0..qm {
            f[i + j * qm] = e[i * cols + j];
        }
    }
    Ok(())
}

/// The inverse of [`interleave`] (for LLRs on the receive side).
pub fn deinterleave<T: Copy>(f: &[T], qm: usize, e: &mut [T]) -> Result<()> {
    check_qm(f.len(), qm, e.len())?;
    let cols = f.len() / qm;
    for j in 0..cols {
        for i in 0..qm {
            e[i * cols + j] = f[i + j * qm];
        }
    }
    Ok(())
}

/// Refuses a Q_m no NR modulation has (π/2-BPSK and BPSK 1, QPSK 2, 16/64/256/1024-QAM).
pub(crate) fn check_bits_per_symbol(qm: usize) -> Result<()> {
    if [1, 2, 4, 6, 8, 10].contains(&qm) {
        Ok(())
    } else {
        Err(LdpcError::invalid(format!(
            "{qm} bits per symbol: the NR modulations carry 1, 2, 4, 6, 8 or 10"
        )))
    }
}

fn check_qm(len: usize, qm: usize, out: usize) -> Result<()> {
    check_bits_per_symbol(qm)?;
    if !len.is_multiple_of(qm) {
        return Err(LdpcError::invalid(format!(
            "{len} bits are not a whole number of {qm}-bit symbols: n must be a multiple of Q_m = {qm}"
        )));
    }
    if out != len {
        return Err(LdpcError::invalid(format!(
            "interleaving {len} bits into {out}"
        )));
    }
    Ok(())
}
