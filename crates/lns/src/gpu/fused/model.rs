//! A CPU model of `kernels/reduce.cu`, operation for operation: the thread / block / grid
//! partition of the terms, the 8-word and 4-word finite fast paths and their per-word fallback,
//! the last n mod 4 words (as the kernel takes them, or as earlier forms did: [`Tail`]), the
//! two TwoSum accumulators per thread, the integer max-shift, the table
//! and polynomial terms, the warp-shuffle and shared-memory merges and the finishing block.
//! Tests run it where no GPU is present: a result that depends on which thread or accumulator
//! meets which term (exact cancellation above all) shows up here as on the device.
//!
//! f64 library calls are the host's (`exp2` for the table, `log2` for the final rounding);
//! CUDA's are within an ulp of them, which can move a total by far less than a code.

use super::{ExpPoly, TABLE_BITS, THREADS};
use crate::format::Format;

/// How the kernel hands out the words after the last whole 16-byte vector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tail {
    /// One word per thread (threads 0, 1, 2 of the grid), accumulator 0 each: the kernel as
    /// first written. An x, −x pair in the tail then lands in two threads, whose running sums
    /// round differently, so the pair no longer cancels exactly.
    PerThread,
    /// One vector padded with zero words, by the thread that owns vector `n / 4` in the
    /// grid-stride order, lanes into that thread's accumulators 0, 1, 0. Pairs cancel, but a
    /// lone last word breaks the mirror between the two accumulators.
    SharedAccumulators,
    /// As `SharedAccumulators`, into accumulators of its own whose partial joins the thread's:
    /// the kernel.
    OwnAccumulators,
}

const CLS_ZERO: u8 = 0;
const CLS_FINITE: u8 = 1;
const CLS_INF: u8 = 2;
const CLS_NAN: u8 = 3;
const RED_NAN: i32 = 1;
const RED_PINF: i32 = 2;
const RED_NINF: i32 = 4;
const RED_NONE: i64 = i64::MIN;
const ACC_NONE: i32 = i32::MIN;

/// ldexp with IEEE rounding (ties to even) into the subnormal range, as CUDA's.
pub(crate) fn ldexp(x: f64, k: i32) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let bits = x.to_bits();
    let neg = bits >> 63 == 1;
    let (mut mant, mut exp) = (
        (bits & ((1 << 52) - 1)) as i64,
        ((bits >> 52) & 0x7ff) as i64,
    );
    if exp == 0 {
        exp = 1; // subnormal: no hidden bit
    } else {
        mant |= 1 << 52;
    }
    // x = mant · 2^(exp − 1075); normalise so the leading bit is bit 52.
    while mant < 1 << 52 {
        mant <<= 1;
        exp -= 1;
    }
    let e = exp + k as i64; // biased exponent of the result, if normal
    let mag = if e >= 0x7ff {
        f64::INFINITY
    } else if e >= 1 {
        f64::from_bits(((e as u64) << 52) | (mant as u64 & ((1 << 52) - 1)))
    } else {
        // Subnormal: shift right by 1 − e, rounding ties to even.
        let sh = 1 - e;
        if sh > 54 {
            0.0
        } else {
            let q = mant >> sh;
            let rem = mant & ((1i64 << sh) - 1);
            let half = 1i64 << (sh - 1);
            let q = if rem > half || (rem == half && q & 1 == 1) {
                q + 1
            } else {
                q
            };
            f64::from_bits(q as u64) // q = 2^52 carries into the smallest normal
        }
    };
    if neg {
        -mag
    } else {
        mag
    }
}

#[derive(Clone, Copy, Debug)]
struct Partial {
    max: i64,
    sum: f64,
    comp: f64,
    flags: i32,
}

const EMPTY: Partial = Partial {
    max: RED_NONE,
    sum: 0.0,
    comp: 0.0,
    flags: 0,
};

fn red_add(s: &mut f64, comp: &mut f64, v: f64) {
    let t = *s + v;
    *comp += if s.abs() >= v.abs() {
        (*s - t) + v
    } else {
        (v - t) + *s
    };
    *s = t;
}

fn red_merge(mut a: Partial, b: &Partial) -> Partial {
    a.flags |= b.flags;
    if b.max == RED_NONE {
        return a;
    }
    if a.max == RED_NONE {
        return Partial {
            flags: a.flags,
            ..*b
        };
    }
    let m = a.max.max(b.max);
    let da = (a.max - m).max(-2000) as i32;
    let db = (b.max - m).max(-2000) as i32;
    let mut r = Partial {
        max: m,
        sum: ldexp(a.sum, da),
        comp: ldexp(a.comp, da) + ldexp(b.comp, db),
        flags: a.flags,
    };
    red_add(&mut r.sum, &mut r.comp, ldexp(b.sum, db));
    r
}

/// `red_block`: shuffle-down trees within each warp, then over the warps' results.
fn red_block(mut p: Vec<Partial>) -> Partial {
    let warp = |v: &mut [Partial]| {
        let mut o = 16;
        while o > 0 {
            // Every lane reads its partner's value from before this step.
            let old = v.to_vec();
            for l in 0..32 {
                if l + o < 32 {
                    v[l] = red_merge(old[l], &old[l + o]);
                }
            }
            o >>= 1;
        }
    };
    let mut firsts = Vec::with_capacity(32);
    for w in p.chunks_mut(32) {
        warp(w);
        firsts.push(w[0]);
    }
    firsts.resize(32, EMPTY);
    warp(&mut firsts);
    firsts[0]
}

/// Per-thread state (`struct Acc`).
#[derive(Clone, Copy, Debug)]
struct Acc {
    max: i32,
    s: [f64; 2],
    c: [f64; 2],
    flags: i32,
}

/// The kernel's constants and table for one format.
struct Ctx {
    l: u32,
    f: u32,
    narrow: bool,
    tab: Vec<f64>,
    e: ExpPoly,
    lmask: u32,
    inf: u32,
}

impl Ctx {
    fn new(format: Format) -> Ctx {
        let l = format.log_bits();
        let f = format.frac_bits;
        let tb = f.min(TABLE_BITS);
        let tab = (0..1u32 << tb)
            .map(|j| (j as f64 / (1u32 << tb) as f64).exp2())
            .collect();
        Ctx {
            l,
            f,
            narrow: format.int_bits <= 8,
            tab,
            e: ExpPoly::new(format),
            lmask: (1u32 << l) - 1,
            inf: (1u32 << (l - 1)) - 1,
        }
    }

    fn fm(&self) -> u32 {
        (1u32 << self.f) - 1
    }

    /// `acc_split`: (class, binade, fraction, sign bit).
    fn split(&self, w: u32) -> (u8, i32, u32, u32) {
        let l = self.l;
        let c = ((w << (32 - l)) as i32) >> (32 - l);
        let sbit = (w << (31 - l)) & 0x8000_0000;
        let bin = c >> self.f;
        let frac = c as u32 & self.fm();
        let cls = if c == -(1 << (l - 1)) {
            if sbit != 0 {
                CLS_NAN
            } else {
                CLS_ZERO
            }
        } else if c == (1 << (l - 1)) - 1 {
            CLS_INF
        } else {
            CLS_FINITE
        };
        (cls, bin, frac, sbit)
    }

    fn bin(&self, w: u32) -> i32 {
        ((w << (32 - self.l)) as i32) >> (32 - self.l + self.f)
    }

    fn sbit(&self, w: u32) -> u32 {
        (w << (31 - self.l)) & 0x8000_0000
    }

    fn finite4(&self, p: [u32; 4]) -> bool {
        p.iter()
            .map(|&w| (w & self.lmask).wrapping_sub(self.inf))
            .min()
            .unwrap()
            > 1
    }

    /// `acc_raise`: exact power-of-two rescale to a larger binade.
    fn raise(&self, a: &mut Acc, m: i32, narrow: bool) {
        if m > a.max {
            if a.max != ACC_NONE {
                let drop = (a.max - m).max(-2000);
                for k in 0..2 {
                    if narrow {
                        let s = f64::from_bits(((drop + 1023) as u64) << 52);
                        a.s[k] *= s;
                        a.c[k] *= s;
                    } else {
                        a.s[k] = ldexp(a.s[k], drop);
                        a.c[k] = ldexp(a.c[k], drop);
                    }
                }
            }
            a.max = m;
        }
    }

    /// `acc_scaled`: ±2^(bin − M + frac·ulp) into accumulator k by TwoSum.
    fn scaled(&self, a: &mut Acc, k: usize, bin: i32, frac: u32, sbit: u32, narrow: bool) {
        let d = bin - a.max;
        let e = &self.e;
        let r = (frac & e.rmask) as f64; // the 2^52 trick is exact: frac & rmask < 2^31
        let [c1, c2, c3] = e.c;
        let q = r.mul_add(r.mul_add(c3, c2), c1);
        let t = self.tab[(frac >> e.rshift) as usize];
        let ts = if narrow || d >= -1022 {
            let hi = ((t.to_bits() >> 32) as i32).wrapping_add(d << 20) ^ sbit as i32;
            f64::from_bits(((hi as u32 as u64) << 32) | (t.to_bits() & 0xffff_ffff))
        } else {
            let ts = ldexp(t, d.max(-2000));
            if sbit != 0 {
                -ts
            } else {
                ts
            }
        };
        let v = ts.mul_add(r * q, ts);
        let (s, c) = (a.s[k], a.c[k]);
        let t = s + v;
        let bv = t - s;
        let as_ = t - bv;
        a.c[k] = c + ((s - as_) + (v - bv));
        a.s[k] = t;
    }

    fn flag(&self, a: &mut Acc, cls: u8, sbit: u32) {
        if cls == CLS_NAN {
            a.flags |= RED_NAN;
        } else if cls == CLS_INF {
            a.flags |= if sbit != 0 { RED_NINF } else { RED_PINF };
        }
    }

    /// `acc_word<k>`.
    fn word(&self, a: &mut Acc, k: usize, w: u32) {
        let (cls, bin, frac, sbit) = self.split(w);
        if cls == CLS_FINITE {
            self.raise(a, bin, false);
            self.scaled(a, k, bin, frac, sbit, false);
        } else {
            self.flag(a, cls, sbit);
        }
    }

    /// `acc_pair<k>`: the exact product x·y.
    fn pair(&self, a: &mut Acc, k: usize, x: u32, y: u32) {
        let (cx, bx, fx, sx) = self.split(x);
        let (cy, by, fy, sy) = self.split(y);
        // `red_product`: NaN, and 0·∞, give NaN.
        let zero_inf = (cx == CLS_ZERO && cy == CLS_INF) || (cx == CLS_INF && cy == CLS_ZERO);
        let cls = if cx == CLS_NAN || cy == CLS_NAN || zero_inf {
            CLS_NAN
        } else if cx == CLS_ZERO || cy == CLS_ZERO {
            CLS_ZERO
        } else if cx == CLS_INF || cy == CLS_INF {
            CLS_INF
        } else {
            CLS_FINITE
        };
        let sbit = sx ^ sy;
        if cls == CLS_FINITE {
            let f = fx + fy;
            let bin = bx + by + (f >> self.f) as i32;
            self.raise(a, bin, false);
            self.scaled(a, k, bin, f & self.fm(), sbit, false);
        } else {
            self.flag(a, cls, sbit);
        }
    }

    /// Finite words under one binade test: the accumulators raised once to the largest
    /// binade, then each word scaled in, lanes alternating between the two accumulators.
    fn finite_words(&self, a: &mut Acc, ws: &[u32]) {
        let top = ws.iter().map(|&w| self.bin(w)).max().unwrap();
        self.raise(a, top, self.narrow);
        for (lane, &w) in ws.iter().enumerate() {
            let bin = self.bin(w);
            self.scaled(a, lane & 1, bin, w & self.fm(), self.sbit(w), self.narrow);
        }
    }

    /// `acc_vec`: one vector of the sum.
    fn vec(&self, a: &mut Acc, p: [u32; 4]) {
        if self.finite4(p) {
            self.finite_words(a, &p);
        } else {
            for (lane, &w) in p.iter().enumerate() {
                self.word(a, lane & 1, w);
            }
        }
    }

    /// `acc_vec8`: two vectors of the sum under one test.
    fn vec8(&self, a: &mut Acc, p: [u32; 4], q: [u32; 4]) {
        if self.finite4(p) && self.finite4(q) {
            self.finite_words(a, &[p[0], p[1], p[2], p[3], q[0], q[1], q[2], q[3]]);
        } else {
            self.vec(a, p);
            self.vec(a, q);
        }
    }

    /// `acc_vec2`: one vector of the dot.
    fn vec2(&self, a: &mut Acc, p: [u32; 4], u: [u32; 4]) {
        if self.finite4(p) && self.finite4(u) {
            let fm = self.fm();
            let f: [u32; 4] = std::array::from_fn(|k| (p[k] & fm) + (u[k] & fm));
            let bins: [i32; 4] =
                std::array::from_fn(|k| self.bin(p[k]) + self.bin(u[k]) + (f[k] >> self.f) as i32);
            self.raise(a, *bins.iter().max().unwrap(), self.narrow);
            for k in 0..4 {
                self.scaled(
                    a,
                    k & 1,
                    bins[k],
                    f[k] & fm,
                    self.sbit(p[k] ^ u[k]),
                    self.narrow,
                );
            }
        } else {
            for k in 0..4 {
                self.pair(a, k & 1, p[k], u[k]);
            }
        }
    }
}

/// `acc_partial`: the two accumulators merged.
fn partial(a: &Acc) -> Partial {
    let mut p = Partial {
        flags: a.flags,
        ..EMPTY
    };
    if a.max != ACC_NONE {
        p.max = a.max as i64;
        p.sum = a.s[0];
        p.comp = a.c[0];
        let q = Partial {
            max: a.max as i64,
            sum: a.s[1],
            comp: a.c[1],
            flags: 0,
        };
        p = red_merge(p, &q);
    }
    p
}

/// The word the kernels leave for Σ xs (`ys` None) or Σ xs·ys on a grid of `nblocks` blocks
/// of 256 threads (`blocks_for(n, sms)` on a device of `sms` SMs), the buffers 16-byte aligned.
pub(crate) fn fused(
    format: Format,
    xs: &[u32],
    ys: Option<&[u32]>,
    nblocks: usize,
    tail: Tail,
) -> u32 {
    let cx = Ctx::new(format);
    let n = xs.len();
    let threads = THREADS as usize;
    let stride = nblocks * threads;
    let nv = n >> 2;
    let vx = |i: usize| -> [u32; 4] { std::array::from_fn(|k| xs[4 * i + k]) };
    let vy = |i: usize| -> [u32; 4] { std::array::from_fn(|k| ys.unwrap()[4 * i + k]) };
    // The tail padded with zero words (a zero times anything finite is a zero term).
    let pad = |v: &[u32]| -> [u32; 4] {
        std::array::from_fn(|k| v.get(4 * nv + k).copied().unwrap_or(format.zero()))
    };
    let mut parts = Vec::with_capacity(nblocks);
    for b in 0..nblocks {
        let mut block = Vec::with_capacity(threads);
        for t in 0..threads {
            let tid = b * threads + t;
            let mut a = Acc {
                max: ACC_NONE,
                s: [0.0; 2],
                c: [0.0; 2],
                flags: 0,
            };
            let mut i = tid;
            while i + stride < nv {
                match ys {
                    Some(_) => {
                        cx.vec2(&mut a, vx(i), vy(i));
                        cx.vec2(&mut a, vx(i + stride), vy(i + stride));
                    }
                    None => cx.vec8(&mut a, vx(i), vx(i + stride)),
                }
                i += 2 * stride;
            }
            if i < nv {
                match ys {
                    Some(_) => cx.vec2(&mut a, vx(i), vy(i)),
                    None => cx.vec(&mut a, vx(i)),
                }
            }
            let mut b = Acc {
                max: ACC_NONE,
                s: [0.0; 2],
                c: [0.0; 2],
                flags: 0,
            };
            let owner = 4 * nv < n && tid == nv % stride;
            match tail {
                Tail::PerThread => {
                    let mut i = 4 * nv + tid;
                    while i < n {
                        match ys {
                            Some(ys) => cx.pair(&mut a, 0, xs[i], ys[i]),
                            None => cx.word(&mut a, 0, xs[i]),
                        }
                        i += stride;
                    }
                }
                Tail::SharedAccumulators | Tail::OwnAccumulators if owner => {
                    let acc = if tail == Tail::OwnAccumulators {
                        &mut b
                    } else {
                        &mut a
                    };
                    match ys {
                        Some(ys) => cx.vec2(acc, pad(xs), pad(ys)),
                        None => cx.vec(acc, pad(xs)),
                    }
                }
                _ => {}
            }
            let p = red_merge(partial(&a), &partial(&b));
            block.push(p);
        }
        parts.push(red_block(block));
    }
    finish(format, &parts)
}

/// `lns_fused_finish`: one block of 1024 threads folds contiguous runs, then `red_block`.
fn finish(format: Format, parts: &[Partial]) -> u32 {
    let n = parts.len();
    let per = n.div_ceil(1024);
    let folded: Vec<Partial> = (0..1024)
        .map(|t| {
            let mut p = EMPTY;
            for part in parts.iter().take(n.min((t + 1) * per)).skip(t * per) {
                p = red_merge(p, part);
            }
            p
        })
        .collect();
    let p = red_block(folded);
    let l = format.log_bits();
    let ulp = format.ulp();
    let sign = 1u32 << l;
    let mask = sign - 1;
    let special = -(1i64 << (l - 1));
    let inf = (1i64 << (l - 1)) - 1;
    if p.flags & RED_NAN != 0 || (p.flags & RED_PINF != 0 && p.flags & RED_NINF != 0) {
        return sign | (special as u32 & mask);
    }
    if p.flags & (RED_PINF | RED_NINF) != 0 {
        return (if p.flags & RED_NINF != 0 { sign } else { 0 }) | (inf as u32 & mask);
    }
    let total = p.sum + p.comp;
    if p.max == RED_NONE || total == 0.0 {
        return special as u32 & mask;
    }
    let lg = (p.max << format.frac_bits) as f64 + total.abs().log2() / ulp;
    let code = lg
        .clamp(-1099511627776.0, 1099511627776.0)
        .round_ties_even() as i64;
    let s = if total < 0.0 { sign } else { 0 };
    if code > inf - 1 {
        s | (inf as u32 & mask)
    } else if code < special + 1 {
        special as u32 & mask
    } else {
        s | (code as u32 & mask)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ldexp_rounds_like_ieee() {
        assert_eq!(ldexp(1.5, 3), 12.0);
        assert_eq!(ldexp(1.0, -1074), f64::from_bits(1));
        assert_eq!(ldexp(1.0, -1075), 0.0); // tie to even
        assert_eq!(ldexp(1.5, -1075), f64::from_bits(1));
        assert_eq!(ldexp(3.0, -1075), f64::from_bits(2)); // 1.5 ulp: tie to even
        assert_eq!(ldexp(-1.0, 1024), f64::NEG_INFINITY);
        assert_eq!(ldexp(f64::from_bits(1), 1074), 1.0);
        for k in [-1022, -500, 0, 500, 1000] {
            assert_eq!(ldexp(1.2345, k), 1.2345 * 2f64.powi(k));
        }
    }
}

#[cfg(test)]
mod h100_words {
    //! The inputs of the nvcc harness in `bench/results/2026-11-27-h100-lns-fused-sum/harness`
    //! (`lns_main.cu`, `check_case`), drawn the same way here, and the words the kernel gave
    //! for them on an H100 (132 SMs: grids of 528 blocks), every variant measured there alike.

    use super::*;

    fn splitmix(s: &mut u64) -> u64 {
        *s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = *s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Case `kind`: 0 the benchmark's words (log uniform in [−12, 12), random sign), 2^20 + 3;
    /// 1 the same, all positive, 2^20; 2 random finite codes over the whole lns32 range, 2^20 + 1;
    /// 3 pairs x, −x, 2^20 + 2; 4 the benchmark's words with every 997th a zero, 2^20 + 1.
    fn case(kind: u32) -> Vec<u32> {
        let n = [
            (1 << 20) + 3,
            1 << 20,
            (1 << 20) + 1,
            (1 << 20) + 2,
            (1 << 20) + 1,
        ][kind as usize];
        let mut s = kind as u64 + 1;
        let enc =
            |neg: bool, lg: i64| (if neg { 0x8000_0000u32 } else { 0 }) | (lg as u32 & 0x7fff_ffff);
        let mut w: Vec<u32> = (0..n)
            .map(|_| {
                let r = splitmix(&mut s);
                let b = splitmix(&mut s);
                match kind {
                    2 => enc(b & 1 == 1, (r % ((2u64 << 30) - 4)) as i64 - (1 << 30) + 2),
                    1 => enc(false, (r % (24u64 << 23)) as i64 - (12 << 23)),
                    _ => enc(b & 1 == 1, (r % (24u64 << 23)) as i64 - (12 << 23)),
                }
            })
            .collect();
        if kind == 3 {
            for k in (0..n - 1).step_by(2) {
                w[k + 1] = w[k] ^ 0x8000_0000;
            }
        }
        if kind == 4 {
            for k in (0..n).step_by(997) {
                w[k] = 0x4000_0000;
            }
        }
        w
    }

    #[test]
    fn the_model_gives_the_h100_words_of_the_harness_inputs() {
        // (sum, dot) per case; the dot's second vector is the first rotated by 12345.
        let h100: [(u32, u32); 5] = [
            (0x089a_2819, 0x8d84_9256),
            (0x0df9_cd58, 0x11f1_9490),
            (0xbfff_ffff, 0x3fff_ffff),
            (0x4000_0000, 0x0e83_d435),
            (0x0966_d6b0, 0x8e05_2f3e),
        ];
        let f = Format::LNS32;
        for (kind, &(sum, dot)) in h100.iter().enumerate() {
            let xs = case(kind as u32);
            let n = xs.len();
            let ys: Vec<u32> = (0..n).map(|i| xs[(i + 12345) % n]).collect();
            assert_eq!(
                fused(f, &xs, None, 528, Tail::OwnAccumulators),
                sum,
                "case {kind} sum"
            );
            assert_eq!(
                fused(f, &xs, Some(&ys), 528, Tail::OwnAccumulators),
                dot,
                "case {kind} dot"
            );
            // Here the CPU's twin rounds to the same words.
            assert_eq!(f.sum(&xs), sum, "case {kind} CPU sum");
            assert_eq!(f.dot(&xs, &ys).unwrap(), dot, "case {kind} CPU dot");
        }
    }
}
