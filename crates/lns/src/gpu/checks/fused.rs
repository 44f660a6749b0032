//! Fused sum and dot on the GPU against `Format::sum` and `Format::dot`.

use super::codes_apart;
use crate::error::LnsError;
use crate::format::Format;
use crate::gpu::fused::{blocks_for, fused_word};
use crate::value::Class;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sigpu_runtime::cuda::{Check, CheckReport, CheckResult, Gpu, Tolerance};

/// GPU self-checks: fused sum and dot of random words (specials included) vs the CPU twin.
pub(super) fn checks() -> Vec<Check> {
    checks! {
        ("lns/fused_sum_dot_lns16", ABOUT, run, Format::LNS16),
        ("lns/fused_sum_dot_lns32", ABOUT, run, Format::LNS32),
    }
}

const ABOUT: &str =
    "fused LNS sum and dot of random and structured vectors (specials, zero words, \
     exact cancellation, every tail length, grid-stride edges) vs Format::sum/dot";

fn run(gpu: &Gpu, seed: u64, format: Format) -> CheckResult {
    sigpu_runtime::cuda::check_result(check(gpu, seed, format))
}

/// Test cases per seed: 24 drawn as they always were (so a failing seed of an earlier run
/// replays), then 34 structured ones (`structured_case`).
const CASES: usize = 24 + 34;

/// One test case: the vectors and the grid (None: the one `sum` and `dot` launch).
struct Case {
    xs: Vec<u32>,
    ys: Vec<u32>,
    blocks: Option<usize>,
}

/// Test case `case` on a grid of `grid` = (SMs, blocks per SM).
fn draw(rng: &mut ChaCha8Rng, format: Format, case: usize, grid: (usize, usize)) -> Case {
    if case < 24 {
        let (xs, ys) = random_vectors(rng, format, case);
        Case {
            xs,
            ys,
            blocks: None,
        }
    } else {
        structured_case(rng, format, case - 24, grid)
    }
}

/// Cases 0–23: lengths from 1 to ~2^21; specials in a few cases only, so most totals are
/// finite; in every fourth case pairs x, −x that sum to zero exactly.
fn random_vectors(rng: &mut ChaCha8Rng, format: Format, case: usize) -> (Vec<u32>, Vec<u32>) {
    let bits = rng.random_range(0..22);
    let n = 1 + rng.random_range(0..(1usize << bits));
    let specials = case % 6 == 5;
    let spread = rng.random_range(1..(1i64 << (format.int_bits - 2)));
    let word = |rng: &mut ChaCha8Rng| -> u32 {
        if specials && rng.random_range(0..(n as u32 + 1)) == 0 {
            return special(rng, format);
        }
        finite(rng, format, spread)
    };
    let mut xs: Vec<u32> = (0..n).map(|_| word(rng)).collect();
    let ys: Vec<u32> = (0..n).map(|_| word(rng)).collect();
    if case % 4 == 1 {
        for i in (1..n).step_by(2) {
            xs[i] = format.neg(xs[i - 1]);
        }
    }
    (xs, ys)
}

/// Zero, NaN or ±∞.
fn special(rng: &mut ChaCha8Rng, format: Format) -> u32 {
    [
        format.zero(),
        format.nan(),
        format.encode(Class::Inf {
            negative: rng.random(),
        }),
    ][rng.random_range(0..3)]
}

/// A finite word of magnitude within 2^±spread, negative one time in four.
fn finite(rng: &mut ChaCha8Rng, format: Format, spread: i64) -> u32 {
    let log = rng.random_range(-(spread << format.frac_bits)..(spread << format.frac_bits) / 2);
    format.encode(Class::Finite {
        negative: rng.random_range(0..4) == 0,
        log,
    })
}

/// Words per grid stride of a grid of `blocks` blocks: 256 threads, one 4-word vector each.
fn stride_words(blocks: usize) -> usize {
    4 * 256 * blocks
}

/// Structured case `k` (0–33), aimed at the places where the kernel's partition of the words
/// changes (the words after the last whole 16-byte vector, the ends of the grid-stride loop)
/// and at totals that are exactly zero, where any residue of a summation order is a wrong
/// word rather than a last-bit difference.
///
/// Cases 0–31: content `k % 8` at length kind `k / 8`:
/// - lengths: 0 from 1 to 16; 1 n mod 8 ≠ 0, below 4096; 2 within 8 words of 1, 2 or 3 grid
///   strides of a grid of 1 to 8 blocks (the loop's edges without long vectors); 3 from 1 to
///   ~2^21 on the default grid;
/// - contents: 0 pairs x, −x at 2k, 2k + 1 (the dot's y alike at both), n even, so both totals
///   are exactly zero; 1 the same, n as drawn (odd: the total is the last term, however small
///   against the pairs); 2 pairs, half of them zero words; 3 half the words zero, no pairs;
///   4 all words zero; 5 zero words but for one to three finite ones, often in the last
///   n mod 4; 6 finite words and one special (zero, NaN, ±∞), often in the last n mod 4; 7
///   pairs in xs, seven words in eight of ys zero.
///
/// Cases 32, 33: contents 0 and 1 within 8 words of 1, 2 or 3 strides of the default grid.
fn structured_case(
    rng: &mut ChaCha8Rng,
    format: Format,
    k: usize,
    (sms, per_sm): (usize, usize),
) -> Case {
    let (content, kind) = if k < 32 { (k % 8, k / 8) } else { (k - 32, 4) };
    let mut blocks = None;
    let mut n = match kind {
        0 => rng.random_range(1..=16),
        1 => 8 * rng.random_range(0..512) + rng.random_range(1..8),
        2 => {
            let b = rng.random_range(1..=8);
            blocks = Some(b);
            rng.random_range(1..=3) * stride_words(b) + rng.random_range(0..=16) - 8
        }
        3 => {
            let bits = rng.random_range(0..22);
            1 + rng.random_range(0..(1usize << bits))
        }
        _ => {
            let full = stride_words(blocks_for(usize::MAX, sms.max(1), per_sm));
            rng.random_range(1..=3) * full + rng.random_range(0..=16) - 8
        }
    };
    if content == 0 {
        n += n & 1;
    }
    let spread = rng.random_range(1..(1i64 << (format.int_bits - 2)));
    let zero = format.zero();
    // A position, half of the time among the last n mod 4 words (the last word if none).
    let late = |rng: &mut ChaCha8Rng| -> usize {
        if rng.random() {
            n - 1 - rng.random_range(0..(n % 4).max(1))
        } else {
            rng.random_range(0..n)
        }
    };
    let mut xs: Vec<u32> = (0..n).map(|_| finite(rng, format, spread)).collect();
    let mut ys: Vec<u32> = (0..n).map(|_| finite(rng, format, spread)).collect();
    match content {
        2 | 3 => xs.iter_mut().for_each(|x| {
            if rng.random() {
                *x = zero
            }
        }),
        4 => {
            xs.fill(zero);
            ys.fill(zero);
        }
        5 => {
            xs.fill(zero);
            for _ in 0..rng.random_range(1..=3) {
                let i = late(rng);
                xs[i] = finite(rng, format, spread);
            }
        }
        6 => {
            let i = late(rng);
            xs[i] = special(rng, format);
        }
        7 => ys.iter_mut().for_each(|y| {
            if rng.random_range(0..8) != 0 {
                *y = zero
            }
        }),
        _ => {}
    }
    if matches!(content, 0..=2 | 7) {
        for i in (1..n).step_by(2) {
            xs[i] = format.neg(xs[i - 1]);
            ys[i] = ys[i - 1];
        }
    }
    Case { xs, ys, blocks }
}

fn check(gpu: &Gpu, seed: u64, format: Format) -> Result<CheckReport, LnsError> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    // The default grid: the device's SMs times the fused-sum policy's blocks per SM.
    let grid = (
        gpu.info().sms as usize,
        gpu.policies().lns_fused_sum.blocks_per_sm as usize,
    );
    let (mut elements, mut mismatches, mut max_codes, mut exact) = (0, 0, 0i64, 0);
    let mut note = String::new();
    for k in 0..CASES {
        let Case { xs, ys, blocks } = draw(&mut rng, format, k, grid);
        let (dx, dy) = (gpu.upload(&xs)?, gpu.upload(&ys)?);
        let results = [
            (
                "sum",
                fused_word(gpu, format, &dx, None, blocks)?,
                format.sum(&xs),
            ),
            (
                "dot",
                fused_word(gpu, format, &dx, Some(&dy), blocks)?,
                format.dot(&xs, &ys)?,
            ),
        ];
        for (op, got, want) in results {
            elements += 1;
            let codes = codes_apart(format, got, want);
            if codes == 0 {
                exact += 1;
            }
            max_codes = max_codes.max(codes);
            if codes > 1 {
                mismatches += 1;
                if note.is_empty() {
                    let grid = blocks.map_or(String::new(), |b| format!(", {b} blocks"));
                    note = format!(
                        "case {k} {op}, n = {}{grid}: GPU {got:#x} vs CPU {want:#x}",
                        xs.len()
                    );
                }
            }
        }
    }
    if note.is_empty() {
        note = format!("{exact} of {elements} results equal the CPU's word, the rest 1 code apart");
    }
    Ok(CheckReport {
        elements,
        mismatches,
        max_error: if max_codes == i64::MAX {
            f64::INFINITY
        } else {
            max_codes as f64
        },
        tolerance: Tolerance { abs: 1.0, rel: 0.0 },
        note,
    })
}

#[cfg(test)]
mod tests {
    //! The check's own cases through the CPU model of reduce.cu (`gpu::fused::model`), so
    //! what depends on the kernel's partition of the words is caught without a GPU.

    use super::*;
    use crate::gpu::fused::model::{fused, Tail};
    use rayon::prelude::*;

    const H100_SMS: usize = 132;

    fn seed_of(format: Format, run_seed: u64) -> u64 {
        let name = if format == Format::LNS16 {
            "lns/fused_sum_dot_lns16"
        } else {
            "lns/fused_sum_dot_lns32"
        };
        checks()
            .into_iter()
            .find(|c| c.name == name)
            .unwrap()
            .seed(run_seed)
    }

    /// The model's word for a case, on the grid the check launches.
    fn model(format: Format, case: &Case, dot: bool, tail: Tail) -> u32 {
        let blocks = case
            .blocks
            .unwrap_or_else(|| blocks_for(case.xs.len(), H100_SMS, 4));
        let ys = dot.then_some(&case.ys[..]);
        fused(format, &case.xs, ys, blocks, tail)
    }

    /// `sigpu check --seed 21` on the H100 failed `lns/fused_sum_dot_lns32` with n = 10746:
    /// GPU 0xd6f846d6 for a sum of pairs x, −x (the zero word 0x40000000). The model of the
    /// kernel with the tail spread over threads 0, 1 gives that word bit for bit; the kernel's
    /// tail gives the zero word.
    #[test]
    fn seed_21_replays_the_h100_failure_and_the_fix() {
        let format = Format::LNS32;
        let mut rng = ChaCha8Rng::seed_from_u64(seed_of(format, 21));
        let case = (0..=13)
            .map(|k| draw(&mut rng, format, k, (H100_SMS, 4)))
            .last()
            .unwrap();
        assert_eq!(case.xs.len(), 10746);
        assert_eq!(format.sum(&case.xs), format.zero());
        assert_eq!(model(format, &case, false, Tail::PerThread), 0xd6f8_46d6);
        assert_eq!(
            model(format, &case, false, Tail::OwnAccumulators),
            format.zero()
        );
        let dot = format.dot(&case.xs, &case.ys).unwrap();
        assert_eq!(model(format, &case, true, Tail::OwnAccumulators), dot);
    }

    /// Every case of the check for a few run seeds, both formats: the model within one code of
    /// the CPU twin (exactly zero where the twin's total is zero).
    #[test]
    fn model_passes_the_check_on_its_own_cases() {
        for format in [Format::LNS16, Format::LNS32] {
            for run_seed in [1, 21, 24] {
                let mut rng = ChaCha8Rng::seed_from_u64(seed_of(format, run_seed));
                let cases: Vec<Case> = (0..CASES)
                    .map(|k| draw(&mut rng, format, k, (H100_SMS, 4)))
                    .collect();
                cases.par_iter().enumerate().for_each(|(k, case)| {
                    for dot in [false, true] {
                        let got = model(format, case, dot, Tail::OwnAccumulators);
                        let want = if dot {
                            format.dot(&case.xs, &case.ys).unwrap()
                        } else {
                            format.sum(&case.xs)
                        };
                        assert!(
                            codes_apart(format, got, want) <= 1,
                            "{format} seed {run_seed} case {k} dot {dot} n {}: {got:#x} vs {want:#x}",
                            case.xs.len()
                        );
                    }
                });
            }
        }
    }

    /// Pairs x, −x (sum) and x·y, −x·y (dot) at every tail length and around the ends of the
    /// grid-stride loop (one block: 1024 words per stride), some of them zero words, and, for
    /// odd n, a last word 2^-100 or less against the pairs: the sums of the pairs vanish
    /// exactly and the total is the last word's. The tail spread over threads leaves residues;
    /// the tail added to its thread's running sums loses some of the small last words.
    #[test]
    fn pairs_cancel_exactly_at_every_tail_and_stride_edge() {
        let format = Format::LNS32;
        let lengths: Vec<usize> = (1..=40)
            .chain((1..=3).flat_map(|k| (k * 1024 - 9)..=(k * 1024 + 9)))
            .collect();
        let mut rng = ChaCha8Rng::seed_from_u64(17);
        let (mut per_thread, mut shared) = (0, 0);
        for &n in &lengths {
            for trial in 0..6 {
                let spread = 1 + trial * 6;
                let mut xs: Vec<u32> = (0..n).map(|_| finite(&mut rng, format, spread)).collect();
                let mut ys: Vec<u32> = (0..n).map(|_| finite(&mut rng, format, spread)).collect();
                if trial % 2 == 1 {
                    xs.iter_mut().step_by(3).for_each(|x| *x = format.zero());
                }
                for i in (1..n).step_by(2) {
                    xs[i] = format.neg(xs[i - 1]);
                    ys[i] = ys[i - 1];
                }
                if n % 2 == 1 {
                    let log = -(100 + 2 * spread + rng.random_range(0..20)) << format.frac_bits;
                    xs[n - 1] = format.encode(Class::Finite {
                        negative: rng.random(),
                        log,
                    });
                }
                for ys in [None, Some(&ys[..])] {
                    let want = match ys {
                        Some(ys) => format.dot(&xs, ys).unwrap(),
                        None => format.sum(&xs),
                    };
                    if n % 2 == 0 {
                        assert_eq!(want, format.zero());
                    }
                    let got = fused(format, &xs, ys, 1, Tail::OwnAccumulators);
                    assert_eq!(got, want, "n {n} trial {trial} dot {}", ys.is_some());
                    per_thread += (fused(format, &xs, ys, 1, Tail::PerThread) != want) as u32;
                    shared += (fused(format, &xs, ys, 1, Tail::SharedAccumulators) != want) as u32;
                }
            }
        }
        assert!(
            per_thread > 0 && shared > 0,
            "{per_thread} {shared}: the sweep lost its edge"
        );
    }
}
