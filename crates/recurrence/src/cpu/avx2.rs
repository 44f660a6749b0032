//! The block functions compiled with AVX2 and FMA enabled, and the non-temporal copy of a
//! finished block to the output. Called only when the `CpuArch` the filter was given has
//! AVX2 and FMA (`Isa::Avx2Fma`).

use super::block::{block, BlockInput};
use crate::elem::Element;

#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn block_fma<T: Element>(
    input: &BlockInput<'_, T>,
    y: &mut [T],
    carry_in: impl FnOnce() -> Vec<T>,
    post: impl FnOnce(&[T]),
) -> bool {
    block::<T, true>(input, y, carry_in, post)
}

/// `dst.copy_from_slice(src)` with non-temporal 32-byte stores: the output bypasses the caches
/// and is not read from memory before it is overwritten.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn stream_copy<T: Element>(dst: &mut [T], src: &[T]) {
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

/// The section engine's f64 kernel with AVX2+FMA (`Isa::Avx2Fma`): the
/// AVX-512 kernel's scheme ([`super::avx512`]) on four segments per ymm register; a group of
/// eight segments runs as two quads, each sample passing every section while in registers.
/// `src` (or `y` when `None`) → `y`, GROUP·SEG samples; `ends[w][2s + m]` receives segment w's
/// final state of section s (1 … 4 sections).
#[target_feature(enable = "avx2,fma")]
pub(super) fn sos_local_group(
    rows: &[[f64; 5]],
    src: Option<&[f64]>,
    y: &mut [f64],
    ends: &mut [[f64; 8]; 8],
) {
    match rows.len() {
        1 => sos_local_n::<1>(rows, src, y, ends),
        2 => sos_local_n::<2>(rows, src, y, ends),
        3 => sos_local_n::<3>(rows, src, y, ends),
        4 => sos_local_n::<4>(rows, src, y, ends),
        n => unreachable!("{n} sections in one pass"),
    }
}

/// 4×4 transpose: out[t] lane w = rows[w] lane t.
#[inline]
#[target_feature(enable = "avx2")]
fn transpose4(r: [std::arch::x86_64::__m256d; 4]) -> [std::arch::x86_64::__m256d; 4] {
    use std::arch::x86_64::*;
    let t0 = _mm256_unpacklo_pd(r[0], r[1]);
    let t1 = _mm256_unpackhi_pd(r[0], r[1]);
    let t2 = _mm256_unpacklo_pd(r[2], r[3]);
    let t3 = _mm256_unpackhi_pd(r[2], r[3]);
    [
        _mm256_permute2f128_pd(t0, t2, 0x20),
        _mm256_permute2f128_pd(t1, t3, 0x20),
        _mm256_permute2f128_pd(t0, t2, 0x31),
        _mm256_permute2f128_pd(t1, t3, 0x31),
    ]
}

#[inline]
#[target_feature(enable = "avx2,fma")]
fn sos_local_n<const S: usize>(
    rows: &[[f64; 5]],
    src: Option<&[f64]>,
    y: &mut [f64],
    ends: &mut [[f64; 8]; 8],
) {
    use super::sos::{GROUP, SEG};
    use std::arch::x86_64::*;
    assert!(rows.len() == S && y.len() == GROUP * SEG && SEG.is_multiple_of(4));
    assert!(src.is_none_or(|s| s.len() == y.len()));
    let c = |k: usize| -> [__m256d; S] { std::array::from_fn(|s| _mm256_set1_pd(rows[s][k])) };
    let (b0, b1, b2, na1, na2) = (c(0), c(1), c(2), c(3), c(4));
    let p = y.as_mut_ptr();
    let q = src.map_or(p as *const f64, <[f64]>::as_ptr);
    for quad in 0..GROUP / 4 {
        let base = quad * 4 * SEG;
        let mut z0 = [_mm256_setzero_pd(); S];
        let mut z1 = [_mm256_setzero_pd(); S];
        for i in (0..SEG).step_by(4) {
            // SAFETY: base + w·SEG + i + 4 ≤ GROUP·SEG = y.len() = src.len() (asserted).
            let r: [__m256d; 4] =
                std::array::from_fn(|w| unsafe { _mm256_loadu_pd(q.add(base + w * SEG + i)) });
            let v = transpose4(r);
            let mut o = [_mm256_setzero_pd(); 4];
            for t in 0..4 {
                let mut u = v[t];
                for s in 0..S {
                    let out = _mm256_fmadd_pd(b0[s], u, z0[s]);
                    z0[s] = _mm256_fmadd_pd(na1[s], out, _mm256_fmadd_pd(b1[s], u, z1[s]));
                    z1[s] = _mm256_fmadd_pd(na2[s], out, _mm256_mul_pd(b2[s], u));
                    u = out;
                }
                o[t] = u;
            }
            let r = transpose4(o);
            for (w, row) in r.iter().enumerate() {
                // SAFETY: as for the loads.
                unsafe { _mm256_storeu_pd(p.add(base + w * SEG + i), *row) };
            }
        }
        for s in 0..S {
            let (mut a, mut b) = ([0.0f64; 4], [0.0f64; 4]);
            // SAFETY: 4-lane stores into 4-element arrays.
            unsafe {
                _mm256_storeu_pd(a.as_mut_ptr(), z0[s]);
                _mm256_storeu_pd(b.as_mut_ptr(), z1[s]);
            }
            for w in 0..4 {
                ends[quad * 4 + w][2 * s] = a[w];
                ends[quad * 4 + w][2 * s + 1] = b[w];
            }
        }
    }
}

/// The section engine's correction with AVX2+FMA: y[i] += Σ_j state[j] · factors[j][i] for
/// i < min(table length, y.len()), four samples per register and eight registers in flight
/// (the sums over j are dependency chains); the sum over j in the order of j, as the scalar
/// correction adds it.
#[target_feature(enable = "avx2,fma")]
pub(super) fn sos_correct(factors: &[Vec<f64>], state: &[f64], y: &mut [f64]) {
    use std::arch::x86_64::*;
    let len = factors.first().map_or(0, Vec::len).min(y.len());
    if len == 0 || state.iter().all(|&s| s == 0.0) {
        return;
    }
    let used: Vec<(&[f64], __m256d)> = factors
        .iter()
        .zip(state)
        .filter(|(_, s)| **s != 0.0)
        .map(|(f, &s)| (&f[..len], _mm256_set1_pd(s)))
        .collect();
    const UNROLL: usize = 8;
    let step = 4 * UNROLL;
    let whole = len / step * step;
    let p = y.as_mut_ptr();
    for i in (0..whole).step_by(step) {
        let mut acc = [_mm256_setzero_pd(); UNROLL];
        for (f, s) in &used {
            let q = f.as_ptr();
            for (u, a) in acc.iter_mut().enumerate() {
                // SAFETY: i + 4u + 4 ≤ whole ≤ len = f.len().
                *a = _mm256_fmadd_pd(*s, unsafe { _mm256_loadu_pd(q.add(i + 4 * u)) }, *a);
            }
        }
        for (u, a) in acc.iter().enumerate() {
            // SAFETY: i + 4u + 4 ≤ whole ≤ len ≤ y.len().
            unsafe {
                let at = p.add(i + 4 * u);
                _mm256_storeu_pd(at, _mm256_add_pd(_mm256_loadu_pd(at), *a));
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
