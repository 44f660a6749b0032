//! The multi-core CPU path: PLR's chunked algorithm, shaped for caches and out-of-order cores.
//!
//! A channel is cut into blocks of `CHAINS` sub-chunks of `SUB` elements. One thread takes a
//! block (blocks are handed out in order from an atomic counter) and
//! 1. maps x into y (the non-recursive part, `(a0, … : 0)`), contiguous and vectorisable;
//! 2. runs the recurrence `(1 : b…)` in its sub-chunks as if each started from zero, the
//!    `CHAINS` sub-chunks interleaved so their independent dependency chains overlap in the
//!    core (a lone chain waits out the full FMA latency at every element);
//! 3. takes the block's carry-in (the true last k values of the previous block) once its
//!    predecessor has posted it, and propagates it through the sub-chunks with the k×k
//!    transfer matrix built from the correction factors; it posts the block's carry-out at
//!    once when the factors say that carry-out cannot depend on the carry-in (decaying
//!    filters: no serial chain at all), otherwise as soon as it has its carry-in;
//! 4. corrects each sub-chunk while it is still in cache: y[i] += Σ_j c_j·f_j[i], over the
//!    (truncated) factor tables; this loop is the SIMD one.
//!
//! The block is worked on in a per-thread scratch buffer that stays in L2 and is then written
//! to y with non-temporal stores (AVX2), so each element costs one read and one write of
//! memory, without the read-for-ownership a plain store to y would add. The block functions
//! are compiled twice, once with AVX2+FMA enabled, chosen at run time.

use crate::elem::{madd, Element};
use crate::factors::{Factors, TableKind};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

/// Elements per sub-chunk: the factor tables and a sub-chunk stay in L1/L2. Not a power of
/// two: chains a power-of-two stride apart alias in the L1 sets and in the core's 4 KiB
/// store-to-load disambiguation, which made the interleaved recurrence 2× slower.
pub const SUB: usize = 2072;
/// Sub-chunks per block, run as interleaved dependency chains.
pub const CHAINS: usize = 8;
/// Elements per block: the unit of work of one thread.
pub const BLOCK: usize = SUB * CHAINS;

/// Instruction set the block functions run with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Simd {
    #[serde(rename = "AVX2+FMA")]
    Avx2Fma,
    #[serde(rename = "scalar")]
    Scalar,
}

impl Simd {
    /// The best this CPU has, unless `allow` is false.
    pub fn detect(allow: bool) -> Simd {
        let cpu = sigpu_runtime::host::SimdFeatures::detect();
        if allow && cfg!(target_arch = "x86_64") && cpu.avx2 && cpu.fma {
            Simd::Avx2Fma
        } else {
            Simd::Scalar
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Simd::Avx2Fma => "AVX2+FMA",
            Simd::Scalar => "scalar",
        }
    }
}

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
    pub(crate) simd: Simd,
    /// Write the output with non-temporal stores: for outputs larger than the caches, where
    /// nobody will read them back soon.
    pub(crate) stream: bool,
}

/// Outputs of at least this many bytes per channel are streamed past the caches.
pub const STREAM_BYTES: usize = 8 << 20;

/// Filters one channel: `x` into `y` (same length), with the initial state `zi` added to the
/// first mapped values, on up to `threads` threads.
pub(crate) fn filter_channel<T: Element>(
    plan: &Plan<'_, T>,
    x: &[T],
    zi: Option<&[T]>,
    y: &mut [T],
    threads: usize,
) {
    let n = x.len();
    let k = plan.fb.len();
    let nblocks = n.div_ceil(BLOCK);
    let threads = threads.clamp(1, nblocks.max(1));
    if threads == 1 {
        let mut carry = vec![T::ZERO; k];
        let mut scratch = vec![T::ZERO; BLOCK];
        for (b, yb) in y.chunks_mut(BLOCK).enumerate() {
            let prev = carry.clone();
            let post = |c: &[T]| carry.copy_from_slice(c);
            run_block(plan, x, zi, b * BLOCK, yb, &mut scratch, || prev, post);
        }
        return;
    }
    let carries: Vec<AtomicU64> = (0..nblocks * k).map(|_| AtomicU64::new(0)).collect();
    let ready: Vec<AtomicBool> = (0..nblocks).map(|_| AtomicBool::new(false)).collect();
    let blocks: Vec<Mutex<&mut [T]>> = y.chunks_mut(BLOCK).map(Mutex::new).collect();
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                let mut scratch = vec![T::ZERO; BLOCK];
                loop {
                    let b = next.fetch_add(1, Ordering::Relaxed);
                    if b >= nblocks {
                        break;
                    }
                    let mut yb = blocks[b].lock().unwrap_or_else(|p| p.into_inner());
                    let wait = || {
                        if b == 0 {
                            return vec![T::ZERO; k];
                        }
                        // The predecessor was handed out earlier and never waits on us: spin briefly,
                        // then yield so an oversubscribed machine still makes progress.
                        let mut spins = 0u32;
                        while !ready[b - 1].load(Ordering::Acquire) {
                            spins += 1;
                            if spins < 2000 {
                                std::hint::spin_loop();
                            } else {
                                std::thread::yield_now();
                            }
                        }
                        (0..k)
                            .map(|j| {
                                T::from_bits64(carries[(b - 1) * k + j].load(Ordering::Relaxed))
                            })
                            .collect()
                    };
                    let post = |c: &[T]| {
                        for (j, v) in c.iter().enumerate() {
                            carries[b * k + j].store(v.to_bits64(), Ordering::Relaxed);
                        }
                        ready[b].store(true, Ordering::Release);
                    };
                    run_block(plan, x, zi, b * BLOCK, &mut yb, &mut scratch, wait, post);
                }
            });
        }
    });
}

#[allow(clippy::too_many_arguments)]
fn run_block<T: Element>(
    plan: &Plan<'_, T>,
    x: &[T],
    zi: Option<&[T]>,
    start: usize,
    out: &mut [T],
    scratch: &mut [T],
    carry_in: impl FnOnce() -> Vec<T>,
    post: impl FnOnce(&[T]),
) {
    let y = &mut scratch[..out.len()];
    match plan.simd {
        #[cfg(target_arch = "x86_64")]
        Simd::Avx2Fma => {
            // SAFETY: Simd::Avx2Fma is only chosen when the CPU reports AVX2 and FMA.
            unsafe {
                block_avx2_fma(plan, x, zi, start, y, carry_in, post);
                if plan.stream {
                    stream_copy_avx2(out, y);
                } else {
                    out.copy_from_slice(y);
                }
            }
        }
        _ => {
            block::<T, false>(plan, x, zi, start, y, carry_in, post);
            out.copy_from_slice(y);
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn block_avx2_fma<T: Element>(
    plan: &Plan<'_, T>,
    x: &[T],
    zi: Option<&[T]>,
    start: usize,
    y: &mut [T],
    carry_in: impl FnOnce() -> Vec<T>,
    post: impl FnOnce(&[T]),
) {
    block::<T, true>(plan, x, zi, start, y, carry_in, post)
}

/// `dst.copy_from_slice(src)` with non-temporal 32-byte stores: the output bypasses the caches
/// and is not read from memory before it is overwritten.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn stream_copy_avx2<T: Element>(dst: &mut [T], src: &[T]) {
    use std::arch::x86_64::{__m256i, _mm256_loadu_si256, _mm256_stream_si256, _mm_sfence};
    assert_eq!(dst.len(), src.len());
    let size = std::mem::size_of::<T>();
    // Elements before the first 32-byte boundary of dst, then whole 32-byte groups.
    let misaligned = (dst.as_ptr() as usize) % 32;
    let head = if misaligned == 0 {
        0
    } else {
        ((32 - misaligned) / size).min(dst.len())
    };
    dst[..head].copy_from_slice(&src[..head]);
    let per = 32 / size;
    let groups = (dst.len() - head) / per;
    let d = dst[head..].as_mut_ptr() as *mut __m256i;
    let s = src[head..].as_ptr() as *const __m256i;
    for g in 0..groups {
        // SAFETY: g < groups keeps both 32-byte accesses inside the slices; d is 32-byte
        // aligned (element sizes divide 32 and the head was peeled off).
        unsafe { _mm256_stream_si256(d.add(g), _mm256_loadu_si256(s.add(g))) };
    }
    let done = head + groups * per;
    dst[done..].copy_from_slice(&src[done..]);
    // Order the streaming stores before whatever this thread publishes next.
    _mm_sfence();
}

/// One block: `y` holds elements `start..start + y.len()` of the channel.
#[inline(always)]
fn block<T: Element, const FMA: bool>(
    plan: &Plan<'_, T>,
    x: &[T],
    zi: Option<&[T]>,
    start: usize,
    y: &mut [T],
    carry_in: impl FnOnce() -> Vec<T>,
    post: impl FnOnce(&[T]),
) {
    let k = plan.fb.len();
    map::<T, FMA>(plan.ff, x, zi, start, y);
    if y.len() == BLOCK {
        match k {
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
    for (w, sub) in y.chunks_mut(SUB).enumerate() {
        correct::<T, FMA>(plan.factors, &carries[w], sub);
    }
}

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
        let a0 = ff[0];
        for (yi, &xi) in y.iter_mut().zip(xs) {
            *yi = a0.mul(xi);
        }
        for (j, &a) in ff.iter().enumerate().skip(1) {
            // Elements whose x[start+i-j] exists: i >= j - start.
            let first = j.saturating_sub(start);
            if first >= n {
                continue;
            }
            let src = &x[start + first - j..start + n - j];
            for (yi, &xi) in y[first..].iter_mut().zip(src) {
                *yi = madd::<T, FMA>(a, xi, *yi);
            }
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
