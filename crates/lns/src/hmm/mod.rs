//! The HMM forward algorithm in LNS: α_t(j) = (Σ_i α_{t−1}(i)·A_ij)·B_j(o_t), the classic use
//! of log-domain sums (HTK, HMMER, nanopolish all keep log-probabilities).
//!
//! Each cell is one fused LNS dot product (exact products, one rounding), and after every step
//! the α vector is divided by its largest element: an exact subtraction of log codes, whose
//! running total is kept in an integer, so long sequences never underflow the format (lns32
//! spans only 2^±128) and the rescaling adds no error.

pub mod gpu;

use crate::error::LnsError;
use crate::format::Format;
use crate::value::Class;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;
use std::f64::consts::LN_2;

/// A hidden Markov model with `states` states, in natural-log probabilities.
#[derive(Clone, Debug, PartialEq)]
pub struct HmmModel {
    /// Hidden states: `log_init` holds `states` values, `log_trans` `states * states`.
    pub states: usize,
    /// ln π_j.
    pub log_init: Vec<f64>,
    /// ln A_ij, row-major: from state i to state j at `i * states + j`.
    pub log_trans: Vec<f64>,
}

impl HmmModel {
    /// A random model with dense transitions (rows of positive weights, normalised), seeded.
    pub fn random(states: usize, seed: u64) -> HmmModel {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut row = |n: usize| -> Vec<f64> {
            let w: Vec<f64> = (0..n).map(|_| rng.random_range(0.05..1.0)).collect();
            let total: f64 = w.iter().sum();
            w.iter().map(|x| (x / total).ln()).collect()
        };
        let log_init = row(states);
        let log_trans = (0..states).flat_map(|_| row(states)).collect();
        HmmModel {
            states,
            log_init,
            log_trans,
        }
    }

    /// The model's own shape: S initial and S² transition log-probabilities.
    pub(crate) fn check_model(&self) -> Result<(), LnsError> {
        let s = self.states;
        if s == 0 || self.log_init.len() != s || self.log_trans.len() != s * s {
            return Err(LnsError::HmmShape(format!(
                "{s} states need {s} initial and {} transition log-probabilities, got {} and {}",
                s * s,
                self.log_init.len(),
                self.log_trans.len()
            )));
        }
        Ok(())
    }

    fn check(&self, log_emit: &[f64]) -> Result<usize, LnsError> {
        self.check_model()?;
        let s = self.states;
        if log_emit.is_empty() || !log_emit.len().is_multiple_of(s) {
            return Err(LnsError::HmmShape(format!(
                "emissions must be steps × {s} log-probabilities, got {}",
                log_emit.len()
            )));
        }
        Ok(log_emit.len() / s)
    }

    /// ln P(observations) in f64 log space (log-sum-exp): the reference.
    pub fn forward_f64(&self, log_emit: &[f64]) -> Result<f64, LnsError> {
        let steps = self.check(log_emit)?;
        let s = self.states;
        let mut alpha: Vec<f64> = (0..s).map(|j| self.log_init[j] + log_emit[j]).collect();
        let mut next = vec![0.0; s];
        for t in 1..steps {
            for (j, n) in next.iter_mut().enumerate() {
                let terms = (0..s).map(|i| alpha[i] + self.log_trans[i * s + j]);
                *n = log_sum_exp(terms) + log_emit[t * s + j];
            }
            std::mem::swap(&mut alpha, &mut next);
        }
        Ok(log_sum_exp(alpha.into_iter()))
    }

    /// ln P(observations) computed in LNS `format`, returned as f64.
    pub fn forward_lns(&self, format: Format, log_emit: &[f64]) -> Result<f64, LnsError> {
        let steps = self.check(log_emit)?;
        let s = self.states;
        let word = |ln_p: f64| prob_word(format, ln_p);
        // Transitions by destination, so each cell is one contiguous dot product.
        let trans_to: Vec<u32> = (0..s * s)
            .map(|k| word(self.log_trans[(k % s) * s + k / s]))
            .collect();
        let emit: Vec<u32> = log_emit.iter().map(|&l| word(l)).collect();
        let mut alpha: Vec<u32> = (0..s)
            .map(|j| format.mul(word(self.log_init[j]), emit[j]))
            .collect();
        let mut scale = rescale(format, &mut alpha); // log code removed so far
        let mut next = vec![0u32; s];
        let cancel = sigpu_runtime::cancel::Cancel::current();
        for t in 1..steps {
            // A poll every 64 steps: a step is S² multiply-adds, far below a millisecond.
            if t % 64 == 0 {
                cancel.check()?;
            }
            for (j, n) in next.iter_mut().enumerate() {
                let sum = format
                    .dot(&alpha, &trans_to[j * s..(j + 1) * s])
                    .expect("equal lengths");
                *n = format.mul(sum, emit[t * s + j]);
            }
            std::mem::swap(&mut alpha, &mut next);
            scale += rescale(format, &mut alpha);
        }
        let total = format.sum(&alpha);
        Ok(match format.decode(total) {
            Class::Finite {
                negative: false,
                log,
            } => (log + scale) as f64 * format.ulp() * LN_2,
            Class::Zero => f64::NEG_INFINITY,
            _ => f64::NAN,
        })
    }

    /// ln P(o) of a batch of sequences (`log_emit`: batch × steps × states, natural logs) in
    /// LNS `format`, where `target` says: [`forward_lns_batch`](Self::forward_lns_batch) on
    /// the CPU's cores, or the GPU kernel ([`gpu::GpuHmm`], F ≤ 23) on the target's device.
    pub fn forward_on(
        &self,
        target: &sigpu_runtime::Target,
        format: Format,
        log_emit: &[f64],
        batch: usize,
    ) -> Result<Vec<f64>, LnsError> {
        match target {
            sigpu_runtime::Target::Cpu(_) => self.forward_lns_batch(format, log_emit, batch),
            sigpu_runtime::Target::Gpu(g) => {
                gpu::GpuHmm::new(g.gpu(), self, format)?.forward_host(log_emit, batch)
            }
        }
    }

    /// [`forward_lns`](Self::forward_lns) for a batch of sequences of equal length laid end to
    /// end in `log_emit` (batch × steps × states), on all cores.
    pub fn forward_lns_batch(
        &self,
        format: Format,
        log_emit: &[f64],
        batch: usize,
    ) -> Result<Vec<f64>, LnsError> {
        // The model first: with zero states the emissions are empty and would split into
        // sequences of length zero.
        self.check_model()?;
        if batch == 0 || log_emit.is_empty() || !log_emit.len().is_multiple_of(batch) {
            return Err(LnsError::HmmShape(format!(
                "{} emissions do not split into {batch} sequences of at least one step",
                log_emit.len()
            )));
        }
        // The pool's threads do not see this thread's token: each sequence runs in its scope.
        let cancel = sigpu_runtime::cancel::Cancel::current();
        log_emit
            .par_chunks(log_emit.len() / batch)
            .map(|seq| cancel.scope(|| self.forward_lns(format, seq)))
            .collect()
    }
}

/// The LNS word of a probability given as its natural log (−∞ gives zero).
pub fn prob_word(format: Format, ln_p: f64) -> u32 {
    format.from_f64((ln_p / LN_2).exp2())
}

/// Divides every element by the largest (exactly: subtracts its log code) and returns the code
/// subtracted; an all-zero vector is left alone.
fn rescale(format: Format, alpha: &mut [u32]) -> i64 {
    let max = alpha
        .iter()
        .filter_map(|&w| match format.decode(w) {
            Class::Finite { log, .. } => Some(log),
            _ => None,
        })
        .max();
    let Some(max) = max else { return 0 };
    for w in alpha.iter_mut() {
        if let Class::Finite { negative, log } = format.decode(*w) {
            *w = format.encode(Class::Finite {
                negative,
                log: log - max,
            });
        }
    }
    max
}

fn log_sum_exp(terms: impl Iterator<Item = f64> + Clone) -> f64 {
    let m = terms.clone().fold(f64::NEG_INFINITY, f64::max);
    if m == f64::NEG_INFINITY {
        return m;
    }
    m + terms.map(|x| (x - m).exp()).sum::<f64>().ln()
}

/// Random emission log-probabilities for `batch` sequences of `steps` over `states`, in
/// [ln 1e-3, 0], seeded.
pub fn random_emissions(batch: usize, steps: usize, states: usize, seed: u64) -> Vec<f64> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    (0..batch * steps * states)
        .map(|_| rng.random_range(1e-3f64..1.0).ln())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lns32_forward_matches_f64_to_1e_5_over_long_sequences() {
        let model = HmmModel::random(16, 1);
        let emit = random_emissions(1, 2000, 16, 2);
        let want = model.forward_f64(&emit).unwrap();
        let got = model.forward_lns(Format::LNS32, &emit).unwrap();
        // 2000 steps of ~ln(1e-3..1) each: far below 2^-128, kept in range by the rescaling.
        assert!(want < -1000.0, "{want}");
        assert!(((got - want) / want).abs() <= 1e-5, "{got} vs {want}");
        // lns16 keeps F = 10 bits: coarser, but the rescaling keeps it finite and close.
        let got16 = model.forward_lns(Format::LNS16, &emit).unwrap();
        assert!(((got16 - want) / want).abs() <= 1e-2, "{got16} vs {want}");
    }

    #[test]
    fn the_cpu_target_runs_the_batch_forward() {
        let model = HmmModel::random(4, 3);
        let emit = random_emissions(3, 50, 4, 4);
        let want = model.forward_lns_batch(Format::LNS32, &emit, 3).unwrap();
        let target = sigpu_runtime::Target::cpu();
        let got = model.forward_on(&target, Format::LNS32, &emit, 3).unwrap();
        assert_eq!(got, want);
    }

    #[test]
    fn batch_matches_single_sequences() {
        let model = HmmModel::random(4, 3);
        let emit = random_emissions(3, 50, 4, 4);
        let batch = model.forward_lns_batch(Format::LNS32, &emit, 3).unwrap();
        for (b, got) in batch.iter().enumerate() {
            assert_eq!(
                *got,
                model
                    .forward_lns(Format::LNS32, &emit[b * 200..(b + 1) * 200])
                    .unwrap()
            );
        }
    }

    #[test]
    fn shapes_are_checked() {
        let model = HmmModel::random(4, 3);
        assert!(model.forward_f64(&[0.0; 7]).is_err());
        assert!(model.forward_lns(Format::LNS32, &[]).is_err());
        assert!(model
            .forward_lns_batch(Format::LNS32, &[0.0; 8], 3)
            .is_err());
        let broken = HmmModel {
            log_trans: vec![0.0; 3],
            ..model
        };
        assert!(broken.forward_f64(&[0.0; 4]).is_err());
    }

    #[test]
    fn zero_states_are_refused_not_a_panic() {
        let empty = HmmModel {
            states: 0,
            log_init: vec![],
            log_trans: vec![],
        };
        for batch in [0, 1, 5] {
            let e = empty
                .forward_lns_batch(Format::LNS32, &[], batch)
                .unwrap_err();
            assert!(e.to_string().contains("0 states"), "{e}");
        }
        let e =
            (empty.forward_on(&sigpu_runtime::Target::cpu(), Format::LNS32, &[], 1)).unwrap_err();
        assert!(matches!(e, LnsError::HmmShape(_)), "{e}");
        let model = HmmModel::random(2, 1);
        assert!(model.forward_lns_batch(Format::LNS32, &[], 1).is_err());
    }

    #[test]
    fn a_cancelled_token_stops_the_forward() {
        use sigpu_runtime::cancel::Cancel;
        let model = HmmModel::random(4, 3);
        let emit = random_emissions(2, 200, 4, 4);
        let token = Cancel::new();
        assert!(token
            .scope(|| model.forward_lns_batch(Format::LNS32, &emit, 2))
            .is_ok());
        token.cancel();
        let e = token.scope(|| model.forward_lns_batch(Format::LNS32, &emit, 2));
        assert!(matches!(e, Err(LnsError::Cancelled(_))), "{e:?}");
    }
}
