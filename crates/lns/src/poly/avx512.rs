//! [`F64Poly`] with AVX-512 (F + VL) and FMA, eight lanes of f64: the three 16-entry tables sit
//! in pairs of zmm registers and are read by `vpermt2pd` (no gathers, no memory traffic), and
//! every lane, s_b or d_b, near the pole or far from it, runs the same branch-free code. The
//! operations are the scalar `F64Poly::eval`'s, in the same order, so the words are equal.
//! Lanes the vector path does not cover (specials, x + (−x), results out of range) are
//! recomputed by the scalar `Format::add`.

use super::{F64Poly, P_DEGREE, Q_DEGREE};
use crate::arith::AddSub;
use sigpu_runtime::host::CpuArch;
use std::arch::x86_64::*;

/// Whether a CPU with `arch` runs the AVX-512 path.
pub(crate) fn available(arch: &CpuArch) -> bool {
    arch.avx512f && arch.avx512vl && arch.avx2 && arch.fma
}

/// The method's tables and coefficients broadcast into registers, once per call.
struct Consts {
    /// T[k]'s bits less k·2^48, so that adding j·2^48 (j = 16·⌊j/16⌋ + k) gives the bits of
    /// 2^⌊j/16⌋ · T[k] in one integer add.
    exp2_less_k: [__m512i; 2],
    recip: [__m512d; 2],
    log2_start: [__m512d; 2],
    q: [__m512d; Q_DEGREE + 1],
    p: [__m512d; P_DEGREE + 1],
    one: __m512d,
    unit: __m512d,
    split: __m128i,
    w_mask: __m256i,
    negate: __m256i,
}

impl Consts {
    #[target_feature(enable = "avx512f,avx512vl")]
    fn new(m: &F64Poly) -> Consts {
        // SAFETY (loads): each table has 16 entries of 8 bytes, two unaligned 8-lane loads.
        let pair = |t: &[f64; 16]| unsafe {
            [
                _mm512_loadu_pd(t.as_ptr()),
                _mm512_loadu_pd(t.as_ptr().add(8)),
            ]
        };
        let less_k: [u64; 16] = std::array::from_fn(|k| {
            m.exp2_sixteenths[k]
                .to_bits()
                .wrapping_sub((k as u64) << 48)
        });
        // SAFETY: as above.
        let exp2_less_k = unsafe {
            [
                _mm512_loadu_si512(less_k.as_ptr() as *const _),
                _mm512_loadu_si512(less_k.as_ptr().add(8) as *const _),
            ]
        };
        Consts {
            exp2_less_k,
            recip: pair(&m.recip),
            log2_start: pair(&m.log2_start),
            q: m.q.map(|c| _mm512_set1_pd(c)),
            p: m.p.map(|c| _mm512_set1_pd(c)),
            one: _mm512_set1_pd(1.0),
            unit: _mm512_set1_pd(m.unit),
            split: _mm_cvtsi32_si128(m.split as i32),
            w_mask: _mm256_set1_epi32((1 << m.split) - 1),
            negate: _mm256_set1_epi32(1 << 15),
        }
    }
}

#[inline]
#[target_feature(enable = "avx512f,fma")]
fn horner<const N: usize>(c: &[__m512d; N], x: __m512d) -> __m512d {
    let mut acc = c[N - 1];
    for j in (0..N - 1).rev() {
        acc = _mm512_fmadd_pd(acc, x, c[j]);
    }
    acc
}

/// s_b (d_b in the lanes of `db`) at the codes z = −neg (0 ≤ neg ≤ −z0), as codes:
/// `F64Poly::eval` lane by lane. Other lanes give garbage, never a fault.
#[inline]
#[target_feature(enable = "avx512f,avx512vl,fma,avx2")]
fn eval8(c: &Consts, neg: __m256i, db: __mmask8) -> __m256i {
    _mm512_cvt_roundpd_epi32::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(unrounded8(
        c, neg, db,
    ))
}

/// [`eval8`] before its final rounding (`F64Poly::eval_unrounded`).
#[inline]
#[target_feature(enable = "avx512f,avx512vl,fma,avx2")]
fn unrounded8(c: &Consts, neg: __m256i, db: __mmask8) -> __m512d {
    // j, plus 2^15 in the d_b lanes: shifted to bit 63 below, it negates 2^(j/16) there.
    let jn = _mm256_sub_epi32(
        _mm256_maskz_mov_epi32(db, c.negate),
        _mm256_srl_epi32(neg, c.split),
    );
    let w = _mm512_cvtepi32_pd(_mm256_and_si256(neg, c.w_mask));
    // j in 64-bit lanes: vpermt2q reads its low four bits (j mod 16), the add the rest.
    let jn = _mm512_cvtepi32_epi64(jn);
    let t = _mm512_permutex2var_epi64(c.exp2_less_k[0], jn, c.exp2_less_k[1]);
    let s = _mm512_castsi512_pd(_mm512_add_epi64(t, _mm512_slli_epi64::<48>(jn)));
    let pi = _mm512_mul_pd(w, horner(&c.q, w));
    let v = _mm512_fnmadd_pd(s, pi, _mm512_add_pd(c.one, s));
    // v = 2^e · m: e and m exactly as the scalar code takes them from the bits (v is normal).
    let e = _mm512_getexp_pd(v);
    let m = _mm512_getmant_pd::<_MM_MANT_NORM_1_2, _MM_MANT_SIGN_SRC>(v);
    let i = _mm512_srli_epi64::<48>(_mm512_castpd_si512(v));
    let r = _mm512_permutex2var_pd(c.recip[0], i, c.recip[1]);
    let l = _mm512_permutex2var_pd(c.log2_start[0], i, c.log2_start[1]);
    let t = _mm512_fmsub_pd(m, r, c.one);
    let frac = _mm512_fmadd_pd(horner(&c.p, t), t, l);
    _mm512_fmadd_pd(e, c.unit, frac)
}

/// The unrounded values at z = −negs[i] (lengths multiples of 8), for tests.
///
/// # Safety
/// The CPU must support AVX-512 F and VL and FMA (see [`available`]).
#[cfg(test)]
#[target_feature(enable = "avx512f,avx512vl,fma,avx2")]
pub(crate) unsafe fn unrounded(m: &F64Poly, db: bool, negs: &[i32], out: &mut [f64]) {
    let c = Consts::new(m);
    for (n, o) in negs.chunks_exact(8).zip(out.chunks_exact_mut(8)) {
        // SAFETY: both chunks hold 8 elements.
        unsafe {
            let neg = _mm256_loadu_si256(n.as_ptr() as *const __m256i);
            let v = unrounded8(&c, neg, if db { 0xff } else { 0 });
            _mm512_storeu_pd(o.as_mut_ptr(), v);
        }
    }
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
    // Codes below z0 give 0: clamped to z0 − 1 first, so that −z fits 32-bit lanes.
    let below = _mm512_set1_epi64(z0 - 1);
    let far = _mm256_set1_epi32(-z0 as i32);
    let db = if db { 0xff } else { 0 };
    let mut i = 0;
    while i + 8 <= n {
        // SAFETY: i + 8 ≤ n ≤ both lengths.
        let z = unsafe { _mm512_loadu_si512(zs.as_ptr().add(i) as *const _) };
        let neg = _mm512_cvtepi64_epi32(_mm512_sub_epi64(
            _mm512_setzero_si512(),
            _mm512_max_epi64(z, below),
        ));
        let d = eval8(&c, neg, db);
        let d = _mm256_mask_mov_epi32(d, _mm256_cmpgt_epi32_mask(neg, far), _mm256_setzero_si256());
        // SAFETY: as the load.
        unsafe { _mm512_storeu_si512(out.as_mut_ptr().add(i) as *mut _, _mm512_cvtepi32_epi64(d)) };
        i += 8;
    }
    for k in i..n {
        out[k] = if db != 0 { m.db(zs[k]) } else { m.sb(zs[k]) };
    }
}

/// Vectors per block of [`add_words`]: lanes that need the scalar add are fixed after each
/// block, so that no call sits in the vector loop (a call would evict the tables and
/// coefficients from the registers).
const BLOCK: usize = 64;

/// The format's constants for the add, broadcast once per call.
struct Words {
    sh: __m128i,
    special: __m256i,
    inf: __m256i,
    sign_bit: __m256i,
    field: __m256i,
    far: __m256i,
    max_code: __m256i,
    min_code: __m256i,
}

impl Words {
    #[target_feature(enable = "avx512f,avx512vl,avx2")]
    fn new(f: crate::format::Format) -> Words {
        let l = f.log_bits();
        Words {
            sh: _mm_cvtsi32_si128(32 - l as i32),
            special: _mm256_set1_epi32(f.special_code() as i32),
            inf: _mm256_set1_epi32(f.inf_code() as i32),
            sign_bit: _mm256_set1_epi32((1u32 << l) as i32),
            field: _mm256_set1_epi32(((1u64 << l) - 1) as i32),
            far: _mm256_set1_epi32(-f.essential_zero_code() as i32),
            max_code: _mm256_set1_epi32(f.max_code() as i32),
            min_code: _mm256_set1_epi32(f.min_code() as i32),
        }
    }
}

/// Eight sums: the words, and the lanes the scalar add must redo (specials, x + (−x),
/// results out of range).
#[inline]
#[target_feature(enable = "avx512f,avx512vl,fma,avx2")]
fn add8(c: &Consts, k: &Words, va: __m256i, vb: __m256i) -> (__m256i, u8) {
    // Sign-extended log fields; the sum takes the sign of the larger magnitude.
    let xa = _mm256_sra_epi32(_mm256_sll_epi32(va, k.sh), k.sh);
    let xb = _mm256_sra_epi32(_mm256_sll_epi32(vb, k.sh), k.sh);
    let big = _mm256_max_epi32(xa, xb);
    let small = _mm256_min_epi32(xa, xb);
    let neg = _mm256_sub_epi32(big, small); // −z ≥ 0
    let sign = _mm256_mask_blend_epi32(_mm256_cmpge_epi32_mask(xa, xb), vb, va);
    let is_db = _mm256_test_epi32_mask(_mm256_xor_si256(va, vb), k.sign_bit);
    // Specials (zero and NaN are the smallest code, ±∞ the largest) and x + (−x).
    let scalar = _mm256_cmpeq_epi32_mask(big, k.inf)
        | _mm256_cmpeq_epi32_mask(small, k.special)
        | (is_db & _mm256_cmpeq_epi32_mask(neg, _mm256_setzero_si256()));
    let d = eval8(c, neg, is_db);
    // Beyond the essential zero the sum is the larger operand.
    let r = _mm256_mask_add_epi32(big, !_mm256_cmpgt_epi32_mask(neg, k.far), big, d);
    let scalar =
        scalar | _mm256_cmpgt_epi32_mask(r, k.max_code) | _mm256_cmplt_epi32_mask(r, k.min_code);
    let word = _mm256_or_si256(
        _mm256_and_si256(sign, k.sign_bit),
        _mm256_and_si256(r, k.field),
    );
    (word, scalar)
}

/// out[i] = a[i] + b[i], eight words at a time. Needs [`available`] and a format with
/// `F64Poly::vector_format`.
///
/// # Safety
/// The CPU must support AVX-512 F and VL and FMA (see [`available`]).
#[target_feature(enable = "avx512f,avx512vl,fma,avx2")]
pub(crate) unsafe fn add_words(m: &F64Poly, a: &[u32], b: &[u32], out: &mut [u32]) {
    let f = m.format;
    let c = Consts::new(m);
    let k = Words::new(f);
    let n = a.len().min(b.len()).min(out.len());
    let mut fix = [0u8; BLOCK];
    let mut i = 0;
    while i + 8 <= n {
        let vectors = ((n - i) / 8).min(BLOCK);
        let mut any = 0;
        for (g, fix) in fix[..vectors].iter_mut().enumerate() {
            let at = i + 8 * g;
            // SAFETY: at + 8 ≤ n ≤ the slices' lengths.
            let (va, vb) = unsafe {
                (
                    _mm256_loadu_si256(a.as_ptr().add(at) as *const __m256i),
                    _mm256_loadu_si256(b.as_ptr().add(at) as *const __m256i),
                )
            };
            let (word, scalar) = add8(&c, &k, va, vb);
            // SAFETY: at + 8 ≤ n ≤ out.len().
            unsafe { _mm256_storeu_si256(out.as_mut_ptr().add(at) as *mut __m256i, word) };
            *fix = scalar;
            any |= scalar;
        }
        if any != 0 {
            super::redo_flagged(m, a, b, out, i, 8, &fix[..vectors]);
        }
        i += 8 * vectors;
    }
    for k in i..n {
        out[k] = f.add(m, a[k], b[k]);
    }
}
