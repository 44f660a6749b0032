//! Fused sum and dot on the GPU against `Format::sum` and `Format::dot`.

use super::codes_apart;
use crate::error::LnsError;
use crate::format::Format;
use crate::gpu::fused::{dot, sum};
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
    "fused LNS sum and dot of random vectors (specials, cancellation) vs Format::sum/dot";

fn run(gpu: &Gpu, seed: u64, format: Format) -> CheckResult {
    sigpu_runtime::cuda::check_result(check(gpu, seed, format))
}

/// The vectors of test case `case`: lengths from 1 to ~2^21; specials in a few cases only, so
/// most totals are finite; in every fourth case pairs x, −x that sum to zero exactly.
fn vectors(rng: &mut ChaCha8Rng, format: Format, case: usize) -> (Vec<u32>, Vec<u32>) {
    let bits = rng.random_range(0..22);
    let n = 1 + rng.random_range(0..(1usize << bits));
    let specials = case % 6 == 5;
    let spread = rng.random_range(1..(1i64 << (format.int_bits - 2)));
    let word = |rng: &mut ChaCha8Rng| -> u32 {
        if specials && rng.random_range(0..(n as u32 + 1)) == 0 {
            return [
                format.zero(),
                format.nan(),
                format.encode(Class::Inf {
                    negative: rng.random(),
                }),
            ][rng.random_range(0..3)];
        }
        let log = rng.random_range(-(spread << format.frac_bits)..(spread << format.frac_bits) / 2);
        format.encode(Class::Finite {
            negative: rng.random_range(0..4) == 0,
            log,
        })
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

fn check(gpu: &Gpu, seed: u64, format: Format) -> Result<CheckReport, LnsError> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (mut elements, mut mismatches, mut max_codes, mut exact) = (0, 0, 0i64, 0);
    let mut note = String::new();
    for case in 0..24 {
        let (xs, ys) = vectors(&mut rng, format, case);
        let (dx, dy) = (gpu.upload(&xs)?, gpu.upload(&ys)?);
        let pairs = [
            (sum(gpu, format, &dx)?, format.sum(&xs)),
            (dot(gpu, format, &dx, &dy)?, format.dot(&xs, &ys)?),
        ];
        for (got, want) in pairs {
            elements += 1;
            let codes = codes_apart(format, got, want);
            if codes == 0 {
                exact += 1;
            }
            max_codes = max_codes.max(codes);
            if codes > 1 {
                mismatches += 1;
                if note.is_empty() {
                    note = format!("n = {}: GPU {got:#x} vs CPU {want:#x}", xs.len());
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
    use super::*;
    use crate::gpu::fused::model::{fused, Tail};

    #[test]
    fn explore_seed_21() {
        let format = Format::LNS32;
        let check = checks().into_iter().find(|c| c.name == "lns/fused_sum_dot_lns32").unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(check.seed(21));
        for case in 0..24 {
            let (xs, ys) = vectors(&mut rng, format, case);
            let want = (format.sum(&xs), format.dot(&xs, &ys).unwrap());
            let old = (fused(format, &xs, None, 132, Tail::PerThread), fused(format, &xs, Some(&ys), 132, Tail::PerThread));
            let new = (fused(format, &xs, None, 132, Tail::OneVector), fused(format, &xs, Some(&ys), 132, Tail::OneVector));
            println!("case {case} n {} want {:#x} {:#x} old {:#x} {:#x} new {:#x} {:#x}", xs.len(), want.0, want.1, old.0, old.1, new.0, new.1);
        }
    }
}
