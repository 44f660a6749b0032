//! Element-wise operations over slices of LNS words, and fused reductions.
//!
//! `sum` and `dot` are fused: the largest log code is found first, every term is scaled by it
//! into an f64 in [−1, 1], the terms are added with Neumaier's compensated summation, and the
//! total is converted back and rounded once. A fold of pairwise LNS adds rounds at every step
//! instead, and long 16-bit sums of such a fold stall once the running total dwarfs each term
//! (xlnscpp's summation16bit notes); the fused sum does not.

use crate::arith::{product, AddSub};
use crate::error::{LengthError, LnsError};
use crate::format::Format;
use crate::value::Class;
use rayon::prelude::*;

fn check_len(what: &'static str, got: usize, expected: usize) -> Result<(), LengthError> {
    if got == expected {
        Ok(())
    } else {
        Err(LengthError {
            what,
            got,
            expected,
        })
    }
}

/// Slices shorter than this run on one thread: spawning costs more than it saves.
const PARALLEL_MIN: usize = 1 << 14;

/// Elements per parallel task of the element-wise operations.
const CHUNK: usize = 1 << 12;

fn zip_map(
    a: &[u32],
    b: &[u32],
    out: &mut [u32],
    op: impl Fn(u32, u32) -> u32 + Sync,
) -> Result<(), LnsError> {
    check_len("b", b.len(), a.len())?;
    check_len("out", out.len(), a.len())?;
    let kernel = |(o, (x, y)): (&mut u32, (&u32, &u32))| *o = op(*x, *y);
    if a.len() < PARALLEL_MIN {
        out.iter_mut().zip(a.iter().zip(b)).for_each(kernel);
    } else {
        // Chunks of 4096, each after a poll of the caller's cancellation token (a cancelled
        // caller discards `out`).
        let cancel = sigpu_runtime::cancel::Cancel::current();
        out.par_chunks_mut(CHUNK)
            .zip(a.par_chunks(CHUNK).zip(b.par_chunks(CHUNK)))
            .for_each(|(o, (x, y))| {
                if !cancel.is_cancelled() {
                    o.iter_mut().zip(x.iter().zip(y)).for_each(kernel);
                }
            });
    }
    Ok(())
}

impl Format {
    /// out[i] = a[i] + b[i] through method `m` (its vectorised path where it has one), on all
    /// cores for long slices.
    pub fn add_slices(
        self,
        m: &(impl AddSub + ?Sized),
        a: &[u32],
        b: &[u32],
        out: &mut [u32],
    ) -> Result<(), LnsError> {
        check_len("b", b.len(), a.len())?;
        check_len("out", out.len(), a.len())?;
        if a.len() < PARALLEL_MIN {
            m.add_words(a, b, out);
        } else {
            let cancel = sigpu_runtime::cancel::Cancel::current();
            out.par_chunks_mut(CHUNK)
                .zip(a.par_chunks(CHUNK).zip(b.par_chunks(CHUNK)))
                .for_each(|(o, (x, y))| {
                    if !cancel.is_cancelled() {
                        m.add_words(x, y, o);
                    }
                });
        }
        Ok(())
    }

    /// out[i] = a[i] − b[i].
    pub fn sub_slices(
        self,
        m: &impl AddSub,
        a: &[u32],
        b: &[u32],
        out: &mut [u32],
    ) -> Result<(), LnsError> {
        zip_map(a, b, out, |x, y| self.sub(m, x, y))
    }

    /// out[i] = a[i] · b[i] (exact).
    pub fn mul_slices(self, a: &[u32], b: &[u32], out: &mut [u32]) -> Result<(), LnsError> {
        zip_map(a, b, out, |x, y| self.mul(x, y))
    }

    /// out[i] = a[i] / b[i] (exact).
    pub fn div_slices(self, a: &[u32], b: &[u32], out: &mut [u32]) -> Result<(), LnsError> {
        zip_map(a, b, out, |x, y| self.div(x, y))
    }

    /// Σ xs, fused: rounded once. Empty → zero; any NaN, or +∞ with −∞, → NaN.
    pub fn sum(self, xs: &[u32]) -> u32 {
        self.fused(xs.iter().map(|&x| self.decode(x)))
    }

    /// Σ xs[i]·ys[i], fused: the products are exact, the sum rounded once.
    pub fn dot(self, xs: &[u32], ys: &[u32]) -> Result<u32, LnsError> {
        check_len("ys", ys.len(), xs.len())?;
        Ok(self.fused(
            xs.iter()
                .zip(ys)
                .map(|(&x, &y)| product(self.decode(x), self.decode(y))),
        ))
    }

    fn fused(self, terms: impl Iterator<Item = Class> + Clone) -> u32 {
        let (mut nan, mut pos_inf, mut neg_inf, mut max_log) = (false, false, false, None::<i64>);
        for t in terms.clone() {
            match t {
                Class::NaN => nan = true,
                Class::Inf { negative: false } => pos_inf = true,
                Class::Inf { negative: true } => neg_inf = true,
                Class::Finite { log, .. } => max_log = Some(max_log.map_or(log, |m| m.max(log))),
                Class::Zero => {}
            }
        }
        if nan || (pos_inf && neg_inf) {
            return self.nan();
        }
        if pos_inf || neg_inf {
            return self.encode(Class::Inf { negative: neg_inf });
        }
        let Some(max_log) = max_log else {
            return self.zero();
        };
        let ulp = self.ulp();
        // Neumaier: sum + compensation carries the rounding error of every addition.
        let (mut sum, mut comp) = (0.0f64, 0.0f64);
        for t in terms {
            if let Class::Finite { negative, log } = t {
                let v = ((log - max_log) as f64 * ulp).exp2();
                let v = if negative { -v } else { v };
                let s = sum + v;
                comp += if sum.abs() >= v.abs() {
                    (sum - s) + v
                } else {
                    (v - s) + sum
                };
                sum = s;
            }
        }
        let total = sum + comp;
        if total == 0.0 {
            return self.zero();
        }
        let log = max_log as f64 + total.abs().log2() / ulp;
        self.encode(Class::Finite {
            negative: total < 0.0,
            log: log
                .round_ties_even()
                .clamp(-(1i64 << 40) as f64, (1i64 << 40) as f64) as i64,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arith::Accurate;

    const F: Format = Format::LNS16;

    fn log_err_ulps(got: u32, exact: f64) -> f64 {
        (F.to_f64(got).abs().log2() - exact.abs().log2()).abs() / F.ulp()
    }

    #[test]
    fn slices_match_scalar_ops_and_check_lengths() {
        let m = Accurate(F);
        let a: Vec<u32> = (0..50_000)
            .map(|i| F.from_f64(1.0 + i as f64 * 0.01))
            .collect();
        let b: Vec<u32> = (0..50_000)
            .map(|i| F.from_f64(-0.5 - i as f64 * 0.003))
            .collect();
        let mut out = vec![0; a.len()];
        F.add_slices(&m, &a, &b, &mut out).unwrap();
        assert!(out
            .iter()
            .zip(a.iter().zip(&b))
            .all(|(&o, (&x, &y))| o == F.add(&m, x, y)));
        F.mul_slices(&a, &b, &mut out).unwrap();
        assert_eq!(out[7], F.mul(a[7], b[7]));
        let err = F.add_slices(&m, &a, &b[1..], &mut out).unwrap_err();
        let want = LengthError {
            what: "b",
            got: 49_999,
            expected: 50_000,
        };
        assert!(matches!(&err, LnsError::Length(e) if *e == want), "{err}");
    }

    #[test]
    fn fused_sum_rounds_once_where_a_fold_stalls() {
        // 4096 copies of 1.0 plus one 4096: the exact sum is 8192 = 2^13, a code of lns16.
        let mut xs = vec![F.from_f64(1.0); 4096];
        xs.push(F.from_f64(4096.0));
        assert_eq!(F.to_f64(F.sum(&xs)), 8192.0);
        // A left fold of rounded adds drifts from it: 1.0 is lost against a running total
        // beyond 2^11 (s_b(−11) rounds to 0.7 ulp, then less).
        let m = Accurate(F);
        let fold = xs.iter().fold(F.zero(), |acc, &x| F.add(&m, acc, x));
        assert!(
            log_err_ulps(fold, 8192.0) > 1.0,
            "the fold should have drifted"
        );
    }

    #[test]
    fn sum_and_dot_are_within_half_an_ulp_plus_a_hair() {
        let xs: Vec<f64> = (1..=1000)
            .map(|i| (i as f64).sqrt() * if i % 3 == 0 { -1.0 } else { 1.0 })
            .collect();
        let ws: Vec<u32> = xs.iter().map(|&x| F.from_f64(x)).collect();
        let exact: f64 = ws.iter().map(|&w| F.to_f64(w)).sum();
        assert!(log_err_ulps(F.sum(&ws), exact) <= 0.5 + 1e-6);
        let ys: Vec<u32> = (1..=1000).map(|i| F.from_f64(1.0 / i as f64)).collect();
        let exact_dot: f64 = ws
            .iter()
            .zip(&ys)
            .map(|(&x, &y)| F.to_f64(x) * F.to_f64(y))
            .sum();
        assert!(log_err_ulps(F.dot(&ws, &ys).unwrap(), exact_dot) <= 0.5 + 1e-6);
        assert!(F.dot(&ws, &ys[1..]).is_err());
    }

    #[test]
    fn reductions_follow_ieee_specials() {
        let (one, inf, ninf) = (
            F.from_f64(1.0),
            F.from_f64(f64::INFINITY),
            F.from_f64(f64::NEG_INFINITY),
        );
        assert_eq!(F.sum(&[]), F.zero());
        assert_eq!(F.sum(&[one, F.neg(one)]), F.zero());
        assert_eq!(F.sum(&[one, inf]), inf);
        assert_eq!(F.decode(F.sum(&[inf, ninf])), Class::NaN);
        assert_eq!(F.decode(F.sum(&[one, F.nan()])), Class::NaN);
        assert_eq!(F.decode(F.dot(&[F.zero()], &[inf]).unwrap()), Class::NaN);
        // Products that overflow the format are still summed exactly before rounding.
        let big = F.from_f64(30000.0);
        assert_eq!(F.dot(&[big, big], &[big, F.neg(big)]).unwrap(), F.zero());
    }

    #[test]
    fn element_wise_operations_stop_at_a_cancelled_token() {
        use sigpu_runtime::cancel::Cancel;
        let n = 1 << 16;
        let (a, b): (Vec<u32>, Vec<u32>) = (0..n as u32)
            .map(|i| (F.from_f64(i as f64 + 1.0), F.from_f64(2.0)))
            .unzip();
        let token = Cancel::new();
        token.cancel();
        let mut out = vec![u32::MAX; n];
        token.scope(|| F.mul_slices(&a, &b, &mut out)).unwrap();
        assert!(
            out.iter().all(|&w| w == u32::MAX),
            "no chunk ran after the cancel"
        );
        let m = crate::Method::cpu_default(F).cpu(F).unwrap().unwrap();
        token.scope(|| F.add_slices(&*m, &a, &b, &mut out)).unwrap();
        assert!(out.iter().all(|&w| w == u32::MAX));
        F.mul_slices(&a, &b, &mut out).unwrap();
        assert_eq!(F.to_f64(out[0]), 2.0);
    }
}
