//! The GPU 5G NR decoder's self-checks (`sigpu check`): the quasi-cyclic kernel against the
//! CPU's quasi-cyclic decoder on fresh noisy code blocks near the waterfall, comparing every
//! decoded bit, every codeword's iteration count and validity; one code per launch at Z = 2,
//! 15 and 384 (both base graphs, several rates and redundancy versions), and one launch of a
//! mixed batch of 16 codes.

use super::nr::{NrGpuDecoder, NrGpuEngine, WordResult};
use super::nr_layout::{NrCodeTable, NrKernel, WordInput};
use crate::code::Code;
use crate::decoder::{Algorithm, Decoder, DecoderConfig, Llrs, Precision, QcDecoder, Schedule};
use crate::error::Result;
use crate::nr::modulation::{Fading, NrModulation};
use crate::nr::sim::{NrLink, NrSweep};
use crate::nr::{decode_blocks, CodeBlock, NrCode};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sigpu_runtime::cuda::{compare_exact, Check, CheckResult, Gpu};
use sigpu_runtime::{GpuTarget, Target};

/// `count` noisy code blocks of `nr` sent with redundancy versions `rvs` (QPSK, AWGN, HARQ
/// combined) at `es_n0_db`: the decoding code and its LLRs (filler bits known, punctured 0).
pub fn nr_noisy_words(
    nr: &NrCode,
    rvs: &[u8],
    es_n0_db: f64,
    count: usize,
    seed: u64,
) -> Result<(Code, Vec<f32>)> {
    let sweep = NrSweep {
        code: nr.clone(),
        link: NrLink {
            modulation: NrModulation::Qpsk,
            fading: Fading::Awgn,
            demapper: crate::channel::Demapper::MaxLog,
            rvs: rvs.to_vec(),
            seed,
        },
    };
    let code = sweep.decoding_code()?;
    let threads = sigpu_runtime::host::threads();
    let frames = sweep.frames(es_n0_db, 0, count, code.n(), threads)?;
    Ok((code, frames.llr))
}

/// The CPU twin, one codeword per call so that each codeword's own iteration count shows:
/// the decoded bits and every codeword's result.
pub fn nr_cpu_twin(
    code: &Code,
    config: DecoderConfig,
    llr: &[f32],
) -> Result<(Vec<u8>, Vec<WordResult>)> {
    let mut d = QcDecoder::new(
        code.clone(),
        DecoderConfig {
            threads: 1,
            ..config
        },
    )?;
    let n = code.n();
    let mut bits = vec![0u8; llr.len()];
    let mut results = Vec::new();
    for (l, b) in llr.chunks(n).zip(bits.chunks_mut(n)) {
        let s = d.decode(Llrs::F32(l), b)?;
        results.push(WordResult {
            iterations: s.iterations as u32,
            valid: s.valid == 1,
        });
    }
    Ok((bits, results))
}

/// The rate-1/3-ish Es/N0 (dB) around which a code of rate `r` starts to decode with QPSK.
fn near_waterfall(r: f64, rng: &mut ChaCha8Rng) -> f64 {
    10.0 * (2.0 * r).log10() + rng.random_range(0.0..2.5)
}

fn config(algorithm: Algorithm, rng: &mut ChaCha8Rng, early: bool) -> DecoderConfig {
    DecoderConfig {
        algorithm,
        schedule: Schedule::Layered,
        precision: Precision::Fixed8 {
            scale: [4.0, 8.0][rng.random_range(0..2)],
        },
        iterations: super::checks::check_iterations(rng),
        early_termination: early,
        threads: 0,
    }
}

/// One code on the GPU decoder against the CPU twin.
fn one_code(
    gpu: &Gpu,
    seed: u64,
    spec: (usize, usize, u8),
    count: usize,
    kernel: NrKernel,
) -> CheckResult {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (k, n, rv) = spec;
    let nr = NrCode::new(k, n, None)?;
    let es = near_waterfall(nr.rate(), &mut rng);
    let (code, llr) = nr_noisy_words(&nr, &[rv], es, count, rng.random())?;
    let algorithm = [
        Algorithm::OffsetMinSum { beta: 0.5 },
        Algorithm::NormalizedMinSum { alpha: 0.75 },
    ][rng.random_range(0..2)];
    let early = rng.random_bool(0.5);
    let config = config(algorithm, &mut rng, early);
    let mut gpu_decoder = NrGpuDecoder::with_kernel(gpu, code.clone(), config, kernel)?;
    let mut got = vec![0xAAu8; llr.len()];
    let got_r = gpu_decoder.decode_words(Llrs::F32(&llr), &mut got)?;
    let (want, want_r) = nr_cpu_twin(&code, config, &llr)?;
    let report = compare_exact(&got, &want);
    let note = format!(
        "{kernel:?} kernel, {} Z = {} rv {rv}, {}, Es/N0 {es:.2} dB: {} of {count} valid on the GPU, {} on the CPU",
        nr.name(),
        nr.z(),
        config.describe(),
        got_r.iter().filter(|r| r.valid).count(),
        want_r.iter().filter(|r| r.valid).count(),
    );
    if got_r != want_r {
        return Ok(compare_exact(&got_r, &want_r).with_note(note));
    }
    Ok(report.with_note(note))
}

/// The 16 codes of the mixed-batch check and of the mixed-batch benchmark: both base
/// graphs, Z from 16 to 384, rates from 1/5 to 8/9, every redundancy version.
pub const MIXED_CODES: [(usize, usize, u8); 16] = [
    (8448, 25344, 0),
    (8448, 9504, 0),
    (3840, 19200, 1),
    (2560, 7680, 0),
    (1024, 3072, 2),
    (640, 1920, 0),
    (400, 1200, 3),
    (352, 1056, 0),
    (3000, 9000, 0),
    (6000, 12000, 2),
    (5000, 15000, 0),
    (1500, 4500, 1),
    (4000, 4500, 0),
    (7000, 21000, 3),
    (200, 600, 0),
    (2000, 10000, 0),
];

/// A mixed batch: `per_code` noisy blocks of each of [`MIXED_CODES`], interleaved.
pub fn mixed_batch(per_code: usize, seed: u64, jitter: f64) -> Result<Vec<(Code, Vec<f32>)>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut all = Vec::new();
    for &(k, n, rv) in &MIXED_CODES {
        let nr = NrCode::new(k, n, None)?;
        let es = 10.0 * (2.0 * nr.rate()).log10() + jitter * rng.random_range(0.0..2.5);
        let (code, llr) = nr_noisy_words(&nr, &[rv], es, per_code, rng.random())?;
        all.push((code, llr));
    }
    Ok(all)
}

/// One launch of a mixed batch of `kernel` against the CPU twin path of the same API.
fn mixed(gpu: &Gpu, seed: u64, kernel: NrKernel) -> CheckResult {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let batch = mixed_batch(2, rng.random(), 1.0)?;
    let mut blocks = Vec::new();
    for w in 0..2 {
        for (code, llr) in &batch {
            let n = code.n();
            blocks.push(CodeBlock {
                code,
                llr: Llrs::F32(&llr[w * n..(w + 1) * n]),
            });
        }
    }
    let config = config(Algorithm::OffsetMinSum { beta: 0.5 }, &mut rng, true);
    let got = if kernel == NrKernel::default() {
        let target = Target::Gpu(GpuTarget::new(gpu.clone()));
        decode_blocks(&blocks, config, &target)?
    } else {
        // The engine itself, for the kernel the front door does not pick.
        let tables = (batch.iter())
            .map(|(c, _)| NrCodeTable::new(c))
            .collect::<Result<Vec<_>>>()?;
        let words: Vec<WordInput<'_>> = (0..blocks.len())
            .map(|i| WordInput {
                code: i % batch.len(),
                llr: blocks[i].llr,
            })
            .collect();
        let mut engine = NrGpuEngine::with_kernel(gpu, config, kernel)?;
        engine.load(&tables, &words)?;
        let (bits, results) = engine.launch()?;
        let mut at = 0;
        (blocks.iter().zip(results))
            .map(|(b, r)| {
                at += b.code.n();
                crate::nr::BlockDecoded {
                    bits: bits[at - b.code.n()..at].to_vec(),
                    iterations: r.iterations,
                    valid: r.valid,
                }
            })
            .collect()
    };
    let want = decode_blocks(&blocks, config, &Target::cpu())?;
    let valid = got.iter().filter(|b| b.valid).count();
    Ok(compare_exact(&got, &want).with_note(format!(
        "{kernel:?} kernel, {} blocks of 16 codes in one launch, {}: {valid} valid",
        blocks.len(),
        config.describe()
    )))
}

/// The checks; see the module documentation.
pub fn checks() -> Vec<Check> {
    use NrKernel::{Lanes, Pairs};
    vec![
        Check {
            name: "ldpc/nr_qc8_bg1_z384",
            about: "quasi-cyclic 5G NR layered 8-bit decoder, BG1 Z = 384 R = 1/3, vs CPU quasi-cyclic twin",
            run: |gpu, seed| one_code(gpu, seed, (8448, 25344, 0), 6, Lanes),
        },
        Check {
            name: "ldpc/nr_qc8_bg2_z15_rv2",
            about: "quasi-cyclic 5G NR layered 8-bit decoder, BG2 Z = 15 rv 2, 300 blocks, vs CPU quasi-cyclic twin",
            run: |gpu, seed| one_code(gpu, seed, (88, 264, 2), 300, Lanes),
        },
        Check {
            name: "ldpc/nr_qc8_z2",
            about: "quasi-cyclic 5G NR layered 8-bit decoder at Z = 2 (192 codewords per block), 500 blocks, vs CPU quasi-cyclic twin",
            run: |gpu, seed| one_code(gpu, seed, (12, 36, 0), 500, Lanes),
        },
        Check {
            name: "ldpc/nr_qc8_mixed16",
            about: "quasi-cyclic 5G NR layered 8-bit decoder, one launch of 32 blocks of 16 codes (both graphs, Z 16..384, every rv), vs CPU twin",
            run: |gpu, seed| mixed(gpu, seed, Lanes),
        },
        Check {
            name: "ldpc/nr_qc8x2_bg1_z384",
            about: "two-lanes-per-thread (SIMD in a word) 5G NR kernel, BG1 Z = 384 R = 1/3, vs CPU quasi-cyclic twin",
            run: |gpu, seed| one_code(gpu, seed, (8448, 25344, 0), 6, Pairs),
        },
        Check {
            name: "ldpc/nr_qc8x2_bg1_z15_high_rate",
            about: "two-lanes-per-thread 5G NR kernel, BG1 Z = 15 (odd: a one-lane thread) R = 3/4, 300 blocks, vs CPU twin",
            run: |gpu, seed| one_code(gpu, seed, (330, 440, 0), 300, Pairs),
        },
        Check {
            name: "ldpc/nr_qc8x2_z2",
            about: "two-lanes-per-thread 5G NR kernel at Z = 2, 500 blocks, vs CPU quasi-cyclic twin",
            run: |gpu, seed| one_code(gpu, seed, (12, 36, 0), 500, Pairs),
        },
        Check {
            name: "ldpc/nr_qc8x2_mixed16",
            about: "two-lanes-per-thread 5G NR kernel, one launch of 32 blocks of 16 codes, vs CPU twin",
            run: |gpu, seed| mixed(gpu, seed, Pairs),
        },
    ]
}
