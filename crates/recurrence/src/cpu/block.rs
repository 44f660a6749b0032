//! One block of the chunked algorithm, written once and compiled per instruction set (the
//! `FMA` parameter; `avx2.rs` instantiates it with AVX2 and FMA enabled): map, interleaved
//! local recurrences, carries through the sub-chunks, correction.

use crate::elem::{madd, Element};
use crate::factors::{Factors, TableKind};
use sigpu_runtime::host::Isa;

/// Elements per sub-chunk: the factor tables and a sub-chunk stay in L1/L2. Not a power of
/// two: chains a power-of-two stride apart alias in the L1 sets and in the core's 4 KiB
/// store-to-load disambiguation, which made the interleaved recurrence 2× slower.
pub const SUB: usize = 2072;
/// Sub-chunks per block, run as interleaved dependency chains.
pub const CHAINS: usize = 8;
/// Elements per block: the unit of work of one thread.
pub const BLOCK: usize = SUB * CHAINS;

/// Everything a block needs that does not change between blocks.
pub(crate) struct Plan<'a, T> {
    pub(crate) ff: &'a [T],
    pub(crate) fb: &'a [T],
    /// Factors for `SUB`-element sub-chunks.
    pub(crate) factors: &'a Factors<T>,
    /// transfer(SUB), precomputed.
    pub(crate) transfer_sub: &'a [T],
    /// Block carry-outs do not depend on carry-ins (transfer(SUB) is zero).
    pub(crate) independent: bool,
    pub(crate) simd: Isa,
    /// The CPU has AVX-512: f64 blocks of orders 1–4 with len(b) = len(a) run the map and the
    /// local recurrences in one pass of the AVX-512 kernel (`avx512::plr_block`).
    pub(crate) avx512: bool,
    /// Write the output with non-temporal stores: for outputs larger than the caches, where
    /// nobody will read them back soon.
    pub(crate) stream: bool,
}

/// Outputs of at least this many bytes per channel are streamed past the caches.
pub const STREAM_BYTES: usize = 8 << 20;

/// What one block reads: the plan, the channel's input and state, and where the block starts.
pub(crate) struct BlockInput<'a, T> {
    pub(crate) plan: &'a Plan<'a, T>,
    pub(crate) x: &'a [T],
    pub(crate) zi: Option<&'a [T]>,
    pub(crate) start: usize,
}

/// One block: `y` holds elements `start..start + y.len()` of the channel. Returns whether
/// every sub-chunk's local recurrence ended finite: NaN and ±inf are absorbing in the map and
/// the local recurrence (every coefficient enters every step through a multiply-add, and
/// 0·inf is NaN), so a sub-chunk's last local value is non-finite whenever one of its inputs
/// is (or when finite inputs overflowed).
#[inline(always)]
pub(super) fn block<T: Element, const FMA: bool>(
    input: &BlockInput<'_, T>,
    y: &mut [T],
    carry_in: impl FnOnce() -> Vec<T>,
    post: impl FnOnce(&[T]),
) -> bool {
    let plan = input.plan;
    // A whole f64 block with AVX-512 runs the map and the chains in one pass.
    if !(FMA && y.len() == BLOCK && fused_local(input, y)) {
        map::<T, FMA>(plan.ff, input.x, input.zi, input.start, y);
        if y.len() == BLOCK {
            match plan.fb.len() {
                1 => chains_fixed::<T, FMA, 1>(plan.fb, y),
                2 => chains_fixed::<T, FMA, 2>(plan.fb, y),
                3 => chains_fixed::<T, FMA, 3>(plan.fb, y),
                4 => chains_fixed::<T, FMA, 4>(plan.fb, y),
                _ => chains_any::<T, FMA>(plan.fb, y),
            }
        } else {
            // A short last block: its whole sub-chunks as chains, then the remainder.
            let whole = y.len() / SUB;
            chains_any::<T, FMA>(plan.fb, &mut y[..whole * SUB]);
            recur_local::<T, FMA>(plan.fb, &mut y[whole * SUB..]);
        }
    }
    let finite = y
        .chunks(SUB)
        .all(|sub| sub.last().is_none_or(|v| v.is_finite()));
    let carries = block_carries::<T, FMA>(plan, y, carry_in, post);
    for (w, sub) in y.chunks_mut(SUB).enumerate() {
        correct::<T, FMA>(plan.factors, &carries[w], sub);
    }
    finite
}

/// The map and the local recurrences of a whole f64 block in one AVX-512 pass, where the plan
/// allows it (see [`Plan::avx512`]; not where zi is added to the block's first values):
/// returns whether it ran. The same bits as [`map`] and [`chains_fixed`] with FMA.
#[inline(always)]
fn fused_local<T: Element>(input: &BlockInput<'_, T>, y: &mut [T]) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        let plan = input.plan;
        let k = plan.fb.len();
        if !plan.avx512
            || T::DTYPE != crate::elem::DType::F64
            || !(1..=4).contains(&k)
            || plan.ff.len() != k + 1
            || input.zi.is_some_and(|z| input.start < z.len())
        {
            return false;
        }
        let f64s = |v: &[T]| {
            // SAFETY: T is f64 (its DTYPE says so): same layout, same length.
            unsafe { std::slice::from_raw_parts(v.as_ptr() as *const f64, v.len()) }
        };
        // SAFETY: as above, for the output.
        let y = unsafe { std::slice::from_raw_parts_mut(y.as_mut_ptr() as *mut f64, y.len()) };
        // SAFETY: `avx512` is only set when the CPU has AVX-512F (and FMA).
        unsafe {
            super::avx512::plr_block(f64s(plan.ff), f64s(plan.fb), f64s(input.x), input.start, y)
        };
        true
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (input, y);
        false
    }
}

/// The true last k values before each sub-chunk of `y` (filtered locally, from zero): the
/// block's carry-in propagated with the transfer matrices. Posts the block's carry-out as
/// early as the factors allow.
#[inline(always)]
fn block_carries<T: Element, const FMA: bool>(
    plan: &Plan<'_, T>,
    y: &[T],
    carry_in: impl FnOnce() -> Vec<T>,
    post: impl FnOnce(&[T]),
) -> Vec<Vec<T>> {
    let k = plan.fb.len();
    // Aggregates: each sub-chunk's last k local values (zero before its start).
    let subs = y.len().div_ceil(SUB);
    let last_k = |w: usize, y: &[T]| -> Vec<T> {
        let end = ((w + 1) * SUB).min(y.len());
        let begin = w * SUB;
        (0..k)
            .map(|r| {
                let at = end as isize - 1 - r as isize;
                if at >= begin as isize {
                    y[at as usize]
                } else {
                    T::ZERO
                }
            })
            .collect()
    };
    let sub_len = |w: usize| ((w + 1) * SUB).min(y.len()) - w * SUB;
    let transfer = |m: usize| -> Vec<T> {
        if m == SUB {
            plan.transfer_sub.to_vec()
        } else {
            plan.factors.transfer(m)
        }
    };
    // carries[w] = the true last k values before sub-chunk w.
    let mut carries: Vec<Vec<T>> = Vec::with_capacity(subs + 1);
    let propagate = |carries: &mut Vec<Vec<T>>, from: usize, y: &[T]| {
        for w in from..subs {
            let m = transfer(sub_len(w));
            let c = &carries[w];
            let mut next = last_k(w, y);
            for (r, out) in next.iter_mut().enumerate() {
                for (j, &cj) in c.iter().enumerate() {
                    *out = madd::<T, FMA>(m[r * k + j], cj, *out);
                }
            }
            carries.push(next);
        }
    };
    if plan.independent && y.len() == BLOCK {
        // The carry-out does not depend on the carry-in: post it before waiting.
        carries.push(vec![T::ZERO; k]);
        propagate(&mut carries, 0, y);
        post(&carries[subs]);
        carries[0] = carry_in();
    } else {
        carries.push(carry_in());
        propagate(&mut carries, 0, y);
        post(&carries[subs]);
    }
    carries
}

/// Outputs of [`map`] computed together (four AVX2 registers of f64).
const MAP_LANES: usize = 16;

/// y[i] = Σ_j ff[j]·x[start+i-j] (+ zi[start+i]); x before index 0 is zero.
#[inline(always)]
fn map<T: Element, const FMA: bool>(
    ff: &[T],
    x: &[T],
    zi: Option<&[T]>,
    start: usize,
    y: &mut [T],
) {
    let n = y.len();
    let xs = &x[start..start + n];
    if ff.len() == 1 && ff[0] == T::ONE {
        y.copy_from_slice(xs);
    } else {
        // Outputs whose every tap lies inside x, MAP_LANES at a time with every tap applied
        // while they stay in registers (one pass over y instead of one per tap; the same
        // roundings in the same order); the signal's first outputs tap by tap.
        let k = ff.len() - 1;
        let full = k.saturating_sub(start).min(n);
        let a0 = ff[0];
        for (yi, &xi) in y[..full].iter_mut().zip(xs) {
            *yi = a0.mul(xi);
        }
        for (j, &a) in ff.iter().enumerate().skip(1) {
            // Elements whose x[start+i-j] exists: i >= j - start.
            let first = j.saturating_sub(start);
            if first >= full {
                continue;
            }
            let src = &x[start + first - j..start + full - j];
            for (yi, &xi) in y[first..full].iter_mut().zip(src) {
                *yi = madd::<T, FMA>(a, xi, *yi);
            }
        }
        let mut i = full;
        while i + MAP_LANES <= n {
            let at = start + i;
            let mut acc = [T::ZERO; MAP_LANES];
            for (v, &xi) in acc.iter_mut().zip(&x[at..at + MAP_LANES]) {
                *v = a0.mul(xi);
            }
            for (j, &a) in ff.iter().enumerate().skip(1) {
                for (v, &xi) in acc.iter_mut().zip(&x[at - j..at - j + MAP_LANES]) {
                    *v = madd::<T, FMA>(a, xi, *v);
                }
            }
            y[i..i + MAP_LANES].copy_from_slice(&acc);
            i += MAP_LANES;
        }
        for (o, slot) in y.iter_mut().enumerate().skip(i) {
            let at = start + o;
            let mut v = a0.mul(x[at]);
            for (j, &a) in ff.iter().enumerate().skip(1) {
                v = madd::<T, FMA>(a, x[at - j], v);
            }
            *slot = v;
        }
    }
    if let Some(zi) = zi {
        for (i, &z) in zi.iter().enumerate().skip(start).take(n) {
            y[i - start] = y[i - start].add(z);
        }
    }
}

/// The recurrence over one sub-chunk in place, from zero history.
#[inline(always)]
fn recur_local<T: Element, const FMA: bool>(fb: &[T], y: &mut [T]) {
    for i in 0..y.len() {
        let mut v = y[i];
        for (l, &b) in fb.iter().enumerate().take(i) {
            v = madd::<T, FMA>(b, y[i - 1 - l], v);
        }
        y[i] = v;
    }
}

/// The recurrence over a full block's `CHAINS` sub-chunks, interleaved; order K known.
/// Orders 3 and 4 run the chains in two passes of `CHAINS / 2`, so that their states
/// (chains × K values) stay in the 16 vector registers instead of spilling to the stack.
#[inline(always)]
fn chains_fixed<T: Element, const FMA: bool, const K: usize>(fb: &[T], y: &mut [T]) {
    let y = &mut y[..BLOCK];
    let mut b = [T::ZERO; K];
    b.copy_from_slice(&fb[..K]);
    if K >= 3 {
        let (lo, hi) = y.split_at_mut(BLOCK / 2);
        chain_group::<T, FMA, K, { CHAINS / 2 }>(&b, lo);
        chain_group::<T, FMA, K, { CHAINS / 2 }>(&b, hi);
    } else {
        chain_group::<T, FMA, K, CHAINS>(&b, y);
    }
}

/// `G` consecutive sub-chunks of `y`, interleaved.
#[inline(always)]
fn chain_group<T: Element, const FMA: bool, const K: usize, const G: usize>(
    b: &[T; K],
    y: &mut [T],
) {
    // state[w][l] = y_{i-1-l} of chain w.
    let mut state = [[T::ZERO; K]; G];
    for i in 0..SUB {
        for (w, st) in state.iter_mut().enumerate() {
            let idx = w * SUB + i;
            // Oldest history first: the newest value, which the previous step has only just
            // produced, enters last, so each step waits for one multiply-add, not K.
            let mut v = y[idx];
            for l in (0..K).rev() {
                v = madd::<T, FMA>(b[l], st[l], v);
            }
            for l in (1..K).rev() {
                st[l] = st[l - 1];
            }
            st[0] = v;
            y[idx] = v;
        }
    }
}

/// The same for any order and any number of whole sub-chunks in `y`, reading the history
/// back from memory.
#[inline(always)]
fn chains_any<T: Element, const FMA: bool>(fb: &[T], y: &mut [T]) {
    let k = fb.len();
    let chains = y.len() / SUB;
    for i in 0..SUB {
        for w in 0..chains {
            let idx = w * SUB + i;
            let mut v = y[idx];
            for (l, &b) in fb.iter().enumerate().take(i.min(k)) {
                v = madd::<T, FMA>(b, y[idx - 1 - l], v);
            }
            y[idx] = v;
        }
    }
}

/// y[i] += Σ_j carry[j]·f_j[i] over the factor tables: the carry-in correction.
#[inline(always)]
fn correct<T: Element, const FMA: bool>(factors: &Factors<T>, carry: &[T], y: &mut [T]) {
    if carry.iter().all(|&c| c == T::ZERO) {
        return;
    }
    let len = factors.len().min(y.len());
    let y = &mut y[..len];
    for (j, &c) in carry.iter().enumerate() {
        match factors.kind(j) {
            TableKind::Zero => {}
            TableKind::Ones => {
                for v in y.iter_mut() {
                    *v = v.add(c);
                }
            }
            TableKind::General => {
                for (v, &f) in y.iter_mut().zip(factors.table(j)) {
                    *v = madd::<T, FMA>(f, c, *v);
                }
            }
        }
    }
}
