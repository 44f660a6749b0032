//! Reductions along the last axis of row-major arrays of LNS words — sum, product, max, min,
//! the batched matrix product — and the log-domain reductions of float logs (`logsumexp`,
//! `log_softmax`), on the CPU; `gpu::axis` runs the same arithmetic on a device.
//!
//! Sums are fused and exact until one rounding: every term is a 128-bit fixed-point integer
//! relative to the row's largest log code, summed exactly ([`exact`] has the error contract).
//! The result is the correctly rounded word of the sum of the (f64-rounded) terms, within
//! 0.5 + δ ulp of the exact sum in the log domain, δ ≤ 2^F·2^-50·(κ + 1)/ln 2 (κ = Σ|t| / |Σt|,
//! 1 when every term has one sign: δ ≈ 2^-26 ulp for lns32). Products and max are exact.

pub mod exact;
#[cfg(test)]
mod filtered;

use crate::arith::product;
use crate::error::LnsError;
use crate::format::Format;
use crate::value::Class;
use exact::{Acc, Consts};
use rayon::prelude::*;

/// Rows of fewer elements than this run on one thread when there are few of them.
const PARALLEL_MIN: usize = 1 << 14;

/// A reduction of LNS words along the last axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduce {
    /// Σ, fused: rounded once.
    Sum,
    /// Π, exact (the log codes add; over- and underflow only at the end).
    Prod,
    /// The largest value (NaN if any is NaN).
    Max,
    /// The smallest value (NaN if any is NaN).
    Min,
}

impl Reduce {
    /// The word of the reduction of an empty row: zero (sum), one (prod), NaN (max, min).
    pub fn empty(self, format: Format) -> u32 {
        match self {
            Reduce::Sum => format.zero(),
            Reduce::Prod => format.encode(Class::Finite {
                negative: false,
                log: 0,
            }),
            Reduce::Max | Reduce::Min => format.nan(),
        }
    }
}

impl std::str::FromStr for Reduce {
    type Err = LnsError;
    fn from_str(s: &str) -> Result<Reduce, LnsError> {
        match s {
            "sum" => Ok(Reduce::Sum),
            "prod" => Ok(Reduce::Prod),
            "max" => Ok(Reduce::Max),
            "min" => Ok(Reduce::Min),
            _ => Err(LnsError::Invalid(format!(
                "reduction {s:?}: expected sum, prod, max or min"
            ))),
        }
    }
}

/// The shape of a batched matrix product: `batch` products of (m × k) by (k × n), row-major.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatShape {
    /// Independent products.
    pub batch: usize,
    /// Rows of A and of the output.
    pub m: usize,
    /// Columns of A, rows of B: the summed axis.
    pub k: usize,
    /// Columns of B and of the output.
    pub n: usize,
}

impl MatShape {
    /// Checks the operands' lengths; returns the output's.
    pub fn check(&self, a: usize, b: usize) -> Result<usize, LnsError> {
        let (ma, mb, mo) = (
            self.batch
                .checked_mul(self.m)
                .and_then(|v| v.checked_mul(self.k)),
            self.batch
                .checked_mul(self.k)
                .and_then(|v| v.checked_mul(self.n)),
            self.batch
                .checked_mul(self.m)
                .and_then(|v| v.checked_mul(self.n)),
        );
        match (ma, mb, mo) {
            (Some(ma), Some(mb), Some(mo)) if ma == a && mb == b => Ok(mo),
            _ => Err(LnsError::Invalid(format!(
                "matmul of {} by {} words does not make {} products of ({} × {}) by ({} × {})",
                a, b, self.batch, self.m, self.k, self.k, self.n
            ))),
        }
    }
}

/// Splits `total` elements into rows of `len`; refuses a length that does not divide it
/// (and rows of length 0, whose count the elements cannot tell).
pub fn rows(total: usize, len: usize) -> Result<usize, LnsError> {
    if len == 0 {
        return Err(LnsError::Invalid(
            "rows of length 0: reduce an empty axis by its identity".into(),
        ));
    }
    if !total.is_multiple_of(len) {
        return Err(LnsError::Invalid(format!(
            "{total} elements do not split into rows of {len}"
        )));
    }
    Ok(total / len)
}

/// Fused sum of classes with unbounded log codes: specials as [`Format::sum`] (NaN, or +∞
/// with −∞, → NaN; ∞ → ∞; no finite term → zero), else the class of the rounded sum.
pub(crate) fn fused(c: &Consts, terms: impl Iterator<Item = Class> + Clone) -> Class {
    let (mut nan, mut pos_inf, mut neg_inf, mut top) = (false, false, false, i64::MIN);
    for t in terms.clone() {
        match t {
            Class::NaN => nan = true,
            Class::Inf { negative: false } => pos_inf = true,
            Class::Inf { negative: true } => neg_inf = true,
            Class::Finite { log, .. } => top = top.max(log),
            Class::Zero => {}
        }
    }
    if nan || (pos_inf && neg_inf) {
        return Class::NaN;
    }
    if pos_inf || neg_inf {
        return Class::Inf { negative: neg_inf };
    }
    if top == i64::MIN {
        return Class::Zero;
    }
    let mut acc = Acc::default();
    for t in terms {
        if let Class::Finite { negative, log } = t {
            acc.add(c.term_fixed(log - top), negative);
        }
    }
    if acc.0 == 0 {
        return Class::Zero;
    }
    Class::Finite {
        negative: acc.0 < 0,
        log: c.log_code(acc.0, top),
    }
}

/// Maps every row of `len` input elements to `out_len` outputs with `f`, on all cores when
/// the work is large.
fn map_rows<T: Sync, U: Send + Copy + Default>(
    xs: &[T],
    len: usize,
    out_len: usize,
    f: impl Fn(&[T], &mut [U]) + Sync,
) -> Result<Vec<U>, LnsError> {
    let n = rows(xs.len(), len)?;
    let mut out = vec![U::default(); n * out_len];
    if n == 0 || out_len == 0 {
        return Ok(out);
    }
    if xs.len() < PARALLEL_MIN {
        xs.chunks(len)
            .zip(out.chunks_mut(out_len))
            .for_each(|(x, o)| f(x, o));
    } else {
        xs.par_chunks(len)
            .zip(out.par_chunks_mut(out_len))
            .for_each(|(x, o)| f(x, o));
    }
    Ok(out)
}

impl Format {
    /// `op` of each row of `len` words of `xs` (row-major; `xs.len()` a multiple of `len`):
    /// one word per row. Rows of length 0 have no count here: [`Reduce::empty`] is their word.
    pub fn reduce_rows(self, op: Reduce, xs: &[u32], len: usize) -> Result<Vec<u32>, LnsError> {
        let c = Consts::new(self);
        map_rows(xs, len, 1, |row, o| {
            o[0] = match op {
                Reduce::Sum => self.encode(fused(&c, row.iter().map(|&w| self.decode(w)))),
                Reduce::Prod => self.encode(row.iter().map(|&w| self.decode(w)).fold(
                    Class::Finite {
                        negative: false,
                        log: 0,
                    },
                    product,
                )),
                Reduce::Max | Reduce::Min => self.extreme(row, op == Reduce::Max),
            }
        })
    }

    /// The largest (`max`) or smallest word of a non-empty row as a number; NaN if any is.
    fn extreme(self, row: &[u32], max: bool) -> u32 {
        use std::cmp::Ordering::*;
        let mut best = row[0];
        for &w in row {
            match self.compare(w, best) {
                None => return self.nan(),
                Some(Greater) if max => best = w,
                Some(Less) if !max => best = w,
                _ => {}
            }
        }
        best
    }

    /// The batched matrix product C = A·B (`shape`; A batch × m × k, B batch × k × n, C batch ×
    /// m × n, row-major): every output a fused sum of k exact products, rounded once (the
    /// error contract of [`Format::reduce_rows`]' sum).
    pub fn matmul(self, a: &[u32], b: &[u32], shape: MatShape) -> Result<Vec<u32>, LnsError> {
        let out_len = shape.check(a.len(), b.len())?;
        let MatShape { m, k, n, .. } = shape;
        let c = Consts::new(self);
        let mut out = vec![self.zero(); out_len];
        if out_len == 0 {
            return Ok(out);
        }
        // One task per output row: A's row, B's columns by stride n.
        let row = |(r, o): (usize, &mut [u32])| {
            let (p, i) = (r / m, r % m);
            let arow = &a[(p * m + i) * k..][..k];
            let bmat = &b[p * k * n..][..k * n];
            for (j, oj) in o.iter_mut().enumerate() {
                let terms =
                    (0..k).map(|t| product(self.decode(arow[t]), self.decode(bmat[t * n + j])));
                *oj = self.encode(fused(&c, terms));
            }
        };
        if out_len * k < PARALLEL_MIN {
            out.chunks_mut(n).enumerate().for_each(row);
        } else {
            out.par_chunks_mut(n).enumerate().for_each(row);
        }
        Ok(out)
    }
}

impl Format {
    /// The words of `xs`, rounded in the log domain by [`Consts::code_of`] (the arithmetic the
    /// device's conversion runs too): correctly rounded for every binary32 value, within
    /// 0.5 + 2^(F−50) codes for binary64; beyond the range ±∞ or zero, as [`Format::from_f64`].
    pub fn words_of(self, xs: &[f64]) -> Vec<u32> {
        let c = Consts::new(self);
        let one = |&x: &f64| self.encode(float_class(&c, x));
        if xs.len() < PARALLEL_MIN {
            xs.iter().map(one).collect()
        } else {
            xs.par_iter().map(one).collect()
        }
    }

    /// The values of `ws` as f64 by [`Consts::value_of`] (the device's conversion too):
    /// within 2 f64 ulps of 2^(log·2^-F).
    pub fn values_of(self, ws: &[u32]) -> Vec<f64> {
        let c = Consts::new(self);
        let one = |&w: &u32| self.decode(w).to_f64_with(|log| c.value_of(log));
        if ws.len() < PARALLEL_MIN {
            ws.iter().map(one).collect()
        } else {
            ws.par_iter().map(one).collect()
        }
    }
}

/// The class of a float: its sign and [`Consts::code_of`], unbounded.
pub(crate) fn float_class(c: &Consts, x: f64) -> Class {
    if x.is_nan() {
        Class::NaN
    } else if x == 0.0 {
        Class::Zero
    } else if x.is_infinite() {
        Class::Inf { negative: x < 0.0 }
    } else {
        Class::Finite {
            negative: x < 0.0,
            log: c.code_of(x),
        }
    }
}

/// The code of a natural log x (a log-probability or any log-domain value): round(x · 2^F /
/// ln 2), ties to even, unbounded; −∞ is zero, +∞ infinity, NaN NaN.
pub(crate) fn nat_class(c: &Consts, x: f64) -> Class {
    if x.is_nan() {
        Class::NaN
    } else if x == f64::NEG_INFINITY {
        Class::Zero
    } else if x == f64::INFINITY {
        Class::Inf { negative: false }
    } else {
        let code = (x * c.codes_per_nat).round_ties_even();
        Class::Finite {
            negative: false,
            log: code.clamp(-(1i64 << 52) as f64, (1i64 << 52) as f64) as i64,
        }
    }
}

/// A natural log from a class (a positive value): its code · ln 2 · 2^-F.
pub(crate) fn class_nat(c: &Consts, class: Class) -> f64 {
    match class {
        Class::Zero => f64::NEG_INFINITY,
        Class::Inf { .. } => f64::INFINITY,
        Class::NaN | Class::Finite { negative: true, .. } => f64::NAN,
        Class::Finite { log, .. } => log as f64 * c.nats_per_code,
    }
}

/// ln Σ exp(x) of each row of `len` natural logs, computed as LNS does it: each x rounded to a
/// code of `format`'s F fraction bits (without its range limits), the fused sum rounded once
/// to a code. Within ln 2 · 2^-F · (1 + δ) of the exact logsumexp (half a code from the inputs'
/// rounding, half from the output's; δ of [`exact`]): 8.3e-8 for lns32's F = 23.
pub fn logsumexp_rows(format: Format, x: &[f64], len: usize) -> Result<Vec<f64>, LnsError> {
    let c = Consts::new(format);
    map_rows(x, len, 1, |row, o| {
        o[0] = class_nat(&c, fused(&c, row.iter().map(|&v| nat_class(&c, v))));
    })
}

/// x − logsumexp(x) of each row, as LNS does it: the inputs' codes minus the fused sum's
/// code, exact integers, then to natural logs. Within ln 2 · 2^-F · (1 + δ) of the exact
/// log_softmax.
pub fn log_softmax_rows(format: Format, x: &[f64], len: usize) -> Result<Vec<f64>, LnsError> {
    let c = Consts::new(format);
    map_rows(x, len, len, |row, o| {
        let lse = fused(&c, row.iter().map(|&v| nat_class(&c, v)));
        for (oi, &v) in o.iter_mut().zip(row) {
            *oi = match (nat_class(&c, v), lse) {
                (Class::Finite { log, .. }, Class::Finite { log: l, .. }) => {
                    (log - l) as f64 * c.nats_per_code
                }
                (Class::Zero, Class::Finite { .. }) => f64::NEG_INFINITY,
                _ => f64::NAN,
            };
        }
    })
}

#[cfg(test)]
mod tests;
