//! [`F64Poly`] with AVX-512 (F + VL) and FMA, eight lanes of f64: the three 16-entry tables sit
//! in pairs of zmm registers and are read by `vpermt2pd` (no gathers, no memory traffic), and
//! every lane, s_b or d_b, near the pole or far from it, runs the same branch-free code. The
//! operations are the scalar `F64Poly::eval`'s, in the same order, so the words are equal.
//! Lanes the vector path does not cover (specials, x + (−x), results out of range) are
//! recomputed by the scalar `Format::add`.

use super::{F64Poly, DEGREE};
use crate::arith::AddSub;
use std::arch::x86_64::*;

/// Whether this CPU runs the AVX-512 path.
pub(crate) fn available() -> bool {
    is_x86_feature_detected!("avx512f")
        && is_x86_feature_detected!("avx512vl")
        && is_x86_feature_detected!("fma")
}

/// The method's tables and coefficients broadcast into registers, once per call.
struct Consts {
    to_sixteenths: __m512d,
    exp2: [__m512d; 2],
    recip: [__m512d; 2],
    log2_start: [__m512d; 2],
    q: [__m512d; DEGREE + 1],
    p: [__m512d; DEGREE + 1],
    one: __m512d,
    f_shift: __m128i,
}

impl Consts {
    #[target_feature(enable = "avx512f,avx512vl")]
    fn new(m: &F64Poly) -> Consts {
        // SAFETY (loads): each table has 16 f64, two unaligned 8-lane loads cover it.
        let pair = |t: &[f64; 16]| unsafe {
            [
                _mm512_loadu_pd(t.as_ptr()),
                _mm512_loadu_pd(t.as_ptr().add(8)),
            ]
        };
        Consts {
            to_sixteenths: _mm512_set1_pd(m.to_sixteenths),
            exp2: pair(&m.exp2_sixteenths),
            recip: pair(&m.recip),
            log2_start: pair(&m.log2_start),
            q: m.q.map(|c| _mm512_set1_pd(c)),
            p: m.p.map(|c| _mm512_set1_pd(c)),
            one: _mm512_set1_pd(1.0),
            f_shift: _mm_cvtsi32_si128(m.format.frac_bits as i32),
        }
    }
}

#[inline]
#[target_feature(enable = "avx512f,fma")]
fn horner(c: &[__m512d; DEGREE + 1], x: __m512d) -> __m512d {
    let mut acc = c[DEGREE];
    for j in (0..DEGREE).rev() {
        acc = _mm512_fmadd_pd(acc, x, c[j]);
    }
    acc
}

/// s_b (d_b in the lanes of `db`) at the codes z (z0 ≤ z ≤ 0), as codes: `F64Poly::eval`
/// lane by lane. Other lanes give garbage, never a fault.
#[inline]
#[target_feature(enable = "avx512f,avx512vl,fma,avx2")]
fn eval8(c: &Consts, z: __m256i, db: __mmask8) -> __m256i {
    let x = _mm512_mul_pd(_mm512_cvtepi32_pd(z), c.to_sixteenths);
    let j = _mm512_roundscale_pd::<{ _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC }>(x);
    let u = _mm512_sub_pd(j, x);
    // j as 64-bit lanes: vpermt2pd reads the low four bits (j mod 16), the exponent add the rest.
    let jn = _mm512_cvtepi32_epi64(_mm512_cvttpd_epi32(j));
    let t = _mm512_permutex2var_pd(c.exp2[0], jn, c.exp2[1]);
    let y = _mm512_castsi512_pd(_mm512_add_epi64(
        _mm512_castpd_si512(t),
        _mm512_slli_epi64::<52>(_mm512_srai_epi64::<4>(jn)),
    ));
    let s = _mm512_mask_sub_pd(y, db, _mm512_setzero_pd(), y);
    let pi = _mm512_mul_pd(u, horner(&c.q, u));
    let v = _mm512_fnmadd_pd(s, pi, _mm512_add_pd(c.one, s));
    // v = 2^e · m: e and m exactly as the scalar code takes them from the bits (v is normal).
    let e = _mm512_cvt_roundpd_epi32::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(
        _mm512_getexp_pd(v),
    );
    let m = _mm512_getmant_pd::<_MM_MANT_NORM_1_2, _MM_MANT_SIGN_SRC>(v);
    let i = _mm512_srli_epi64::<48>(_mm512_castpd_si512(v));
    let r = _mm512_permutex2var_pd(c.recip[0], i, c.recip[1]);
    let l = _mm512_permutex2var_pd(c.log2_start[0], i, c.log2_start[1]);
    let t = _mm512_fmsub_pd(m, r, c.one);
    let frac = _mm512_fmadd_pd(horner(&c.p, t), t, l);
    let code =
        _mm512_cvt_roundpd_epi32::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(frac);
    _mm256_add_epi32(_mm256_sll_epi32(e, c.f_shift), code)
}

/// `AddSub::eval_codes` eight codes at a time. Needs [`available`] and a format with
/// `F64Poly::vector_format`.
///
/// # Safety
/// The CPU must support AVX-512 F and VL and FMA (see [`available`]).
#[target_feature(enable = "avx512f,avx512vl,fma,avx2")]
pub(crate) unsafe fn eval_codes(m: &F64Poly, db: bool, zs: &[i64], out: &mut [i64]) {
    let c = Consts::new(m);
    let n = zs.len().min(out.len());
    let z0 = m.format.essential_zero_code();
    // Codes below z0 give 0: clamped to z0 − 1 first, so that they fit 32-bit lanes.
    let below = _mm512_set1_epi64(z0 - 1);
    let z0 = _mm256_set1_epi32(z0 as i32);
    let db = if db { 0xff } else { 0 };
    let mut i = 0;
    while i + 8 <= n {
        // SAFETY: i + 8 ≤ n ≤ both lengths.
        let z = unsafe { _mm512_loadu_si512(zs.as_ptr().add(i) as *const _) };
        let z = _mm512_cvtepi64_epi32(_mm512_max_epi64(z, below));
        let d = eval8(&c, z, db);
        let d = _mm256_mask_mov_epi32(d, _mm256_cmplt_epi32_mask(z, z0), _mm256_setzero_si256());
        // SAFETY: as the load.
        unsafe { _mm512_storeu_si512(out.as_mut_ptr().add(i) as *mut _, _mm512_cvtepi32_epi64(d)) };
        i += 8;
    }
    for k in i..n {
        out[k] = if db != 0 { m.db(zs[k]) } else { m.sb(zs[k]) };
    }
}

/// out[i] = a[i] + b[i], eight words at a time. Needs [`available`] and a format with
/// `F64Poly::vector_format`.
///
/// # Safety
/// The CPU must support AVX-512 F and VL and FMA (see [`available`]).
#[target_feature(enable = "avx512f,avx512vl,fma,avx2")]
pub(crate) unsafe fn add_words(m: &F64Poly, a: &[u32], b: &[u32], out: &mut [u32]) {
    let f = m.format;
    let l = f.log_bits() as i32;
    let c = Consts::new(m);
    let n = a.len().min(b.len()).min(out.len());
    let sh = _mm_cvtsi32_si128(32 - l);
    let lsh = _mm_cvtsi32_si128(l);
    let special = _mm256_set1_epi32(f.special_code() as i32);
    let inf = _mm256_set1_epi32(f.inf_code() as i32);
    let one = _mm256_set1_epi32(1);
    let field = _mm256_set1_epi32(((1u64 << l) - 1) as i32);
    let z0 = _mm256_set1_epi32(f.essential_zero_code() as i32);
    let max_code = _mm256_set1_epi32(f.max_code() as i32);
    let min_code = _mm256_set1_epi32(f.min_code() as i32);
    let zero = _mm256_setzero_si256();
    let mut i = 0;
    while i + 8 <= n {
        // SAFETY: i + 8 ≤ n ≤ the slices' lengths.
        let (va, vb) = unsafe {
            (
                _mm256_loadu_si256(a.as_ptr().add(i) as *const __m256i),
                _mm256_loadu_si256(b.as_ptr().add(i) as *const __m256i),
            )
        };
        // Sign-extended log fields and signs.
        let xa = _mm256_sra_epi32(_mm256_sll_epi32(va, sh), sh);
        let xb = _mm256_sra_epi32(_mm256_sll_epi32(vb, sh), sh);
        let sa = _mm256_and_si256(_mm256_srl_epi32(va, lsh), one);
        let sb = _mm256_and_si256(_mm256_srl_epi32(vb, lsh), one);
        let big = _mm256_max_epi32(xa, xb);
        let z = _mm256_sub_epi32(_mm256_min_epi32(xa, xb), big);
        let sign = _mm256_mask_blend_epi32(_mm256_cmpge_epi32_mask(xa, xb), sb, sa);
        let is_db = _mm256_cmpneq_epi32_mask(sa, sb);
        let mut scalar = _mm256_cmpeq_epi32_mask(xa, special)
            | _mm256_cmpeq_epi32_mask(xb, special)
            | _mm256_cmpeq_epi32_mask(xa, inf)
            | _mm256_cmpeq_epi32_mask(xb, inf)
            | (is_db & _mm256_cmpeq_epi32_mask(z, zero));
        let d = eval8(&c, z, is_db);
        // Beyond the essential zero the sum is the larger operand.
        let d = _mm256_mask_mov_epi32(d, _mm256_cmplt_epi32_mask(z, z0), zero);
        let r = _mm256_add_epi32(big, d);
        scalar |= _mm256_cmpgt_epi32_mask(r, max_code) | _mm256_cmplt_epi32_mask(r, min_code);
        let word = _mm256_or_si256(_mm256_sll_epi32(sign, lsh), _mm256_and_si256(r, field));
        // SAFETY: i + 8 ≤ n ≤ out.len().
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().add(i) as *mut __m256i, word) };
        while scalar != 0 {
            let k = i + scalar.trailing_zeros() as usize;
            out[k] = f.add(m, a[k], b[k]);
            scalar &= scalar - 1;
        }
        i += 8;
    }
    for k in i..n {
        out[k] = f.add(m, a[k], b[k]);
    }
}
