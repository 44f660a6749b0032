//! What the two 8-bit CPU decoders ([`super::Fixed8Decoder`], [`super::CompactDecoder`])
//! share: the group of [`LANES`] codewords, the 8-bit check-node rule, the instruction sets
//! the lane loops are compiled for, and the loop that hands groups to worker threads.

use super::{worker_threads, Algorithm, DecodeStats, DecoderConfig, Precision};
use crate::channel::Quantizer;
use crate::error::{LdpcError, Result};
use sigpu_runtime::host::{CpuArch, Isa};
use std::sync::Mutex;

/// Codewords per CPU SIMD group: one 512-bit register of 8-bit messages. (Groups of 32, half
/// the working set, were measured 1.5–3× slower on 2 cores of the H100 host and dropped.)
pub const LANES: usize = 64;

/// The check-node correction in 8-bit arithmetic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule8 {
    /// Min-sum: the smallest other magnitude.
    Plain,
    /// min · k / 16, rounded down (k in 1..=16).
    Normalized(u8),
    /// min − β, not below 0 (β in quantisation steps).
    Offset(u8),
    /// Adaptive offset: min2 − `beta`, and min1 − `table[min(min2 − min1, 63)]`, not below 0
    /// ([`adaptive_table`]).
    Adaptive {
        /// min2's offset in quantisation steps.
        beta: u8,
        /// min1's offset by the gap min2 − min1 (capped at 63), non-increasing.
        table: [u8; 64],
    },
    /// λ-min offset min-sum with λ = 3 ([`super::lambda_min`]): its own lane loops track three
    /// minima, so [`Rule8::correct`] leaves the two minima as they are.
    LambdaMin {
        /// The offset in quantisation steps.
        beta: u8,
        /// The pairwise table ([`super::lambda_min::box_plus_table`]) as its drops, built
        /// once with the rule rather than for every check.
        drops: super::lambda_min::Drops,
    },
}

/// Why `who` cannot run the adaptive or λ-min rule, and what to use instead.
fn not_uniform(who: &str) -> LdpcError {
    LdpcError::invalid(format!(
        "{who} runs minsum, nms and oms; adaptive offset (aoms) and λ-min (lmin) min-sum run \
         on the CPU's flooding and layered decoders: use --device cpu --schedule layered, or \
         --decoder oms"
    ))
}

/// The 8-bit table of adaptive offset min-sum at `scale` steps per LLR unit: entry d is
/// round(scale · (β/2 + ½·ln(1 + e^(−d/scale)))), min1's offset when min2 − min1 = d steps.
pub fn adaptive_table(beta: f32, scale: f32) -> [u8; 64] {
    let mut table = [0u8; 64];
    for (d, t) in table.iter_mut().enumerate() {
        let gap = d as f64 / scale as f64;
        let offset = beta as f64 / 2.0 + 0.5 * (-gap).exp().ln_1p();
        *t = (scale as f64 * offset).round().clamp(0.0, 127.0) as u8;
    }
    table
}

impl Rule8 {
    /// The 8-bit rule for `algorithm` with channel LLRs quantised at `scale` steps per unit.
    pub fn new(algorithm: Algorithm, scale: f32) -> Result<Rule8> {
        // The same range check as the float decoders; then what 8 bits can represent.
        algorithm.validate()?;
        Ok(match algorithm {
            Algorithm::MinSum => Rule8::Plain,
            // α ≥ 1/16 by validate: it rounds to at least one sixteenth.
            Algorithm::NormalizedMinSum { alpha } => {
                Rule8::Normalized(((alpha * 16.0).round() as u8).clamp(1, 16))
            }
            Algorithm::OffsetMinSum { beta } => {
                let steps = (beta * scale).round();
                if beta > 0.0 && steps == 0.0 {
                    // Would silently become plain min-sum.
                    return Err(LdpcError::invalid(format!(
                        "decoder oms:{beta}: β is below half the 8-bit step 1/{scale}; give \
                         β ≥ {} or a larger --scale",
                        0.5 / scale
                    )));
                }
                Rule8::Offset(steps.clamp(0.0, 127.0) as u8)
            }
            Algorithm::AdaptiveOffsetMinSum { beta } => {
                let steps = (beta * scale).round();
                if beta > 0.0 && steps == 0.0 {
                    return Err(LdpcError::invalid(format!(
                        "decoder aoms:{beta}: β is below half the 8-bit step 1/{scale}; give \
                         β ≥ {} or a larger --scale",
                        0.5 / scale
                    )));
                }
                Rule8::Adaptive {
                    beta: steps.clamp(0.0, 127.0) as u8,
                    table: adaptive_table(beta, scale),
                }
            }
            Algorithm::LambdaMinSum { beta } => {
                let steps = (beta * scale).round();
                if beta > 0.0 && steps == 0.0 {
                    return Err(LdpcError::invalid(format!(
                        "decoder lmin:{beta}: β is below half the 8-bit step 1/{scale}; give \
                         β ≥ {} or a larger --scale",
                        0.5 / scale
                    )));
                }
                Rule8::LambdaMin {
                    beta: steps.clamp(0.0, 127.0) as u8,
                    drops: super::lambda_min::Drops::new(&super::lambda_min::box_plus_table(scale)),
                }
            }
            Algorithm::SumProduct => {
                return Err(LdpcError::invalid("sum-product has no 8-bit form"))
            }
        })
    }

    /// The refusal of a decoder that runs only the uniform rules (min-sum, normalised,
    /// offset): the GPU kernels and the layered-compact decoders. `who` names it.
    pub fn uniform_only(self, who: &str) -> Result<Rule8> {
        match self {
            Rule8::Adaptive { .. } | Rule8::LambdaMin { .. } => Err(not_uniform(who)),
            rule => Ok(rule),
        }
    }

    /// Corrects the two smallest magnitudes of `L` checks (one per lane) in place.
    #[inline(always)]
    pub fn correct<const L: usize>(self, min1: &mut [u8; L], min2: &mut [u8; L]) {
        match self {
            // λ-min's lane loops correct their three minima themselves.
            Rule8::Plain | Rule8::LambdaMin { .. } => {}
            Rule8::Normalized(k) => {
                for w in 0..L {
                    min1[w] = ((min1[w] as u16 * k as u16) >> 4) as u8;
                    min2[w] = ((min2[w] as u16 * k as u16) >> 4) as u8;
                }
            }
            Rule8::Offset(b) => {
                for w in 0..L {
                    min1[w] = min1[w].saturating_sub(b);
                    min2[w] = min2[w].saturating_sub(b);
                }
            }
            Rule8::Adaptive { beta, table } => {
                for w in 0..L {
                    // min2 ≥ min1 always; wrapping as the SIMD kernels subtract.
                    let gap = min2[w].wrapping_sub(min1[w]).min(63);
                    min1[w] = min1[w].saturating_sub(table[gap as usize]);
                    min2[w] = min2[w].saturating_sub(beta);
                }
            }
        }
    }

    /// `(mode, parameter)` as the GPU kernels take them: 0 plain, 1 normalised, 2 offset;
    /// the adaptive rule is refused ([`Rule8::uniform_only`]).
    pub fn kernel_args(self) -> Result<(u32, u32)> {
        match self {
            Rule8::Plain => Ok((0, 0)),
            Rule8::Normalized(k) => Ok((1, k as u32)),
            Rule8::Offset(b) => Ok((2, b as u32)),
            Rule8::Adaptive { .. } | Rule8::LambdaMin { .. } => Err(not_uniform("the GPU decoder")),
        }
    }
}

/// The instruction sets the 8-bit lane loops are compiled for, widest first, in the runtime's
/// vocabulary. The AVX-512 path is compiled with avx512f, avx512bw and avx512vl: it needs all
/// three.
pub const SIMD_SETS: [Isa; 4] = [Isa::Avx512, Isa::Avx2, Isa::Sse41, Isa::Scalar];

/// The widest of [`SIMD_SETS`] that `arch` (within the host) runs.
pub fn best_simd(arch: &CpuArch) -> Isa {
    Isa::best_of(arch, &SIMD_SETS)
}

/// Every one of [`SIMD_SETS`] that `arch` (within the host) runs, widest first (for tests and
/// benchmarks).
pub fn simd_sets(arch: &CpuArch) -> Vec<Isa> {
    let arch = arch.within_host();
    SIMD_SETS.into_iter().filter(|s| s.runs_on(&arch)).collect()
}

/// The arithmetic an 8-bit CPU decoder runs with.
#[derive(Clone, Copy, Debug)]
pub(super) struct Fixed8Setup {
    pub quantizer: Quantizer,
    pub rule: Rule8,
    pub simd: Isa,
}

impl Fixed8Setup {
    /// The setup of `config` on this host's widest instruction set; `not_8bit` is the error
    /// for a float configuration.
    pub fn new(config: &DecoderConfig, not_8bit: &str) -> Result<Fixed8Setup> {
        config.validate()?;
        let Precision::Fixed8 { scale } = config.precision else {
            return Err(LdpcError::invalid(not_8bit));
        };
        Ok(Fixed8Setup {
            quantizer: Quantizer::new(scale)?,
            rule: Rule8::new(config.algorithm, scale)?,
            simd: best_simd(&CpuArch::host()),
        })
    }

    /// `config` described, with where it runs: `… (cpu, AVX-512)`.
    pub fn describe(&self, config: &DecoderConfig) -> String {
        format!("{} (cpu, {})", config.describe(), self.simd.name())
    }

    /// Forces an instruction set (one this CPU has), for tests and benchmarks.
    pub fn force(&mut self, simd: Isa) -> Result<()> {
        if !simd_sets(&CpuArch::host()).contains(&simd) {
            return Err(LdpcError::invalid(format!(
                "this CPU cannot run {}",
                simd.name()
            )));
        }
        self.simd = simd;
        Ok(())
    }
}

/// What decoding one group did: the iterations it ran and, where the decoder counts them, its
/// valid codewords.
pub(super) struct GroupDone {
    pub iterations: usize,
    pub valid: Option<usize>,
}

/// Decodes the `count` codewords of `bits` (N bytes each) in groups of [`LANES`] on
/// `threads` workers (0: all): each worker makes its buffers with `buffers` and decodes group
/// `g` (codewords `g·LANES ..`, written to `out`) with `decode`. Every codeword of a group counts
/// the group's iterations; `valid` is summed where the groups count it, else `count_valid`.
pub(super) fn decode_groups<G>(
    n: usize,
    count: usize,
    threads: usize,
    bits: &mut [u8],
    buffers: impl Fn() -> G + Sync,
    decode: impl Fn(&mut G, usize, &mut [u8]) -> GroupDone + Sync,
    count_valid: impl FnOnce(&[u8]) -> usize,
) -> DecodeStats {
    let groups = count.div_ceil(LANES);
    let threads = worker_threads(threads).min(groups.max(1));
    let jobs = Mutex::new(bits.chunks_mut(n * LANES).enumerate());
    let totals = Mutex::new((0usize, Some(0usize)));
    // The caller's cancellation token, carried into the workers (the groups' iteration loops
    // poll it too); a cancelled caller discards the bits.
    let cancel = sigpu_runtime::cancel::Cancel::current();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                cancel.scope(|| {
                    let mut group = buffers();
                    loop {
                        if cancel.is_cancelled() {
                            break;
                        }
                        let Some((g, out)) = jobs.lock().unwrap_or_else(|p| p.into_inner()).next()
                        else {
                            break;
                        };
                        let real = out.len() / n;
                        let done = decode(&mut group, g, out);
                        let mut t = totals.lock().unwrap_or_else(|p| p.into_inner());
                        t.0 += done.iterations * real;
                        t.1 = t.1.zip(done.valid).map(|(a, b)| a + b);
                    }
                })
            });
        }
    });
    let (iterations, valid) = totals.into_inner().unwrap_or_else(|p| p.into_inner());
    DecodeStats {
        codewords: count,
        valid: valid.unwrap_or_else(|| count_valid(bits)),
        iterations,
        batches: groups,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_adaptive_table_at_scale_8_and_its_rule() {
        // round(8 · (0.25 + ½·ln(1 + e^(−d/8)))): 2 + 4·ln 2 = 4.77 at d = 0, 2 far apart.
        let t = adaptive_table(0.5, 8.0);
        assert_eq!(&t[..8], &[5, 5, 4, 4, 4, 4, 4, 3]);
        assert_eq!(t[63], 2);
        assert!(t.windows(2).all(|w| w[0] >= w[1]), "non-increasing: {t:?}");
        let rule = Rule8::new(Algorithm::AdaptiveOffsetMinSum { beta: 0.5 }, 8.0).unwrap();
        assert_eq!(rule, Rule8::Adaptive { beta: 4, table: t });
        // Lanes: (min1, min2) = (10, 10), (10, 40), (3, 127), (0, 0).
        let mut min1 = [10, 10, 3, 0];
        let mut min2 = [10, 40, 127, 0];
        rule.correct(&mut min1, &mut min2);
        assert_eq!(min1, [10 - t[0], 10 - t[30], 1, 0]);
        assert_eq!(min2, [6, 36, 123, 0]);
        // Too small a β for the scale would silently be plain min-sum: refused.
        assert!(Rule8::new(Algorithm::AdaptiveOffsetMinSum { beta: 0.01 }, 8.0).is_err());
    }

    #[test]
    fn the_gpu_and_layered_compact_decoders_refuse_the_adaptive_and_lambda_min_rules() {
        let rule = Rule8::new(Algorithm::AdaptiveOffsetMinSum { beta: 0.5 }, 8.0).unwrap();
        let e = rule.kernel_args().unwrap_err().to_string();
        assert!(e.contains("aoms") && e.contains("--decoder oms"), "{e}");
        assert!(rule.uniform_only("the layered-compact decoder").is_err());
        let lmin = Rule8::new(Algorithm::LambdaMinSum { beta: 0.25 }, 8.0).unwrap();
        assert!(matches!(lmin, Rule8::LambdaMin { beta: 2, .. }), "{lmin:?}");
        assert!(lmin.kernel_args().unwrap_err().to_string().contains("lmin"));
        assert!(lmin.uniform_only("the layered-compact decoder").is_err());
        assert!(Rule8::new(Algorithm::LambdaMinSum { beta: 0.01 }, 8.0).is_err());
        let oms = Rule8::new(Algorithm::OffsetMinSum { beta: 0.5 }, 8.0).unwrap();
        assert_eq!(oms.kernel_args().unwrap(), (2, 4));
    }
}
