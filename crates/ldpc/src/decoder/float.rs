//! f32 belief propagation, one codeword at a time per thread: sum-product (the reference the
//! 8-bit decoders are judged against) and min-sum with its normalised and offset variants.

use super::{
    codewords_of, count_valid, worker_threads, Algorithm, DecodeStats, Decoder, DecoderConfig,
    Llrs, Schedule,
};
use crate::code::Code;
use crate::error::Result;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Float decoder; see the module documentation.
pub struct FloatDecoder {
    code: Code,
    /// `code` with its checks in decoding order ([`Code::decoding_order`]).
    order: Code,
    config: DecoderConfig,
}

impl FloatDecoder {
    /// The f32 decoder of `config` for `code`.
    pub fn new(code: Code, config: DecoderConfig) -> Result<FloatDecoder> {
        config.validate()?;
        Ok(FloatDecoder {
            order: code.decoding_order(),
            code,
            config,
        })
    }
}

impl Decoder for FloatDecoder {
    fn describe(&self) -> String {
        format!("{} (cpu)", self.config.describe())
    }

    fn code(&self) -> &Code {
        &self.code
    }

    fn decode(&mut self, llr: Llrs<'_>, bits: &mut [u8]) -> Result<DecodeStats> {
        self.run(llr, bits, None)
    }

    fn decode_soft(
        &mut self,
        llr: Llrs<'_>,
        bits: &mut [u8],
        posterior: &mut [f32],
    ) -> Result<DecodeStats> {
        if posterior.len() != bits.len() {
            return Err(crate::LdpcError::invalid(format!(
                "decoding {}: room for {} posterior LLRs, need {}",
                self.code.name(),
                posterior.len(),
                bits.len()
            )));
        }
        self.run(llr, bits, Some(posterior))
    }
}

impl FloatDecoder {
    /// Decodes into `bits`, and with `posterior` also the posterior LLR of every bit (the
    /// channel LLR plus every check's last message, after the last iteration run).
    fn run(
        &self,
        llr: Llrs<'_>,
        bits: &mut [u8],
        posterior: Option<&mut [f32]>,
    ) -> Result<DecodeStats> {
        let count = codewords_of(&self.code, &llr, bits)?;
        let n = self.code.n();
        let threads = worker_threads(self.config.threads).min(count.max(1));
        let next = AtomicUsize::new(0);
        let iterations = AtomicUsize::new(0);
        // Each codeword's output chunk, handed out one at a time.
        let outputs: Mutex<Vec<Option<&mut [u8]>>> =
            Mutex::new(bits.chunks_mut(n).map(Some).collect());
        let soft: Mutex<Vec<Option<&mut [f32]>>> = Mutex::new(match posterior {
            Some(p) => p.chunks_mut(n).map(Some).collect(),
            None => Vec::new(),
        });
        std::thread::scope(|s| {
            for _ in 0..threads {
                s.spawn(|| {
                    let mut work = Work::new(&self.order);
                    let mut channel = vec![0f32; n];
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= count {
                            break;
                        }
                        match llr {
                            Llrs::F32(v) => channel.copy_from_slice(&v[i * n..(i + 1) * n]),
                            Llrs::I8 { values, scale } => {
                                for (c, &q) in channel.iter_mut().zip(&values[i * n..(i + 1) * n]) {
                                    *c = q as f32 / scale;
                                }
                            }
                        }
                        let its = work.decode(&self.order, &self.config, &channel);
                        iterations.fetch_add(its, Ordering::Relaxed);
                        let out = outputs.lock().unwrap_or_else(|p| p.into_inner())[i]
                            .take()
                            .expect("each codeword is decoded once");
                        out.copy_from_slice(&work.hard);
                        let mut soft = soft.lock().unwrap_or_else(|p| p.into_inner());
                        if let Some(post) = soft.get_mut(i).and_then(Option::take) {
                            post.copy_from_slice(&work.post);
                        }
                    }
                });
            }
        });
        Ok(DecodeStats {
            codewords: count,
            valid: count_valid(&self.code, bits),
            iterations: iterations.into_inner(),
            batches: count,
        })
    }
}

/// Per-thread buffers.
struct Work {
    /// One message per edge: bit-to-check before a check pass, check-to-bit after it.
    msg: Vec<f32>,
    /// Posterior LLR of each bit.
    post: Vec<f32>,
    hard: Vec<u8>,
    /// One row's inputs and outputs.
    row: Vec<f32>,
}

/// Magnitudes are kept within this so the sum-product's φ stays finite.
const MAX_LLR: f32 = 50.0;

impl Work {
    fn new(code: &Code) -> Work {
        Work {
            msg: vec![0.0; code.edges()],
            post: vec![0.0; code.n()],
            hard: vec![0; code.n()],
            row: Vec::with_capacity(code.max_row_degree()),
        }
    }

    /// Decodes one codeword into `self.hard`; returns the iterations run.
    fn decode(&mut self, code: &Code, config: &DecoderConfig, llr: &[f32]) -> usize {
        match config.schedule {
            Schedule::Flooding => self.flooding(code, config, llr),
            // layered-compact is refused for float by `DecoderConfig::validate`.
            Schedule::Layered | Schedule::LayeredCompact => self.layered(code, config, llr),
        }
    }

    fn flooding(&mut self, code: &Code, config: &DecoderConfig, llr: &[f32]) -> usize {
        let cols = code.edge_col();
        for (m, &c) in self.msg.iter_mut().zip(cols) {
            *m = llr[c as usize];
        }
        for it in 1..=config.iterations {
            for r in 0..code.m() {
                let range = code.row_start()[r] as usize..code.row_start()[r + 1] as usize;
                check_node(config.algorithm, &mut self.msg[range], &mut self.row);
            }
            for (v, &channel) in llr.iter().enumerate() {
                let edges = &code.col_edges()
                    [code.col_start()[v] as usize..code.col_start()[v + 1] as usize];
                let total = edges.iter().fold(channel, |s, &e| s + self.msg[e as usize]);
                for &e in edges {
                    let m = &mut self.msg[e as usize];
                    *m = (total - *m).clamp(-MAX_LLR, MAX_LLR);
                }
                self.post[v] = total;
            }
            if self.harden(code, config, it) {
                return it;
            }
        }
        config.iterations
    }

    fn layered(&mut self, code: &Code, config: &DecoderConfig, llr: &[f32]) -> usize {
        self.msg.fill(0.0);
        self.post.copy_from_slice(llr);
        let cols = code.edge_col();
        for it in 1..=config.iterations {
            for r in 0..code.m() {
                let range = code.row_start()[r] as usize..code.row_start()[r + 1] as usize;
                let (msg, cols) = (&mut self.msg[range.clone()], &cols[range]);
                // Old c2v kept in `row`; msg becomes v2c = P − c2v, then the new c2v.
                self.row.clear();
                self.row.extend_from_slice(msg);
                for (m, &c) in msg.iter_mut().zip(cols) {
                    *m = self.post[c as usize] - *m;
                }
                check_node(config.algorithm, msg, &mut Vec::new());
                // P = LLR + Σ c2v exactly: clamping here would erase the channel LLR once
                // messages saturate, and layered min-sum then drifts away from codewords.
                for ((m, &c), &old) in msg.iter().zip(cols).zip(&self.row) {
                    self.post[c as usize] += m - old;
                }
            }
            if self.harden(code, config, it) {
                return it;
            }
        }
        config.iterations
    }

    /// Hard decisions from the posteriors; true when decoding may stop early.
    fn harden(&mut self, code: &Code, config: &DecoderConfig, it: usize) -> bool {
        for (h, &p) in self.hard.iter_mut().zip(&self.post) {
            *h = (p < 0.0) as u8;
        }
        config.early_termination && it < config.iterations && code.is_codeword(&self.hard)
    }
}

/// Replaces one check's incoming messages by its outgoing ones.
fn check_node(algorithm: Algorithm, msg: &mut [f32], scratch: &mut Vec<f32>) {
    let negative = msg.iter().filter(|&&m| m < 0.0).count() % 2 == 1;
    let sign = |m: f32, mag: f32| if (m < 0.0) != negative { -mag } else { mag };
    if algorithm == Algorithm::SumProduct {
        // |out_j| = φ(Σ_{i≠j} φ(|m_i|)), φ(x) = −ln tanh(x/2), summed in f64.
        scratch.clear();
        scratch.extend(msg.iter().map(|m| phi(m.abs() as f64) as f32));
        let total: f64 = scratch.iter().map(|&p| p as f64).sum();
        for (m, &p) in msg.iter_mut().zip(scratch.iter()) {
            *m = sign(*m, phi((total - p as f64).max(0.0)) as f32);
        }
        return;
    }
    if let Algorithm::LambdaMinSum { beta } = algorithm {
        lambda_min(beta, msg, negative);
        return;
    }
    let (mut min1, mut min2, mut at) = (f32::INFINITY, f32::INFINITY, usize::MAX);
    for (j, m) in msg.iter().enumerate() {
        let a = m.abs();
        if a < min1 {
            (min2, min1, at) = (min1, a, j);
        } else if a < min2 {
            min2 = a;
        }
    }
    let correct = |x: f32| match algorithm {
        Algorithm::NormalizedMinSum { alpha } => x * alpha,
        Algorithm::OffsetMinSum { beta } => (x - beta).max(0.0),
        _ => x,
    };
    let (min1, min2) = match algorithm {
        Algorithm::AdaptiveOffsetMinSum { beta } => {
            // ½·ln(1 + e^−gap); a check of degree 1 or 2 has an infinite gap (no correction).
            let gap = min2 - min1;
            let soft = if gap.is_finite() {
                0.5 * (-gap).exp().ln_1p()
            } else {
                0.0
            };
            ((min1 - beta / 2.0 - soft).max(0.0), (min2 - beta).max(0.0))
        }
        _ => (correct(min1), correct(min2)),
    };
    for (j, m) in msg.iter_mut().enumerate() {
        *m = sign(*m, if j == at { min2 } else { min1 });
    }
}

/// λ-min (λ = 3) offset min-sum ([`Algorithm::LambdaMinSum`]) for one check whose signs
/// multiply to negative when `negative`.
fn lambda_min(beta: f32, msg: &mut [f32], negative: bool) {
    let mut m = [f32::INFINITY; 3];
    let mut at = [usize::MAX; 2];
    for (j, x) in msg.iter().enumerate() {
        let a = x.abs();
        if a < m[0] {
            (m[2], m[1], m[0]) = (m[1], m[0], a);
            (at[1], at[0]) = (at[0], j);
        } else if a < m[1] {
            (m[2], m[1]) = (m[1], a);
            at[1] = j;
        } else if a < m[2] {
            m[2] = a;
        }
    }
    let c = |x: f32| (x - beta).max(0.0);
    let (first, second, others) = (
        c(box_plus(m[1], m[2])),
        c(box_plus(m[0], m[2])),
        c(box_plus(box_plus(m[0], m[1]), m[2])),
    );
    for (j, x) in msg.iter_mut().enumerate() {
        let mag = if j == at[0] {
            first
        } else if j == at[1] {
            second
        } else {
            others
        };
        *x = if (*x < 0.0) != negative { -mag } else { mag };
    }
}

/// |a ⊞ b| for magnitudes a and b: min(a, b) − ln(1 + e^−|a−b|) + ln(1 + e^−(a+b)); an
/// infinite one (a check with fewer than three edges) leaves the other.
fn box_plus(a: f32, b: f32) -> f32 {
    if !a.is_finite() || !b.is_finite() {
        return a.min(b);
    }
    (a.min(b) - (-(a - b).abs()).exp().ln_1p() + (-(a + b)).exp().ln_1p()).max(0.0)
}

/// φ(x) = −ln tanh(x/2) = ln(1 + 2/(eˣ − 1)), its own inverse; x is kept within
/// [1e−12, 2·MAX_LLR] so the result is finite.
fn phi(x: f64) -> f64 {
    let x = x.clamp(1e-12, 2.0 * MAX_LLR as f64);
    (2.0 / x.exp_m1()).ln_1p()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phi_is_its_own_inverse() {
        for x in [0.01, 0.5, 1.0, 3.0, 10.0] {
            assert!((phi(phi(x)) - x).abs() < 1e-9 * x.max(1.0), "{x}");
        }
    }

    #[test]
    fn check_node_rules() {
        let mut m = vec![1.0, -2.0, 3.0];
        check_node(Algorithm::MinSum, &mut m, &mut Vec::new());
        assert_eq!(m, vec![-2.0, 1.0, -1.0]);
        let mut m = vec![1.0, -2.0, 3.0];
        check_node(
            Algorithm::OffsetMinSum { beta: 0.5 },
            &mut m,
            &mut Vec::new(),
        );
        assert_eq!(m, vec![-1.5, 0.5, -0.5]);
        // Adaptive offset: the argmin edge gets min2 − β, the others min1 − β/2 −
        // ½·ln(1 + e^−(min2 − min1)) (here min1 = 1, min2 = 2).
        let mut m = vec![1.0, -2.0, 3.0];
        check_node(
            Algorithm::AdaptiveOffsetMinSum { beta: 0.5 },
            &mut m,
            &mut Vec::new(),
        );
        let m1 = 1.0 - 0.25 - 0.5 * (1.0 + (-1.0f32).exp()).ln();
        assert!((m[0] + 1.5).abs() < 1e-6, "{m:?}");
        assert!(
            (m[1] - m1).abs() < 1e-6 && (m[2] + m1).abs() < 1e-6,
            "{m:?}"
        );
        // λ-min: the edge of m1 = 1 gets 2 ⊞ 3, the edge of m2 = 2 gets 1 ⊞ 3, the others
        // (1 ⊞ 2) ⊞ 3, each less β; the signs as min-sum's.
        let bp =
            |a: f32, b: f32| a.min(b) - (-(a - b).abs()).exp().ln_1p() + (-(a + b)).exp().ln_1p();
        let mut m = vec![1.0, -2.0, 3.0, 4.0];
        check_node(
            Algorithm::LambdaMinSum { beta: 0.25 },
            &mut m,
            &mut Vec::new(),
        );
        let want = [
            -(bp(2.0, 3.0) - 0.25),
            bp(1.0, 3.0) - 0.25,
            -(bp(bp(1.0, 2.0), 3.0) - 0.25),
            -(bp(bp(1.0, 2.0), 3.0) - 0.25),
        ];
        assert!(
            m.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-6),
            "{m:?} {want:?}"
        );
        // Sum-product: two inputs pass each other's value through.
        let mut m = vec![2.0, -0.7];
        check_node(Algorithm::SumProduct, &mut m, &mut Vec::new());
        assert!(
            (m[0] + 0.7).abs() < 1e-5 && (m[1] - 2.0).abs() < 1e-5,
            "{m:?}"
        );
    }
}
