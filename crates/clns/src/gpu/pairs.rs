//! Random operand pairs for the checks and benchmarks: specials, exact cancellations and pairs
//! in the near region of S_b, where the methods differ most.

use crate::format::{Clns, ClnsFormat};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Random CLNS values: magnitudes within 2^±6, uniform angles; 1 in 64 special; every 97th b
/// the negation of a (exact cancellation); every 89th b equal in magnitude with a nearly
/// opposite angle (the near region).
pub fn random_pairs(format: ClnsFormat, n: usize, seed: u64) -> (Vec<Clns>, Vec<Clns>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let specials = [format.zero(), format.nan(), format.inf()];
    let shift = format.angle_shift();
    let value = |rng: &mut ChaCha8Rng| -> Clns {
        if rng.random_range(0..64) == 0 {
            return specials[rng.random_range(0..specials.len())];
        }
        let span = 6i64 << format.frac_bits();
        Clns {
            log: rng.random_range(-span..=span) as i32,
            angle: (rng.random::<u32>() >> shift) << shift,
        }
    };
    let a: Vec<Clns> = (0..n).map(|_| value(&mut rng)).collect();
    let mut b: Vec<Clns> = (0..n).map(|_| value(&mut rng)).collect();
    for i in 0..n {
        if i % 97 == 0 {
            b[i] = format.neg(a[i]);
        } else if i % 89 == 0 {
            let wiggle = (rng.random_range(-64i32..=64) as u32) << shift;
            b[i] = Clns {
                log: a[i].log - rng.random_range(0..4),
                angle: a[i]
                    .angle
                    .wrapping_add(crate::HALF_TURN)
                    .wrapping_add(wiggle),
            };
        }
    }
    (a, b)
}
