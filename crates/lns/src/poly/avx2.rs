//! [`F64Poly`] with AVX2 and FMA, four lanes of f64, for CPUs without AVX-512: the same
//! operations as the scalar `F64Poly::eval` in the same order (so the same words), with the
//! 16-entry tables read by gathers from L1. Lanes the vector path does not cover (specials,
//! x + (−x), results out of range) are recomputed by the scalar `Format::add`.

use super::{F64Poly, EXP_ONE, FRACTION, P_DEGREE, Q_DEGREE};
use crate::arith::AddSub;
use sigpu_runtime::host::CpuArch;
use std::arch::x86_64::*;

/// Whether a CPU with `arch` runs the AVX2 path.
pub(crate) fn available(arch: &CpuArch) -> bool {
    arch.avx2 && arch.fma
}

/// Broadcast coefficients and bit masks, once per call.
struct Consts {
    unit: __m256d,
    split: __m128i,
    w_mask: __m128i,
    q: [__m256d; Q_DEGREE + 1],
    p: [__m256d; P_DEGREE + 1],
    one: __m256d,
    sign: __m256d,
    fraction: __m256i,
    exp_one: __m256i,
    bias: __m256i,
    fifteen: __m128i,
}

impl Consts {
    #[target_feature(enable = "avx2")]
    fn new(m: &F64Poly) -> Consts {
        Consts {
            unit: _mm256_set1_pd(m.unit),
            split: _mm_cvtsi32_si128(m.split as i32),
            w_mask: _mm_set1_epi32((1 << m.split) - 1),
            q: m.q.map(|c| _mm256_set1_pd(c)),
            p: m.p.map(|c| _mm256_set1_pd(c)),
            one: _mm256_set1_pd(1.0),
            sign: _mm256_set1_pd(-0.0),
            fraction: _mm256_set1_epi64x(FRACTION as i64),
            exp_one: _mm256_set1_epi64x(EXP_ONE as i64),
            bias: _mm256_set1_epi64x(1023),
            fifteen: _mm_set1_epi32(15),
        }
    }
}

#[inline]
#[target_feature(enable = "avx2,fma")]
fn horner<const N: usize>(c: &[__m256d; N], x: __m256d) -> __m256d {
    let mut acc = c[N - 1];
    for j in (0..N - 1).rev() {
        acc = _mm256_fmadd_pd(acc, x, c[j]);
    }
    acc
}

/// The low 32 bits of each 64-bit lane, packed into four 32-bit lanes.
#[inline]
#[target_feature(enable = "avx2")]
fn narrow(x: __m256i) -> __m128i {
    _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(
        x,
        _mm256_setr_epi32(0, 2, 4, 6, 0, 0, 0, 0),
    ))
}

/// s_b (d_b in the lanes where `db` is all ones) at the codes z = −neg (0 ≤ neg ≤ −z0), as
/// codes: `F64Poly::eval` lane by lane. Other lanes give garbage, never a fault.
#[inline]
#[target_feature(enable = "avx2,fma")]
fn eval4(m: &F64Poly, c: &Consts, neg: __m128i, db: __m128i) -> __m128i {
    // Round to nearest, ties to even (the default MXCSR mode), as the scalar code.
    _mm256_cvtpd_epi32(unrounded4(m, c, neg, db))
}

/// [`eval4`] before its final rounding (`F64Poly::eval_unrounded`).
#[inline]
#[target_feature(enable = "avx2,fma")]
fn unrounded4(m: &F64Poly, c: &Consts, neg: __m128i, db: __m128i) -> __m256d {
    let jn = _mm_sub_epi32(_mm_setzero_si128(), _mm_srl_epi32(neg, c.split));
    let w = _mm256_cvtepi32_pd(_mm_and_si128(neg, c.w_mask));
    // SAFETY: indices are masked to 0..=15, inside the 16-entry table.
    let t = unsafe {
        _mm256_i32gather_pd::<8>(m.exp2_sixteenths.as_ptr(), _mm_and_si128(jn, c.fifteen))
    };
    let y = _mm256_castsi256_pd(_mm256_add_epi64(
        _mm256_castpd_si256(t),
        _mm256_slli_epi64::<52>(_mm256_cvtepi32_epi64(_mm_srai_epi32::<4>(jn))),
    ));
    // −y in the d_b lanes: the sign bit flipped, as the scalar negation.
    let s = _mm256_xor_pd(
        y,
        _mm256_and_pd(_mm256_castsi256_pd(_mm256_cvtepi32_epi64(db)), c.sign),
    );
    let pi = _mm256_mul_pd(w, horner(&c.q, w));
    let v = _mm256_fnmadd_pd(s, pi, _mm256_add_pd(c.one, s));
    let bits = _mm256_castpd_si256(v);
    let e = _mm256_cvtepi32_pd(narrow(_mm256_sub_epi64(
        _mm256_srli_epi64::<52>(bits),
        c.bias,
    )));
    let mant = _mm256_castsi256_pd(_mm256_or_si256(
        _mm256_and_si256(bits, c.fraction),
        c.exp_one,
    ));
    let i = _mm_and_si128(narrow(_mm256_srli_epi64::<48>(bits)), c.fifteen);
    // SAFETY: indices are masked to 0..=15, inside the 16-entry tables.
    let (r, l) = unsafe {
        (
            _mm256_i32gather_pd::<8>(m.recip.as_ptr(), i),
            _mm256_i32gather_pd::<8>(m.log2_start.as_ptr(), i),
        )
    };
    let t = _mm256_fmsub_pd(mant, r, c.one);
    let frac = _mm256_fmadd_pd(horner(&c.p, t), t, l);
    _mm256_fmadd_pd(e, c.unit, frac)
}

/// The unrounded values at z = −negs[i] (lengths multiples of 4), for tests.
///
/// # Safety
/// The CPU must support AVX2 and FMA (see [`available`]).
#[cfg(test)]
#[target_feature(enable = "avx2,fma")]
pub(crate) unsafe fn unrounded(m: &F64Poly, db: bool, negs: &[i32], out: &mut [f64]) {
    let c = Consts::new(m);
    let dbm = _mm_set1_epi32(if db { -1 } else { 0 });
    for (n, o) in negs.chunks_exact(4).zip(out.chunks_exact_mut(4)) {
        // SAFETY: both chunks hold 4 elements.
        unsafe {
            let neg = _mm_loadu_si128(n.as_ptr() as *const __m128i);
            _mm256_storeu_pd(o.as_mut_ptr(), unrounded4(m, &c, neg, dbm));
        }
    }
}

/// `AddSub::eval_codes` four codes at a time. Needs [`available`] and a format with
/// `F64Poly::vector_format`.
///
/// # Safety
/// The CPU must support AVX2 and FMA (see [`available`]).
#[target_feature(enable = "avx2,fma")]
pub(crate) unsafe fn eval_codes(m: &F64Poly, db: bool, zs: &[i64], out: &mut [i64]) {
    let c = Consts::new(m);
    let n = zs.len().min(out.len());
    let z0 = m.format.essential_zero_code();
    let below = _mm256_set1_epi64x(z0 - 1);
    let far = _mm_set1_epi32(-z0 as i32);
    let dbm = _mm_set1_epi32(if db { -1 } else { 0 });
    let mut i = 0;
    while i + 4 <= n {
        // SAFETY: i + 4 ≤ n ≤ both lengths.
        let z = unsafe { _mm256_loadu_si256(zs.as_ptr().add(i) as *const __m256i) };
        // Codes below z0 give 0: clamped to z0 − 1 first, so that −z fits 32-bit lanes.
        let z = _mm256_blendv_epi8(z, below, _mm256_cmpgt_epi64(below, z));
        let neg = narrow(_mm256_sub_epi64(_mm256_setzero_si256(), z));
        let d = _mm_andnot_si128(_mm_cmpgt_epi32(neg, far), eval4(m, &c, neg, dbm));
        // SAFETY: as the load.
        unsafe {
            _mm256_storeu_si256(
                out.as_mut_ptr().add(i) as *mut __m256i,
                _mm256_cvtepi32_epi64(d),
            )
        };
        i += 4;
    }
    for k in i..n {
        out[k] = if db { m.db(zs[k]) } else { m.sb(zs[k]) };
    }
}

/// Steps of four lanes per block of [`add_words`]: lanes that need the scalar add are fixed
/// after each block, so that no call sits in the vector loop.
const BLOCK: usize = 128;

/// out[i] = a[i] + b[i], four words at a time. Needs [`available`] and a format with
/// `F64Poly::vector_format`.
///
/// # Safety
/// The CPU must support AVX2 and FMA (see [`available`]).
#[target_feature(enable = "avx2,fma")]
pub(crate) unsafe fn add_words(m: &F64Poly, a: &[u32], b: &[u32], out: &mut [u32]) {
    let f = m.format;
    let l = f.log_bits() as i32;
    let c = Consts::new(m);
    let n = a.len().min(b.len()).min(out.len());
    let sh = _mm_cvtsi32_si128(32 - l);
    let lsh = _mm_cvtsi32_si128(l);
    let special = _mm_set1_epi32(f.special_code() as i32);
    let inf = _mm_set1_epi32(f.inf_code() as i32);
    let one = _mm_set1_epi32(1);
    let field = _mm_set1_epi32(((1u64 << l) - 1) as i32);
    let far = _mm_set1_epi32(-f.essential_zero_code() as i32);
    // Out of range: above max_code, or below min_code.
    let above = _mm_set1_epi32(f.max_code() as i32);
    let under = _mm_set1_epi32(f.min_code() as i32);
    let zero = _mm_setzero_si128();
    let mut fix = [0u8; BLOCK];
    let mut i = 0;
    while i + 4 <= n {
        let steps = ((n - i) / 4).min(BLOCK);
        let mut any = 0;
        for (g, fix) in fix[..steps].iter_mut().enumerate() {
            let at = i + 4 * g;
            // SAFETY: at + 4 ≤ n ≤ the slices' lengths.
            let (va, vb) = unsafe {
                (
                    _mm_loadu_si128(a.as_ptr().add(at) as *const __m128i),
                    _mm_loadu_si128(b.as_ptr().add(at) as *const __m128i),
                )
            };
            let xa = _mm_sra_epi32(_mm_sll_epi32(va, sh), sh);
            let xb = _mm_sra_epi32(_mm_sll_epi32(vb, sh), sh);
            let sa = _mm_and_si128(_mm_srl_epi32(va, lsh), one);
            let sb = _mm_and_si128(_mm_srl_epi32(vb, lsh), one);
            let big = _mm_max_epi32(xa, xb);
            let neg = _mm_sub_epi32(big, _mm_min_epi32(xa, xb)); // −z ≥ 0
                                                                 // The sign of the larger operand (b's where b > a).
            let sign = _mm_blendv_epi8(sa, sb, _mm_cmpgt_epi32(xb, xa));
            let is_db = _mm_xor_si128(_mm_cmpeq_epi32(sa, sb), _mm_set1_epi32(-1));
            let special_lane = _mm_or_si128(
                _mm_or_si128(_mm_cmpeq_epi32(xa, special), _mm_cmpeq_epi32(xb, special)),
                _mm_or_si128(_mm_cmpeq_epi32(xa, inf), _mm_cmpeq_epi32(xb, inf)),
            );
            let cancels = _mm_and_si128(is_db, _mm_cmpeq_epi32(neg, zero));
            let d = eval4(m, &c, neg, is_db);
            // Beyond the essential zero the sum is the larger operand.
            let d = _mm_andnot_si128(_mm_cmpgt_epi32(neg, far), d);
            let r = _mm_add_epi32(big, d);
            let out_of_range = _mm_or_si128(_mm_cmpgt_epi32(r, above), _mm_cmplt_epi32(r, under));
            let scalar = _mm_movemask_ps(_mm_castsi128_ps(_mm_or_si128(
                _mm_or_si128(special_lane, cancels),
                out_of_range,
            ))) as u8;
            let word = _mm_or_si128(_mm_sll_epi32(sign, lsh), _mm_and_si128(r, field));
            // SAFETY: at + 4 ≤ n ≤ out.len().
            unsafe { _mm_storeu_si128(out.as_mut_ptr().add(at) as *mut __m128i, word) };
            *fix = scalar;
            any |= scalar;
        }
        if any != 0 {
            super::redo_flagged(m, a, b, out, i, 4, &fix[..steps]);
        }
        i += 4 * steps;
    }
    for k in i..n {
        out[k] = f.add(m, a[k], b[k]);
    }
}
