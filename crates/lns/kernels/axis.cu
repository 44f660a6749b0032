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
