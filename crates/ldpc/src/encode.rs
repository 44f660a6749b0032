//! The systematic linear-time encoder of codes whose parity part is the DVB accumulator
//! staircase: codeword = [information bits | parity bits], where parity bit j is the XOR of
//! the information bits in check j and parity bit j − 1 (EN 302 307-1 §5.3.2).

use crate::code::Code;
use crate::error::{LdpcError, Result};

/// Encodes information words of a staircase code.
pub struct Encoder<'a> {
    code: &'a Code,
    /// Per check, the end of its information edges (edges are ascending by column, so the
    /// information columns come first).
    info_end: Vec<u32>,
    /// A lifted NR code's structural encoder (the codeword is the first N bits of the whole
    /// lifted codeword).
    lifted: Option<crate::nr::LiftedEncoder>,
}

impl<'a> Encoder<'a> {
    /// The encoder of `code`; refused unless its parity part is the DVB staircase or it is a
    /// lifted NR code.
    pub fn new(code: &'a Code) -> Result<Encoder<'a>> {
        if let Some((graph, z)) = code.lifted() {
            let lifted = Some(crate::nr::LiftedEncoder::new(graph, z)?);
            return Ok(Encoder {
                code,
                info_end: Vec::new(),
                lifted,
            });
        }
        if !code.is_encodable() {
            return Err(LdpcError::invalid(format!(
                "code {} has no accumulator staircase in its last N − K columns, so there is no \
                 linear-time systematic encoder for it",
                code.name()
            )));
        }
        let k = code.k() as u32;
        let info_end = (0..code.m())
            .map(|r| {
                let start = code.row_start()[r];
                start + code.row(r).partition_point(|&c| c < k) as u32
            })
            .collect();
        Ok(Encoder {
            code,
            info_end,
            lifted: None,
        })
    }

    /// Writes the codeword (N bits, one per byte) of `info` (K bits, 0 or 1, one per byte).
    pub fn encode(&self, info: &[u8], codeword: &mut [u8]) -> Result<()> {
        let (n, k) = (self.code.n(), self.code.k());
        if info.len() != k || codeword.len() != n {
            return Err(LdpcError::invalid(format!(
                "encoding {}: need {k} information bits and room for {n} code bits, got {} and {}",
                self.code.name(),
                info.len(),
                codeword.len()
            )));
        }
        if let Some(lifted) = &self.lifted {
            let mut whole = vec![0u8; lifted.n()];
            lifted.encode(info, &mut whole)?;
            codeword.copy_from_slice(&whole[..n]);
            return Ok(());
        }
        codeword[..k].copy_from_slice(info);
        let cols = self.code.edge_col();
        let mut parity = 0u8;
        for (r, &end) in self.info_end.iter().enumerate() {
            let start = self.code.row_start()[r] as usize;
            for &c in &cols[start..end as usize] {
                parity ^= info[c as usize];
            }
            parity &= 1;
            codeword[k + r] = parity;
        }
        Ok(())
    }
}

/// Encodes every information word of a `.npy` file of uint8 bits (shape `… × K`, each bit 0
/// or 1) into the codewords of `code` (shape `… × N`), written atomically to `output` as
/// uint8, and says what it wrote: what `sigpu ldpc encode` does.
pub fn encode_npy(
    code: &Code,
    input: &std::path::Path,
    output: &std::path::Path,
) -> Result<EncodedFile> {
    let err = |message: String| crate::npy::npy_error(input, message);
    let npy = crate::npy::read(input, |descr| {
        match descr {
        "|u1" | "<u1" | "u1" | "|b1" => Ok(1),
        other => Err(format!(
            "information bits must be uint8 ('|u1') or bool, not {other:?}; e.g. np.asarray(bits, dtype=np.uint8)"
        )),
    }
    })?;
    let (n, k) = (code.n(), code.k());
    let last = npy.shape.last().copied().unwrap_or(0);
    if last != k || npy.data.is_empty() {
        return Err(err(format!(
            "shape {:?}: the last axis must be K = {k}, the information bits of {}",
            npy.shape,
            code.name()
        )));
    }
    if let Some(i) = npy.data.iter().position(|&b| b > 1) {
        return Err(err(format!(
            "element {i} is {}: information bits are 0 or 1",
            npy.data[i]
        )));
    }
    let encoder = Encoder::new(code)?;
    let words = npy.data.len() / k;
    let mut out = vec![0u8; words * n];
    for (info, word) in npy.data.chunks_exact(k).zip(out.chunks_exact_mut(n)) {
        encoder.encode(info, word)?;
    }
    let mut shape = npy.shape.clone();
    *shape.last_mut().expect("checked above") = n;
    crate::npy::write(output, "|u1", &shape, &out)?;
    Ok(EncodedFile {
        code: code.name().to_owned(),
        codewords: words,
        k,
        n,
        output: output.display().to_string(),
    })
}

/// What [`encode_npy`] wrote: the report of `sigpu ldpc encode` (fields in name order, as
/// the command has always printed them).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct EncodedFile {
    /// The code's name.
    pub code: String,
    /// Codewords written.
    pub codewords: usize,
    /// Information bits per codeword.
    pub k: usize,
    /// Bits per codeword.
    pub n: usize,
    /// The file written.
    pub output: String,
}

impl EncodedFile {
    /// One line for people: the code, the codewords and the file.
    pub fn text(&self) -> String {
        let Self {
            code,
            codewords,
            k,
            n,
            output,
        } = self;
        format!("{code}: encoded {codewords} codewords (K = {k} → N = {n}); wrote {output}")
    }
}

/// Copies the first K columns (the information bits: the codes are systematic) of a uint8
/// `.npy` file of codewords (`rows × N`, as `sigpu ldpc decode` writes) to `output`
/// (`rows × K`), atomically.
pub fn info_bits_npy(
    code: &Code,
    codewords: &std::path::Path,
    output: &std::path::Path,
) -> Result<()> {
    let npy = crate::npy::read(codewords, |descr| match descr {
        "|u1" => Ok(1),
        other => Err(format!("codewords must be uint8, not {other:?}")),
    })?;
    let (n, k) = (code.n(), code.k());
    let info: Vec<u8> = npy
        .data
        .chunks_exact(n)
        .flat_map(|c| &c[..k])
        .copied()
        .collect();
    crate::npy::write_u8(output, &info, npy.data.len() / n, k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn every_standard_code_encodes_to_codewords() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for name in Code::standard_names() {
            let code = Code::standard(name).unwrap();
            let enc = Encoder::new(&code).unwrap();
            let info: Vec<u8> = (0..code.k()).map(|_| rng.random_range(0..2)).collect();
            let mut word = vec![0u8; code.n()];
            enc.encode(&info, &mut word).unwrap();
            assert!(code.is_codeword(&word), "{name}: H·c ≠ 0");
            assert_eq!(&word[..code.k()], &info[..], "{name}: not systematic");
            // A single flipped bit is detected.
            word[code.n() / 3] ^= 1;
            assert!(!code.is_codeword(&word), "{name}");
        }
    }
}
