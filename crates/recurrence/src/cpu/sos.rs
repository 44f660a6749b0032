//! The blocked second-order-section cascade ([`crate::Sos`]) on CPU threads.
//!
//! A channel's whole segments ([`SEG`] samples) are grouped into blocks of [`GROUP`]
//! segments, handed out in order from an atomic counter (more blocks than threads, so a thread
//! that is slowed down simply takes fewer). For each block a thread
//! 1. filters its segments through the whole cascade from a zero state into a per-thread
//!    f64 scratch buffer that stays in L2 (with AVX-512 the eight segments are the eight
//!    lanes of a register, each sample passing every section — four per register pass —
//!    while in registers; with AVX2 two quads of segments in ymm lanes; the scalar build:
//!    eight interleaved scalar chains, one section at a time), keeping each segment's end
//!    state. f32 signals are widened and run the same f64 kernels: the zero-state transients
//!    of a segment start can exceed the true signal by orders of magnitude where the input
//!    lies in the stopband, and their rounding with them;
//! 2. takes the true state at the block's start once its predecessor has posted it, carries
//!    it through the segments with the 2S×2S transfer matrix in double-double and posts the
//!    block's end
//!    state at once (the chain between blocks is this small step, not the filtering). A block
//!    kept waiting longer than [`HELP_AFTER`] (its predecessor's thread descheduled on a busy
//!    machine) computes the predecessor's end state itself from the one before — the same
//!    code on the same inputs, so the bits are the same whoever posts — instead of waiting for
//!    that thread to run again;
//! 3. corrects each segment in the scratch buffer with Σ_j state_j·F_j (f64 factor tables),
//!    then copies the block to y, rounded once to the signal's type: with non-temporal stores when the output is large and was
//!    written before (one read of x and one write of y per sample, no read-for-ownership of
//!    y), with plain stores into a freshly allocated output (the kernel has just zeroed its
//!    pages, whose lines are still cached).
//!
//! Non-finite values are absorbing in the cascade (a NaN or an infinity entering a section
//! leaves its state non-finite to the end of the segment), so a non-finite input always shows
//! in a segment's end state: [`run_whole_segments`] reports it and the caller looks for the
//! offending input only then, instead of checking every input before filtering.

pub use super::sos_shape::{GROUP, SEG};
use crate::elem::Element;
use sigpu_runtime::host::{CpuArch, Isa};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Samples per block: the unit of work a thread takes.
pub(crate) const BLOCK: usize = GROUP * SEG;
/// Sections per register pass of the AVX-512 kernel (states and coefficients of four sections
/// fill the 32 zmm registers with the transposes); longer cascades run in passes.
const PASS: usize = 4;

/// The instruction sets the section engine has kernels for. f64 signals: eight segments in
/// the lanes of a zmm register (AVX-512), four per ymm register (AVX2+FMA); f32 signals run
/// the scalar chains, compiled with AVX2+FMA under either.
pub const OFFERED: [Isa; 2] = [Isa::Avx512, Isa::Avx2Fma];

/// The best section kernel `arch` (narrowed to the host) can run.
pub fn best(arch: &CpuArch) -> Isa {
    Isa::best_of(arch, &OFFERED)
}

/// The (b, a) block functions' instruction set for the scalar-chain path of `kernel`.
fn chains(kernel: Isa) -> Isa {
    match kernel {
        Isa::Scalar => Isa::Scalar,
        _ => Isa::Avx2Fma,
    }
}

/// What every block of one filter shares.
pub(crate) struct Plan<'a, T> {
    /// Rows in T: b0 b1 b2 −a1 −a2.
    pub(crate) rows: &'a [[T; 5]],
    /// The same rows in f64 (for the f64 kernels).
    pub(crate) rows64: &'a [[f64; 5]],
    /// factors[j][i]: cascade output i samples into a segment for a unit state j.
    pub(crate) factors: &'a [Vec<f64>],
    /// max_i |factors[j][i]| per state j.
    pub(crate) factor_peaks: &'a [f64],
    /// State after SEG samples of zero input, row-major 2S × 2S: the double-double matrix's
    /// high parts, and its low parts.
    pub(crate) transfer: &'a [f64],
    pub(crate) transfer_lo: &'a [f64],
    pub(crate) kernel: Isa,
    /// Run the segments whose true start state is exactly zero (a channel's first from a zero
    /// zi; an impulse, a step or a burst after silence) as SciPy's loop does: its products and
    /// sums in its order, no fused multiply-add (f64 signals). Such a segment's local run is
    /// its output, and it then has SciPy's bits. The FMA kernels' errors are of the same size
    /// but of other luck, and on a lone response (no averaging over a long input) the luck
    /// is all there is: an impulse through cheby1(2, 1, [0.01485, 0.05118]) band-pass sections
    /// (poles near DC amplifying the roundings of the high-pass section's state, whose zeros
    /// cancel the signal but not them) was 55 ε of max|y| off against SciPy's 13 ε (4.07×).
    /// Only those segments are rerun: the kernels in SciPy's order were 13% slower on
    /// butter(8, 0.1). f32 signals run in f64, 29 bits below their own rounding, and skip it.
    pub(crate) scipy_order: bool,
    /// Write the output with non-temporal stores (large outputs that were written before;
    /// a freshly allocated output is faster with plain stores, its zeroed lines being cached).
    pub(crate) stream: bool,
    /// How long a block waits for its predecessor's end state before computing it itself.
    pub(crate) help_after: Duration,
}

/// [`Plan::help_after`]: about two blocks' filtering at full speed, so that on an idle machine
/// a block never redoes its predecessor's work; the crate's unit tests help at once, so that
/// the path runs in every multi-threaded test.
pub(crate) const HELP_AFTER: Duration = if cfg!(test) {
    Duration::ZERO
} else {
    Duration::from_micros(60)
};

/// What a blocked run of one channel saw.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Outcome {
    /// A non-finite value appeared (a non-finite input, or an overflow).
    pub(crate) nonfinite: bool,
    /// max |local output|: the segments' zero-state outputs before the correction.
    pub(crate) local_peak: f64,
    /// max |output| after the correction.
    pub(crate) peak: f64,
    /// max over segments of Σ_j |state_j|·max|F_j|: how large the correction's terms get (its
    /// f64 rounding scales with them, and where they dwarf the output they cancel).
    pub(crate) correction_peak: f64,
    /// Σ over segments of that sum times the tables' length (the samples it corrects): with
    /// `output_sum`, the corrections against the output on average ([`crate::BlockedPeaks`]).
    pub(crate) correction_sum: f64,
    /// Σ |output|.
    pub(crate) output_sum: f64,
}

/// e + Σ_t (m_t + m_lo_t)·(p_t + p_lo_t) in double-double, as (high, low): two-product and
/// two-sum on the leading terms, the low parts' products and the rounding errors summed in f64
/// (Ogita, Rump and Oishi's Dot2).
#[inline]
fn compensated_dot(e: f64, m: &[f64], m_lo: &[f64], p: &[f64], p_lo: &[f64]) -> (f64, f64) {
    let (mut s, mut c) = (e, 0.0f64);
    for t in 0..m.len() {
        let q = m[t] * p[t];
        let qe = m[t].mul_add(p[t], -q);
        let sum = s + q;
        let bb = sum - s;
        let se = (s - (sum - bb)) + (q - bb);
        s = sum;
        c += qe + se + m[t].mul_add(p_lo[t], m_lo[t] * p[t]);
    }
    let hi = s + c;
    (hi, c - (hi - s))
}

/// (max |v|, Σ |v|) in one pass (NaN ignored in the maximum: a non-finite run is reported
/// through the states).
fn peak(kernel: Isa, v: &[f64]) -> (f64, f64) {
    #[cfg(target_arch = "x86_64")]
    if kernel == Isa::Avx512 {
        // SAFETY: Isa::Avx512 is only chosen when the CPU has AVX-512F.
        return unsafe { super::avx512::peak(v) };
    }
    let _ = kernel;
    let (mut m, mut t) = ([0.0f64; 8], [0.0f64; 8]);
    let mut chunks = v.chunks_exact(8);
    for c in &mut chunks {
        for ((m, t), x) in m.iter_mut().zip(&mut t).zip(c) {
            *m = m.max(x.abs());
            *t += x.abs();
        }
    }
    let rest = chunks.remainder();
    let top = rest.iter().fold(0.0f64, |a, x| a.max(x.abs()));
    let sum: f64 = rest.iter().map(|x| x.abs()).sum();
    (
        m.iter().fold(top, |a, &b| a.max(b)),
        sum + t.iter().sum::<f64>(),
    )
}

/// Adds a value to an atomic f64 sum (its bits).
fn fold_add(into: &AtomicU64, v: f64) {
    if v != 0.0 {
        let _ = into.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |b| {
            Some((f64::from_bits(b) + v).to_bits())
        });
    }
}

/// Folds a non-negative value into an atomic maximum (the bits of non-negative doubles order
/// as the values do).
fn fold_max(into: &AtomicU64, v: f64) {
    if v > 0.0 {
        into.fetch_max(v.to_bits(), Ordering::Relaxed);
    }
}

/// The whole segments of one channel: `x.len()` (= `y.len()`) a multiple of SEG, at least one
/// block. `state` holds the true state before x on entry (f64) and after it on exit. Returns
/// whether a non-finite value appeared and the peaks of the local and of the final outputs:
/// where the local outputs dwarf the true ones (the zero-state transients a segment start
/// excites, large where the input's energy lies in the filter's stopband), the local run's
/// rounding errors do too, and the caller decides whether the channel needs a wider engine.
pub(crate) fn run_whole_segments<T: Element>(
    plan: &Plan<'_, T>,
    x: &[T],
    y: &mut [T],
    state: &mut [f64],
    threads: usize,
) -> Outcome {
    let n = x.len();
    debug_assert!(n.is_multiple_of(SEG) && y.len() == n);
    let s2 = state.len();
    let nblocks = n.div_ceil(BLOCK);
    let stream = plan.stream;
    // Per block: the end state's high parts, then its low parts.
    let carries: Vec<AtomicU64> = (0..nblocks * 2 * s2).map(|_| AtomicU64::new(0)).collect();
    let ready: Vec<AtomicBool> = (0..nblocks).map(|_| AtomicBool::new(false)).collect();
    let blocks: Vec<Mutex<&mut [T]>> = y.chunks_mut(BLOCK).map(Mutex::new).collect();
    let next = AtomicUsize::new(0);
    let nonfinite = AtomicBool::new(false);
    let (local_peak, out_peak) = (AtomicU64::new(0), AtomicU64::new(0));
    let correction_peak = AtomicU64::new(0);
    let (correction_sum, output_sum) = (AtomicU64::new(0), AtomicU64::new(0));
    let table_len = plan.factors.first().map_or(0, Vec::len).min(SEG) as f64;
    let zi: &[f64] = state;
    // Block p's true end state: posted by its owner, or by a thread that was kept waiting for
    // it (see `help_after`); both compute it with the same code from the same inputs, so the
    // bits are the same whoever posts first.
    let post = |p: usize, end: &[f64], end_lo: &[f64]| {
        let slots = &carries[p * 2 * s2..(p + 1) * 2 * s2];
        for (c, &s) in slots.iter().zip(end.iter().chain(end_lo)) {
            c.store(s.to_bits(), Ordering::Relaxed);
        }
        ready[p].store(true, Ordering::Release);
    };
    let posted = |p: usize, into: &mut [f64], into_lo: &mut [f64]| -> bool {
        if !ready[p].load(Ordering::Acquire) {
            return false;
        }
        let slots = &carries[p * 2 * s2..(p + 1) * 2 * s2];
        for (s, c) in into.iter_mut().chain(into_lo.iter_mut()).zip(slots) {
            *s = f64::from_bits(c.load(Ordering::Relaxed));
        }
        true
    };
    // The true state before block b (b's carry-in), its segments' starts and end into
    // starts[..(segs + 1)·2S] (high parts) and starts_lo (low parts). The carry runs in
    // double-double (a compensated dot product with the double-double transfer matrix): near
    // the unit circle the matrix's entries and the states they multiply dwarf the state they
    // sum to, and an f64 carry's rounding, injected once a segment into the state, would ring
    // through the filter's slowest poles.
    let carry = |ends: &[f64], starts: &mut [f64], starts_lo: &mut [f64], segs: usize| {
        for w in 0..segs {
            for r in 0..s2 {
                let row = &plan.transfer[r * s2..(r + 1) * s2];
                let row_lo = &plan.transfer_lo[r * s2..(r + 1) * s2];
                let prev = &starts[w * s2..(w + 1) * s2];
                let prev_lo = &starts_lo[w * s2..(w + 1) * s2];
                let (hi, lo) = compensated_dot(ends[w * s2 + r], row, row_lo, prev, prev_lo);
                starts[(w + 1) * s2 + r] = hi;
                starts_lo[(w + 1) * s2 + r] = lo;
            }
        }
    };
    // The block's carries (`carry`), after its segments that start from the true zero state
    // are run again in SciPy's order (see `Plan::scipy_order`) and the carries redone from
    // their end states. Owner and helper both settle a block this way: the same bits whoever
    // posts.
    let settle = |xb: &[T],
                  scratch: &mut [f64],
                  ends: &mut [f64],
                  starts: &mut [f64],
                  starts_lo: &mut [f64],
                  segs: usize| {
        carry(ends, starts, starts_lo, segs);
        if !plan.scipy_order {
            return;
        }
        let mut redone = false;
        for w in 0..segs {
            let zero = |v: &[f64]| v.iter().all(|&s| s == 0.0);
            let at = w * SEG..(w + 1) * SEG;
            if zero(&starts[w * s2..(w + 1) * s2])
                && zero(&starts_lo[w * s2..(w + 1) * s2])
                && xb[at.clone()].iter().any(|v| v.to_f64() != 0.0)
            {
                let end = &mut ends[w * s2..(w + 1) * s2];
                end.fill(0.0);
                let out = &mut scratch[at.clone()];
                scipy_loop(plan.rows64, &xb[at], end, |i, v| out[i] = v);
                redone = true;
            }
        }
        if redone {
            carry(ends, starts, starts_lo, segs);
        }
    };
    let block_len = |b: usize| BLOCK.min(n - b * BLOCK);
    // Polled before a block is taken, so every block handed out is finished (see
    // `cpu::filter_channel`).
    let cancel = sigpu_runtime::cancel::Cancel::current();
    let work = || {
        let mut scratch = vec![0.0f64; BLOCK];
        let mut ends = vec![0.0f64; GROUP * s2];
        let mut starts = vec![0.0f64; (GROUP + 1) * s2];
        let mut starts_lo = vec![0.0f64; (GROUP + 1) * s2];
        let mut acc = vec![0.0f64; SEG];
        // For helping a late predecessor: allocated on first use.
        let (mut scratch2, mut ends2) = (Vec::new(), Vec::new());
        let (mut starts2, mut starts2_lo) = (Vec::new(), Vec::new());
        loop {
            if cancel.is_cancelled() {
                break;
            }
            let b = next.fetch_add(1, Ordering::Relaxed);
            if b >= nblocks {
                break;
            }
            let mut yb = blocks[b].lock().unwrap_or_else(|p| p.into_inner());
            let start = b * BLOCK;
            let len = yb.len();
            let segs = len / SEG;
            let top = local(plan, &x[start..start + len], &mut scratch, &mut ends);
            fold_max(
                &local_peak,
                top.unwrap_or_else(|| peak(plan.kernel, &scratch[..len]).0),
            );
            // The true state at the block's start.
            if b == 0 {
                starts[..s2].copy_from_slice(zi);
                starts_lo[..s2].fill(0.0);
            } else {
                let p = b - 1;
                let waited = Instant::now();
                let mut spins = 0u32;
                while !posted(p, &mut starts[..s2], &mut starts_lo[..s2]) {
                    // The predecessor's thread is late (descheduled on a busy machine): once
                    // its own carry-in is known, compute its end state here (one block's
                    // filtering) instead of waiting for that thread to run again.
                    if waited.elapsed() >= plan.help_after {
                        starts2.resize((GROUP + 1) * s2, 0.0);
                        starts2_lo.resize((GROUP + 1) * s2, 0.0);
                        let have = if p == 0 {
                            starts2[..s2].copy_from_slice(zi);
                            starts2_lo[..s2].fill(0.0);
                            true
                        } else {
                            posted(p - 1, &mut starts2[..s2], &mut starts2_lo[..s2])
                        };
                        if have {
                            scratch2.resize(BLOCK, 0.0);
                            ends2.resize(GROUP * s2, 0.0);
                            let (pstart, plen) = (p * BLOCK, block_len(p));
                            let xp = &x[pstart..pstart + plen];
                            local(plan, xp, &mut scratch2, &mut ends2);
                            let psegs = plen / SEG;
                            settle(
                                xp,
                                &mut scratch2,
                                &mut ends2,
                                &mut starts2,
                                &mut starts2_lo,
                                psegs,
                            );
                            let at = psegs * s2..(psegs + 1) * s2;
                            post(p, &starts2[at.clone()], &starts2_lo[at]);
                            continue;
                        }
                    }
                    spins += 1;
                    if spins < 2000 {
                        std::hint::spin_loop();
                    } else {
                        std::thread::yield_now();
                    }
                }
            }
            let xb = &x[start..start + len];
            settle(
                xb,
                &mut scratch,
                &mut ends,
                &mut starts,
                &mut starts_lo,
                segs,
            );
            let at = segs * s2..(segs + 1) * s2;
            post(b, &starts[at.clone()], &starts_lo[at]);
            if ends[..segs * s2].iter().any(|v| !v.is_finite()) {
                nonfinite.store(true, Ordering::Relaxed);
            }
            let (mut terms, mut terms_sum) = (0.0f64, 0.0f64);
            for w in 0..segs {
                let start = &starts[w * s2..(w + 1) * s2];
                let t: f64 = start
                    .iter()
                    .zip(plan.factor_peaks)
                    .map(|(s, f)| s.abs() * f)
                    .sum();
                terms = terms.max(t);
                terms_sum += t * table_len;
            }
            fold_max(&correction_peak, terms);
            fold_add(&correction_sum, terms_sum);
            #[cfg(target_arch = "x86_64")]
            if let (Isa::Avx512, false, Some(out)) = (plan.kernel, stream, as_f64_mut(&mut yb)) {
                // The correction written straight to y, its peak taken on the way: one read of
                // the scratch block and one write of y.
                let (mut top, mut total) = (0.0f64, 0.0f64);
                for w in 0..segs {
                    let at = w * SEG..(w + 1) * SEG;
                    let state = &starts[w * s2..(w + 1) * s2];
                    // SAFETY: Isa::Avx512 is only chosen when the CPU has AVX-512F and FMA.
                    let (t, sum) = unsafe {
                        super::avx512::correct_into(
                            plan.factors,
                            state,
                            &scratch[at.clone()],
                            &mut out[at],
                        )
                    };
                    top = top.max(t);
                    total += sum;
                }
                fold_max(&out_peak, top);
                fold_add(&output_sum, total);
                continue;
            }
            for w in 0..segs {
                let seg = &mut scratch[w * SEG..(w + 1) * SEG];
                correct(plan, &starts[w * s2..(w + 1) * s2], seg, &mut acc);
            }
            let (top, sum) = peak(plan.kernel, &scratch[..len]);
            fold_max(&out_peak, top);
            fold_add(&output_sum, sum);
            copy_out(plan.kernel, stream, &mut yb, &scratch[..len]);
        }
    };
    let threads = threads.clamp(1, nblocks);
    if threads == 1 {
        work();
    } else {
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(work);
            }
        });
    }
    let last = &carries[(nblocks - 1) * 2 * s2..];
    for (r, s) in state.iter_mut().enumerate() {
        let (hi, lo) = (
            last[r].load(Ordering::Relaxed),
            last[s2 + r].load(Ordering::Relaxed),
        );
        *s = f64::from_bits(hi) + f64::from_bits(lo);
    }
    Outcome {
        nonfinite: nonfinite.into_inner(),
        local_peak: f64::from_bits(local_peak.into_inner()),
        peak: f64::from_bits(out_peak.into_inner()),
        correction_peak: f64::from_bits(correction_peak.into_inner()),
        correction_sum: f64::from_bits(correction_sum.into_inner()),
        output_sum: f64::from_bits(output_sum.into_inner()),
    }
}

/// SciPy's loop over `x` in f64 (rows b0 b1 b2 −a1 −a2; b1·x − a1·out is b1·x + (−a1)·out
/// exactly), from and into `state` ([section][2]): each output to `put(i, y_i)`. For f64
/// signals its roundings are SciPy's own.
#[inline]
pub(crate) fn scipy_loop<T: Element>(
    rows: &[[f64; 5]],
    x: &[T],
    state: &mut [f64],
    mut put: impl FnMut(usize, f64),
) {
    for (i, xi) in x.iter().enumerate() {
        let mut v = xi.to_f64();
        for (r, st) in rows.iter().zip(state.chunks_mut(2)) {
            let out = r[0] * v + st[0];
            st[0] = r[1] * v + r[3] * out + st[1];
            st[1] = r[2] * v + r[4] * out;
            v = out;
        }
        put(i, v);
    }
}

/// The block's segments from a zero state: x (len ≤ BLOCK, whole segments) into
/// `scratch[..len]` in f64 whatever T is, each segment's end state into `ends[w·2S..]`.
/// f32 signals run the f64 kernels on their values widened: the local outputs and end
/// states then carry 29 more bits than the signal, so that the zero-state transients a
/// segment start excites (up to hundreds of times the true signal where the input's energy
/// lies in the filter's stopband) cost nothing at f32's rounding.
/// Returns max|local output| where the kernel took it in registers (the AVX-512 one), else
/// None.
fn local<T: Element>(
    plan: &Plan<'_, T>,
    x: &[T],
    scratch: &mut [f64],
    ends: &mut [f64],
) -> Option<f64> {
    let len = x.len();
    let s2 = 2 * plan.rows.len();
    let wide = as_f64(x);
    if wide.is_none() || len < BLOCK {
        for (s, v) in scratch[..len].iter_mut().zip(x) {
            *s = v.to_f64();
        }
        scratch[len..].fill(0.0);
    }
    #[cfg(target_arch = "x86_64")]
    if plan.kernel != Isa::Scalar {
        let mut e = [[0.0f64; 8]; 8];
        let mut top = None;
        for (p, rows) in plan.rows64.chunks(PASS).enumerate() {
            let src = if p == 0 && len == BLOCK { wide } else { None };
            if plan.kernel == Isa::Avx512 {
                // The last pass's peak is the cascade's (the zero-padded segments of a short
                // block stay 0).
                // SAFETY: Isa::Avx512 is only chosen when the CPU has AVX-512 (F, BW, VL) and FMA.
                top = Some(unsafe { super::avx512::local_group(rows, src, scratch, &mut e) });
            } else {
                // SAFETY: Isa::Avx2Fma is only chosen when the CPU has AVX2 and FMA.
                unsafe { super::avx2::sos_local_group(rows, src, scratch, &mut e) };
            }
            for (w, ew) in e.iter().enumerate().take(len / SEG) {
                let at = w * s2 + 2 * p * PASS;
                ends[at..at + 2 * rows.len()].copy_from_slice(&ew[..2 * rows.len()]);
            }
        }
        return top;
    }
    if let Some(x) = wide.filter(|_| len == BLOCK) {
        scratch[..len].copy_from_slice(x);
    }
    super::sos_portable::local_dispatch(
        chains(plan.kernel),
        plan.rows64,
        &mut scratch[..len],
        ends,
    );
    None
}

fn correct<T: Element>(plan: &Plan<'_, T>, state: &[f64], seg: &mut [f64], acc: &mut [f64]) {
    #[cfg(target_arch = "x86_64")]
    match plan.kernel {
        // SAFETY: Isa::Avx512 is only chosen when the CPU has AVX-512 (F, BW, VL) and FMA.
        Isa::Avx512 => return unsafe { super::avx512::correct(plan.factors, state, seg) },
        // SAFETY: Isa::Avx2Fma is only chosen when the CPU has AVX2 and FMA.
        Isa::Avx2Fma => return unsafe { super::avx2::sos_correct(plan.factors, state, seg) },
        _ => {}
    }
    super::sos_portable::correct_dispatch(chains(plan.kernel), plan.factors, state, seg, acc);
}

/// The corrected block (f64) into y: rounded once to T.
fn copy_out<T: Element>(kernel: Isa, stream: bool, dst: &mut [T], src: &[f64]) {
    if let Some(dst) = as_f64_mut(dst) {
        #[cfg(target_arch = "x86_64")]
        if stream && kernel != Isa::Scalar {
            // SAFETY: Avx512 and Avx2Fma are only chosen when the CPU has AVX2.
            unsafe { super::avx2::stream_copy(dst, src) };
            return;
        }
        dst.copy_from_slice(src);
        return;
    }
    let _ = (kernel, stream);
    for (d, &s) in dst.iter_mut().zip(src) {
        *d = T::from_f64(s);
    }
}

fn as_f64<T: Element>(v: &[T]) -> Option<&[f64]> {
    (T::DTYPE == crate::DType::F64).then(|| {
        // SAFETY: T is f64 (its DTYPE says so): same layout, same length.
        unsafe { std::slice::from_raw_parts(v.as_ptr() as *const f64, v.len()) }
    })
}

fn as_f64_mut<T: Element>(v: &mut [T]) -> Option<&mut [f64]> {
    (T::DTYPE == crate::DType::F64).then(|| {
        // SAFETY: T is f64 (its DTYPE says so): same layout, same length.
        unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr() as *mut f64, v.len()) }
    })
}
