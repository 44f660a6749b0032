// Fused sums of short rows (fewer than 256 elements): LNS words (sum along the last axis) and
// float natural logs (logsumexp, log_softmax). The arithmetic is lns_exact.cuh's, term for
// term the CPU twin's (src/axis); the 128-bit sum is exact, so the order of the terms and the
// split of a row between lanes do not change the word.
//
// Layout: a row belongs to a group of G lanes (G a power of two, 1 … 16, the smallest with
// G·AX_ROW_CAP ≥ len), a warp holds 32/G rows. Each lane reads its up-to-AX_ROW_CAP elements
// once into registers — with 16-byte loads when the rows are a whole number of vectors and
// the array is 16-byte aligned: lane g of a group reads vectors g, g + G, g + 2G, … of its
// row, so a warp's load instruction covers whole 32-byte sectors of consecutive rows. The
// group's flags (specials, largest code) and sum are reduced by log2(G) shuffle steps, and
// every group rounds its own row at once, so short rows do not pay a warp-wide tree and a
// serial finish each (the warp-per-row kernel spent most of its time there, with only 256
// bytes in flight per warp).

#include "lns_exact.cuh"

#define AX_ROW_CAP 16
// Log code of an element that adds nothing (a zero, −∞, or past the row's end).
#define AX_ROW_NONE AX_I64_MIN

__device__ __forceinline__ AxFlags ax_group_flags(AxFlags fl, int g) {
    for (int o = g >> 1; o > 0; o >>= 1) {
        fl.nan |= __shfl_xor_sync(0xffffffffu, fl.nan, o);
        fl.pinf |= __shfl_xor_sync(0xffffffffu, fl.pinf, o);
        fl.ninf |= __shfl_xor_sync(0xffffffffu, fl.ninf, o);
        i64 t = __shfl_xor_sync(0xffffffffu, fl.top, o);
        fl.top = t > fl.top ? t : fl.top;
    }
    return fl;
}

__device__ __forceinline__ Ax128 ax_group_sum(Ax128 a, int g) {
    for (int o = g >> 1; o > 0; o >>= 1) {
        Ax128 b;
        b.lo = __shfl_xor_sync(0xffffffffu, a.lo, o);
        b.hi = __shfl_xor_sync(0xffffffffu, a.hi, o);
        a = ax_add(a, b);
    }
    return a;
}

// Records class c as the lane's element j: its code (AX_ROW_NONE for a zero), its sign, and
// the flags of a special.
__device__ __forceinline__ void ax_row_put(AxClass c, int j, i64* code, unsigned& neg, AxFlags& fl) {
    code[j] = c.kind == 3 ? c.log : AX_ROW_NONE;
    neg |= (unsigned)(c.kind == 3 && c.negative) << j;
    if (c.kind == 1) fl.nan = 1;
    if (c.kind == 2) {
        if (c.negative) fl.ninf = 1; else fl.pinf = 1;
    }
}

// The fused sum of the group's row from each lane's codes (fused in axis/mod.rs); every lane
// of the group gets the class. The terms are the CPU's; a lane adds its (≤ AX_FAST_TERMS)
// terms with ax_fast_add and flushes once, so the 128-bit sums are the CPU's integers.
__device__ __forceinline__ AxClass ax_row_fused(const double* __restrict__ k, const double* tab, int f,
                                                const i64* code, unsigned neg, AxFlags fl, int g) {
#pragma unroll
    for (int j = 0; j < AX_ROW_CAP; j++) fl.top = code[j] > fl.top ? code[j] : fl.top;
    fl = ax_group_flags(fl, g);
    Ax128 acc = {0, 0};
    if (ax_ok(fl)) {
        int sh = f > AX_EXP_TABLE_BITS ? f - AX_EXP_TABLE_BITS : 0;
        bool poly = f > AX_EXP_TABLE_BITS;
        double c0 = k[0], c1 = k[1], c2 = k[2];
        AxFast a = ax_fast_new();
#pragma unroll
        for (int j = 0; j < AX_ROW_CAP; j++) {
            if (code[j] != AX_ROW_NONE) {
                i64 d = code[j] - fl.top;
                double t = ax_exp_frac_at(tab, c0, c1, c2, sh, poly, (u64)(d & ((1ll << f) - 1)));
                ax_fast_add(a, t, d >> f, (neg >> j) & 1);
            }
        }
        ax_fast_flush(a);
        acc = a.tiny;
    }
    acc = ax_group_sum(acc, g);
    return ax_finish(k, f, fl, acc);
}

// The code of a natural log x as ax_nat_class gives it, for |x·codes_per_nat| < 2^51 by the
// 2^52 trick (x·c + 1.5·2^52 rounds to the nearest integer, ties to even, as rint; the bits
// then differ from 1.5·2^52's by the code); other x (NaN, ±∞, huge) by ax_nat_class.
__device__ __forceinline__ void ax_row_put_nat(const double* __restrict__ k, double cpn, double x, int j,
                                               i64* code, unsigned& neg, AxFlags& fl) {
    double v = __dmul_rn(x, cpn);
    if (fabs(v) < 2251799813685248.0) {
        double s = __dadd_rn(v, 6755399441055744.0);
        code[j] = __double_as_longlong(s) - 0x4338000000000000ll;
    } else {
        ax_row_put(ax_nat_class(k, x), j, code, neg, fl);
    }
}

// logsumexp of the group's row, the fast way, when every group of the warp allows it (else
// false, and the caller takes ax_row_put_nat / ax_row_fused). s = x·codes_per_nat + 1.5·2^52
// is 1.5·2^52 + code exactly while s ∈ [2^52, 2^53) (the 2^52 trick of ax_row_put_nat), so
// the row's largest s is its top code's, and for s ≥ thr = top − 36·2^F (kept ≥ 2^52 by
// the test on top) the code difference d ∈ [−36·2^F, 0] is the difference of the low words:
// the term is t·2^kk of ax_fast_add's f64 path with 32-bit integer work. Anything else —
// −∞ (skipped), NaN (flagged), a term below 2^-36 of the top, a log whose s is outside the
// binade — is classed by ax_nat_class and added the general way. A +∞ or a huge log sends
// the warp to the general path (the top test), so only NaN can be flagged here.
template <typename T>
__device__ __forceinline__ bool ax_row_lse(const double* __restrict__ k, const double* tab, int f, double cpn,
                                           const T* vals, int g, AxClass& out) {
    const double magic = 6755399441055744.0;  // 1.5·2^52
    double s[AX_ROW_CAP];
    double top = -AX_INF;
#pragma unroll
    for (int j = 0; j < AX_ROW_CAP; j++) {
        s[j] = __dadd_rn(__dmul_rn((double)vals[j], cpn), magic);
        top = fmax(top, s[j]);
    }
    for (int o = g >> 1; o > 0; o >>= 1) top = fmax(top, __shfl_xor_sync(0xffffffffu, top, o));
    bool fits = (top >= 4503599627370496.0 + 1099511627776.0 && top < 9007199254740992.0) || top == -AX_INF;
    if (!__all_sync(0xffffffffu, fits)) return false;
    AxFlags fl = ax_no_flags();
    Ax128 acc = {0, 0};
    if (top == -AX_INF) {
#pragma unroll
        for (int j = 0; j < AX_ROW_CAP; j++) fl.nan |= isnan(s[j]);
    } else {
        int sh = f > AX_EXP_TABLE_BITS ? f - AX_EXP_TABLE_BITS : 0;
        bool poly = f > AX_EXP_TABLE_BITS;
        double c0 = k[0], c1 = k[1], c2 = k[2];
        double thr = __dsub_rn(top, (double)(36ll << f));
        int toplo = __double2loint(top);
        i64 topcode = __double_as_longlong(top) - 0x4338000000000000ll;
        AxFast a = ax_fast_new();
#pragma unroll
        for (int j = 0; j < AX_ROW_CAP; j++) {
            if (s[j] >= thr) {
                int d = __double2loint(s[j]) - toplo;
                double t = ax_exp_frac_at(tab, c0, c1, c2, sh, poly, (u64)(unsigned)(d & ((1 << f) - 1)));
                ax_fast2sum(a.hi, a.lo, ax_scale(t, d >> f));
            } else if (s[j] != -AX_INF) {
                AxClass c = ax_nat_class(k, (double)vals[j]);
                if (c.kind == 1) fl.nan = 1;
                if (c.kind == 3) {
                    i64 d = c.log - topcode;
                    double t = ax_exp_frac_at(tab, c0, c1, c2, sh, poly, (u64)(d & ((1ll << f) - 1)));
                    ax_fast_add(a, t, d >> f, false);
                }
            }
        }
        ax_fast_flush(a);
        acc = a.tiny;
        fl.top = topcode;
    }
    fl = ax_group_flags(fl, g);
    acc = ax_group_sum(acc, g);
    out = ax_finish(k, f, fl, acc);
    return true;
}

// Blocks per SM the logsumexp rows kernels are compiled for (ROW_BLOCKS_PER_SM in gpu/axis.rs):
// the filtered path fits their registers; the rare exact paths, out of line, may spill.
#ifndef AX_LOG_ROWS_BLOCKS
#define AX_LOG_ROWS_BLOCKS 4
#endif

// Inputs of the filtered path are at most AX_FILTER_X (nats, exact in f32) in magnitude at
// the row's top, so that the top less AX_FILTER_SPAN rounds to within 2^-4 nats in f32 and
// every code stays far inside the 2^52 trick's binade (2^20·2^24/ln 2 < 2^51).
#define AX_FILTER_X 1048576.0
// Elements more than AX_FILTER_SPAN nats (60.6 binades) below the row's top are read as that:
// their terms, below 2^-60.5, count as 2^-AX_FILTER_KK.
#define AX_FILTER_SPAN 42.0
#define AX_FILTER_KK 60
// The filtered path answers where p is more than 2^(F − AX_FILTER_MARGIN) codes from a tie.
#define AX_FILTER_MARGIN 37

// The lane's copy (ax_rep_layout) of the table entry for the fraction bits of the code
// difference d: element ((d mod 2^F) >> esh) << rbits of `mine`, addressed in bytes so that
// the mask, the shifts and the scaling by 8 fold into one shift and one AND (F compiled in).
__device__ __forceinline__ double ax_rep_at(const double* mine, AxRep tl, int d) {
    int up = tl.rbits + 3 - tl.esh;
    unsigned m = ((1u << tl.ebits) - 1) << (tl.rbits + 3);
    unsigned off = (up >= 0 ? (unsigned)d << up : (unsigned)d >> -up) & m;
    return *reinterpret_cast<const double*>(reinterpret_cast<const char*>(mine) + off);
}

// logsumexp of the group's row without the exact 128-bit sum, when the rounding allows it
// (else false for the whole warp, and the caller takes the exact paths). The row's largest x
// is a float max; each x, raised to at least top − AX_FILTER_SPAN (−∞ too), gets its code by
// the 2^52 trick as ax_row_put_nat, and its difference d ∈ [−60.7·2^F, 0] from the top's
// code is the difference of the low words (mod 2^32; F ≤ 24). Every term t·2^kk (or 2^-60
// for d < −60·2^F) comes from the lane's copy of the table (ax_rep_layout: no bank
// conflicts): the exact path's double for F ≤ 12, else 2^(j/256) times the exact path's cubic
// in the remaining r < 2^(F−8) codes, within 2^-38.6 relative. They are summed in plain f64:
// with n ≤ 256 positive terms and a sum ≥ 1 (the top's term is 1) the sum is within 2^-38.5
// of the exact integer's value (terms; 255 adds in any order ≤ 255·2^-53 relative; the exact
// path's own terms within 2 ulps, truncated to the 2^-88 grid; terms raised to 2^-60 ≤
// 256·2^-60). Its log2 by ax_log2_split (within 2^-50) gives p, the code offset from the top
// before rounding, within 2^(F−37.8) of the value the exact path rounds (ax_from_fixed, itself
// within 2^F·2^-50 of the exact log): where p lies further than 2^(F−AX_FILTER_MARGIN) from a
// half-integer, both round to the same integer, so the word is the exact path's (src/axis/
// filtered.rs models this path and tests it against the exact one). Rows with a NaN, +∞ or
// |top| > AX_FILTER_X (all −∞ too) are declined.
template <typename T>
__device__ __forceinline__ bool ax_row_lse_filtered(const double* __restrict__ k, const double* rep, int f,
                                                    double cpn, bool live, const T* vals, int g, AxClass& out) {
    const double magic = 6755399441055744.0;  // 1.5·2^52
    T xmax = (T)-AX_INF;
#pragma unroll
    for (int j = 0; j < AX_ROW_CAP; j++) xmax = ax_max_nan(xmax, vals[j]);
    for (int o = g >> 1; o > 0; o >>= 1) xmax = ax_max_nan(xmax, __shfl_xor_sync(0xffffffffu, xmax, o));
    // A NaN makes xmax NaN and fails both tests.
    bool ok = xmax <= (T)AX_FILTER_X && xmax >= (T)-AX_FILTER_X;
    if (!__all_sync(0xffffffffu, ok || !live)) return false;
    double stop = __dadd_rn(__dmul_rn((double)xmax, cpn), magic);
    unsigned toplo = (unsigned)__double2loint(stop);
    T xlow = xmax - (T)AX_FILTER_SPAN;
    AxRep tl = ax_rep_layout(f);
    const double* mine = rep + (threadIdx.x & ((1 << tl.rbits) - 1));
    double c0 = k[0], c1 = k[1], c2 = k[2];
    int dmin = -(AX_FILTER_KK << f);
    // Two independent chains (even and odd j, each started by its first term) halve the
    // dependent f64 adds a lane waits on; the bound below holds for any order of the adds.
    double sums[2];
#pragma unroll
    for (int j = 0; j < AX_ROW_CAP; j++) {
        T x = fmax(vals[j], xlow);
        unsigned lo = (unsigned)__double2loint(__dadd_rn(__dmul_rn((double)x, cpn), magic));
        int d = max((int)(lo - toplo), dmin);
        unsigned fr = (unsigned)d & ((1u << f) - 1);
        double t = ax_rep_at(mine, tl, d);
        if (tl.esh) {
            // 2^(r·2^-F) − 1 for r < 2^(F−8) codes (below 2^-8.5 in log2) by the exact path's
            // cubic: relative error below 2^-38.6.
            double r = __dsub_rn(__hiloint2double(0x43300000, (int)(fr & ((1u << tl.esh) - 1))), 4503599627370496.0);
            t = __fma_rn(t, __dmul_rn(r, __fma_rn(r, __fma_rn(r, c2, c1), c0)), t);
        }
        double term = ax_scale(t, d >> f);
        sums[j & 1] = j < 2 ? term : __dadd_rn(sums[j & 1], term);
    }
    double sum = __dadd_rn(sums[0], sums[1]);
    // a + b = b + a in IEEE, so every lane of the group ends with the same sum.
    for (int o = g >> 1; o > 0; o >>= 1) sum = __dadd_rn(sum, __shfl_xor_sync(0xffffffffu, sum, o));
    // sum ∈ [1, 256]: p = (e + lm)·2^F ∈ [0, 2^(F+3)], e·2^F as a double by the 2^52 trick and
    // one FMA; p's integer part and its rounding (ties to even) by the 2^52 trick again.
    i64 e;
    double lm = ax_log2_split(k, sum, &e);
    double ef = __dsub_rn(__hiloint2double(0x43300000, (int)(e << f)), 4503599627370496.0);
    double p = __fma_rn(lm, ax_pow2(f), ef);
    double n = __dadd_rn(p, magic);
    ok = fabs(fabs(__dsub_rn(p, __dsub_rn(n, magic))) - 0.5) > ax_pow2(f - AX_FILTER_MARGIN);
    if (!__all_sync(0xffffffffu, ok || !live)) return false;
    out.kind = 3;
    out.negative = 0;
    out.log = (__double_as_longlong(stop) - 0x4338000000000000ll) + __double2loint(n);
    return true;
}

// Element j of lane `lane` (of G) in a row: vectors of V elements dealt round-robin to the
// lanes, or single elements when V is 1.
__device__ __forceinline__ i64 ax_row_index(int j, int lane, int g, int v) {
    return (i64)(lane + g * (j / v)) * v + (j % v);
}

// The 16-byte vector of a type (V elements).
template <typename T> struct AxVec;
template <> struct AxVec<float> { typedef float4 type; static const int n = 4; };
template <> struct AxVec<double> { typedef double2 type; static const int n = 2; };
template <> struct AxVec<unsigned> { typedef uint4 type; static const int n = 4; };
template <> struct AxVec<unsigned short> { typedef uint4 type; static const int n = 8; };

// Loads the lane's elements of the row at x (len elements) into vals (padding: `pad`).
template <typename T>
__device__ __forceinline__ void ax_row_load(const T* __restrict__ x, i64 len, bool live, bool vec, int lane,
                                            int g, T pad, T* vals) {
    typedef typename AxVec<T>::type VT;
    const int V = AxVec<T>::n;
    if (vec && len == (i64)g * AX_ROW_CAP) {
        // Every lane's vectors lie in the row (x is row 0 for a row past the end, whose
        // results are not stored): no tests, no padding.
#pragma unroll
        for (int q = 0; q < AX_ROW_CAP / V; q++) {
            VT w = __ldg(reinterpret_cast<const VT*>(x + (i64)(lane + g * q) * V));
            const T* e = reinterpret_cast<const T*>(&w);
#pragma unroll
            for (int i = 0; i < V; i++) vals[q * V + i] = e[i];
        }
    } else if (vec) {
#pragma unroll
        for (int q = 0; q < AX_ROW_CAP / V; q++) {
            i64 at = (i64)(lane + g * q) * V;
            if (live && at < len) {
                VT w = __ldg(reinterpret_cast<const VT*>(x + at));
                const T* e = reinterpret_cast<const T*>(&w);
#pragma unroll
                for (int i = 0; i < V; i++) vals[q * V + i] = e[i];
            } else {
#pragma unroll
                for (int i = 0; i < V; i++) vals[q * V + i] = pad;
            }
        }
    } else {
#pragma unroll
        for (int j = 0; j < AX_ROW_CAP; j++) {
            i64 at = ax_row_index(j, lane, g, 1);
            vals[j] = live && at < len ? x[at] : pad;
        }
    }
}

// True when rows of len elements of T starting at p can be read as 16-byte vectors.
template <typename T>
__device__ __forceinline__ bool ax_row_vec(const void* p, i64 len) {
    return len % AxVec<T>::n == 0 && ((unsigned long long)p & 15) == 0;
}

// The loop of a warp over its rows: warp w of the grid takes row groups w, w + warps, …
// `body(row, live, vec, sub, vals)` sums one group from its elements in registers. (The
// work per element outweighs the load's latency: the other warps of the SM hide it, and
// loading the next group first would cost the registers that keep two blocks per SM.)
template <typename T, typename Body>
__device__ __forceinline__ void ax_row_loop(const T* __restrict__ xs, i64 rows, i64 len, int g, T pad,
                                            Body body) {
    int lane = threadIdx.x & 31;
    int sub = lane & (g - 1);
    i64 per_warp = 32 / g;
    i64 warps = (i64)gridDim.x * (blockDim.x >> 5);
    bool vec = ax_row_vec<T>(xs, len);
    for (i64 w = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5; w * per_warp < rows; w += warps) {
        i64 row = w * per_warp + lane / g;
        T vals[AX_ROW_CAP];
        ax_row_load<T>(xs + (row < rows ? row : 0) * len, len, row < rows, vec, sub, g, pad, vals);
        body(row, row < rows, vec, sub, vals);
    }
}

// The fused sum of the group's row of words without the exact 128-bit sum, when the rounding
// allows it (else false for the whole warp): ax_row_lse_filtered for signed terms. The codes
// are the words' log fields; a zero word reads as the smallest code, so its term is at most
// 2^-60 (rows whose top is within 61·2^F of it are declined). The f64 sum A of the n = 16·G
// signed terms (each |t| ≤ 1, within 2^-38.5 of the exact path's, summed through ≤ 20 adds)
// is within E = n·2^-38 of the exact integer's value S; where |A| ≥ 2^20·E, |log2|A| −
// log2|S|| ≤ 1.443·E/|A|, so p = 2^F·log2|A| is within 2^F·(1.5·E/|A| + 2^-47) of the value
// the exact path rounds, and where p is further than that from a half-integer the rounded
// codes agree (and the signs: |A| > E). NaN words, an ∞ top, and sums that cancel to below
// 2^20·E (exact zeros among them) are declined.
template <typename W>
__device__ __forceinline__ bool ax_row_sum_filtered(const double* __restrict__ k, const double* rep, int f, int lb,
                                                    bool live, const W* vals, int g, AxClass& out) {
    const double magic = 6755399441055744.0;  // 1.5·2^52
    int special = -(1 << (lb - 1));
    unsigned nan_word = (1u << lb) | (1u << (lb - 1));
    int up = 32 - lb;
    bool ok = true;
    int top = special;
#pragma unroll
    for (int j = 0; j < AX_ROW_CAP; j++) {
        unsigned w = vals[j];
        ok = ok && w != nan_word;
        top = max(top, (int)(w << up) >> up);
    }
    for (int o = g >> 1; o > 0; o >>= 1) top = max(top, __shfl_xor_sync(0xffffffffu, top, o));
    // Formats with at most 64 binades below 1 (lns16) take zero words' terms out by a
    // select; the others need the top 61 binades above the zero code.
    bool zsel = lb - 1 - f < 7;
    ok = ok && top != -special - 1 && top != special &&
         (zsel || (i64)top - special >= ((i64)(AX_FILTER_KK + 1) << f));
    if (!__all_sync(0xffffffffu, ok || !live)) return false;
    AxRep tl = ax_rep_layout(f);
    const double* mine = rep + (threadIdx.x & ((1 << tl.rbits) - 1));
    double c0 = k[0], c1 = k[1], c2 = k[2];
    int dmin = -(AX_FILTER_KK << f);
    // Two independent chains, as ax_row_lse_filtered (8 adds deep per lane, not 16).
    double sums[2];
#pragma unroll
    for (int j = 0; j < AX_ROW_CAP; j++) {
        unsigned w = vals[j];
        int c = (int)(w << up) >> up;
        int d = zsel && c == special ? dmin : max(c - top, dmin);
        unsigned fr = (unsigned)d & ((1u << f) - 1);
        double t = ax_rep_at(mine, tl, d);
        if (tl.esh) {
            double r = __dsub_rn(__hiloint2double(0x43300000, (int)(fr & ((1u << tl.esh) - 1))), 4503599627370496.0);
            t = __fma_rn(t, __dmul_rn(r, __fma_rn(r, __fma_rn(r, c2, c1), c0)), t);
        }
        // t·2^kk with the word's sign: an exponent add and the sign bit.
        int hi = (__double2hiint(t) + ((d >> f) << 20)) ^ (int)(((w >> lb) & 1) << 31);
        double term = __hiloint2double(hi, __double2loint(t));
        sums[j & 1] = j < 2 ? term : __dadd_rn(sums[j & 1], term);
    }
    double sum = __dadd_rn(sums[0], sums[1]);
    for (int o = g >> 1; o > 0; o >>= 1) sum = __dadd_rn(sum, __shfl_xor_sync(0xffffffffu, sum, o));
    double a = fabs(sum);
    double err = (double)(g * AX_ROW_CAP) * ax_pow2(-38);
    ok = a >= __dmul_rn(err, ax_pow2(20));
    i64 e;
    double lm = ax_log2_split(k, ok ? a : 1.0, &e);
    // e·2^F (of either sign) as a double by the 2^52 + 2^31 trick; p ∈ (−19·2^F, 9·2^F).
    double ef = __dsub_rn(__hiloint2double(0x43300000, (int)(e << f) ^ (int)0x80000000), 4503601774854144.0);
    double p = __fma_rn(lm, ax_pow2(f), ef);
    double n = __dadd_rn(p, magic);
    double half = fabs(fabs(__dsub_rn(p, __dsub_rn(n, magic))) - 0.5);
    ok = ok && __dmul_rn(half, a) > __dmul_rn(ax_pow2(f), __fma_rn(a, ax_pow2(-47), __dmul_rn(1.5, err)));
    if (!__all_sync(0xffffffffu, ok || !live)) return false;
    out.kind = 3;
    out.negative = sum < 0.0;
    out.log = (i64)top + __double2loint(n);
    return true;
}

// The sum of the group's row by the exact path (ax_row_put, ax_row_fused), from the words
// reloaded: out of line, as ax_log_row_exact.
template <typename W>
__device__ __noinline__ AxClass ax_sum_row_exact(AxFmt fm, const double* __restrict__ k, const double* tab,
                                                 const W* __restrict__ xs, i64 rows, i64 len, i64 row, bool vec,
                                                 int sub, int g) {
    W vals[AX_ROW_CAP];
    ax_row_load<W>(xs + (row < rows ? row : 0) * len, len, row < rows, vec, sub, g,
                   (W)(1u << (fm.log_bits - 1)), vals);
    i64 code[AX_ROW_CAP];
    unsigned neg = 0;
    AxFlags fl = ax_no_flags();
#pragma unroll
    for (int j = 0; j < AX_ROW_CAP; j++) ax_row_put(ax_decode(fm, vals[j]), j, code, neg, fl);
    return ax_row_fused(k, tab, fm.f, code, neg, fl, g);
}

// The loop over the rows of ax_sum_rows_g with F and the log field's width compiled in where
// FC ≠ 0 (as ax_log_rows_loop: filtered inner loop, exact paths from the outer one).
template <typename W, int FC, int LC>
__device__ __forceinline__ void ax_sum_rows_loop(AxFmt fm, const double* __restrict__ k, const double* rep,
                                                 const W* __restrict__ xs, i64 rows, i64 len, int g,
                                                 W* __restrict__ out) {
    if (FC) {
        fm.f = FC;
        fm.log_bits = LC;
    }
    const double* exp_table = k + AX_OFF_EXP;
    bool filtered = fm.f <= 24;
    W zero = (W)(1u << (fm.log_bits - 1));
    int lane = threadIdx.x & 31;
    int sub = lane & (g - 1);
    i64 per_warp = 32 / g;
    i64 warps = (i64)gridDim.x * (blockDim.x >> 5);
    bool vec = ax_row_vec<W>(xs, len);
    i64 w = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    while (w * per_warp < rows) {
        if (filtered) {
            for (; w * per_warp < rows; w += warps) {
                i64 row = w * per_warp + lane / g;
                W vals[AX_ROW_CAP];
                ax_row_load<W>(xs + (row < rows ? row : 0) * len, len, row < rows, vec, sub, g, zero, vals);
                AxClass s;
                if (!ax_row_sum_filtered<W>(k, rep, fm.f, fm.log_bits, row < rows, vals, g, s)) break;
                if (row < rows && sub == 0) out[row] = (W)ax_encode(fm, s);
            }
            if (w * per_warp >= rows) break;
        }
        i64 row = w * per_warp + lane / g;
        AxClass s = ax_sum_row_exact<W>(fm, k, exp_table, xs, rows, len, row, vec, sub, g);
        if (row < rows && sub == 0) out[row] = (W)ax_encode(fm, s);
        w += warps;
    }
}

template <typename W>
__device__ void ax_sum_rows_g(AxFmt fm, const double* __restrict__ k, const W* __restrict__ xs, i64 rows,
                              i64 len, int g, W* __restrict__ out) {
    __shared__ double s_rep[1 << AX_EXP_TABLE_BITS];
    ax_rep_table(k, fm.f, s_rep);
    if (fm.f == 23 && fm.log_bits == 31) {
        ax_sum_rows_loop<W, 23, 31>(fm, k, s_rep, xs, rows, len, g, out);
    } else if (fm.f == 10 && fm.log_bits == 15) {
        ax_sum_rows_loop<W, 10, 15>(fm, k, s_rep, xs, rows, len, g, out);
    } else {
        ax_sum_rows_loop<W, 0, 0>(fm, k, s_rep, xs, rows, len, g, out);
    }
}

extern "C" __global__ void __launch_bounds__(256, AX_LOG_ROWS_BLOCKS)
lns_axis_sum_rows(AxFmt fm, const double* __restrict__ k, const unsigned* __restrict__ xs, i64 rows, i64 len,
                  int g, unsigned* __restrict__ out) {
    ax_sum_rows_g<unsigned>(fm, k, xs, rows, len, g, out);
}

extern "C" __global__ void __launch_bounds__(256, AX_LOG_ROWS_BLOCKS)
lns_axis_sum_rows_u16(AxFmt fm, const double* __restrict__ k, const unsigned short* __restrict__ xs, i64 rows,
                      i64 len, int g, unsigned short* __restrict__ out) {
    ax_sum_rows_g<unsigned short>(fm, k, xs, rows, len, g, out);
}

// logsumexp of the group's row by the exact paths (ax_row_lse, else ax_row_put_nat and
// ax_row_fused), from the elements reloaded: out of line, so their registers do not weigh
// on the filtered path that serves nearly every row.
template <typename T>
__device__ __noinline__ AxClass ax_log_row_exact(const double* __restrict__ k, const double* tab, int f,
                                                  double cpn, const T* __restrict__ xs, i64 rows, i64 len,
                                                  i64 row, bool vec, int sub, int g) {
    T vals[AX_ROW_CAP];
    ax_row_load<T>(xs + (row < rows ? row : 0) * len, len, row < rows, vec, sub, g, (T)-AX_INF, vals);
    AxClass lse;
    if (!ax_row_lse<T>(k, tab, f, cpn, vals, g, lse)) {
        i64 code[AX_ROW_CAP];
        unsigned neg = 0;
        AxFlags fl = ax_no_flags();
#pragma unroll
        for (int j = 0; j < AX_ROW_CAP; j++) ax_row_put_nat(k, cpn, (double)vals[j], j, code, neg, fl);
        lse = ax_row_fused(k, tab, f, code, neg, fl, g);
    }
    return lse;
}

// log_softmax outputs of the lane's elements of a live row: each input's class again (its
// code, or zero / NaN / +∞) against the row's sum.
template <typename T>
__device__ __noinline__ void ax_softmax_row(const double* __restrict__ k, const T* __restrict__ x, i64 len,
                                            bool vec, int sub, int g, AxClass lse, T* __restrict__ o) {
    int v = vec ? AxVec<T>::n : 1;
#pragma unroll
    for (int j = 0; j < AX_ROW_CAP; j++) {
        i64 at = ax_row_index(j, sub, g, v);
        if (at < len) ax_store(o + at, ax_softmax_value(k, ax_nat_class(k, (double)x[at]), lse));
    }
}

// The loop over the rows of ax_log_rows_g, with F compiled in where FC ≠ 0 (lns32, lns16:
// the filtered path's shifts and masks become immediates). For logsumexp the inner loop runs
// the filtered path only and leaves it at a row group the path declines, which the outer loop
// hands to the exact paths (a call: the registers live across it are saved there, not in the
// inner loop); log_softmax calls its output function for every group anyway.
template <typename T, int FC>
__device__ __forceinline__ void ax_log_rows_loop(int f, const double* __restrict__ k, const double* rep,
                                                 const T* __restrict__ xs, i64 rows, i64 len, int softmax,
                                                 int g, T* __restrict__ out) {
    if (FC) f = FC;
    // The exact paths, rare, read the exp table from global memory (cached).
    const double* exp_table = k + AX_OFF_EXP;
    double cpn = k[3];
    bool filtered = f <= 24;
    if (softmax) {
        ax_row_loop<T>(xs, rows, len, g, (T)-AX_INF, [&](i64 row, bool live, bool vec, int sub, const T* vals) {
            AxClass lse;
            if (!(filtered && ax_row_lse_filtered<T>(k, rep, f, cpn, live, vals, g, lse))) {
                lse = ax_log_row_exact<T>(k, exp_table, f, cpn, xs, rows, len, row, vec, sub, g);
            }
            if (live) ax_softmax_row<T>(k, xs + row * len, len, vec, sub, g, lse, out + row * len);
        });
        return;
    }
    int lane = threadIdx.x & 31;
    int sub = lane & (g - 1);
    i64 per_warp = 32 / g;
    i64 warps = (i64)gridDim.x * (blockDim.x >> 5);
    bool vec = ax_row_vec<T>(xs, len);
    i64 w = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    while (w * per_warp < rows) {
        if (filtered) {
            for (; w * per_warp < rows; w += warps) {
                i64 row = w * per_warp + lane / g;
                T vals[AX_ROW_CAP];
                ax_row_load<T>(xs + (row < rows ? row : 0) * len, len, row < rows, vec, sub, g, (T)-AX_INF, vals);
                AxClass lse;
                if (!ax_row_lse_filtered<T>(k, rep, f, cpn, row < rows, vals, g, lse)) break;
                if (row < rows && sub == 0) ax_store(out + row, ax_class_nat(k, lse));
            }
            if (w * per_warp >= rows) break;
        }
        i64 row = w * per_warp + lane / g;
        AxClass lse = ax_log_row_exact<T>(k, exp_table, f, cpn, xs, rows, len, row, vec, sub, g);
        if (row < rows && sub == 0) ax_store(out + row, ax_class_nat(k, lse));
        w += warps;
    }
}

template <typename T>
__device__ void ax_log_rows_g(AxFmt fm, const double* __restrict__ k, const T* __restrict__ xs, i64 rows,
                              i64 len, int softmax, int g, T* __restrict__ out) {
    __shared__ double s_rep[1 << AX_EXP_TABLE_BITS];
    ax_rep_table(k, fm.f, s_rep);
    if (fm.f == 23) {
        ax_log_rows_loop<T, 23>(fm.f, k, s_rep, xs, rows, len, softmax, g, out);
    } else if (fm.f == 10) {
        ax_log_rows_loop<T, 10>(fm.f, k, s_rep, xs, rows, len, softmax, g, out);
    } else {
        ax_log_rows_loop<T, 0>(fm.f, k, s_rep, xs, rows, len, softmax, g, out);
    }
}

extern "C" __global__ void __launch_bounds__(256, AX_LOG_ROWS_BLOCKS)
lns_axis_log_rows_f32(AxFmt fm, const double* __restrict__ k, const float* __restrict__ xs, i64 rows, i64 len,
                      int softmax, int g, float* __restrict__ out) {
    ax_log_rows_g<float>(fm, k, xs, rows, len, softmax, g, out);
}

extern "C" __global__ void __launch_bounds__(256, AX_LOG_ROWS_BLOCKS)
lns_axis_log_rows_f64(AxFmt fm, const double* __restrict__ k, const double* __restrict__ xs, i64 rows,
                      i64 len, int softmax, int g, double* __restrict__ out) {
    ax_log_rows_g<double>(fm, k, xs, rows, len, softmax, g, out);
}
