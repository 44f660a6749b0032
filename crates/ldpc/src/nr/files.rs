//! `.npy` files of NR code blocks, what `sigpu ldpc encode` / `decode` do for `nr:` codes:
//! bits (… × k) to transmissions (… × n, or … × R × n for R redundancy versions), and LLRs in
//! that layout back to the k decoded bits of each word.

use super::code::NrCode;
use crate::decoder::{DecodeStats, DecoderConfig};
use crate::error::{LdpcError, Result};
use crate::npy::{npy_error, read, write};
use sigpu_runtime::Target;
use std::path::Path;

/// The redundancy versions of a call and how they are laid out.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct RvChoice {
    /// The versions, in order.
    pub rvs: Vec<u8>,
    /// One axis per version (`[..., len(rvs), n]`) rather than none (`[..., n]`, one version).
    pub stacked: bool,
}

impl RvChoice {
    /// rv 0 alone, no axis: the default.
    pub fn first() -> RvChoice {
        RvChoice {
            rvs: vec![0],
            stacked: false,
        }
    }

    /// Parses `2` (one version, no axis) or `0,2,3` (an axis of three).
    pub fn parse(text: &str) -> Result<RvChoice> {
        let rvs = text
            .split(',')
            .map(|p| match p.trim().parse::<u8>() {
                Ok(rv) if rv <= 3 => Ok(rv),
                _ => Err(LdpcError::invalid(format!(
                    "--rv {text:?}: {p:?} is not a redundancy version (0, 1, 2 or 3)"
                ))),
            })
            .collect::<Result<Vec<u8>>>()?;
        Ok(RvChoice {
            stacked: rvs.len() > 1,
            rvs,
        })
    }

    fn shape(&self, lead: &[usize], n: usize) -> Vec<usize> {
        let mut s = lead.to_vec();
        if self.stacked {
            s.push(self.rvs.len());
        }
        s.push(n);
        s
    }
}

/// What [`encode_npy`] or [`decode_npy`] did.
#[derive(Clone, Debug, serde::Serialize)]
pub struct NrFileReport {
    /// The code (`nr:k=…,n=…,bg=…`).
    pub code: String,
    /// Lifting size.
    pub z: usize,
    /// Code blocks.
    pub words: usize,
    /// Redundancy versions.
    pub rvs: Vec<u8>,
    /// Bits per symbol of the bit interleaver, if any.
    pub bits_per_symbol: Option<usize>,
    /// The output's shape.
    pub shape: Vec<usize>,
    /// The decoder (decode only).
    pub decoder: Option<String>,
    /// The decoder's counts (decode only).
    pub stats: Option<DecodeStats>,
    /// The file written.
    pub output: String,
}

impl NrFileReport {
    /// One line for people.
    pub fn text(&self) -> String {
        let what = match &self.stats {
            Some(s) => format!(
                "decoded {} code blocks ({} satisfy every check)",
                self.words, s.valid
            ),
            None => format!("encoded {} code blocks", self.words),
        };
        format!(
            "{} (Z = {}): {what}, rv {:?}; wrote {} {:?}",
            self.code, self.z, self.rvs, self.output, self.shape
        )
    }
}

/// Encodes the bits of `input` (uint8 or bool 0/1, … × k) into `output` (uint8).
pub fn encode_npy(
    code: &NrCode,
    rv: &RvChoice,
    qm: Option<usize>,
    input: &Path,
    output: &Path,
) -> Result<NrFileReport> {
    let npy = read(input, |d| match d {
        "|u1" | "<u1" | "u1" | "|b1" => Ok(1),
        other => Err(format!("bits must be uint8 ('|u1') or bool, not {other:?}")),
    })?;
    let k = code.k();
    if npy.shape.last() != Some(&k) || npy.data.is_empty() {
        return Err(npy_error(
            input,
            format!(
                "shape {:?}: the last axis must be k = {k} of {}",
                npy.shape,
                code.name()
            ),
        ));
    }
    if let Some(i) = npy.data.iter().position(|&b| b > 1) {
        return Err(npy_error(
            input,
            format!("element {i} is {}: bits are 0 or 1", npy.data[i]),
        ));
    }
    let out = code.encode_words(&npy.data, &rv.rvs, qm)?;
    let shape = rv.shape(&npy.shape[..npy.shape.len() - 1], code.n());
    write(output, "|u1", &shape, &out)?;
    Ok(NrFileReport {
        code: code.name(),
        z: code.z(),
        words: npy.data.len() / k,
        rvs: rv.rvs.clone(),
        bits_per_symbol: qm,
        shape,
        decoder: None,
        stats: None,
        output: output.display().to_string(),
    })
}

/// Decodes the LLRs of `input` (float32 or float64, ln P(0)/P(1), … × n or … × R × n for R
/// redundancy versions) with the decoder [`crate::plan::decoder`] gives, writing the k decoded
/// bits of each word to `output` (uint8, … × k).
pub fn decode_npy(
    code: &NrCode,
    rv: &RvChoice,
    qm: Option<usize>,
    config: DecoderConfig,
    target: &Target,
    input: &Path,
    output: &Path,
) -> Result<NrFileReport> {
    let npy = read(input, |d| match d {
        "<f4" => Ok(4),
        "<f8" => Ok(8),
        other => Err(format!(
            "LLRs must be float32 ('<f4') or float64 ('<f8'), not {other:?}"
        )),
    })?;
    let llr: Vec<f32> = if npy.descr == "<f4" {
        npy.data
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect()
    } else {
        npy.data
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")) as f32)
            .collect()
    };
    let n = code.n();
    let tail = if rv.stacked {
        vec![rv.rvs.len(), n]
    } else {
        vec![n]
    };
    if npy.shape.len() < tail.len()
        || npy.shape[npy.shape.len() - tail.len()..] != tail[..]
        || llr.is_empty()
    {
        return Err(npy_error(
            input,
            format!(
                "shape {:?}: the last axes must be {tail:?} ({} redundancy version(s) of n = {n} LLRs)",
                npy.shape,
                rv.rvs.len()
            ),
        ));
    }
    let mut decoder = crate::plan::decoder(&code.decoding_code(&rv.rvs)?, config, target)?;
    let (bits, stats) = code.decode_words(&llr, &rv.rvs, qm, decoder.as_mut())?;
    let mut shape = npy.shape[..npy.shape.len() - tail.len()].to_vec();
    shape.push(code.k());
    write(output, "|u1", &shape, &bits)?;
    Ok(NrFileReport {
        code: code.name(),
        z: code.z(),
        words: stats.codewords,
        rvs: rv.rvs.clone(),
        bits_per_symbol: qm,
        shape,
        decoder: Some(decoder.describe()),
        stats: Some(stats),
        output: output.display().to_string(),
    })
}
