// Reductions of LNS words along the last axis, the batched matrix product and the log-domain
// reductions of float logs: the GPU twins of src/axis (exact.rs has the arithmetic and its
// error contract). Every floating-point operation is a correctly rounded intrinsic
// (__fma_rn, __dmul_rn, __dadd_rn, conversions _rn), never contracted or reassociated by
// NVRTC, and the tables come from the host, so each term equals the CPU's bit for bit; the
// terms are summed as 128-bit integers, whose sum does not depend on the order, so a warp's
// split of a row gives the CPU's word.
//
// consts: [c1, c2, c3, codes_per_nat, nats_per_code, log_poly x 8, inv x 128, log_inv x 128,
// exp x 2^tb] (Consts::flat).

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

// ---- Reductions of words along the last axis: one warp per row. op: 0 sum, 1 prod, 2 max,
// 3 min.

__device__ __forceinline__ int ax_key_cmp(AxClass a, AxClass b) {
    // compare() in arith.rs without NaN: side, then magnitude key.
    int sa = a.kind == 0 ? 0 : (a.negative ? -1 : 1);
    int sb = b.kind == 0 ? 0 : (b.negative ? -1 : 1);
    if (sa != sb) return sa < sb ? -1 : 1;
    i64 ka = a.kind == 2 ? AX_I64_MAX : (a.kind == 0 ? 0 : a.log);
    i64 kb = b.kind == 2 ? AX_I64_MAX : (b.kind == 0 ? 0 : b.log);
    if (sa < 0) {
        ka = a.kind == 2 ? AX_I64_MIN : -a.log;
        kb = b.kind == 2 ? AX_I64_MIN : -b.log;
    }
    return ka < kb ? -1 : (ka > kb ? 1 : 0);
}

template <typename W>
__device__ void ax_reduce_rows(AxFmt fm, const double* __restrict__ k, const W* __restrict__ xs,
                               i64 rows, i64 len, int op, W* __restrict__ out) {
    int lane = threadIdx.x & 31;
    i64 row = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (row >= rows) return;
    const W* x = xs + row * len;
    unsigned word;
    if (op == 0) {
        AxFlags fl = ax_no_flags();
        for (i64 i = lane; i < len; i += 32) ax_flag(fl, ax_decode(fm, x[i]));
        fl = ax_warp_flags(fl);
        Ax128 acc = {0, 0};
        if (!(fl.nan || fl.pinf || fl.ninf) && fl.top != AX_I64_MIN) {
            for (i64 i = lane; i < len; i += 32) ax_accumulate(k, fm.f, acc, ax_decode(fm, x[i]), fl.top);
        }
        acc = ax_warp_sum(acc);
        word = ax_encode(fm, ax_finish(k, fm.f, fl, acc));
    } else if (op == 1) {
        // Exact product: sign parity, log sum, special flags.
        int neg = 0, zero = 0, inf = 0, nan = 0;
        i64 log = 0;
        for (i64 i = lane; i < len; i += 32) {
            AxClass c = ax_decode(fm, x[i]);
            neg ^= c.negative & (c.kind >= 2);
            nan |= c.kind == 1;
            zero |= c.kind == 0;
            inf |= c.kind == 2;
            if (c.kind == 3) log += c.log;
        }
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) {
            neg ^= __shfl_xor_sync(0xffffffffu, neg, o);
            zero |= __shfl_xor_sync(0xffffffffu, zero, o);
            inf |= __shfl_xor_sync(0xffffffffu, inf, o);
            nan |= __shfl_xor_sync(0xffffffffu, nan, o);
            log += __shfl_xor_sync(0xffffffffu, log, o);
        }
        AxClass c;
        c.negative = neg;
        c.log = log;
        c.kind = (nan || (zero && inf)) ? 1 : (zero ? 0 : (inf ? 2 : 3));
        word = ax_encode(fm, c);
    } else {
        int sign = op == 2 ? 1 : -1;
        int nan = 0;
        AxClass best = ax_decode(fm, x[0]);
        for (i64 i = lane; i < len; i += 32) {
            AxClass c = ax_decode(fm, x[i]);
            nan |= c.kind == 1;
            if (c.kind != 1 && best.kind != 1 && sign * ax_key_cmp(c, best) > 0) best = c;
        }
        nan |= best.kind == 1;
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) {
            nan |= __shfl_xor_sync(0xffffffffu, nan, o);
            AxClass b;
            b.kind = __shfl_xor_sync(0xffffffffu, best.kind, o);
            b.negative = __shfl_xor_sync(0xffffffffu, best.negative, o);
            b.log = __shfl_xor_sync(0xffffffffu, best.log, o);
            if (sign * ax_key_cmp(b, best) > 0) best = b;
        }
        if (nan) {
            best.kind = 1;
            best.negative = 1;
        }
        word = ax_encode(fm, best);
    }
    if (lane == 0) out[row] = (W)word;
}

extern "C" __global__ void lns_axis_reduce(AxFmt fm, const double* __restrict__ k,
                                           const unsigned* __restrict__ xs, i64 rows, i64 len,
                                           int op, unsigned* __restrict__ out) {
    ax_reduce_rows<unsigned>(fm, k, xs, rows, len, op, out);
}

extern "C" __global__ void lns_axis_reduce_u16(AxFmt fm, const double* __restrict__ k,
                                               const unsigned short* __restrict__ xs, i64 rows,
                                               i64 len, int op, unsigned short* __restrict__ out) {
    ax_reduce_rows<unsigned short>(fm, k, xs, rows, len, op, out);
}

// ---- Batched matrix product: one thread per output, two passes over k (the largest product
// code, then the fixed-point sum). C[p, i, j] = Σ_t A[p, i, t] · B[p, t, j].

template <typename W>
__device__ void ax_matmul(AxFmt fm, const double* __restrict__ k, const W* __restrict__ a,
                          const W* __restrict__ b, i64 batch, i64 m, i64 kk, i64 n,
                          W* __restrict__ out) {
    i64 j = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    i64 i = (i64)blockIdx.y * blockDim.y + threadIdx.y;
    i64 p = blockIdx.z;
    if (j >= n || i >= m || p >= batch) return;
    const W* ar = a + (p * m + i) * kk;
    const W* bc = b + p * kk * n + j;
    AxFlags fl = ax_no_flags();
    for (i64 t = 0; t < kk; t++) ax_flag(fl, ax_product(ax_decode(fm, ar[t]), ax_decode(fm, bc[t * n])));
    Ax128 acc = {0, 0};
    if (!(fl.nan || fl.pinf || fl.ninf) && fl.top != AX_I64_MIN) {
        for (i64 t = 0; t < kk; t++) {
            ax_accumulate(k, fm.f, acc, ax_product(ax_decode(fm, ar[t]), ax_decode(fm, bc[t * n])), fl.top);
        }
    }
    out[(p * m + i) * n + j] = (W)ax_encode(fm, ax_finish(k, fm.f, fl, acc));
}

extern "C" __global__ void lns_axis_matmul(AxFmt fm, const double* __restrict__ k,
                                           const unsigned* __restrict__ a, const unsigned* __restrict__ b,
                                           i64 batch, i64 m, i64 kk, i64 n, unsigned* __restrict__ out) {
    ax_matmul<unsigned>(fm, k, a, b, batch, m, kk, n, out);
}

extern "C" __global__ void lns_axis_matmul_u16(AxFmt fm, const double* __restrict__ k,
                                               const unsigned short* __restrict__ a,
                                               const unsigned short* __restrict__ b, i64 batch,
                                               i64 m, i64 kk, i64 n, unsigned short* __restrict__ out) {
    ax_matmul<unsigned short>(fm, k, a, b, batch, m, kk, n, out);
}

// ---- logsumexp and log_softmax of float natural logs: one warp per row (nat_class and
// class_nat in axis/mod.rs).

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

template <typename T>
__device__ void ax_log_rows(AxFmt fm, const double* __restrict__ k, const T* __restrict__ xs,
                            i64 rows, i64 len, int softmax, T* __restrict__ out) {
    int lane = threadIdx.x & 31;
    i64 row = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (row >= rows) return;
    const T* x = xs + row * len;
    AxFlags fl = ax_no_flags();
    for (i64 i = lane; i < len; i += 32) ax_flag(fl, ax_nat_class(k, ax_load(x + i)));
    fl = ax_warp_flags(fl);
    Ax128 acc = {0, 0};
    if (!(fl.nan || fl.pinf || fl.ninf) && fl.top != AX_I64_MIN) {
        for (i64 i = lane; i < len; i += 32) ax_accumulate(k, fm.f, acc, ax_nat_class(k, ax_load(x + i)), fl.top);
    }
    acc = ax_warp_sum(acc);
    AxClass lse = ax_finish(k, fm.f, fl, acc);
    if (!softmax) {
        if (lane == 0) ax_store(out + row, ax_class_nat(k, lse));
        return;
    }
    T* o = out + row * len;
    for (i64 i = lane; i < len; i += 32) ax_store(o + i, ax_softmax_value(k, ax_nat_class(k, ax_load(x + i)), lse));
}

extern "C" __global__ void lns_axis_log_f32(AxFmt fm, const double* __restrict__ k, const float* __restrict__ xs,
                                            i64 rows, i64 len, int softmax, float* __restrict__ out) {
    ax_log_rows<float>(fm, k, xs, rows, len, softmax, out);
}

extern "C" __global__ void lns_axis_log_f64(AxFmt fm, const double* __restrict__ k, const double* __restrict__ xs,
                                            i64 rows, i64 len, int softmax, double* __restrict__ out) {
    ax_log_rows<double>(fm, k, xs, rows, len, softmax, out);
}

// ---- Conversions between floats and words (Consts::code_of / value_of, words_of /
// values_of in axis/mod.rs): grid-stride, one element per thread and step.

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

template <typename T, typename W>
__device__ void ax_from_floats(AxFmt fm, const double* __restrict__ k, const T* __restrict__ x, i64 n,
                               W* __restrict__ out) {
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x) {
        out[i] = (W)ax_word_of(fm, k, ax_load(x + i));
    }
}

template <typename W, typename T>
__device__ void ax_to_floats(AxFmt fm, const double* __restrict__ k, const W* __restrict__ w, i64 n,
                             T* __restrict__ out) {
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x) {
        ax_store(out + i, ax_value_of(fm, k, (unsigned)w[i]));
    }
}

#define AX_CONVERT(T, TS, W, WS)                                                                   \
    extern "C" __global__ void lns_axis_from##TS##WS(AxFmt fm, const double* __restrict__ k,     \
                                                      const T* __restrict__ x, i64 n,            \
                                                      W* __restrict__ out) {                     \
        ax_from_floats<T, W>(fm, k, x, n, out);                                                  \
    }                                                                                            \
    extern "C" __global__ void lns_axis_to##TS##WS(AxFmt fm, const double* __restrict__ k,       \
                                                    const W* __restrict__ w, i64 n,              \
                                                    T* __restrict__ out) {                       \
        ax_to_floats<W, T>(fm, k, w, n, out);                                                    \
    }

AX_CONVERT(float, _f32, unsigned, )
AX_CONVERT(double, _f64, unsigned, )
AX_CONVERT(float, _f32, unsigned short, _u16)
AX_CONVERT(double, _f64, unsigned short, _u16)

// ---- Long rows: one block of AX_BLOCK threads per row, the block's flags and 128-bit sum
// reduced through shared memory. A row of at most AX_CACHE·AX_BLOCK elements is read from
// memory once, into registers (padded with zero words / −∞, which add nothing), and the sum
// pass reads the registers; a longer row is read twice, the second time mostly from L2 (one
// row per block keeps the rows in flight small). The integer sum does not depend on the
// split, so these give the warp kernels' (and the CPU's) words.

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

template <typename W>
__device__ void ax_sum_block(AxFmt fm, const double* __restrict__ k, const W* __restrict__ xs,
                             i64 len, W* __restrict__ out) {
    i64 row = blockIdx.x;
    const W* x = xs + row * len;
    W zero = (W)(1u << (fm.log_bits - 1));
    W cache[AX_CACHE];
    bool cached = len <= (i64)AX_CACHE * AX_BLOCK;
    AxFlags fl = ax_no_flags();
    if (cached) {
#pragma unroll
        for (int j = 0; j < AX_CACHE; j++) {
            i64 i = threadIdx.x + (i64)j * AX_BLOCK;
            cache[j] = i < len ? x[i] : zero;
            ax_flag(fl, ax_decode(fm, cache[j]));
        }
    } else {
        for (i64 i = threadIdx.x; i < len; i += AX_BLOCK) ax_flag(fl, ax_decode(fm, x[i]));
    }
    fl = ax_block_flags(fl);
    Ax128 acc = {0, 0};
    if (ax_ok(fl)) {
        if (cached) {
#pragma unroll
            for (int j = 0; j < AX_CACHE; j++) ax_accumulate(k, fm.f, acc, ax_decode(fm, cache[j]), fl.top);
        } else {
            for (i64 i = threadIdx.x; i < len; i += AX_BLOCK) ax_accumulate(k, fm.f, acc, ax_decode(fm, x[i]), fl.top);
        }
    }
    acc = ax_block_sum(acc);
    if (threadIdx.x == 0) out[row] = (W)ax_encode(fm, ax_finish(k, fm.f, fl, acc));
}

extern "C" __global__ void __launch_bounds__(AX_BLOCK)
lns_axis_sum_block(AxFmt fm, const double* __restrict__ k, const unsigned* __restrict__ xs, i64 len,
                   unsigned* __restrict__ out) {
    ax_sum_block<unsigned>(fm, k, xs, len, out);
}

extern "C" __global__ void __launch_bounds__(AX_BLOCK)
lns_axis_sum_block_u16(AxFmt fm, const double* __restrict__ k, const unsigned short* __restrict__ xs,
                       i64 len, unsigned short* __restrict__ out) {
    ax_sum_block<unsigned short>(fm, k, xs, len, out);
}

template <typename T>
__device__ void ax_log_block(AxFmt fm, const double* __restrict__ k, const T* __restrict__ xs,
                             i64 len, int softmax, T* __restrict__ out) {
    i64 row = blockIdx.x;
    const T* x = xs + row * len;
    double cache[AX_CACHE];
    bool cached = len <= (i64)AX_CACHE * AX_BLOCK;
    AxFlags fl = ax_no_flags();
    if (cached) {
#pragma unroll
        for (int j = 0; j < AX_CACHE; j++) {
            i64 i = threadIdx.x + (i64)j * AX_BLOCK;
            cache[j] = i < len ? ax_load(x + i) : -AX_INF;
            ax_flag(fl, ax_nat_class(k, cache[j]));
        }
    } else {
        for (i64 i = threadIdx.x; i < len; i += AX_BLOCK) ax_flag(fl, ax_nat_class(k, ax_load(x + i)));
    }
    fl = ax_block_flags(fl);
    Ax128 acc = {0, 0};
    if (ax_ok(fl)) {
        if (cached) {
#pragma unroll
            for (int j = 0; j < AX_CACHE; j++) ax_accumulate(k, fm.f, acc, ax_nat_class(k, cache[j]), fl.top);
        } else {
            for (i64 i = threadIdx.x; i < len; i += AX_BLOCK) ax_accumulate(k, fm.f, acc, ax_nat_class(k, ax_load(x + i)), fl.top);
        }
    }
    acc = ax_block_sum(acc);
    AxClass lse = ax_finish(k, fm.f, fl, acc);
    if (!softmax) {
        if (threadIdx.x == 0) ax_store(out + row, ax_class_nat(k, lse));
        return;
    }
    T* o = out + row * len;
    for (i64 i = threadIdx.x; i < len; i += AX_BLOCK) ax_store(o + i, ax_softmax_value(k, ax_nat_class(k, ax_load(x + i)), lse));
}

extern "C" __global__ void __launch_bounds__(AX_BLOCK)
lns_axis_log_block_f32(AxFmt fm, const double* __restrict__ k, const float* __restrict__ xs, i64 len,
                       int softmax, float* __restrict__ out) {
    ax_log_block<float>(fm, k, xs, len, softmax, out);
}

extern "C" __global__ void __launch_bounds__(AX_BLOCK)
lns_axis_log_block_f64(AxFmt fm, const double* __restrict__ k, const double* __restrict__ xs, i64 len,
                       int softmax, double* __restrict__ out) {
    ax_log_block<double>(fm, k, xs, len, softmax, out);
}
