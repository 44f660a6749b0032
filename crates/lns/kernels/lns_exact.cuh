// The exact arithmetic of the axis kernels (axis.cu), mirrored from src/axis/exact.rs and
// src/axis/mod.rs operation for operation: LNS classes, host-built tables read through
// correctly rounded intrinsics only, 128-bit fixed-point terms and sums, log2 of a sum, the
// warp and block reductions of flags and sums.

#pragma once

#define AX_FIX_BITS 88
#define AX_EXP_TABLE_BITS 12
#define AX_LOG_TABLE_BITS 7
#define AX_LOG_POLY 8
#define AX_OFF_LOG_POLY 5
#define AX_OFF_INV (AX_OFF_LOG_POLY + AX_LOG_POLY)
#define AX_OFF_LOG_INV (AX_OFF_INV + 128)
#define AX_OFF_EXP (AX_OFF_LOG_INV + 128)

typedef long long i64;
typedef unsigned long long u64;

#define AX_I64_MIN (-9223372036854775807ll - 1)
#define AX_I64_MAX 9223372036854775807ll
#define AX_INF __longlong_as_double(0x7ff0000000000000ll)
#define AX_NAN __longlong_as_double(0x7ff8000000000000ll)

// A format: F and the log field's width.
struct AxFmt {
    int f;
    int log_bits;
};

// Classes as value.rs: 0 zero, 1 NaN, 2 inf, 3 finite.
struct AxClass {
    int kind;
    int negative;
    i64 log;
};

__device__ __forceinline__ AxClass ax_decode(AxFmt fm, unsigned w) {
    AxClass c;
    c.negative = (w >> fm.log_bits) & 1;
    unsigned field = w & (unsigned)((1ull << fm.log_bits) - 1);
    i64 log = ((i64)field << (64 - fm.log_bits)) >> (64 - fm.log_bits);
    i64 special = -(1ll << (fm.log_bits - 1));
    c.log = log;
    if (log == special) {
        c.kind = c.negative ? 1 : 0;
    } else if (log == -special - 1) {
        c.kind = 2;
    } else {
        c.kind = 3;
    }
    return c;
}

__device__ __forceinline__ unsigned ax_pack(AxFmt fm, int negative, i64 log) {
    return ((unsigned)negative << fm.log_bits) | ((unsigned)log & (unsigned)((1ull << fm.log_bits) - 1));
}

// The word of a class with an unbounded log (encode in value.rs).
__device__ __forceinline__ unsigned ax_encode(AxFmt fm, AxClass c) {
    i64 special = -(1ll << (fm.log_bits - 1));
    i64 inf = -special - 1;
    switch (c.kind) {
    case 0: return ax_pack(fm, 0, special);
    case 1: return ax_pack(fm, 1, special);
    case 2: return ax_pack(fm, c.negative, inf);
    default:
        if (c.log > inf - 1) return ax_pack(fm, c.negative, inf);
        if (c.log < special + 1) return ax_pack(fm, 0, special);
        return ax_pack(fm, c.negative, c.log);
    }
}

// x·y exactly (product in arith.rs).
__device__ __forceinline__ AxClass ax_product(AxClass x, AxClass y) {
    AxClass c;
    c.negative = x.negative != y.negative;
    c.log = 0;
    if (x.kind == 1 || y.kind == 1 || (x.kind == 0 && y.kind == 2) || (x.kind == 2 && y.kind == 0)) {
        c.kind = 1;
    } else if (x.kind == 0 || y.kind == 0) {
        c.kind = 0;
    } else if (x.kind == 2 || y.kind == 2) {
        c.kind = 2;
    } else {
        c.kind = 3;
        c.log = x.log + y.log;
    }
    return c;
}

// 2^(frac·2^-F) in [1, 2): Consts::exp_frac.
__device__ __forceinline__ double ax_exp_frac(const double* __restrict__ k, int f, u64 frac) {
    int sh = f > AX_EXP_TABLE_BITS ? f - AX_EXP_TABLE_BITS : 0;
    double t = k[AX_OFF_EXP + (frac >> sh)];
    double r = (double)(frac & ((1ull << sh) - 1));
    double q = __fma_rn(r, __fma_rn(r, k[2], k[1]), k[0]);
    return __fma_rn(t, __dmul_rn(r, q), t);
}

// A 128-bit two's-complement integer.
struct Ax128 {
    u64 lo;
    u64 hi;
};

__device__ __forceinline__ Ax128 ax_add(Ax128 a, Ax128 b) {
    Ax128 s;
    s.lo = a.lo + b.lo;
    s.hi = a.hi + b.hi + (s.lo < a.lo);
    return s;
}

__device__ __forceinline__ Ax128 ax_sub(Ax128 a, Ax128 b) {
    Ax128 s;
    s.lo = a.lo - b.lo;
    s.hi = a.hi - b.hi - (a.lo < b.lo);
    return s;
}

// The term 2^(d·2^-F), d ≤ 0, as fixed point: Consts::term_fixed.
__device__ __forceinline__ Ax128 ax_term(const double* __restrict__ k, int f, i64 d) {
    i64 kk = d >> f;
    u64 frac = (u64)(d & ((1ll << f) - 1));
    double t = ax_exp_frac(k, f, frac);
    u64 bits = (u64)__double_as_longlong(t);
    i64 e = (i64)((bits >> 52) & 0x7ff) - 1023;
    u64 mant = (bits & ((1ull << 52) - 1)) | (1ull << 52);
    i64 shift = kk + e + AX_FIX_BITS - 52;
    Ax128 r;
    if (shift >= 64) {
        r.lo = 0;
        r.hi = mant << (shift - 64);
    } else if (shift > 0) {
        r.lo = mant << shift;
        r.hi = mant >> (64 - shift);
    } else if (shift == 0) {
        r.lo = mant;
        r.hi = 0;
    } else if (shift > -64) {
        r.lo = mant >> (-shift);
        r.hi = 0;
    } else {
        r.lo = 0;
        r.hi = 0;
    }
    return r;
}

// log2 of a finite y > 0: (exponent, log2 of the significand); Consts::log2_split.
__device__ __forceinline__ double ax_log2_split(const double* __restrict__ k, double y, i64* e) {
    u64 bits = (u64)__double_as_longlong(y);
    *e = (i64)((bits >> 52) & 0x7ff) - 1023;
    double m = __longlong_as_double((i64)((bits & ((1ull << 52) - 1)) | (1023ull << 52)));
    int i = (int)((bits >> (52 - AX_LOG_TABLE_BITS)) & ((1 << AX_LOG_TABLE_BITS) - 1));
    double r = __fma_rn(m, k[AX_OFF_INV + i], -1.0);
    double p = k[AX_OFF_LOG_POLY + AX_LOG_POLY - 1];
#pragma unroll
    for (int j = AX_LOG_POLY - 2; j >= 0; j--) {
        p = __fma_rn(r, p, k[AX_OFF_LOG_POLY + j]);
    }
    return __fma_rn(r, p, k[AX_OFF_LOG_INV + i]);
}

// The class of s·2^-FIX_BITS·2^(top·2^-F), s ≠ 0: Consts::log_code.
__device__ AxClass ax_from_fixed(const double* __restrict__ k, int f, Ax128 s, i64 top) {
    AxClass c;
    c.kind = 3;
    c.negative = (i64)s.hi < 0;
    if (c.negative) {
        Ax128 zero = {0, 0};
        s = ax_sub(zero, s);
    }
    int lz = s.hi != 0 ? __clzll((i64)s.hi) : 64 + __clzll((i64)s.lo);
    u64 top64, rest;
    if (lz == 0) {
        top64 = s.hi;
        rest = s.lo;
    } else if (lz < 64) {
        top64 = (s.hi << lz) | (s.lo >> (64 - lz));
        rest = s.lo << lz;
    } else {
        top64 = s.lo << (lz - 64);
        rest = 0;
    }
    double y = __ull2double_rn(top64 | (u64)(rest != 0));
    i64 e;
    double lm = ax_log2_split(k, y, &e);
    i64 in = e + 64 - lz - AX_FIX_BITS;
    i64 frac_codes = __double2ll_rn(__dmul_rn(lm, (double)(1ll << f)));
    c.log = top + (in << f) + frac_codes;
    return c;
}

// Specials and the largest finite log of a warp's terms, then their fused sum: lane 0 gets
// the class. `term(i)` gives term i of the row (AxClass), i < len.
struct AxFlags {
    int nan, pinf, ninf;
    i64 top;
};

__device__ __forceinline__ void ax_flag(AxFlags& fl, AxClass t) {
    if (t.kind == 1) fl.nan = 1;
    if (t.kind == 2) {
        if (t.negative) fl.ninf = 1; else fl.pinf = 1;
    }
    if (t.kind == 3 && t.log > fl.top) fl.top = t.log;
}

__device__ __forceinline__ AxFlags ax_warp_flags(AxFlags fl) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        fl.nan |= __shfl_xor_sync(0xffffffffu, fl.nan, o);
        fl.pinf |= __shfl_xor_sync(0xffffffffu, fl.pinf, o);
        fl.ninf |= __shfl_xor_sync(0xffffffffu, fl.ninf, o);
        i64 t = __shfl_xor_sync(0xffffffffu, fl.top, o);
        fl.top = t > fl.top ? t : fl.top;
    }
    return fl;
}

__device__ __forceinline__ Ax128 ax_warp_sum(Ax128 a) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        Ax128 b;
        b.lo = __shfl_xor_sync(0xffffffffu, a.lo, o);
        b.hi = __shfl_xor_sync(0xffffffffu, a.hi, o);
        a = ax_add(a, b);
    }
    return a;
}

__device__ __forceinline__ void ax_accumulate(const double* __restrict__ k, int f, Ax128& acc, AxClass t, i64 top) {
    if (t.kind == 3) {
        Ax128 v = ax_term(k, f, t.log - top);
        acc = t.negative ? ax_sub(acc, v) : ax_add(acc, v);
    }
}

// The class of the fused sum from the warp's flags and sum (fused in axis/mod.rs).
__device__ __forceinline__ AxClass ax_finish(const double* __restrict__ k, int f, AxFlags fl, Ax128 acc) {
    AxClass c;
    c.negative = 0;
    c.log = 0;
    if (fl.nan || (fl.pinf && fl.ninf)) {
        c.kind = 1;
    } else if (fl.pinf || fl.ninf) {
        c.kind = 2;
        c.negative = fl.ninf;
    } else if (fl.top == AX_I64_MIN || (acc.lo == 0 && acc.hi == 0)) {
        c.kind = 0;
    } else {
        c = ax_from_fixed(k, f, acc, fl.top);
    }
    return c;
}

__device__ __forceinline__ AxFlags ax_no_flags() {
    AxFlags fl;
    fl.nan = fl.pinf = fl.ninf = 0;
    fl.top = AX_I64_MIN;
    return fl;
}

// Natural logs to classes and back (nat_class / class_nat in axis/mod.rs), and float loads
// and stores.

__device__ __forceinline__ AxClass ax_nat_class(const double* __restrict__ k, double x) {
    AxClass c;
    c.negative = 0;
    c.log = 0;
    if (isnan(x)) {
        c.kind = 1;
    } else if (isinf(x)) {
        c.kind = x < 0 ? 0 : 2;
    } else {
        c.kind = 3;
        double code = rint(__dmul_rn(x, k[3]));
        code = fmin(fmax(code, -4503599627370496.0), 4503599627370496.0);
        c.log = (i64)code;
    }
    return c;
}

__device__ __forceinline__ double ax_class_nat(const double* __restrict__ k, AxClass c) {
    if (c.kind == 0) return -AX_INF;
    if (c.kind == 2) return AX_INF;
    if (c.kind == 1 || c.negative) return AX_NAN;
    return __dmul_rn(__ll2double_rn(c.log), k[4]);
}

__device__ __forceinline__ double ax_load(const float* p) { return (double)*p; }
__device__ __forceinline__ double ax_load(const double* p) { return *p; }
// NaN as the host's f32 NaN (0x7fc00000, what f64::NAN as f32 and numpy's astype give), not
// the device conversion's canonical 0x7fffffff, so float32 outputs match bit for bit.
__device__ __forceinline__ void ax_store(float* p, double v) {
    *p = isnan(v) ? __int_as_float(0x7fc00000) : __double2float_rn(v);
}
__device__ __forceinline__ void ax_store(double* p, double v) { *p = v; }

// One output of log_softmax: the input's code minus the sum's, in natural-log units.
__device__ __forceinline__ double ax_softmax_value(const double* __restrict__ k, AxClass c, AxClass lse) {
    if (c.kind == 3 && lse.kind == 3) return __dmul_rn(__ll2double_rn(c.log - lse.log), k[4]);
    if (c.kind == 0 && lse.kind == 3) return -AX_INF;
    return AX_NAN;
}

// Floats to words and back (Consts::code_of / value_of).

__device__ __forceinline__ double ax_pow2(int k) { return __longlong_as_double((i64)(1023 + k) << 52); }

__device__ __forceinline__ unsigned ax_word_of(AxFmt fm, const double* __restrict__ k, double x) {
    AxClass c;
    c.negative = x < 0;
    c.log = 0;
    if (isnan(x)) {
        c.kind = 1;
        c.negative = 1;
    } else if (x == 0.0) {
        c.kind = 0;
        c.negative = 0;
    } else if (isinf(x)) {
        c.kind = 2;
    } else {
        double y = fabs(x);
        i64 shift = 0;
        if (y < 2.2250738585072014e-308) {
            y = __dmul_rn(y, ax_pow2(64));
            shift = 64;
        }
        i64 e;
        double lm = ax_log2_split(k, y, &e);
        c.kind = 3;
        c.log = ((e - shift) << fm.f) + __double2ll_rn(__dmul_rn(lm, ax_pow2(fm.f)));
    }
    return ax_encode(fm, c);
}

__device__ __forceinline__ double ax_value_of(AxFmt fm, const double* __restrict__ k, unsigned w) {
    AxClass c = ax_decode(fm, w);
    if (c.kind == 0) return 0.0;
    if (c.kind == 1) return AX_NAN;
    if (c.kind == 2) return c.negative ? -AX_INF : AX_INF;
    i64 kk = c.log >> fm.f;
    double t = ax_exp_frac(k, fm.f, (u64)(c.log & ((1ll << fm.f) - 1)));
    double v;
    if (kk > 1023) {
        v = AX_INF;
    } else if (kk >= -1022) {
        v = __dmul_rn(t, ax_pow2((int)kk));
    } else if (kk >= -1200) {
        v = __dmul_rn(__dmul_rn(t, ax_pow2((int)kk + 600)), ax_pow2(-600));
    } else {
        v = 0.0;
    }
    return c.negative ? -v : v;
}

// Block-wide flags and sums for the block-per-row kernels.

#define AX_BLOCK 256
#define AX_CACHE 16
#define AX_WARPS (AX_BLOCK / 32)

__device__ __forceinline__ AxFlags ax_block_flags(AxFlags fl) {
    __shared__ int s_flags[AX_WARPS];
    __shared__ i64 s_top[AX_WARPS];
    fl = ax_warp_flags(fl);
    int w = threadIdx.x >> 5;
    if ((threadIdx.x & 31) == 0) {
        s_flags[w] = fl.nan | (fl.pinf << 1) | (fl.ninf << 2);
        s_top[w] = fl.top;
    }
    __syncthreads();
    AxFlags r = ax_no_flags();
#pragma unroll
    for (int i = 0; i < AX_WARPS; i++) {
        int b = s_flags[i];
        r.nan |= b & 1;
        r.pinf |= (b >> 1) & 1;
        r.ninf |= (b >> 2) & 1;
        r.top = s_top[i] > r.top ? s_top[i] : r.top;
    }
    return r;
}

__device__ __forceinline__ Ax128 ax_block_sum(Ax128 a) {
    __shared__ u64 s_lo[AX_WARPS];
    __shared__ u64 s_hi[AX_WARPS];
    a = ax_warp_sum(a);
    int w = threadIdx.x >> 5;
    if ((threadIdx.x & 31) == 0) {
        s_lo[w] = a.lo;
        s_hi[w] = a.hi;
    }
    __syncthreads();
    Ax128 r = {0, 0};
#pragma unroll
    for (int i = 0; i < AX_WARPS; i++) {
        Ax128 b = {s_lo[i], s_hi[i]};
        r = ax_add(r, b);
    }
    return r;
}

__device__ __forceinline__ int ax_ok(AxFlags fl) {
    return !(fl.nan || fl.pinf || fl.ninf) && fl.top != AX_I64_MIN;
}

// ---- A faster exact sum of terms (the row and matmul kernels): the same integer as adding
// ax_term's 128-bit values, with most terms added in f64.
//
// A term 2^(d·2^-F) = t·2^kk (t = exp_frac ∈ [1, 2], kk = d >> F ≤ 0; |t·2^kk| ≤ 1, as
// t = 1 when kk = 0) with kk ≥ AX_FAST_KK is
// a multiple of 2^-FIX_BITS (t has 52 fraction bits), so ax_term's value is exactly
// t·2^(kk+FIX_BITS) — no truncation — and t·2^kk is a normal double. Such terms (signed)
// are added to hi, which starts at an offset H = AX_FAST_H, by Fast2Sum (|hi| ≥ H/2 ≥ |term|, so the error
// e of each add is exact) with the errors summed in lo. Every value involved is a multiple
// of 2^-FIX_BITS; e is at most half an ulp of hi. With at most AX_FAST_TERMS = 64 terms
// between flushes, |hi − H| ≤ 64 = H/2 and |lo| ≤ 64·2^-46 = 2^-40 < 2^(53−FIX_BITS): exact. Then
// hi − H (exact: H/2 ≤ hi ≤ 2H) and lo become 128-bit integers exactly. Smaller terms
// (kk < AX_FAST_KK) take ax_term's path into a 128-bit sum.

#define AX_FAST_KK (52 - AX_FIX_BITS)
#define AX_FAST_H 128.0
#define AX_FAST_TERMS 64

// t·2^kk for t ∈ [1, 2] and AX_FAST_KK ≤ kk ≤ 0: an exponent add, exact.
__device__ __forceinline__ double ax_scale(double t, int kk) {
    return __hiloint2double(__double2hiint(t) + (kk << 20), __double2loint(t));
}

__device__ __forceinline__ void ax_fast2sum(double& hi, double& lo, double v) {
    double s = __dadd_rn(hi, v);
    double z = __dsub_rn(s, hi);
    lo = __dadd_rn(lo, __dsub_rn(v, z));
    hi = s;
}

// The fixed-point value ⌊t·2^(kk+FIX_BITS)⌋ of t ∈ [1, 2]: ax_term's tail.
__device__ __forceinline__ Ax128 ax_fixed_tail(double t, i64 kk) {
    u64 bits = (u64)__double_as_longlong(t);
    i64 e = (i64)((bits >> 52) & 0x7ff) - 1023;
    u64 mant = (bits & ((1ull << 52) - 1)) | (1ull << 52);
    i64 shift = kk + e + AX_FIX_BITS - 52;
    Ax128 r;
    if (shift >= 64) {
        r.lo = 0;
        r.hi = mant << (shift - 64);
    } else if (shift > 0) {
        r.lo = mant << shift;
        r.hi = mant >> (64 - shift);
    } else if (shift == 0) {
        r.lo = mant;
        r.hi = 0;
    } else if (shift > -64) {
        r.lo = mant >> (-shift);
        r.hi = 0;
    } else {
        r.lo = 0;
        r.hi = 0;
    }
    return r;
}

// v·2^FIX_BITS as a 128-bit integer, for v a multiple of 2^-FIX_BITS with |v| < 2^39: exact.
__device__ __forceinline__ Ax128 ax_fixed_of(double v) {
    Ax128 r = {0, 0};
    if (v == 0.0) return r;
    u64 bits = (u64)__double_as_longlong(v);
    i64 e = (i64)((bits >> 52) & 0x7ff) - 1023;
    // |v| = m·2^e with m ∈ [1, 2): ax_fixed_tail of m at e (no truncation: v is on the grid).
    r = ax_fixed_tail(__longlong_as_double((i64)((bits & ((1ull << 52) - 1)) | (1023ull << 52))), e);
    if (bits >> 63) {
        Ax128 zero = {0, 0};
        r = ax_sub(zero, r);
    }
    return r;
}

// The exact accumulator: hi from the offset, lo, and the small terms' 128-bit sum.
struct AxFast {
    double hi, lo;
    Ax128 tiny;
};

__device__ __forceinline__ AxFast ax_fast_new() {
    AxFast a;
    a.hi = AX_FAST_H;
    a.lo = 0.0;
    a.tiny.lo = 0;
    a.tiny.hi = 0;
    return a;
}

// Adds the term t·2^kk (t = exp_frac of the difference's fraction), negated if `neg`.
__device__ __forceinline__ void ax_fast_add(AxFast& a, double t, i64 kk, bool neg) {
    if (kk >= AX_FAST_KK) {
        double v = ax_scale(t, (int)kk);
        ax_fast2sum(a.hi, a.lo, neg ? -v : v);
    } else {
        Ax128 w = ax_fixed_tail(t, kk);
        a.tiny = neg ? ax_sub(a.tiny, w) : ax_add(a.tiny, w);
    }
}

// Moves hi − H and lo into the 128-bit sum (at most AX_FAST_TERMS adds since the last);
// hi restarts at H.
__device__ __forceinline__ void ax_fast_flush(AxFast& a) {
    a.tiny = ax_add(a.tiny, ax_add(ax_fixed_of(__dsub_rn(a.hi, AX_FAST_H)), ax_fixed_of(a.lo)));
    a.hi = AX_FAST_H;
    a.lo = 0.0;
}

// exp_frac with the table at `tab` (global or shared) and the polynomial's coefficients in
// registers; poly false when F ≤ the table's bits (then exp_frac is the entry: fma(t, 0, t)).
__device__ __forceinline__ double ax_exp_frac_at(const double* tab, double c0, double c1, double c2, int sh,
                                                 bool poly, u64 frac) {
    double t = tab[frac >> sh];
    if (poly) {
        // The remainder (< 2^19) as a double by the 2^52 trick: exact, as the CPU's `as f64`.
        double r = __dsub_rn(__hiloint2double(0x43300000, (int)(frac & ((1ull << sh) - 1))), 4503599627370496.0);
        double q = __fma_rn(r, __fma_rn(r, c2, c1), c0);
        t = __fma_rn(t, __dmul_rn(r, q), t);
    }
    return t;
}

// The filtered paths' table in shared memory (axis_rows.cu, axis_matmul.cu): 2^(j·2^-ebits) for j < 2^ebits (ebits = F for
// F ≤ 12, the exact path's entries; else 8, every 16th of them), each entry in 2^rbits copies
// side by side (entry j, copy q at j·2^rbits + q; at most 4096 doubles), lane l reading copy
// l mod 2^rbits. With 16 copies the 16 lanes of a half-warp read 16 different bank pairs
// whatever the entries: one wavefront each, where random gathers from one copy of 4096
// entries averaged ~3.
struct AxRep {
    int ebits, rbits, esh;
};

__device__ __forceinline__ AxRep ax_rep_layout(int f) {
    AxRep r;
    r.ebits = f > AX_EXP_TABLE_BITS ? 8 : f;
    r.rbits = min(4, AX_EXP_TABLE_BITS - r.ebits);
    r.esh = f - r.ebits;
    return r;
}

// Fills the filtered path's table (ax_rep_layout) from the exact path's.
__device__ __forceinline__ void ax_rep_table(const double* __restrict__ k, int f, double* rep) {
    AxRep tl = ax_rep_layout(f);
    int step = f > AX_EXP_TABLE_BITS ? 1 << (AX_EXP_TABLE_BITS - tl.ebits) : 1;
    for (int i = threadIdx.x; i < 1 << (tl.ebits + tl.rbits); i += blockDim.x) {
        rep[i] = k[AX_OFF_EXP + (i >> tl.rbits) * step];
    }
    __syncthreads();
}

// max(a, b), NaN if either is NaN (one max.NaN for f32; the plain form where the file is
// built for the host, as by a host emulation of the kernels).
__device__ __forceinline__ float ax_max_nan(float a, float b) {
#ifdef __CUDA_ARCH__
    float r;
    asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    return r;
#else
    return isnan(a) || isnan(b) ? a + b : fmaxf(a, b);
#endif
}
__device__ __forceinline__ double ax_max_nan(double a, double b) {
    return isnan(a) || isnan(b) ? AX_NAN : fmax(a, b);
}
