//! [`F64Tables`] add over slices, eight lanes at a time with AVX-512 (F + VL + CD): decode,
//! max/min, the far-table quadratic (three gathers, two FMAs), d_b within one binade of its pole
//! in the same form as the scalar `Site::Near` (exact integer part, log2 m + h from two more
//! quadratics), rounding and encoding in vector registers. Lanes the vector path does not cover
//! — specials, x + (−x), results out of range — are recomputed by the scalar `Format::add`, so
//! every word equals the scalar method's (tested against it over random and edge inputs).

use super::F64Tables;
use sigpu_runtime::host::CpuArch;
use std::arch::x86_64::*;

/// Whether a CPU with `arch` runs [`add_words`].
pub(crate) fn available(arch: &CpuArch) -> bool {
    // Every feature the functions below are compiled with.
    arch.avx512f && arch.avx512vl && arch.avx512cd && arch.fma && arch.avx2
}

/// The far tables interleaved for one gather index: `[segment][sb, db][c0, c1, c2]`.
pub(crate) fn interleave(t: &F64Tables) -> Vec<f64> {
    t.sb.coeffs
        .chunks(3)
        .zip(t.db.coeffs.chunks(3))
        .flat_map(|(s, d)| s.iter().chain(d).copied())
        .collect()
}

/// The format's and the far tables' constants for the add, broadcast once per call.
struct WordConsts {
    sh: __m128i,
    lsh: __m128i,
    special: __m256i,
    inf: __m256i,
    one: __m256i,
    field: __m256i,
    z0: __m256i,
    near: __m256i,
    max_code: __m256i,
    min_code: __m256i,
    span: __m256i,
    last: __m256i,
    shift: __m128i,
    inv_seg: __m512d,
    scale: __m512d,
}

impl WordConsts {
    #[target_feature(enable = "avx512f,avx512vl,avx2")]
    fn new(t: &F64Tables) -> WordConsts {
        let g = &t.geometry;
        let f = g.format;
        let l = f.log_bits() as i32;
        WordConsts {
            sh: _mm_cvtsi32_si128(32 - l),
            lsh: _mm_cvtsi32_si128(l),
            special: _mm256_set1_epi32(f.special_code() as i32),
            inf: _mm256_set1_epi32(f.inf_code() as i32),
            one: _mm256_set1_epi32(1),
            field: _mm256_set1_epi32(((1u64 << l) - 1) as i32),
            z0: _mm256_set1_epi32(f.essential_zero_code() as i32),
            near: _mm256_set1_epi32(-(1i32 << f.frac_bits)),
            max_code: _mm256_set1_epi32(f.max_code() as i32),
            min_code: _mm256_set1_epi32(f.min_code() as i32),
            span: _mm256_set1_epi32((g.far_segments << g.shift) as i32),
            last: _mm256_set1_epi32(g.far_segments as i32 - 1),
            shift: _mm_cvtsi32_si128(g.shift as i32),
            inv_seg: _mm512_set1_pd(crate::format::pow2(-(g.shift as i32))),
            scale: _mm512_set1_pd(crate::format::pow2(f.frac_bits as i32)),
        }
    }
}

/// Eight sums: the words, and the lanes the scalar add must redo (specials, x + (−x),
/// results out of range). `far` is checked against the geometry by [`add_words`].
#[inline]
#[target_feature(enable = "avx512f,avx512vl,avx512cd,fma,avx2")]
fn add8(
    t: &F64Tables,
    far: &[f64],
    (k, c): (&WordConsts, &NearConsts),
    va: __m256i,
    vb: __m256i,
) -> (__m256i, __mmask8) {
    let zero = _mm256_setzero_si256();
    // Sign-extended log fields and signs.
    let xa = _mm256_sra_epi32(_mm256_sll_epi32(va, k.sh), k.sh);
    let xb = _mm256_sra_epi32(_mm256_sll_epi32(vb, k.sh), k.sh);
    let sa = _mm256_and_si256(_mm256_srl_epi32(va, k.lsh), k.one);
    let sb = _mm256_and_si256(_mm256_srl_epi32(vb, k.lsh), k.one);
    let big = _mm256_max_epi32(xa, xb);
    let z = _mm256_sub_epi32(_mm256_min_epi32(xa, xb), big);
    let a_wins = _mm256_cmpge_epi32_mask(xa, xb);
    let sign = _mm256_mask_blend_epi32(a_wins, sb, sa);
    let is_db = _mm256_cmpneq_epi32_mask(sa, sb);
    let flat = _mm256_cmplt_epi32_mask(z, k.z0); // beyond the essential zero: + 0
    let near_db = is_db & _mm256_cmpgt_epi32_mask(z, k.near);
    let scalar = _mm256_cmpeq_epi32_mask(xa, k.special)
        | _mm256_cmpeq_epi32_mask(xb, k.special)
        | _mm256_cmpeq_epi32_mask(xa, k.inf)
        | _mm256_cmpeq_epi32_mask(xb, k.inf)
        | (is_db & _mm256_cmpeq_epi32_mask(z, zero));
    // Far segment w and local s; z = 0 (s_b only) reads the last segment at s = 1.
    let u = _mm256_add_epi32(z, k.span);
    let w = _mm256_max_epi32(_mm256_min_epi32(_mm256_sra_epi32(u, k.shift), k.last), zero);
    let off = _mm256_sub_epi32(u, _mm256_sll_epi32(w, k.shift));
    let s = _mm512_mul_pd(_mm512_cvtepi32_pd(off), k.inv_seg);
    // Gather index (2w + is_db) * 3.
    let row = _mm256_mask_add_epi32(_mm256_add_epi32(w, w), is_db, _mm256_add_epi32(w, w), k.one);
    let idx = _mm256_add_epi32(_mm256_add_epi32(row, row), row);
    let base = far.as_ptr();
    // SAFETY: 0 ≤ w < far_segments, so idx + 2 < 6 · far_segments = far.len() (asserted by
    // `add_words`, the only caller).
    let (c0, c1, c2) = unsafe {
        (
            _mm512_i32gather_pd::<8>(idx, base),
            _mm512_i32gather_pd::<8>(_mm256_add_epi32(idx, k.one), base),
            _mm512_i32gather_pd::<8>(_mm256_add_epi32(idx, _mm256_add_epi32(k.one, k.one)), base),
        )
    };
    let p = _mm512_fmadd_pd(_mm512_fmadd_pd(c2, s, c1), s, c0);
    // Round to nearest, ties to even (the default MXCSR mode), as the scalar `to_code`.
    let d = _mm512_cvtpd_epi32(_mm512_mul_pd(p, k.scale));
    let d = _mm256_mask_mov_epi32(d, flat, zero);
    let d = if near_db != 0 {
        _mm256_mask_mov_epi32(d, near_db, near_pole(t, c, z))
    } else {
        d
    };
    let r = _mm256_add_epi32(big, d);
    let scalar =
        scalar | _mm256_cmpgt_epi32_mask(r, k.max_code) | _mm256_cmplt_epi32_mask(r, k.min_code);
    let word = _mm256_or_si256(_mm256_sll_epi32(sign, k.lsh), _mm256_and_si256(r, k.field));
    (word, scalar)
}

/// out[i] = a[i] + b[i]. Needs [`available`]; the format's log field at most 31 bits.
///
/// # Panics
/// If `t.geometry` (a public field) no longer matches the tables it was built with: the
/// gathers' indices come from the geometry, so a mismatch would read outside the tables.
///
/// # Safety
/// The CPU must support AVX-512 F, VL and CD and FMA (see [`available`]).
#[target_feature(enable = "avx512f,avx512vl,avx512cd,fma,avx2")]
pub(crate) unsafe fn add_words(t: &F64Tables, far: &[f64], a: &[u32], b: &[u32], out: &mut [u32]) {
    let g = &t.geometry;
    let f = g.format;
    // What the gathers' SAFETY arguments rest on: far segment w ∈ [0, far_segments),
    // log2 m segment < 2^log2m_bits, h segment < 2^(F − near_shift), 3 coefficients each.
    assert!(
        f.log_bits() <= 31
            && g.far_segments >= 1
            && far.len() == 6 * g.far_segments
            && g.log2m_bits <= 16
            && g.near_shift <= f.frac_bits
            && t.log2m.coeffs.len() >= 3 << g.log2m_bits
            && t.h.coeffs.len() >= 3 << (f.frac_bits - g.near_shift),
        "F64Tables: geometry {g:?} does not match its tables"
    );
    let n = a.len().min(b.len()).min(out.len());
    let consts = (&WordConsts::new(t), &NearConsts::new(t));
    let mut i = 0;
    while i + 8 <= n {
        // SAFETY: i + 8 ≤ n ≤ the slices' lengths.
        let (va, vb) = unsafe {
            (
                _mm256_loadu_si256(a.as_ptr().add(i) as *const __m256i),
                _mm256_loadu_si256(b.as_ptr().add(i) as *const __m256i),
            )
        };
        let (word, mut scalar) = add8(t, far, consts, va, vb);
        // SAFETY: i + 8 ≤ n ≤ out.len().
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().add(i) as *mut __m256i, word) };
        while scalar != 0 {
            let k = i + scalar.trailing_zeros() as usize;
            out[k] = f.add(t, a[k], b[k]);
            scalar &= scalar - 1;
        }
        i += 8;
    }
    for k in i..n {
        out[k] = f.add(t, a[k], b[k]);
    }
}

/// Constants of the near-pole d_b form, built once per call.
struct NearConsts {
    one: __m256i,
    f: __m256i,
    f_shift: __m128i,
    m_bits: __m256i,
    unit: __m256i,
    h_mask: __m256i,
    h_shift: __m128i,
    h_scale: __m512d,
    scale: __m512d,
    bias: __m512i,
}

impl NearConsts {
    #[target_feature(enable = "avx512f,avx512vl,avx2")]
    fn new(t: &F64Tables) -> NearConsts {
        let g = &t.geometry;
        let f = g.format.frac_bits as i32;
        NearConsts {
            one: _mm256_set1_epi32(1),
            f: _mm256_set1_epi32(f),
            f_shift: _mm_cvtsi32_si128(f),
            m_bits: _mm256_set1_epi32(g.log2m_bits as i32),
            unit: _mm256_set1_epi32(1 << f),
            h_mask: _mm256_set1_epi32((1 << g.near_shift) - 1),
            h_shift: _mm_cvtsi32_si128(g.near_shift as i32),
            h_scale: _mm512_set1_pd(crate::format::pow2(-(g.near_shift as i32))),
            scale: _mm512_set1_pd(crate::format::pow2(f)),
            bias: _mm512_set1_epi64(1023),
        }
    }
}

/// d_b(z) for −2^F < z < 0 in codes, as the scalar `Site::Near`: with k = −z = 2^e·m,
/// (e − F)·2^F + round((log2 m + h(z + 1))·2^F). Lanes outside that range give garbage that
/// the caller discards.
#[target_feature(enable = "avx512f,avx512vl,avx512cd,fma,avx2")]
fn near_pole(t: &F64Tables, c: &NearConsts, z: __m256i) -> __m256i {
    // k = −z, clamped into [1, 2^F) so that discarded lanes still index inside the tables.
    let k = _mm256_min_epi32(
        _mm256_max_epi32(_mm256_sub_epi32(_mm256_setzero_si256(), z), c.one),
        _mm256_sub_epi32(c.unit, c.one),
    );
    let e = _mm256_sub_epi32(_mm256_set1_epi32(31), _mm256_lzcnt_epi32(k));
    let frac = _mm256_sub_epi32(k, _mm256_sllv_epi32(c.one, e));
    // log2 m's segment: the top log2m_bits bits of the fraction, the rest its local variable.
    let low = _mm256_max_epi32(_mm256_sub_epi32(e, c.m_bits), _mm256_setzero_si256());
    let up = _mm256_max_epi32(_mm256_sub_epi32(c.m_bits, e), _mm256_setzero_si256());
    let top = _mm256_srlv_epi32(frac, low);
    let wm = _mm256_sllv_epi32(top, up);
    let off = _mm256_sub_epi32(frac, _mm256_sllv_epi32(top, low));
    // 2^-low from the exponent bits (low < 31).
    let inv = _mm512_castsi512_pd(_mm512_slli_epi64::<52>(_mm512_sub_epi64(
        c.bias,
        _mm512_cvtepi32_epi64(low),
    )));
    let sm = _mm512_mul_pd(_mm512_cvtepi32_pd(off), inv);
    // h's segment from u = z + 1 = 2^F − k in codes.
    let u = _mm256_sub_epi32(c.unit, k);
    let wh = _mm256_sra_epi32(u, c.h_shift);
    let sh = _mm512_mul_pd(_mm512_cvtepi32_pd(_mm256_and_si256(u, c.h_mask)), c.h_scale);
    let (m3, h3) = (
        _mm256_mullo_epi32(wm, _mm256_set1_epi32(3)),
        _mm256_mullo_epi32(wh, _mm256_set1_epi32(3)),
    );
    let (pm, ph) = (t.log2m.coeffs.as_ptr(), t.h.coeffs.as_ptr());
    let two = _mm256_add_epi32(c.one, c.one);
    // SAFETY: 1 ≤ k < 2^F in every lane, so wm < 2^log2m_bits and 0 ≤ wh < 2^(F − near_shift):
    // inside both tables (3 coefficients per segment).
    let (m0, m1, m2, h0, h1, h2) = unsafe {
        (
            _mm512_i32gather_pd::<8>(m3, pm),
            _mm512_i32gather_pd::<8>(_mm256_add_epi32(m3, c.one), pm),
            _mm512_i32gather_pd::<8>(_mm256_add_epi32(m3, two), pm),
            _mm512_i32gather_pd::<8>(h3, ph),
            _mm512_i32gather_pd::<8>(_mm256_add_epi32(h3, c.one), ph),
            _mm512_i32gather_pd::<8>(_mm256_add_epi32(h3, two), ph),
        )
    };
    let lm = _mm512_fmadd_pd(_mm512_fmadd_pd(m2, sm, m1), sm, m0);
    let lh = _mm512_fmadd_pd(_mm512_fmadd_pd(h2, sh, h1), sh, h0);
    let frac_code = _mm512_cvtpd_epi32(_mm512_mul_pd(_mm512_add_pd(lm, lh), c.scale));
    _mm256_add_epi32(
        _mm256_sll_epi32(_mm256_sub_epi32(e, c.f), c.f_shift),
        frac_code,
    )
}
