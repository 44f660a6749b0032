//! Mixed-code batches: a list of code blocks, each with its own lifted NR code (any Z, base
//! graph, rate or redundancy versions: [`super::NrCode::decoding_code`]) and LLRs, decoded in
//! one call with a result per block. On a GPU target the whole list is one launch of the
//! quasi-cyclic kernel (a descriptor per block of threads names its code); on the CPU each
//! block runs the quasi-cyclic decoder, the GPU's twin bit for bit.

use crate::code::Code;
use crate::decoder::{Decoder, DecoderConfig, Llrs, QcDecoder};
use crate::error::{LdpcError, Result};
use crate::gpu::nr_layout::{NrCodeTable, WordInput};
use crate::gpu::NrGpuEngine;
use crate::nr::NrCode;
use sigpu_runtime::Target;

/// One code block of a mixed batch.
#[derive(Clone, Copy, Debug)]
pub struct CodeBlock<'a> {
    /// The lifted NR code it was sent with (cut to the rows its redundancy versions reach).
    pub code: &'a Code,
    /// Its N LLRs (ln P(0)/P(1); filler bits [`super::FILLER_LLR`], punctured bits 0).
    pub llr: Llrs<'a>,
}

/// What decoding one block gave.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct BlockDecoded {
    /// The N hard decisions (0 or 1).
    pub bits: Vec<u8>,
    /// Iterations run.
    pub iterations: u32,
    /// Whether the decision satisfies every check.
    pub valid: bool,
}

/// The distinct codes of `blocks` and the index of each block's.
fn distinct<'a>(blocks: &[CodeBlock<'a>]) -> (Vec<&'a Code>, Vec<usize>) {
    let mut codes: Vec<&Code> = Vec::new();
    let mut index = Vec::with_capacity(blocks.len());
    for b in blocks {
        let same =
            |c: &&Code| c.lifted() == b.code.lifted() && c.m() == b.code.m() && c.n() == b.code.n();
        match codes.iter().position(same) {
            Some(i) => index.push(i),
            None => {
                index.push(codes.len());
                codes.push(b.code);
            }
        }
    }
    (codes, index)
}

/// Decodes `blocks` with `config` (8-bit layered) on `target`: on a GPU in one launch, on the
/// CPU block by block with the quasi-cyclic decoder (the same results, bit for bit).
pub fn decode_blocks(
    blocks: &[CodeBlock<'_>],
    config: DecoderConfig,
    target: &Target,
) -> Result<Vec<BlockDecoded>> {
    if blocks.is_empty() {
        return Ok(Vec::new());
    }
    let (codes, index) = distinct(blocks);
    for (i, b) in blocks.iter().enumerate() {
        if !QcDecoder::applies(b.code, &config) {
            return Err(LdpcError::invalid(format!(
                "block {i} ({}): mixed batches run the 8-bit layered decoder on lifted 5G NR \
                 codes (--precision 8bit --schedule layered)",
                b.code.name()
            )));
        }
        if b.llr.len() != b.code.n() {
            return Err(LdpcError::invalid(format!(
                "block {i} ({}): {} LLRs for N = {}",
                b.code.name(),
                b.llr.len(),
                b.code.n()
            )));
        }
    }
    match target {
        Target::Gpu(g) => {
            let tables = (codes.iter())
                .map(|c| NrCodeTable::new(c))
                .collect::<Result<Vec<_>>>()?;
            let words: Vec<WordInput<'_>> = (blocks.iter().zip(&index))
                .map(|(b, &code)| WordInput { code, llr: b.llr })
                .collect();
            let mut engine = NrGpuEngine::new(g.gpu(), config)?;
            engine.load(&tables, &words)?;
            let (bits, results) = engine.launch()?;
            let mut at = 0;
            Ok((blocks.iter().zip(results))
                .map(|(b, r)| {
                    let n = b.code.n();
                    at += n;
                    BlockDecoded {
                        bits: bits[at - n..at].to_vec(),
                        iterations: r.iterations,
                        valid: r.valid,
                    }
                })
                .collect())
        }
        Target::Cpu(_) => {
            let mut decoders = (codes.iter())
                .map(|&c| {
                    QcDecoder::new(
                        c.clone(),
                        DecoderConfig {
                            threads: 1,
                            ..config
                        },
                    )
                })
                .collect::<Result<Vec<_>>>()?;
            (blocks.iter().zip(&index))
                .map(|(b, &i)| {
                    let mut bits = vec![0u8; b.code.n()];
                    let s = decoders[i].decode(b.llr, &mut bits)?;
                    Ok(BlockDecoded {
                        bits,
                        iterations: s.iterations as u32,
                        valid: s.valid == 1,
                    })
                })
                .collect()
        }
    }
}

/// One received transmission of a mixed batch: an NR code block, the LLRs of the redundancy
/// versions `rvs` that were sent (len(rvs) × n, ln P(0)/P(1), as [`NrCode::llr_words`] takes
/// one word of them) and the bits per symbol of their interleaver (`None`: not interleaved).
#[derive(Clone, Copy, Debug)]
pub struct Transmission<'a> {
    /// The code block.
    pub code: &'a NrCode,
    /// Its received LLRs, the versions one after another.
    pub llr: &'a [f32],
    /// The redundancy versions sent (combined: HARQ incremental redundancy).
    pub rvs: &'a [u8],
    /// Bits per symbol of the §5.4.2.2 interleaver, when the LLRs still carry it.
    pub qm: Option<usize>,
}

/// What decoding one transmission gave.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct TransmissionDecoded {
    /// The k decoded information bits (0 or 1).
    pub bits: Vec<u8>,
    /// Iterations run.
    pub iterations: u32,
    /// Whether the decision satisfies every check of the code the versions reach.
    pub valid: bool,
}

/// Decodes received transmissions of different NR codes (any Z, base graph, rate or
/// redundancy versions) in one batch: each is de-rate-matched and HARQ-combined into its full
/// LLRs, cut to the rows its versions reach ([`NrCode::decoding_code`]) and handed to
/// [`decode_blocks`] (one launch on a GPU). The result of each is its k information bits.
pub fn decode_transmissions(
    items: &[Transmission<'_>],
    config: DecoderConfig,
    target: &Target,
) -> Result<Vec<TransmissionDecoded>> {
    let mut codes = Vec::with_capacity(items.len());
    let mut llrs = Vec::with_capacity(items.len());
    for (i, t) in items.iter().enumerate() {
        let per_word = t.rvs.len() * t.code.n();
        if t.llr.len() != per_word {
            return Err(LdpcError::invalid(format!(
                "transmission {i} ({}): {} LLRs, where {} redundancy version(s) × n = {} make {per_word}",
                t.code.name(),
                t.llr.len(),
                t.rvs.len(),
                t.code.n()
            )));
        }
        let named =
            |e: LdpcError| LdpcError::invalid(format!("transmission {i} ({}): {e}", t.code.name()));
        let code = t.code.decoding_code(t.rvs).map_err(named)?;
        let mut full = t.code.llr_words(t.llr, t.rvs, t.qm).map_err(named)?;
        full.truncate(code.n());
        codes.push(code);
        llrs.push(full);
    }
    let blocks: Vec<CodeBlock<'_>> = (codes.iter().zip(&llrs))
        .map(|(code, llr)| CodeBlock {
            code,
            llr: Llrs::F32(llr),
        })
        .collect();
    let decoded = decode_blocks(&blocks, config, target)?;
    Ok((items.iter().zip(decoded))
        .map(|(t, d)| TransmissionDecoded {
            bits: d.bits[..t.code.k()].to_vec(),
            iterations: d.iterations,
            valid: d.valid,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nr::NrCode;

    #[test]
    fn the_cpu_path_decodes_noiseless_blocks_of_different_codes() {
        let a = NrCode::new(40, 200, None).unwrap();
        let b = NrCode::new(500, 1500, None).unwrap();
        let (ca, cb) = (
            a.decoding_code(&[0]).unwrap(),
            b.decoding_code(&[0]).unwrap(),
        );
        let word = |nr: &NrCode, c: &Code| -> Vec<f32> {
            let bits: Vec<u8> = (0..nr.k()).map(|i| (i % 3 == 0) as u8).collect();
            let full = nr.encode_full(&bits).unwrap();
            let mut llr: Vec<f32> = full[..c.n()]
                .iter()
                .map(|&x| if x == 1 { -4.0 } else { 4.0 })
                .collect();
            llr[..2 * nr.z()].fill(0.0);
            llr
        };
        let (la, lb) = (word(&a, &ca), word(&b, &cb));
        let blocks = [
            CodeBlock {
                code: &ca,
                llr: Llrs::F32(&la),
            },
            CodeBlock {
                code: &cb,
                llr: Llrs::F32(&lb),
            },
            CodeBlock {
                code: &ca,
                llr: Llrs::F32(&la),
            },
        ];
        let config = DecoderConfig {
            iterations: 8,
            early_termination: true,
            ..DecoderConfig::default()
        };
        let out = decode_blocks(&blocks, config, &Target::cpu()).unwrap();
        assert_eq!(out.len(), 3);
        for (o, b) in out.iter().zip(&blocks) {
            assert!(o.valid);
            assert!(o.iterations <= 2);
            assert_eq!(o.bits.len(), b.code.n());
        }
        assert!(decode_blocks(&[], config, &Target::cpu())
            .unwrap()
            .is_empty());
        let short = [CodeBlock {
            code: &ca,
            llr: Llrs::F32(&lb),
        }];
        let err = decode_blocks(&short, config, &Target::cpu()).unwrap_err();
        assert!(err.to_string().contains("block 0"), "{err}");
    }

    #[test]
    fn transmissions_of_different_codes_and_versions_decode_to_their_information_bits() {
        let a = NrCode::new(40, 200, None).unwrap();
        let b = NrCode::new(500, 1500, None).unwrap();
        let info = |nr: &NrCode| -> Vec<u8> { (0..nr.k()).map(|i| (i % 3 == 1) as u8).collect() };
        let sent = |nr: &NrCode, rvs: &[u8]| -> Vec<f32> {
            (rvs.iter())
                .flat_map(|&rv| nr.encode(&info(nr), rv).unwrap())
                .map(|x| if x == 1 { -4.0 } else { 4.0 })
                .collect()
        };
        let (la, lb) = (sent(&a, &[0]), sent(&b, &[0, 2]));
        let items = [
            Transmission {
                code: &a,
                llr: &la,
                rvs: &[0],
                qm: None,
            },
            Transmission {
                code: &b,
                llr: &lb,
                rvs: &[0, 2],
                qm: None,
            },
        ];
        let config = DecoderConfig {
            iterations: 8,
            early_termination: true,
            ..DecoderConfig::default()
        };
        let out = decode_transmissions(&items, config, &Target::cpu()).unwrap();
        assert_eq!(out[0].bits, info(&a));
        assert_eq!(out[1].bits, info(&b));
        assert!(out.iter().all(|o| o.valid));
        let short = [Transmission {
            llr: &la[1..],
            ..items[0]
        }];
        let err = decode_transmissions(&short, config, &Target::cpu()).unwrap_err();
        assert!(err.to_string().contains("transmission 0"), "{err}");
    }
}
