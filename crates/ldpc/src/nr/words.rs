//! Many code blocks at once, as the faces hand them over: words × k bits in, words × (rvs) × n
//! bits out, and back from LLRs, with the §5.4.2.2 bit interleaver when a constellation's
//! Q_m is given. The layout follows Sionna's `LDPC5GEncoder` / `LDPC5GDecoder` (one
//! transmission: `[..., n]`; several redundancy versions: `[..., len(rv), n]`), with LLRs
//! ln P(0)/P(1) (Sionna's are ln P(1)/P(0): negate them).

use super::code::NrCode;
use super::rate_match::{deinterleave, interleave};
use crate::decoder::{DecodeStats, Decoder, Llrs};
use crate::error::{LdpcError, Result};

impl NrCode {
    /// The `rvs.len()` transmissions of every word of `bits` (words × k, 0 or 1): words ×
    /// rvs × n bits, each interleaved for `qm` bits per symbol when given.
    pub fn encode_words(&self, bits: &[u8], rvs: &[u8], qm: Option<usize>) -> Result<Vec<u8>> {
        let (k, n) = (self.k(), self.n());
        self.check_rvs(rvs, qm)?;
        if bits.is_empty() || !bits.len().is_multiple_of(k) {
            return Err(LdpcError::invalid(format!(
                "{}: {} bits are not a whole number of k = {k}-bit words",
                self.name(),
                bits.len()
            )));
        }
        let mut out = vec![0u8; bits.len() / k * rvs.len() * n];
        let mut e = vec![0u8; n];
        for (word_bits, out) in bits
            .chunks_exact(k)
            .zip(out.chunks_exact_mut(rvs.len() * n))
        {
            let word = self.encode_full(word_bits)?;
            for (&rv, f) in rvs.iter().zip(out.chunks_exact_mut(n)) {
                match qm {
                    Some(q) if q > 1 => {
                        self.rate_match().select(&word, rv, &mut e)?;
                        interleave(&e, q, f)?;
                    }
                    _ => self.rate_match().select(&word, rv, f)?,
                }
            }
        }
        Ok(out)
    }

    /// The full-length LLRs (words × the lifted code's length) of received LLRs laid out as
    /// [`NrCode::encode_words`] writes bits (words × rvs × n), de-interleaved for `qm` when
    /// given, the transmissions of each word HARQ-combined.
    pub fn llr_words(&self, llr: &[f32], rvs: &[u8], qm: Option<usize>) -> Result<Vec<f32>> {
        let n = self.n();
        self.check_rvs(rvs, qm)?;
        let per_word = rvs.len() * n;
        if llr.is_empty() || !llr.len().is_multiple_of(per_word) {
            return Err(LdpcError::invalid(format!(
                "{}: {} LLRs are not a whole number of words of {} redundancy version(s) × n = {n}; \
                 the last axis must be n = {n}",
                self.name(),
                llr.len(),
                rvs.len()
            )));
        }
        if let Some(i) = llr.iter().position(|x| !x.is_finite()) {
            return Err(LdpcError::invalid(format!(
                "LLR {i} is {} (LLRs must be finite)",
                llr[i]
            )));
        }
        let full = self.code().n();
        let mut out = vec![0f32; llr.len() / per_word * full];
        let mut e = vec![0f32; n];
        for (word, out) in llr.chunks_exact(per_word).zip(out.chunks_exact_mut(full)) {
            for (&rv, f) in rvs.iter().zip(word.chunks_exact(n)) {
                match qm {
                    Some(q) if q > 1 => {
                        deinterleave(f, q, &mut e)?;
                        self.rate_match().combine(&e, rv, out)?;
                    }
                    _ => self.rate_match().combine(f, rv, out)?,
                }
            }
            self.rate_match().set_filler(out);
        }
        Ok(out)
    }

    /// Decodes LLRs laid out as [`NrCode::llr_words`] takes them with `decoder` (made for
    /// [`NrCode::decoding_code`] of `rvs`): the k decoded bits of each word, and the decoder's
    /// counts.
    pub fn decode_words(
        &self,
        llr: &[f32],
        rvs: &[u8],
        qm: Option<usize>,
        decoder: &mut dyn Decoder,
    ) -> Result<(Vec<u8>, DecodeStats)> {
        let used = self.check_decoder(decoder, rvs)?;
        let full = self.llr_words(llr, rvs, qm)?;
        let n = self.code().n();
        let cut: Vec<f32> = full
            .chunks_exact(n)
            .flat_map(|w| &w[..used])
            .copied()
            .collect();
        let mut hard = vec![0u8; cut.len()];
        let stats = decoder.decode(Llrs::F32(&cut), &mut hard)?;
        let k = self.k();
        let bits = hard
            .chunks_exact(used)
            .flat_map(|w| &w[..k])
            .copied()
            .collect();
        Ok((bits, stats))
    }

    /// The bits of [`NrCode::decoding_code`] for `rvs`, when `decoder` runs that code.
    pub(crate) fn check_decoder(&self, decoder: &dyn Decoder, rvs: &[u8]) -> Result<usize> {
        let rows = self.rows_for(rvs)?;
        let used = (self.graph().info_cols() + rows) * self.z();
        let dc = decoder.code();
        if dc.n() != used || dc.m() != rows * self.z() || dc.row(0) != self.code().row(0) {
            return Err(LdpcError::invalid(format!(
                "the decoder is for {}, not {}'s decoding code for rv {rvs:?} (NrCode::decoding_code)",
                dc.name(),
                self.name()
            )));
        }
        Ok(used)
    }

    fn check_rvs(&self, rvs: &[u8], qm: Option<usize>) -> Result<()> {
        if rvs.is_empty() {
            return Err(LdpcError::invalid(
                "no redundancy version given: rv is 0, 1, 2 or 3",
            ));
        }
        if let Some(&rv) = rvs.iter().find(|&&rv| rv > 3) {
            return Err(LdpcError::invalid(format!(
                "redundancy version {rv}: rv is 0, 1, 2 or 3"
            )));
        }
        if let Some(q) = qm {
            super::rate_match::check_bits_per_symbol(q)?;
            if !self.n().is_multiple_of(q) {
                return Err(LdpcError::invalid(format!(
                    "{}: n = {} is not a multiple of Q_m = {q} bits per symbol",
                    self.name(),
                    self.n()
                )));
            }
        }
        Ok(())
    }
}
