//! The second-order-section engine's f64 kernels with AVX-512F: eight segments of the signal in
//! the eight lanes of a zmm register. Called only when the `CpuArch` the filter was given has
//! AVX-512F and FMA (`Isa::Avx512`).
//!
//! - [`local_group`]: [`GROUP`] segments of [`SEG`] samples through up to four sections from a
//!   zero state, every sample passing all of them while in registers. Eight samples of each
//!   segment are loaded as eight rows, transposed 8×8 in registers so that register t holds
//!   sample t of every segment, run through the sections, and transposed back.
//! - [`correct`]: y[i] += Σ_j state_j · F_j[i] over one segment, eight samples per register
//!   and eight registers in flight (the sums over j are dependency chains).

use super::sos::{GROUP, SEG};
use std::arch::x86_64::*;

const _: () = assert!(GROUP == 8 && SEG.is_multiple_of(8));

/// 8×8 transpose: out[t] lane w = rows[w] lane t.
#[inline]
#[target_feature(enable = "avx512f")]
fn transpose8(r: [__m512d; 8]) -> [__m512d; 8] {
    // Pairs: t0 = r0[0] r1[0] r0[2] r1[2] …, t1 = r0[1] r1[1] r0[3] r1[3] ….
    let t0 = _mm512_unpacklo_pd(r[0], r[1]);
    let t1 = _mm512_unpackhi_pd(r[0], r[1]);
    let t2 = _mm512_unpacklo_pd(r[2], r[3]);
    let t3 = _mm512_unpackhi_pd(r[2], r[3]);
    let t4 = _mm512_unpacklo_pd(r[4], r[5]);
    let t5 = _mm512_unpackhi_pd(r[4], r[5]);
    let t6 = _mm512_unpacklo_pd(r[6], r[7]);
    let t7 = _mm512_unpackhi_pd(r[6], r[7]);
    // Quads: u0 = r0..r3 at samples 0 and 4, u2 at 2 and 6, u1 at 1 and 5, u3 at 3 and 7.
    let lo = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0);
    let hi = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
    let u0 = _mm512_permutex2var_pd(t0, lo, t2);
    let u2 = _mm512_permutex2var_pd(t0, hi, t2);
    let u1 = _mm512_permutex2var_pd(t1, lo, t3);
    let u3 = _mm512_permutex2var_pd(t1, hi, t3);
    let u4 = _mm512_permutex2var_pd(t4, lo, t6);
    let u6 = _mm512_permutex2var_pd(t4, hi, t6);
    let u5 = _mm512_permutex2var_pd(t5, lo, t7);
    let u7 = _mm512_permutex2var_pd(t5, hi, t7);
    // Halves: rows 0..3 from u, rows 4..7 from the u of rows 4..7.
    [
        _mm512_shuffle_f64x2(u0, u4, 0x44),
        _mm512_shuffle_f64x2(u1, u5, 0x44),
        _mm512_shuffle_f64x2(u2, u6, 0x44),
        _mm512_shuffle_f64x2(u3, u7, 0x44),
        _mm512_shuffle_f64x2(u0, u4, 0xEE),
        _mm512_shuffle_f64x2(u1, u5, 0xEE),
        _mm512_shuffle_f64x2(u2, u6, 0xEE),
        _mm512_shuffle_f64x2(u3, u7, 0xEE),
    ]
}

/// `src` (or `y` itself when `None`; GROUP·SEG samples, segment w at w·SEG) through `rows`
/// (1 … 4 sections, each `[b0, b1, b2, −a1, −a2]`) from a zero state into `y`;
/// `ends[w][2s + m]` receives segment w's final state of section s. Returns max|y| (NaN
/// ignored), taken while the outputs are in registers (a separate pass over the block cost
/// as much as the correction).
#[target_feature(enable = "avx512f,fma")]
pub(super) fn local_group(
    rows: &[[f64; 5]],
    src: Option<&[f64]>,
    y: &mut [f64],
    ends: &mut [[f64; 8]; 8],
) -> f64 {
    match rows.len() {
        1 => local_group_n::<1>(rows, src, y, ends),
        2 => local_group_n::<2>(rows, src, y, ends),
        3 => local_group_n::<3>(rows, src, y, ends),
        4 => local_group_n::<4>(rows, src, y, ends),
        n => unreachable!("{n} sections in one pass"),
    }
}

#[inline]
#[target_feature(enable = "avx512f,fma")]
fn local_group_n<const S: usize>(
    rows: &[[f64; 5]],
    src: Option<&[f64]>,
    y: &mut [f64],
    ends: &mut [[f64; 8]; 8],
) -> f64 {
    assert!(rows.len() == S && y.len() == GROUP * SEG);
    assert!(src.is_none_or(|s| s.len() == y.len()));
    let c = |k: usize| -> [__m512d; S] { std::array::from_fn(|s| _mm512_set1_pd(rows[s][k])) };
    let (b0, b1, b2, na1, na2) = (c(0), c(1), c(2), c(3), c(4));
    let mut z0 = [_mm512_setzero_pd(); S];
    let mut z1 = [_mm512_setzero_pd(); S];
    let p = y.as_mut_ptr();
    let q = src.map_or(p as *const f64, <[f64]>::as_ptr);
    let mut top = _mm512_setzero_pd();
    for i in (0..SEG).step_by(8) {
        // SAFETY: w·SEG + i + 8 ≤ GROUP·SEG = y.len() = src.len() (asserted), so every 8-lane
        // access is inside y (or src).
        let r: [__m512d; 8] =
            std::array::from_fn(|w| unsafe { _mm512_loadu_pd(q.add(w * SEG + i)) });
        let v = transpose8(r);
        let mut o = [_mm512_setzero_pd(); 8];
        for t in 0..8 {
            let mut u = v[t];
            for s in 0..S {
                let out = _mm512_fmadd_pd(b0[s], u, z0[s]);
                z0[s] = _mm512_fmadd_pd(na1[s], out, _mm512_fmadd_pd(b1[s], u, z1[s]));
                z1[s] = _mm512_fmadd_pd(na2[s], out, _mm512_mul_pd(b2[s], u));
                u = out;
            }
            o[t] = u;
            // max with the new value first: a NaN there leaves the running maximum.
            top = _mm512_max_pd(_mm512_abs_pd(u), top);
        }
        let r = transpose8(o);
        for (w, row) in r.iter().enumerate() {
            // SAFETY: as for the loads.
            unsafe { _mm512_storeu_pd(p.add(w * SEG + i), *row) };
        }
    }
    for s in 0..S {
        let (mut a, mut b) = ([0.0f64; 8], [0.0f64; 8]);
        // SAFETY: 8-lane stores into 8-element arrays.
        unsafe {
            _mm512_storeu_pd(a.as_mut_ptr(), z0[s]);
            _mm512_storeu_pd(b.as_mut_ptr(), z1[s]);
        }
        for w in 0..GROUP {
            ends[w][2 * s] = a[w];
            ends[w][2 * s + 1] = b[w];
        }
    }
    _mm512_reduce_max_pd(top)
}

/// y[i] += Σ_j state[j] · factors[j][i] for i < min(table length, y.len()).
#[target_feature(enable = "avx512f,fma")]
pub(super) fn correct(factors: &[Vec<f64>], state: &[f64], y: &mut [f64]) {
    let len = factors.first().map_or(0, Vec::len).min(y.len());
    if len == 0 || state.iter().all(|&s| s == 0.0) {
        return;
    }
    let used: Vec<(&[f64], __m512d)> = factors
        .iter()
        .zip(state)
        .filter(|(_, s)| **s != 0.0)
        .map(|(f, &s)| (&f[..len], _mm512_set1_pd(s)))
        .collect();
    const UNROLL: usize = 8;
    let step = 8 * UNROLL;
    let whole = len / step * step;
    let p = y.as_mut_ptr();
    for i in (0..whole).step_by(step) {
        let mut acc = [_mm512_setzero_pd(); UNROLL];
        for (f, s) in &used {
            let q = f.as_ptr();
            for (u, a) in acc.iter_mut().enumerate() {
                // SAFETY: i + 8u + 8 ≤ whole ≤ len = f.len().
                *a = _mm512_fmadd_pd(*s, unsafe { _mm512_loadu_pd(q.add(i + 8 * u)) }, *a);
            }
        }
        for (u, a) in acc.iter().enumerate() {
            // SAFETY: i + 8u + 8 ≤ whole ≤ len ≤ y.len().
            unsafe {
                let at = p.add(i + 8 * u);
                _mm512_storeu_pd(at, _mm512_add_pd(_mm512_loadu_pd(at), *a));
            }
        }
    }
    for (i, v) in y.iter_mut().enumerate().take(len).skip(whole) {
        let mut a = 0.0f64;
        for (f, s) in factors.iter().zip(state) {
            a = f[i].mul_add(*s, a);
        }
        *v += a;
    }
}

/// (max |v|, Σ |v|) in one pass (NaN ignored in the maximum).
#[target_feature(enable = "avx512f")]
pub(super) fn peak(v: &[f64]) -> (f64, f64) {
    let mut top = [_mm512_setzero_pd(); 4];
    let mut sum = [_mm512_setzero_pd(); 4];
    let mut chunks = v.chunks_exact(32);
    for c in &mut chunks {
        for (u, (t, m)) in top.iter_mut().zip(&mut sum).enumerate() {
            // SAFETY: 8u + 8 ≤ 32 = c.len().
            let x = _mm512_abs_pd(unsafe { _mm512_loadu_pd(c.as_ptr().add(8 * u)) });
            *t = _mm512_max_pd(x, *t);
            *m = _mm512_add_pd(x, *m);
        }
    }
    let m = _mm512_max_pd(_mm512_max_pd(top[0], top[1]), _mm512_max_pd(top[2], top[3]));
    let t = _mm512_add_pd(_mm512_add_pd(sum[0], sum[1]), _mm512_add_pd(sum[2], sum[3]));
    let rest = chunks.remainder();
    let tail_sum: f64 = rest.iter().map(|x| x.abs()).sum();
    (
        rest.iter()
            .fold(_mm512_reduce_max_pd(m), |a, x| a.max(x.abs())),
        tail_sum + _mm512_reduce_add_pd(t),
    )
}

/// dst[i] = src[i] + Σ_j state[j] · factors[j][i] (the sum for i below the tables' length),
/// in one pass that also returns max|dst| (NaN ignored) and Σ|dst|: the correction, the copy
/// to the output, its peak and its sum without writing the scratch block back or reading it
/// twice.
#[target_feature(enable = "avx512f,fma")]
pub(super) fn correct_into(
    factors: &[Vec<f64>],
    state: &[f64],
    src: &[f64],
    dst: &mut [f64],
) -> (f64, f64) {
    assert_eq!(src.len(), dst.len());
    let n = src.len();
    let used: Vec<(&[f64], __m512d)> = factors
        .iter()
        .zip(state)
        .filter(|(_, s)| **s != 0.0)
        .map(|(f, &s)| (f.as_slice(), _mm512_set1_pd(s)))
        .collect();
    let len = if used.is_empty() {
        0
    } else {
        factors.first().map_or(0, Vec::len).min(n)
    };
    const UNROLL: usize = 8;
    let step = 8 * UNROLL;
    let whole = len / step * step;
    let (p, q) = (dst.as_mut_ptr(), src.as_ptr());
    let mut top = [_mm512_setzero_pd(); UNROLL];
    let mut sum = [_mm512_setzero_pd(); UNROLL];
    for i in (0..whole).step_by(step) {
        // SAFETY: i + 8u + 8 ≤ whole ≤ len ≤ n for every access below (factors hold ≥ len).
        let mut acc: [__m512d; UNROLL] =
            std::array::from_fn(|u| unsafe { _mm512_loadu_pd(q.add(i + 8 * u)) });
        for (f, s) in &used {
            let fp = f.as_ptr();
            for (u, a) in acc.iter_mut().enumerate() {
                *a = _mm512_fmadd_pd(*s, unsafe { _mm512_loadu_pd(fp.add(i + 8 * u)) }, *a);
            }
        }
        for (u, a) in acc.iter().enumerate() {
            unsafe { _mm512_storeu_pd(p.add(i + 8 * u), *a) };
            top[u] = _mm512_max_pd(_mm512_abs_pd(*a), top[u]);
            sum[u] = _mm512_add_pd(_mm512_abs_pd(*a), sum[u]);
        }
    }
    let (mut tail_top, mut tail_sum) = (0.0f64, 0.0f64);
    for i in whole..len {
        let mut a = src[i];
        for (f, s) in factors.iter().zip(state) {
            a = f[i].mul_add(*s, a);
        }
        dst[i] = a;
        tail_top = tail_top.max(a.abs());
        tail_sum += a.abs();
    }
    // Past the tables: the local output is the output.
    let rest = (n - len) / step * step + len;
    for i in (len..rest).step_by(step) {
        for (u, (t, m)) in top.iter_mut().zip(sum.iter_mut()).enumerate() {
            // SAFETY: i + 8u + 8 ≤ rest ≤ n.
            unsafe {
                let x = _mm512_loadu_pd(q.add(i + 8 * u));
                _mm512_storeu_pd(p.add(i + 8 * u), x);
                *t = _mm512_max_pd(_mm512_abs_pd(x), *t);
                *m = _mm512_add_pd(_mm512_abs_pd(x), *m);
            }
        }
    }
    for i in rest..n {
        dst[i] = src[i];
        tail_top = tail_top.max(src[i].abs());
        tail_sum += src[i].abs();
    }
    let m = top
        .iter()
        .fold(_mm512_setzero_pd(), |m, t| _mm512_max_pd(*t, m));
    let total = sum
        .iter()
        .fold(_mm512_setzero_pd(), |m, t| _mm512_add_pd(*t, m));
    (
        tail_top.max(_mm512_reduce_max_pd(m)),
        tail_sum + _mm512_reduce_add_pd(total),
    )
}

/// One block of the (b, a) block engine (f64, [`super::CHAINS`] sub-chunks of [`super::SUB`]
/// samples, `ff.len() == fb.len() + 1`, 1 ≤ fb.len() ≤ 4): the map y = Σ_j ff[j]·x[i−j] and the
/// local recurrence y[i] += Σ_l fb[l]·y[i−1−l] (each sub-chunk from zero history) in one pass,
/// the eight sub-chunks in the eight lanes of a zmm register (transposed 8×8 as in
/// [`local_group`]). The same roundings in the same order as the separate map and the
/// interleaved scalar chains (`block::map`, `block::chain_group` with FMA), so the bits are
/// theirs; x is read once and y written once, where the two passes read and wrote the block
/// three times and the chains ran one sample per instruction. `x` is the whole channel, the
/// block starting at `start` (x before index 0 is zero).
#[target_feature(enable = "avx512f,fma")]
pub(super) fn plr_block(ff: &[f64], fb: &[f64], x: &[f64], start: usize, y: &mut [f64]) {
    match fb.len() {
        1 => plr_block_n::<1, 2>(ff, fb, x, start, y),
        2 => plr_block_n::<2, 3>(ff, fb, x, start, y),
        3 => plr_block_n::<3, 4>(ff, fb, x, start, y),
        4 => plr_block_n::<4, 5>(ff, fb, x, start, y),
        k => unreachable!("order {k} in the fused block kernel"),
    }
}

#[inline]
#[target_feature(enable = "avx512f,fma")]
fn plr_block_n<const K: usize, const TAPS: usize>(
    ff: &[f64],
    fb: &[f64],
    x: &[f64],
    start: usize,
    y: &mut [f64],
) {
    use super::{CHAINS, SUB};
    const { assert!(CHAINS == 8 && SUB.is_multiple_of(8) && TAPS == K + 1) };
    assert!(ff.len() == TAPS && fb.len() == K && y.len() == CHAINS * SUB);
    assert!(start + y.len() <= x.len());
    let a: [__m512d; TAPS] = std::array::from_fn(|j| _mm512_set1_pd(ff[j]));
    let b: [__m512d; K] = std::array::from_fn(|l| _mm512_set1_pd(fb[l]));
    // hist[j]: x[i − 1 − j] of every chain (zero before the channel's start).
    let mut hist: [__m512d; K] = std::array::from_fn(|j| {
        let lanes: [f64; 8] =
            std::array::from_fn(|w| (start + w * SUB).checked_sub(1 + j).map_or(0.0, |at| x[at]));
        // SAFETY: an 8-lane load from an 8-element array.
        unsafe { _mm512_loadu_pd(lanes.as_ptr()) }
    });
    // st[l]: y[i − 1 − l] of every chain, local from zero.
    let mut st = [_mm512_setzero_pd(); K];
    let q = x[start..].as_ptr();
    let p = y.as_mut_ptr();
    for i in (0..SUB).step_by(8) {
        // SAFETY: w·SUB + i + 8 ≤ CHAINS·SUB = y.len() ≤ x.len() − start (asserted).
        let r: [__m512d; 8] =
            std::array::from_fn(|w| unsafe { _mm512_loadu_pd(q.add(w * SUB + i)) });
        let v = transpose8(r);
        let mut o = [_mm512_setzero_pd(); 8];
        for t in 0..8 {
            let mut acc = _mm512_mul_pd(a[0], v[t]);
            for j in 1..TAPS {
                acc = _mm512_fmadd_pd(a[j], hist[j - 1], acc);
            }
            for j in (1..K).rev() {
                hist[j] = hist[j - 1];
            }
            hist[0] = v[t];
            // Oldest history first, as the scalar chains.
            for l in (0..K).rev() {
                acc = _mm512_fmadd_pd(b[l], st[l], acc);
            }
            for l in (1..K).rev() {
                st[l] = st[l - 1];
            }
            st[0] = acc;
            o[t] = acc;
        }
        let r = transpose8(o);
        for (w, row) in r.iter().enumerate() {
            // SAFETY: as for the loads, in y.
            unsafe { _mm512_storeu_pd(p.add(w * SUB + i), *row) };
        }
    }
}
