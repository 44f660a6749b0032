// Reductions of LNS words along the last axis, the log-domain reductions of long rows of float
// logs and the float conversions: the GPU twins of src/axis (short rows' sums are in
// axis_rows.cu, the matrix product in axis_matmul.cu) (exact.rs has the arithmetic and its
// error contract). Every floating-point operation is a correctly rounded intrinsic
// (__fma_rn, __dmul_rn, __dadd_rn, conversions _rn), never contracted or reassociated by
// NVRTC, and the tables come from the host, so each term equals the CPU's bit for bit; the
// terms are summed as 128-bit integers, whose sum does not depend on the order, so a warp's
// split of a row gives the CPU's word.
//
// consts: [c1, c2, c3, codes_per_nat, nats_per_code, log_poly x 8, inv x 128, log_inv x 128,
// exp x 2^tb] (Consts::flat).

#include "lns_exact.cuh"

// ---- Reductions of words along the last axis: one warp per row. op: 0 sum, 1 prod, 2 max,
// 3 min (sums of short rows go to axis_rows.cu, of long rows to the block kernel below).

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

// ---- Conversions between floats and words (Consts::code_of / value_of, words_of /
// values_of in axis/mod.rs): grid-stride, one element per thread and step.

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

// logsumexp of a long row (one block) without the exact 128-bit sum, when the rounding allows
// it (else false for the whole block, and the caller takes the exact path): ax_row_lse_filtered
// for a block. The row's largest x is a NaN-propagating max; each x, raised to at least
// top − 42 nats (−∞ too), gets its code by the 2^52 trick, its difference from the top's code
// the difference of the low words (F ≤ 24); the term is the exact path's table entry (read
// from the global table, cached) times its cubic — the exact path's double — or 2^-60 below
// 60 binades. Each thread sums its m ≤ ⌈len/AX_BLOCK⌉ terms in f64, the block adds the
// threads' sums through 8 levels: the sum is within E = (m + 8)·2^-53·1.01 of the exact
// integer's value relative (positive terms; truncations and raised terms, −∞ padding among
// them, ≤ 4096·2^-60 or len·2^-60 of a sum ≥ 1), so p = 2^F·log2(sum) is within 2^F·(1.443·E + 2^-48) of the value the exact path
// rounds; where p is further than that from a half-integer the word is the exact path's.
template <typename T>
__device__ __forceinline__ bool ax_log_block_filtered(AxFmt fm, const double* __restrict__ k, const T* __restrict__ x,
                                                      i64 len, bool cached, const double* cache, AxClass& out) {
    __shared__ double s_red[AX_WARPS];
    __shared__ int s_ok;
    __shared__ i64 s_log;
    const double magic = 6755399441055744.0;  // 1.5·2^52
    int f = fm.f;
    double xm = -AX_INF;
    if (cached) {
#pragma unroll
        for (int j = 0; j < AX_CACHE; j++) xm = ax_max_nan(xm, cache[j]);
    } else {
        for (i64 i = threadIdx.x; i < len; i += AX_BLOCK) xm = ax_max_nan(xm, ax_load(x + i));
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) xm = ax_max_nan(xm, __shfl_xor_sync(0xffffffffu, xm, o));
    if ((threadIdx.x & 31) == 0) s_red[threadIdx.x >> 5] = xm;
    __syncthreads();
    xm = s_red[0];
#pragma unroll
    for (int i = 1; i < AX_WARPS; i++) xm = ax_max_nan(xm, s_red[i]);
    __syncthreads();
    // NaN fails both tests; the decision is the block's (every thread has the same xm).
    if (!(xm <= 1048576.0 && xm >= -1048576.0)) return false;
    double cpn = k[3];
    double stop = __dadd_rn(__dmul_rn(xm, cpn), magic);
    unsigned toplo = (unsigned)__double2loint(stop);
    double xlow = __dsub_rn(xm, 42.0);  // exact: |xm| ≤ 2^20
    int sh = f > AX_EXP_TABLE_BITS ? f - AX_EXP_TABLE_BITS : 0;
    bool poly = f > AX_EXP_TABLE_BITS;
    double c0 = k[0], c1 = k[1], c2 = k[2];
    const double* tab = k + AX_OFF_EXP;
    int dmin = -(60 << f);
    double sum = 0.0;
    auto add = [&](double v) {
        unsigned lo = (unsigned)__double2loint(__dadd_rn(__dmul_rn(fmax(v, xlow), cpn), magic));
        int d = max((int)(lo - toplo), dmin);
        double t = ax_exp_frac_at(tab, c0, c1, c2, sh, poly, (u64)((unsigned)d & ((1u << f) - 1)));
        sum = __dadd_rn(sum, ax_scale(t, d >> f));
    };
    if (cached) {
#pragma unroll
        for (int j = 0; j < AX_CACHE; j++) add(cache[j]);
    } else {
        for (i64 i = threadIdx.x; i < len; i += AX_BLOCK) add(ax_load(x + i));
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) sum = __dadd_rn(sum, __shfl_xor_sync(0xffffffffu, sum, o));
    if ((threadIdx.x & 31) == 0) s_red[threadIdx.x >> 5] = sum;
    __syncthreads();
    if (threadIdx.x == 0) {
        double s = s_red[0];
#pragma unroll
        for (int i = 1; i < AX_WARPS; i++) s = __dadd_rn(s, s_red[i]);
        i64 e;
        double lm = ax_log2_split(k, s, &e);
        double ef = __dsub_rn(__hiloint2double(0x43300000, (int)(e << f)), 4503599627370496.0);
        double p = __fma_rn(lm, ax_pow2(f), ef);
        double n = __dadd_rn(p, magic);
        double m = cached ? (double)AX_CACHE : (double)((len + AX_BLOCK - 1) / AX_BLOCK);
        double err = __dmul_rn(__dadd_rn(m, 8.0), 1.01 * 1.1102230246251565e-16);
        double margin = __dmul_rn(ax_pow2(f), __fma_rn(1.443, err, ax_pow2(-48)));
        s_ok = fabs(fabs(__dsub_rn(p, __dsub_rn(n, magic))) - 0.5) > margin;
        s_log = (__double_as_longlong(stop) - 0x4338000000000000ll) + __double2loint(n);
    }
    __syncthreads();
    bool ok = s_ok;
    out.kind = 3;
    out.negative = 0;
    out.log = s_log;
    __syncthreads();  // s_red, s_ok and s_log are free for the next use
    return ok;
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
        }
    }
    AxClass lse;
    if (!(fm.f <= 24 && ax_log_block_filtered<T>(fm, k, x, len, cached, cache, lse))) {
        if (cached) {
#pragma unroll
            for (int j = 0; j < AX_CACHE; j++) ax_flag(fl, ax_nat_class(k, cache[j]));
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
                for (i64 i = threadIdx.x; i < len; i += AX_BLOCK)
                    ax_accumulate(k, fm.f, acc, ax_nat_class(k, ax_load(x + i)), fl.top);
            }
        }
        acc = ax_block_sum(acc);
        lse = ax_finish(k, fm.f, fl, acc);
    }
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
