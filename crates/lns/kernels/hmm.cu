// HMM forward algorithm in LNS, one block per sequence, one thread per state (src/hmm/gpu.rs is
// the host side, src/hmm/mod.rs the CPU twin).
//
// alpha_t(j) = (sum_i alpha_{t-1}(i) * A_ij) * B_j(o_t). Probabilities are LNS codes (fixed-point
// log2 with F fractional bits, 32-bit ints); the zero code Z = -2^(L-1) lies below every finite
// code. Products are exact integer adds. Each cell's sum is fused: terms are shifted by a bound
// m >= every term, summed in f32 from the SFU's ex2 and rounded back to a code once. After every
// step alpha is divided by its largest element (an exact code subtraction, counted in `scale`),
// so alpha <= 1, every term t_i = alpha_i + A_ij <= 0 and no int arithmetic overflows.
//
// The shift m: column j's largest transition code colmax_j bounds every term (alpha <= 1), and
// the term of the state `top` where alpha = 1 is A_top,j, so the sum is at least
// 2^-(colmax_j - A_top,j). When that gap is below 90 binades the f32 sum keeps full precision
// and no max pass is needed; otherwise (sparse models) the cell takes the exact max first.

struct HmmGeo {
    int f;         // fractional bits, <= 23
    int zero;      // the zero code Z = -2^(L-1)
    int max_code;  // largest finite code
    int states;    // S
    int stride;    // S rounded up to 4: row length of alpha and A (padding codes are Z)
    int steps;
    int a_shared;  // nonzero: the transition codes are staged in shared memory
};

// Sign-extended log field of an LNS word; a word that is not a non-negative finite value or
// zero (a sign bit, or the infinity code) sets `bad`.
__device__ __forceinline__ int hmm_code(unsigned w, const HmmGeo& g, bool& bad) {
    const int L = 32 - __clz(-g.zero);  // log bits: Z = -2^(L-1)
    const int code = (int)(w << (32 - L)) >> (32 - L);
    bad |= (w >> L) != 0u || code == g.max_code + 1;
    return code;
}

// 2 * 2^(d * 2^-f) for -126 * 2^f <= d <= 0, without an int-to-float conversion: the fraction's
// bits go straight into a mantissa (1 + frac, exact), the SFU gives 2^(1 + frac) in [2, 4), and
// the integer part k goes into the exponent field. The factor 2 is taken out once per cell.
template <int FIXED_F> __device__ __forceinline__ float hmm_exp2_code(int d, int runtime_f) {
    const int f = FIXED_F ? FIXED_F : runtime_f;  // a constant shift folds into the masks
    const unsigned frac = ((unsigned)d << (23 - f)) & 0x7fffffu;
    float r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(__uint_as_float(0x3f800000u | frac)));
    return __int_as_float(__float_as_int(r) + ((d >> f) << 23));
}

// m + log2(s / 2) in codes: the exponent of s is exact, log2 of its mantissa in [1, 2) comes from
// the accurate log2f (an f32 log2 of s itself would keep only 24 - 7 bits at s ~ 128).
__device__ __forceinline__ int hmm_log_code(int m, float s, int f) {
    const int bits = __float_as_int(s);
    const int e = (bits >> 23) - 128;
    const float mant = __int_as_float((bits & 0x7fffff) | 0x3f800000);
    return m + (e << f) + __float2int_rn(log2f(mant) * (float)(1 << f));
}

template <typename T, typename Op> __device__ __forceinline__ T hmm_block_reduce(T v, T* scratch, Op op) {
    for (int o = 16; o > 0; o >>= 1) v = op(v, __shfl_xor_sync(0xffffffffu, v, o));
    const int warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    if ((threadIdx.x & 31) == 0) scratch[warp] = v;
    __syncthreads();
    T r = scratch[0];
    for (int w = 1; w < warps; ++w) r = op(r, scratch[w]);
    return r;
}

struct HmmMax { __device__ int operator()(int a, int b) const { return max(a, b); } };
struct HmmAdd { __device__ double operator()(double a, double b) const { return a + b; } };

// Cell j's sum over i of 2 * 2^(alpha_i + A_ij - m), terms below lo (relative codes) dropped.
// a_row is row j of the transposed A (A_ij at a_row[i]): one 16-byte load for 4 terms, as alpha.
template <int FIXED_F>
__device__ __forceinline__ float hmm_cell_sum(const int* __restrict__ cur, const int* __restrict__ a_row,
                                              int stride, int m, int lo, int f) {
    float acc0 = 0.f, acc1 = 0.f, acc2 = 0.f, acc3 = 0.f;
#pragma unroll 4
    for (int i = 0; i < stride; i += 4) {
        const int4 a = *reinterpret_cast<const int4*>(cur + i);
        const int4 t = *reinterpret_cast<const int4*>(a_row + i);
        const int d0 = a.x + t.x - m, d1 = a.y + t.y - m, d2 = a.z + t.z - m, d3 = a.w + t.w - m;
        if (d0 >= lo) acc0 += hmm_exp2_code<FIXED_F>(d0, f);
        if (d1 >= lo) acc1 += hmm_exp2_code<FIXED_F>(d1, f);
        if (d2 >= lo) acc2 += hmm_exp2_code<FIXED_F>(d2, f);
        if (d3 >= lo) acc3 += hmm_exp2_code<FIXED_F>(d3, f);
    }
    return (acc0 + acc1) + (acc2 + acc3);
}

// init: S codes of pi; trans: A transposed, S rows of `pitch` codes (row j holds A_ij at i,
// padding Z; pitch = stride + 4 spreads the rows' 16-byte loads over the shared-memory banks);
// colmax: per column j the largest code of A; emit: batch x steps x S LNS words of B_j(o_t);
// ll: per sequence, ln P(o) (NaN for a bad emission word or an overflow, -inf for probability
// zero). Block: one thread per state, rounded up to warps. Dynamic shared memory:
// 64 + 64 + stride (+ S * pitch when a_shared) ints.
template <int FIXED_F, bool A_SHARED>
__device__ __forceinline__ void hmm_forward(const HmmGeo& g, const int* __restrict__ init,
                                            const int* __restrict__ trans,
                                            const int* __restrict__ colmax,
                                            const unsigned* __restrict__ emit,
                                            double* __restrict__ ll, int* smem) {
    const int S = g.states, P = g.stride, Z = g.zero, W = P + 4;
    const int F = FIXED_F ? FIXED_F : g.f;
    double* dscratch = reinterpret_cast<double*>(smem);
    int* scratch = smem + 64;  // [0..31] reductions, [32] the state where alpha = 1
    int* cur = smem + 128;  // 16-byte aligned for int4 loads
    const int* A = trans;
    if (A_SHARED) {
        int* As = cur + P;
        for (int k = threadIdx.x; k < S * W; k += blockDim.x) As[k] = trans[k];
        A = As;
    }
    const int j = threadIdx.x;
    const bool owner = j < S;
    const int cm = owner ? colmax[j] : Z;
    for (int k = threadIdx.x; k < P; k += blockDim.x) cur[k] = Z;  // padding stays Z
    __syncthreads();

    const unsigned* e = emit + (size_t)blockIdx.x * g.steps * S + j;
    bool bad = false, all_zero = false;
    long long scale = 0;  // log code divided out so far (same in every thread)

    // alpha_0 = pi * B(o_0); every step ends with the rescaling at the top of this loop.
    int a = Z;
    unsigned w_next = 0;
    if (owner) {
        const int ev = hmm_code(__ldg(e), g, bad);
        a = (init[j] == Z || ev == Z) ? Z : init[j] + ev;
        if (g.steps > 1) w_next = __ldg(e + S);
    }
    for (int t = 0;; ++t) {
        // Divide alpha by its largest element M; note the lowest state where alpha becomes 1.
        // Several states may qualify, so they meet in an atomicMin (plain stores of several
        // threads to one word are a race, and the choice would depend on timing). Thread 0
        // resets the slot here: every read of it in the previous step came before the barrier
        // that ended that step, and the reduction's barrier orders the reset before this
        // step's atomicMin.
        if (threadIdx.x == 0) scratch[32] = 0x7fffffff;
        const int M = hmm_block_reduce(a, scratch, HmmMax());
        if (M == Z) { all_zero = true; break; }
        if (M > g.max_code) bad = true;
        if (owner) {
            a = (a == Z || a - M <= Z) ? Z : a - M;
            cur[j] = a;
            if (a == 0) atomicMin(&scratch[32], j);
        }
        scale += M;
        __syncthreads();
        if (t + 1 == g.steps) break;

        const int top = scratch[32];
        a = Z;
        if (owner) {
            const int ev = hmm_code(w_next, g, bad);
            if (t + 2 < g.steps) w_next = __ldg(e + (size_t)(t + 2) * S);
            if (ev != Z) {
                int m = cm;
                const int* a_row = A + j * W;
                const int at = a_row[top];
                if (at == Z || m - at > (90 << F)) {
                    m = -2147483647 - 1;
                    for (int i = 0; i < S; ++i) m = max(m, cur[i] + a_row[i]);
                }
                if (m > Z) {
                    // Terms at or below Z are zero; below 2^-126 of m they vanish in f32.
                    const int lo = max(-(126 << F), Z + 1 - m);
                    const float s = hmm_cell_sum<FIXED_F>(cur, a_row, P, m, lo, F);
                    const long long r = (long long)hmm_log_code(m, s, F) + ev;
                    a = r <= Z ? Z : (int)r;
                }
            }
        }
        __syncthreads();  // every thread has read cur before it is overwritten
    }

    // ln P = (log2 sum_j alpha_j + scale * 2^-f) * ln 2, alpha_j <= 1 after the last rescaling.
    double part = 0.0;
    if (!all_zero && owner && cur[j] != Z) part = exp2((double)cur[j] * exp2(-(double)F));
    const double total = hmm_block_reduce(part, dscratch, HmmAdd());
    const int any_bad = __syncthreads_or(bad);
    if (threadIdx.x == 0) {
        const double ln2 = 0.69314718055994530942;
        ll[blockIdx.x] = any_bad ? __longlong_as_double(0x7ff8000000000000ll)
                         : all_zero ? -__longlong_as_double(0x7ff0000000000000ll)
                                    : (log2(total) + (double)scale * exp2(-(double)F)) * ln2;
    }
}

// Entry points: F = 23 (lns32) and F = 10 (lns16) with the shifts as constants, any F <= 23.
#define HMM_KERNEL(NAME, FIXED_F)                                                                 \
    extern "C" __global__ void NAME(HmmGeo g, const int* __restrict__ init,                      \
                                    const int* __restrict__ trans, const int* __restrict__ colmax, \
                                    const unsigned* __restrict__ emit, double* __restrict__ ll) { \
        extern __shared__ __align__(16) int smem[];                                               \
        if (g.a_shared)                                                                           \
            hmm_forward<FIXED_F, true>(g, init, trans, colmax, emit, ll, smem);                   \
        else                                                                                      \
            hmm_forward<FIXED_F, false>(g, init, trans, colmax, emit, ll, smem);                  \
    }
HMM_KERNEL(lns_hmm_forward_f23, 23)
HMM_KERNEL(lns_hmm_forward_f10, 10)
HMM_KERNEL(lns_hmm_forward, 0)
