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
//! to y with non-temporal stores (AVX2) when y is large and was written before, so each
//! element costs one read and one write of memory, without the read-for-ownership a plain
//! store to y would add; a fresh output (its pages zeroed by the kernel at the first write,
//! the lines then still cached) takes plain stores. The block functions
//! are compiled twice, once with AVX2+FMA enabled, chosen at run time.

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
mod block;
pub(crate) mod sos;
mod sos_portable;
mod sos_shape;

pub(crate) use block::{BlockInput, Plan};
pub use block::{BLOCK, CHAINS, STREAM_BYTES, SUB};
pub use sigpu_runtime::host::Isa;
pub use sos::best as sos_isa;

/// The instruction sets the (b, a) block functions are compiled for, besides scalar.
pub const BLOCK_OFFERED: [Isa; 1] = [Isa::Avx2Fma];

/// The best of the block functions' instruction sets that `arch` (narrowed to the host) has.
pub fn block_isa(arch: &sigpu_runtime::host::CpuArch) -> Isa {
    Isa::best_of(arch, &BLOCK_OFFERED)
}

use crate::elem::Element;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

/// A zeroed vector of `len` values for an output, its pages left untouched (calloc) and, on
/// Linux from 4 MiB, advised to be backed by 2 MiB huge pages (as numpy does for its arrays):
/// the first write of a fresh output then takes 1/512 of the page faults.
pub fn output_vec<T: Element>(len: usize) -> Vec<T> {
    let v = vec![T::ZERO; len];
    advise_huge_pages(&v);
    v
}

fn advise_huge_pages<T>(v: &[T]) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let bytes = std::mem::size_of_val(v);
        if bytes < 4 << 20 {
            return;
        }
        let start = v.as_ptr() as usize;
        let (a, e) = (start.next_multiple_of(HUGE), (start + bytes) / HUGE * HUGE);
        if e > a {
            // SAFETY: [a, e) lies inside v's allocation; MADV_HUGEPAGE changes how pages are
            // backed, never their contents. A refusal (no THP) changes nothing.
            unsafe {
                libc::madvise(a as *mut libc::c_void, e - a, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = v;
}

/// Filters one channel: `x` into `y` (same length), with the initial state `zi` added to the
/// first mapped values, on up to `threads` threads. Returns false when a non-finite value
/// appeared in a local recurrence (a non-finite input, or an overflow; see `block::block`).
pub(crate) fn filter_channel<T: Element>(
    plan: &Plan<'_, T>,
    x: &[T],
    zi: Option<&[T]>,
    y: &mut [T],
    threads: usize,
) -> bool {
    let n = x.len();
    let k = plan.fb.len();
    let nblocks = n.div_ceil(BLOCK);
    let threads = threads.clamp(1, nblocks.max(1));
    // Polled before a block is taken (never after: a block handed out is always finished, so
    // no later block waits on it forever); a cancelled caller discards y.
    let cancel = sigpu_runtime::cancel::Cancel::current();
    if threads == 1 {
        let mut carry = vec![T::ZERO; k];
        let mut scratch = vec![T::ZERO; BLOCK];
        let mut finite = true;
        for (b, yb) in y.chunks_mut(BLOCK).enumerate() {
            if cancel.is_cancelled() {
                break;
            }
            let prev = carry.clone();
            let post = |c: &[T]| carry.copy_from_slice(c);
            let input = BlockInput {
                plan,
                x,
                zi,
                start: b * BLOCK,
            };
            finite &= run_block(&input, yb, &mut scratch, || prev, post);
        }
        return finite;
    }
    let carries: Vec<AtomicU64> = (0..nblocks * k).map(|_| AtomicU64::new(0)).collect();
    let ready: Vec<AtomicBool> = (0..nblocks).map(|_| AtomicBool::new(false)).collect();
    let blocks: Vec<Mutex<&mut [T]>> = y.chunks_mut(BLOCK).map(Mutex::new).collect();
    let next = AtomicUsize::new(0);
    let non_finite = AtomicBool::new(false);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                let mut scratch = vec![T::ZERO; BLOCK];
                loop {
                    if cancel.is_cancelled() {
                        break;
                    }
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
                    let input = BlockInput {
                        plan,
                        x,
                        zi,
                        start: b * BLOCK,
                    };
                    if !run_block(&input, &mut yb, &mut scratch, wait, post) {
                        non_finite.store(true, Ordering::Relaxed);
                    }
                }
            });
        }
    });
    !non_finite.load(Ordering::Relaxed)
}

fn run_block<T: Element>(
    input: &BlockInput<'_, T>,
    out: &mut [T],
    scratch: &mut [T],
    carry_in: impl FnOnce() -> Vec<T>,
    post: impl FnOnce(&[T]),
) -> bool {
    // Without streaming stores the block is worked on in the output itself: it stays in L2
    // as the scratch block would, and the copy (an eighth of a fresh 2^22-sample run's time)
    // goes away.
    if !input.plan.stream {
        return block_in(input, out, carry_in, post);
    }
    let y = &mut scratch[..out.len()];
    let finite = block_in(input, y, carry_in, post);
    match input.plan.simd {
        // SAFETY: Isa::Avx2Fma is only chosen when the CpuArch given says AVX2 and FMA.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2Fma => unsafe { avx2::stream_copy(out, y) },
        _ => out.copy_from_slice(y),
    }
    finite
}

/// One block's work in `y` (the output or a scratch block) by the plan's instruction set.
fn block_in<T: Element>(
    input: &BlockInput<'_, T>,
    y: &mut [T],
    carry_in: impl FnOnce() -> Vec<T>,
    post: impl FnOnce(&[T]),
) -> bool {
    match input.plan.simd {
        // SAFETY: Isa::Avx2Fma is only chosen when the CpuArch given says AVX2 and FMA.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2Fma => unsafe { avx2::block_fma(input, y, carry_in, post) },
        _ => block::block::<T, false>(input, y, carry_in, post),
    }
}
