//! The AVX-512 (BW) kernel of the quasi-cyclic decoder ([`super::qc`]): a chunk of 64 checks
//! is one register of `i8` (v2c, c2v, the two minima, the argmin and the sign product, in the
//! lane order of a saturating pack: see `widen`) and two of `i16` (P). A window that wraps round its block column is read and written with two
//! masked accesses; the others with plain unaligned ones. Operation for operation the
//! portable kernel's arithmetic, so the two agree bit for bit.

#![cfg(target_arch = "x86_64")]

use super::lambda_min::Drops;
use super::lanes::Rule8;
use super::qc::{iterate, Input, Kernel, QcTables, State, Window, CHUNK};
use std::arch::x86_64::*;

/// Loads and decodes one codeword (see [`iterate`]).
///
/// # Safety
/// The CPU must have AVX-512 F, BW and VL.
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
pub(super) unsafe fn run(
    t: &QcTables,
    st: &mut State,
    input: Input<'_>,
    out: &mut [u8],
    rule: Rule8,
    iterations: usize,
    early: bool,
) -> (usize, bool) {
    iterate::<Avx512>(t, st, input, out, rule, iterations, early)
}

struct Avx512;

/// Vector j holds j in every lane: the edge indices the argmin is tracked with, loaded rather
/// than counted so that the two ALU ports, which bound this kernel, do less.
#[repr(C, align(64))]
struct Indices([[i8; CHUNK]; super::qc::MAX_ROW_DEGREE]);

static INDICES: Indices = {
    let mut t = [[0i8; CHUNK]; super::qc::MAX_ROW_DEGREE];
    let mut j = 0;
    while j < t.len() {
        t[j] = [j as i8; CHUNK];
        j += 1;
    }
    Indices(t)
};

/// Lanes `0 .. n` set.
#[inline(always)]
fn lanes(n: u8) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

/// The two `i16` halves of the chunk of P that window `w` covers (unused lanes 0).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
unsafe fn load_p(p: *const i16, w: Window) -> (__m512i, __m512i) {
    // SAFETY: the caller checked the CPU; every window lies inside the buffers.
    unsafe {
        let a = p.add(w.off1 as usize);
        if w.k1 == u64::MAX {
            return (
                _mm512_loadu_si512(a.cast()),
                _mm512_loadu_si512(a.add(32).cast()),
            );
        }
        let (k1, k2) = (w.k1, w.k2);
        let b = p.add(w.off2 as usize);
        let lo = _mm512_mask_loadu_epi16(_mm512_maskz_loadu_epi16(k1 as u32, a), k2 as u32, b);
        let hi = _mm512_mask_loadu_epi16(
            _mm512_maskz_loadu_epi16((k1 >> 32) as u32, a.add(32)),
            (k2 >> 32) as u32,
            b.add(32),
        );
        (lo, hi)
    }
}

/// Writes the used lanes of a chunk of P back through window `w`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
unsafe fn store_p(p: *mut i16, w: Window, lo: __m512i, hi: __m512i) {
    // SAFETY: the caller checked the CPU; every window lies inside the buffers.
    unsafe {
        let a = p.add(w.off1 as usize);
        if w.k1 == u64::MAX {
            _mm512_storeu_si512(a.cast(), lo);
            _mm512_storeu_si512(a.add(32).cast(), hi);
            return;
        }
        let (k1, k2) = (w.k1, w.k2);
        let b = p.add(w.off2 as usize);
        _mm512_mask_storeu_epi16(a, k1 as u32, lo);
        _mm512_mask_storeu_epi16(a.add(32), (k1 >> 32) as u32, hi);
        _mm512_mask_storeu_epi16(b, k2 as u32, lo);
        _mm512_mask_storeu_epi16(b.add(32), (k2 >> 32) as u32, hi);
    }
}

/// j in every lane (j below [`super::qc::MAX_ROW_DEGREE`], as `QcTables::new` checks).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
unsafe fn index(j: usize) -> __m512i {
    // SAFETY: the caller checked the CPU; j is in range (see above), the table is aligned.
    unsafe { _mm512_load_si512(INDICES.0.as_ptr().add(j).cast()) }
}

/// The two `i16` halves (checks 0–31, 32–63) of a chunk of `i8` held in `packs_epi16`'s
/// order — each 128-bit lane k holding checks 8k … 8k + 7, then 32 + 8k … 32 + 8k + 7 — as
/// the kernel keeps v2c and c2v, so that neither the pack nor the widening needs a lane
/// permute (an unpack and a shift each: the shift runs on the port the permutes do not).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
fn widen(x: __m512i) -> (__m512i, __m512i) {
    (
        _mm512_srai_epi16::<8>(_mm512_unpacklo_epi8(x, x)),
        _mm512_srai_epi16::<8>(_mm512_unpackhi_epi8(x, x)),
    )
}

/// `packs_epi16` works within 128-bit lanes; this puts its quadwords back in order.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
fn unlane() -> __m512i {
    _mm512_set_epi64(7, 5, 3, 1, 6, 4, 2, 0)
}

/// min · k / 16 rounded down, per unsigned byte.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
fn normalise(m: __m512i, k: __m512i) -> __m512i {
    let lo = _mm512_srli_epi16::<4>(_mm512_mullo_epi16(
        _mm512_cvtepu8_epi16(_mm512_castsi512_si256(m)),
        k,
    ));
    let hi = _mm512_srli_epi16::<4>(_mm512_mullo_epi16(
        _mm512_cvtepu8_epi16(_mm512_extracti64x4_epi64::<1>(m)),
        k,
    ));
    _mm512_permutexvar_epi64(unlane(), _mm512_packus_epi16(lo, hi))
}

/// The first pass's work on one edge's chunk, common to every rule: diff = P − old c2v through
/// window `w` (stored, `i16`), v2c its saturating pack (stored, and returned). `at` is the
/// edge's chunk in `c2v`, `j` its place in the row.
///
/// In the pack's order (see `widen`): no lane permute. The portable kernel clamps to ±127; a
/// lane the pack saturates to −128 instead has the same sign and an |x| of 128 (unsigned),
/// which the minima, starting at 127, treat as 127: the same result, one instruction fewer.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
unsafe fn edge_v2c(b: &Bufs, w: Window, at: usize, j: usize) -> __m512i {
    // SAFETY: the caller checked the CPU; the window and chunks lie inside the buffers.
    unsafe {
        let (plo, phi) = load_p(b.p, w);
        let (olo, ohi) = widen(_mm512_load_si512(b.c2v.add(at).cast()));
        let dlo = _mm512_sub_epi16(plo, olo);
        let dhi = _mm512_sub_epi16(phi, ohi);
        let d = b.diff.add(j * CHUNK);
        _mm512_storeu_si512(d.cast(), dlo);
        _mm512_storeu_si512(d.add(32).cast(), dhi);
        let x = _mm512_packs_epi16(dlo, dhi);
        _mm512_storeu_si512(b.v2c.add(j * CHUNK).cast(), x);
        x
    }
}

/// The second pass's work on one edge's chunk, common to every rule: the new c2v stored at
/// `at`, and P = diff + c2v written back through window `w`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
unsafe fn edge_store(b: &Bufs, w: Window, at: usize, j: usize, new: __m512i) {
    // SAFETY: as in `edge_v2c`.
    unsafe {
        _mm512_storeu_si512(b.c2v.add(at).cast(), new);
        let d = b.diff.add(j * CHUNK);
        let (nlo, nhi) = widen(new);
        let plo = _mm512_add_epi16(_mm512_loadu_si512(d.cast()), nlo);
        let phi = _mm512_add_epi16(_mm512_loadu_si512(d.add(32).cast()), nhi);
        store_p(b.p, w, plo, phi);
    }
}

/// The state's buffers as raw pointers, taken once per block row (the passes' accesses
/// then need no reload of the vectors' fields).
struct Bufs {
    p: *mut i16,
    c2v: *mut i8,
    diff: *mut i16,
    v2c: *mut i8,
}

impl Bufs {
    fn of(st: &mut State) -> Bufs {
        Bufs {
            p: st.p.as_mut_ptr(),
            c2v: st.c2v.as_mut_ptr(),
            diff: st.diff.as_mut_ptr(),
            v2c: st.v2c.as_mut_ptr(),
        }
    }
}

/// Updates block row `row`. `TRACK`: the argmin is tracked as an edge index (the adaptive
/// rule, which corrects the two minima differently); otherwise the second pass finds it as
/// the edge whose |v2c| equals the smallest — on a tie the minima are equal, and so are the
/// corrections of a uniform rule, so every tied edge gets the same c2v either way.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
unsafe fn row<const TRACK: bool>(t: &QcTables, st: &mut State, row: usize, rule: Rule8) {
    // SAFETY: the caller checked the CPU; every window lies inside the buffers.
    unsafe {
        let (first, last) = (t.row_start[row], t.row_start[row + 1]);
        let bufs = Bufs::of(st);
        let windows = t.windows.as_ptr();
        let chunks = t.chunks;
        // The adaptive rule's table as (gap, drop) steps, once per block row.
        let drops = match rule {
            Rule8::Adaptive { table, .. } => Some(TableDrops::new(&table)),
            _ => None,
        };
        for u in 0..chunks {
            let mut min1 = _mm512_set1_epi8(127);
            let mut min2 = min1;
            let mut at = _mm512_set1_epi8(-1);
            let mut sign = _mm512_setzero_si512();
            for (j, e) in (first..last).enumerate() {
                let x = edge_v2c(
                    &bufs,
                    *windows.add(e * chunks + u),
                    (e * chunks + u) * CHUNK,
                    j,
                );
                let a = _mm512_abs_epi8(x);
                if TRACK {
                    let below = _mm512_cmplt_epu8_mask(a, min1);
                    at = _mm512_mask_mov_epi8(at, below, index(j));
                }
                min2 = _mm512_max_epu8(min1, _mm512_min_epu8(a, min2));
                min1 = _mm512_min_epu8(min1, a);
                sign = _mm512_xor_si512(sign, x);
            }
            // |x| ≤ m ⟺ x + m ≤ 2m as unsigned bytes (m ≤ 127; x = −128 never passes), and
            // no |x| is below the smallest: the edges whose |v2c| is the smallest.
            let (raw, raw2) = (min1, _mm512_add_epi8(min1, min1));
            match rule {
                Rule8::Plain => {}
                Rule8::Normalized(k) => {
                    let k = _mm512_set1_epi16(k as i16);
                    min1 = normalise(min1, k);
                    min2 = normalise(min2, k);
                }
                Rule8::Offset(b) => {
                    let b = _mm512_set1_epi8(b as i8);
                    min1 = _mm512_subs_epu8(min1, b);
                    min2 = _mm512_subs_epu8(min2, b);
                }
                // `Avx512::row` sends λ-min to `row_lambda`.
                Rule8::LambdaMin { .. } => unreachable!("λ-min runs row_lambda"),
                Rule8::Adaptive { beta, table } => {
                    // table[min(gap, 63)]: table[63] plus each drop of the (non-increasing)
                    // table at or above the gap — a few compares, as AVX-512 BW has no byte
                    // permute.
                    let gap = _mm512_min_epu8(_mm512_sub_epi8(min2, min1), _mm512_set1_epi8(63));
                    let off = match &drops {
                        Some(d) => d.lookup(gap),
                        None => _mm512_set1_epi8(table[63] as i8),
                    };
                    min1 = _mm512_subs_epu8(min1, off);
                    min2 = _mm512_subs_epu8(min2, _mm512_set1_epi8(beta as i8));
                }
            }
            // Both minima carry the sign product once per chunk, so each edge only flips
            // them by its own v2c's sign: −(±m) when v2c < 0 is the portable kernel's
            // (m ^ s) − s with s the sign of (product ^ v2c).
            let zero = _mm512_setzero_si512();
            let odd = _mm512_movepi8_mask(sign);
            let min1 = _mm512_mask_sub_epi8(min1, odd, zero, min1);
            let min2 = _mm512_mask_sub_epi8(min2, odd, zero, min2);
            for (j, e) in (first..last).enumerate() {
                let x = _mm512_loadu_si512(bufs.v2c.add(j * CHUNK).cast());
                let here = if TRACK {
                    _mm512_cmpeq_epi8_mask(at, index(j))
                } else {
                    _mm512_cmple_epu8_mask(_mm512_add_epi8(x, raw), raw2)
                };
                let mag = _mm512_mask_blend_epi8(here, min1, min2);
                let new = _mm512_mask_sub_epi8(mag, _mm512_movepi8_mask(x), zero, mag);
                edge_store(
                    &bufs,
                    *windows.add(e * chunks + u),
                    (e * chunks + u) * CHUNK,
                    j,
                    new,
                );
            }
        }
    }
}

/// A table as [`Drops`]: its last entry and non-zero drops, applied by compares and masked adds.
struct TableDrops(Drops);

impl TableDrops {
    fn new(table: &[u8; 64]) -> TableDrops {
        TableDrops(Drops::new(table))
    }

    /// t[min(x, 63)] per unsigned byte: compares and masked adds (AVX-512 BW has no byte
    /// permute).
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
    fn lookup(&self, x: __m512i) -> __m512i {
        let mut out = _mm512_set1_epi8(self.0.last() as i8);
        for &(d, drop) in self.0.steps() {
            let at = _mm512_cmple_epu8_mask(x, _mm512_set1_epi8(d as i8));
            out = _mm512_mask_add_epi8(out, at, out, _mm512_set1_epi8(drop as i8));
        }
        out
    }

    /// a ⊞ b per unsigned byte for a ≤ b: (a + t[min(a + b, 63)]) ⊖ t[min(b − a, 63)].
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
    fn box_plus(&self, a: __m512i, b: __m512i) -> __m512i {
        let ts = self.lookup(_mm512_adds_epu8(a, b));
        let tg = self.lookup(_mm512_sub_epi8(b, a));
        _mm512_subs_epu8(_mm512_add_epi8(a, ts), tg)
    }
}

/// −m in the lanes of `mask`, m elsewhere.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
fn negate_where(m: __m512i, mask: __mmask64) -> __m512i {
    _mm512_mask_sub_epi8(m, mask, _mm512_setzero_si512(), m)
}

/// Updates block row `row` with λ-min offset min-sum: [`super::lambda_min`]'s arithmetic lane
/// for lane — the three smallest |v2c| and the edges of the first two, the pair rule through
/// the table, β off each — with `row`'s loads, stores and sign handling.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
unsafe fn row_lambda(t: &QcTables, st: &mut State, row: usize, beta: u8, drops: Drops) {
    // SAFETY: the caller checked the CPU; every window lies inside the buffers.
    unsafe {
        let (first, last) = (t.row_start[row], t.row_start[row + 1]);
        let bufs = Bufs::of(st);
        let windows = t.windows.as_ptr();
        let chunks = t.chunks;
        let drops = TableDrops(drops);
        let b = _mm512_set1_epi8(beta as i8);
        let zero = _mm512_setzero_si512();
        for u in 0..chunks {
            let mut m1 = _mm512_set1_epi8(127);
            let (mut m2, mut m3) = (m1, m1);
            let mut at1 = _mm512_set1_epi8(-1);
            let mut at2 = at1;
            let mut sign = zero;
            for (j, e) in (first..last).enumerate() {
                let x = edge_v2c(
                    &bufs,
                    *windows.add(e * chunks + u),
                    (e * chunks + u) * CHUNK,
                    j,
                );
                let a = _mm512_abs_epi8(x);
                let below1 = _mm512_cmplt_epu8_mask(a, m1);
                let below2 = _mm512_cmplt_epu8_mask(a, m2);
                let jj = index(j);
                m3 = _mm512_mask_blend_epi8(below2, _mm512_min_epu8(m3, a), m2);
                m2 = _mm512_mask_blend_epi8(below1, _mm512_min_epu8(m2, a), m1);
                m1 = _mm512_min_epu8(m1, a);
                at2 = _mm512_mask_blend_epi8(below1, _mm512_mask_blend_epi8(below2, at2, jj), at1);
                at1 = _mm512_mask_mov_epi8(at1, below1, jj);
                sign = _mm512_xor_si512(sign, x);
            }
            // What the edge of m1, the edge of m2 and every other edge get, each carrying the
            // sign product once (see `row`).
            let odd = _mm512_movepi8_mask(sign);
            let to_first = negate_where(_mm512_subs_epu8(drops.box_plus(m2, m3), b), odd);
            let to_second = negate_where(_mm512_subs_epu8(drops.box_plus(m1, m3), b), odd);
            let to_others = negate_where(
                _mm512_subs_epu8(drops.box_plus(drops.box_plus(m1, m2), m3), b),
                odd,
            );
            for (j, e) in (first..last).enumerate() {
                let x = _mm512_loadu_si512(bufs.v2c.add(j * CHUNK).cast());
                let jj = index(j);
                let second =
                    _mm512_mask_blend_epi8(_mm512_cmpeq_epi8_mask(at2, jj), to_others, to_second);
                let mag = _mm512_mask_blend_epi8(_mm512_cmpeq_epi8_mask(at1, jj), second, to_first);
                let new = _mm512_mask_sub_epi8(mag, _mm512_movepi8_mask(x), zero, mag);
                edge_store(
                    &bufs,
                    *windows.add(e * chunks + u),
                    (e * chunks + u) * CHUNK,
                    j,
                    new,
                );
            }
        }
    }
}

#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
unsafe fn checks(t: &QcTables, st: &State) -> bool {
    // SAFETY: the caller checked the CPU; every window lies inside the buffers.
    unsafe {
        let p = st.p.as_ptr();
        for row in 0..t.rows() {
            for u in 0..t.chunks {
                let mut parity = 0u64;
                for e in t.row_start[row]..t.row_start[row + 1] {
                    let (lo, hi) = load_p(p, t.windows[e * t.chunks + u]);
                    parity ^=
                        _mm512_movepi16_mask(lo) as u64 | (_mm512_movepi16_mask(hi) as u64) << 32;
                }
                if parity & lanes(CHUNK.min(t.z - u * CHUNK) as u8) != 0 {
                    return false;
                }
            }
        }
        true
    }
}

impl Kernel for Avx512 {
    #[inline(always)]
    fn row(t: &QcTables, st: &mut State, r: usize, rule: Rule8) {
        // SAFETY: only reached through `run`, whose caller checked the CPU; every window
        // lies inside `st.p` (see `QcTables::new`), the other buffers hold the edges' chunks.
        unsafe {
            match rule {
                Rule8::LambdaMin { beta, drops } => row_lambda(t, st, r, beta, drops),
                Rule8::Adaptive { .. } => row::<true>(t, st, r, rule),
                _ => row::<false>(t, st, r, rule),
            }
        }
    }
    #[inline(always)]
    fn checks(t: &QcTables, st: &State) -> bool {
        // SAFETY: as in `row`.
        unsafe { checks(t, st) }
    }
}
