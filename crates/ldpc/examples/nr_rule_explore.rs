//! Exploration of check-node rules for the layered decoder of 5G NR codes: a scratch layered
//! min-sum (scalar, one codeword per thread) whose rule is given on the command line, in f32
//! (unquantised channel LLRs and messages) or in the 8-bit arithmetic of the production
//! decoders (channel LLRs round(LLR · scale) within ±127, `i16` posteriors, `i8` messages,
//! v2c = clamp(P − c2v, ±127)). The frames are those of `sigpu ldpc simulate` for the same
//! code, Eb/N0 and seed (BPSK, AWGN, rv 0), so the counts compare with its sweeps.
//!
//! usage: nr_rule_explore K N SEED EBN0[,EBN0…] MIN_ERRORS MAX_FRAMES OUT.json RULE
//!
//! RULE is `key=value` pairs joined by `,`:
//! - `q=8bit|float` (default float), `scale=S` (8-bit steps per LLR unit, default 8);
//! - `kind=ms|aoms|box2|lmin3`: the magnitude before correction — min-sum (the smallest
//!   other |v2c|), adaptive offset min-sum (as the library's `aoms`: min2 − β for the argmin
//!   edge, min1 − β/2 − ½·ln(1 + e^−(min2 − min1)) for the others), the exact box-plus of the
//!   two smallest others (`box2`: the argmin edge gets min2 alone) or of the three smallest
//!   others (`lmin3`, the λ-min rule with λ = 3);
//! - the correction max(0, a · x − b) with `a=`, `b=` (default 1, 0), and for block rows
//!   below 4 (the core) `ac=`, `bc=` (default: a, b); for iterations ≤ `t=` (default 0)
//!   `a1=`, `b1=` replace a and b (the core keeps ac / bc unless `ac1=` / `bc1=` are given).
//! - `seq=I`: the 8-bit rule's b is rounded to whole steps first (always, in 8-bit).

use sigpu_ldpc::decoder::{DecodeStats, Decoder, Llrs, KNOWN_LLR};
use sigpu_ldpc::nr::sim::{simulate_point, NrLink};
use sigpu_ldpc::nr::NrCode;
use sigpu_ldpc::Code;
use sigpu_ldpc::Result;
use std::collections::HashMap;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    MinSum,
    Aoms,
    Box2,
    Lmin3,
    /// λ-min 3 with the third edge given what the others get (needs two argmin indices only).
    Lmin3s,
    /// As Lmin3s with the box-plus approximated by min − ln(1 + e^−|a − b|) (no e^−(a+b) term).
    Lmin3n,
}

#[derive(Clone, Debug)]
struct Rule {
    eight: bool,
    scale: f32,
    kind: Kind,
    /// (a, b) by [core][early].
    ab: [[(f32, f32); 2]; 2],
    t: usize,
    spec: String,
}

impl Rule {
    fn parse(spec: &str) -> Rule {
        let kv: HashMap<&str, &str> = spec
            .split(',')
            .filter(|s| !s.is_empty())
            .map(|s| s.split_once('=').expect("key=value"))
            .collect();
        let f = |k: &str, d: f32| kv.get(k).map(|v| v.parse::<f32>().unwrap()).unwrap_or(d);
        let (a, b) = (f("a", 1.0), f("b", 0.0));
        let (ac, bc) = (f("ac", a), f("bc", b));
        let (a1, b1) = (f("a1", a), f("b1", b));
        let (ac1, bc1) = (f("ac1", ac), f("bc1", bc));
        Rule {
            eight: kv.get("q") == Some(&"8bit"),
            scale: f("scale", 8.0),
            kind: match kv.get("kind").copied().unwrap_or("ms") {
                "ms" => Kind::MinSum,
                "aoms" => Kind::Aoms,
                "box2" => Kind::Box2,
                "lmin3" => Kind::Lmin3,
                "lmin3s" => Kind::Lmin3s,
                "lmin3n" => Kind::Lmin3n,
                k => panic!("kind {k}"),
            },
            ab: [[(a, b), (a1, b1)], [(ac, bc), (ac1, bc1)]],
            t: f("t", 0.0) as usize,
            spec: spec.to_string(),
        }
    }
}

/// ln(1 + e^−x) for x ≥ 0.
fn softplus_neg(x: f32) -> f32 {
    if x.is_finite() {
        (-x).exp().ln_1p()
    } else {
        0.0
    }
}

/// |a ⊞ b| for magnitudes a, b (infinite: the other one).
fn boxplus(a: f32, b: f32) -> f32 {
    if !a.is_finite() {
        return b;
    }
    if !b.is_finite() {
        return a;
    }
    (a.min(b) + softplus_neg(a + b) - softplus_neg((a - b).abs())).max(0.0)
}

/// |a ⊞ b| without the e^−(a+b) term: min − ln(1 + e^−|a − b|).
fn boxplus_near(a: f32, b: f32) -> f32 {
    if !a.is_finite() {
        return b;
    }
    if !b.is_finite() {
        return a;
    }
    (a.min(b) - softplus_neg((a - b).abs())).max(0.0)
}

/// Magnitudes (others, argmin edge, second edge, third edge) from the three smallest.
fn magnitudes(rule: &Rule, m: [f32; 3], core: bool, early: bool) -> [f32; 4] {
    let (a, b) = rule.ab[core as usize][early as usize];
    let c = |x: f32| (a * x - b).max(0.0);
    match rule.kind {
        Kind::MinSum => [c(m[0]), c(m[1]), c(m[0]), c(m[0])],
        Kind::Aoms => {
            let others = (m[0] - b / 2.0 - 0.5 * softplus_neg(m[1] - m[0])).max(0.0);
            [others, c(m[1]), others, others]
        }
        Kind::Box2 => {
            let x = boxplus(m[0], m[1]);
            [c(x), c(m[1]), c(m[0]), c(x)]
        }
        Kind::Lmin3 => {
            let x = boxplus(boxplus(m[0], m[1]), m[2]);
            [
                c(x),
                c(boxplus(m[1], m[2])),
                c(boxplus(m[0], m[2])),
                c(boxplus(m[0], m[1])),
            ]
        }
        Kind::Lmin3s => {
            let x = c(boxplus(boxplus(m[0], m[1]), m[2]));
            [x, c(boxplus(m[1], m[2])), c(boxplus(m[0], m[2])), x]
        }
        Kind::Lmin3n => {
            let x = c(boxplus_near(boxplus_near(m[0], m[1]), m[2]));
            [
                x,
                c(boxplus_near(m[1], m[2])),
                c(boxplus_near(m[0], m[2])),
                x,
            ]
        }
    }
}

struct Scratch {
    code: Code,
    rule: Rule,
    iterations: usize,
    /// Block row of each check (checks are Z per block row, in order).
    z: usize,
}

impl Scratch {
    fn decode_one(&self, llr: &[f32], hard: &mut [u8]) -> usize {
        let code = &self.code;
        let rule = &self.rule;
        let cols = code.edge_col();
        let rs = code.row_start();
        let n = code.n();
        let mut post: Vec<f32> = vec![0.0; n];
        let mut msg = vec![0f32; code.edges()];
        let mut v2c: Vec<f32> = Vec::with_capacity(code.max_row_degree());
        // P − old c2v per edge of the row (unclamped: the posterior update adds to it).
        let mut diff: Vec<f32> = Vec::with_capacity(code.max_row_degree());
        let s = rule.scale;
        // 8-bit: hold every value as a whole number of steps in the f32s.
        if rule.eight {
            for (p, &l) in post.iter_mut().zip(llr) {
                *p = if l.abs() >= KNOWN_LLR {
                    8000.0f32.copysign(l)
                } else {
                    (l * s).round().clamp(-127.0, 127.0)
                };
            }
        } else {
            post.copy_from_slice(llr);
        }
        for it in 1..=self.iterations {
            let early = it <= rule.t;
            for r in 0..code.m() {
                let range = rs[r] as usize..rs[r + 1] as usize;
                let core = r / self.z < 4;
                v2c.clear();
                diff.clear();
                for e in range.clone() {
                    let x = post[cols[e] as usize] - msg[e];
                    diff.push(x);
                    v2c.push(if rule.eight {
                        x.clamp(-127.0, 127.0)
                    } else {
                        x
                    });
                }
                let mut m = [f32::INFINITY; 3];
                let mut at = [usize::MAX; 3];
                let mut neg = false;
                for (j, &x) in v2c.iter().enumerate() {
                    neg ^= x < 0.0;
                    let a = x.abs();
                    if a < m[0] {
                        (m[2], at[2]) = (m[1], at[1]);
                        (m[1], at[1]) = (m[0], at[0]);
                        (m[0], at[0]) = (a, j);
                    } else if a < m[1] {
                        (m[2], at[2]) = (m[1], at[1]);
                        (m[1], at[1]) = (a, j);
                    } else if a < m[2] {
                        (m[2], at[2]) = (a, j);
                    }
                }
                let mut out = if rule.eight {
                    let mf = m.map(|x| x / s);
                    magnitudes(rule, mf, core, early).map(|x| (x * s).round().min(127.0))
                } else {
                    magnitudes(rule, m, core, early)
                };
                if rule.eight {
                    // Offsets in 8-bit are whole steps: min − round(b·s), not round(min − b·s)
                    // (the same for whole-step b).
                    for o in out.iter_mut() {
                        *o = o.max(0.0);
                    }
                }
                for (j, e) in range.enumerate() {
                    let mag = if j == at[0] {
                        out[1]
                    } else if j == at[1] {
                        out[2]
                    } else if j == at[2] {
                        out[3]
                    } else {
                        out[0]
                    };
                    let x = v2c[j];
                    let new = if (x < 0.0) != neg { -mag } else { mag };
                    let c = cols[e] as usize;
                    post[c] = diff[j] + new;
                    if rule.eight {
                        post[c] = post[c].clamp(-32767.0, 32767.0);
                    }
                    msg[e] = new;
                }
            }
            for (h, &p) in hard.iter_mut().zip(&post) {
                *h = (p < 0.0) as u8;
            }
            if it < self.iterations && code.is_codeword(hard) {
                return it;
            }
        }
        self.iterations
    }
}

impl Decoder for Scratch {
    fn describe(&self) -> String {
        format!("scratch layered {}", self.rule.spec)
    }
    fn code(&self) -> &Code {
        &self.code
    }
    fn decode(&mut self, llr: Llrs<'_>, bits: &mut [u8]) -> Result<DecodeStats> {
        let Llrs::F32(llr) = llr else {
            panic!("f32 LLRs")
        };
        let n = self.code.n();
        let count = bits.len() / n;
        let its = std::sync::atomic::AtomicUsize::new(0);
        let this = &*self;
        std::thread::scope(|sc| {
            let threads = std::env::var("THREADS")
                .ok()
                .and_then(|t| t.parse().ok())
                .unwrap_or(2usize);
            let per = count.div_ceil(threads);
            for (l, b) in llr.chunks(per * n).zip(bits.chunks_mut(per * n)) {
                let its = &its;
                sc.spawn(move || {
                    for (l, b) in l.chunks(n).zip(b.chunks_mut(n)) {
                        its.fetch_add(this.decode_one(l, b), std::sync::atomic::Ordering::Relaxed);
                    }
                });
            }
        });
        Ok(DecodeStats {
            codewords: count,
            valid: 0,
            iterations: its.into_inner(),
            batches: 1,
        })
    }
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    if a.len() != 9 {
        eprintln!(
            "usage: nr_rule_explore K N SEED EBN0[,EBN0…] MIN_ERRORS MAX_FRAMES OUT.json RULE"
        );
        std::process::exit(2);
    }
    let (k, n, seed): (usize, usize, u64) = (
        a[1].parse().unwrap(),
        a[2].parse().unwrap(),
        a[3].parse().unwrap(),
    );
    let ebs: Vec<f64> = a[4].split(',').map(|x| x.parse().unwrap()).collect();
    let (min_err, max_frames): (u64, u64) = (a[5].parse().unwrap(), a[6].parse().unwrap());
    let rule = Rule::parse(&a[8]);
    let code = NrCode::new(k, n, None).unwrap();
    let z = code.z();
    let dec_code = code.decoding_code(&[0]).unwrap();
    let mut dec = Scratch {
        code: dec_code,
        rule,
        iterations: 20,
        z,
    };
    let link = NrLink {
        modulation: sigpu_ldpc::nr::modulation::NrModulation::Bpsk,
        fading: sigpu_ldpc::nr::modulation::Fading::Awgn,
        demapper: sigpu_ldpc::channel::Demapper::Exact,
        rvs: vec![0],
        seed,
    };
    let rate = k as f64 / n as f64;
    let mut points = Vec::new();
    for eb in ebs {
        let es = eb + 10.0 * rate.log10();
        let t = std::time::Instant::now();
        let p = simulate_point(&code, &link, &mut dec, es, min_err, max_frames, 32).unwrap();
        println!(
            "{} Eb/N0 {eb:.3}: {}/{} FER {:.3e} [{:.2e}, {:.2e}] it {:.1} {:.1}s",
            a[8],
            p.frame_errors,
            p.frames,
            p.fer,
            p.fer_ci[0],
            p.fer_ci[1],
            p.mean_iterations,
            t.elapsed().as_secs_f64()
        );
        points.push(format!(
            "{{\"eb_n0_db\":{eb},\"frames\":{},\"frame_errors\":{},\"fer\":{},\"fer_ci\":[{},{}],\"mean_iterations\":{}}}",
            p.frames, p.frame_errors, p.fer, p.fer_ci[0], p.fer_ci[1], p.mean_iterations
        ));
        let json = format!(
            "{{\"code\":\"nr:k={k},n={n}\",\"seed\":{seed},\"decoder\":\"{}\",\"points\":[{}]}}\n",
            a[8],
            points.join(",")
        );
        std::fs::write(&a[7], json).unwrap();
    }
}
