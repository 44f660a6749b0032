// plr.cuh: the fixed device helpers of every kernel sigpu-recurrence generates (PLR).
//
// The generated source defines, before including this header: the coefficient type S; the
// launch shape and filter constants K, NSTATE, V, THREADS, WARPS, CHUNK, FAC_LEN, FAC_STRIDE,
// TPOW_OFFSET and Q; the layout switches PLR_PAIRS and PLR_REVERSED (see "Layout" below); and
// these switches, each 0 or 1:
//   PLR_LOOK_BACK  the kernel chains chunks through the decoupled look-back (0: the tail-carry
//                  kernel, which recomputes each carry-in and needs no flags);
//   PLR_TRANSPOSE  warps load and store through a shared-memory transpose;
//   PLR_ONES       a prefix sum (order 1, every factor 1): carries add without multiplications;
//   PLR_LOOK_BACK_WARP  an extra warp (warp WARPS) looks back from the block's start while the
//                  others load and merge; the data warps wait at named barrier 1, where the
//                  look-back warp has only arrived (it is polling meanwhile), and the whole block
//                  meets at one __syncthreads;
//   PLR_COMPENSATED  (f64) the thread's recurrence rounds each value once (dot2_add).
// What follows the include (the map, the recurrence and the merges with the coefficients
// written in, the kernels) is generated per filter. Loads, stores, warp sums and the look-back
// protocol (FULL_MASK, STATUS_PARTIAL, STATUS_FULL, the flags and the chunk order) are the
// runtime's shared primitives.

// Layout. A value T is what one sample of a channel holds in memory:
//   PLR_PAIRS 0  one element (T = S);
//   PLR_PAIRS 1  two channels interleaved sample by sample (a complex signal's re and im
//                parts): T holds both, and every operation of the filter (real coefficients)
//                runs on each part alike, so loads and stores stay whole 16-byte vectors.
// Channel ch starts at x + ch * cs (cs, the channel stride, in values T). Its logical sample i
// lies at position i, or with PLR_REVERSED at n - 1 - i: the kernel filters the channel
// backwards in time in place (the adjoint of a filter), reading and writing in memory order
// and reversing within registers.
#if PLR_PAIRS
struct __align__(2 * sizeof(S)) plr_pair {
    S re, im;
    plr_pair() = default;
    // Only zero is ever converted ((T)0, a cleared sum): both parts take it.
    __device__ __forceinline__ plr_pair(S s) : re(s), im(s) {}
    __device__ __forceinline__ plr_pair(S r, S i) : re(r), im(i) {}
    __device__ __forceinline__ plr_pair& operator+=(plr_pair o) { re += o.re; im += o.im; return *this; }
};
typedef plr_pair T;
__device__ __forceinline__ T operator+(T a, T b) { return T(a.re + b.re, a.im + b.im); }
__device__ __forceinline__ T operator*(S c, T a) { return T(c * a.re, c * a.im); }
__device__ __forceinline__ T __shfl_up_sync(unsigned mask, T v, unsigned d, int w = 32) {
    return T(__shfl_up_sync(mask, v.re, d, w), __shfl_up_sync(mask, v.im, d, w));
}
__device__ __forceinline__ T __shfl_xor_sync(unsigned mask, T v, int d, int w = 32) {
    return T(__shfl_xor_sync(mask, v.re, d, w), __shfl_xor_sync(mask, v.im, d, w));
}
__device__ __forceinline__ T __shfl_sync(unsigned mask, T v, int src, int w = 32) {
    return T(__shfl_sync(mask, v.re, src, w), __shfl_sync(mask, v.im, src, w));
}
__device__ __forceinline__ T __ldcg(const T* p) { return T(__ldcg(&p->re), __ldcg(&p->im)); }
__device__ __forceinline__ void __stcg(T* p, T v) { __stcg(&p->re, v.re); __stcg(&p->im, v.im); }
#else
typedef S T;
#endif

#include "sigpu_reduce.cuh"
#include "sigpu_warp_io.cuh"
#if PLR_LOOK_BACK
#include "sigpu_lookback.cuh"
#endif

#if defined(PLR_COMPENSATED) && PLR_COMPENSATED
// s + c += coef * x with no rounding lost: the product split by FMA, the sum by TwoSum (Ogita,
// Rump and Oishi's Dot2), the two errors gathered in c. The _rn intrinsics are never contracted
// into FMAs, which would break both splits.
__device__ __forceinline__ void dot2_add(double& s, double& c, double coef, double x) {
    const double p = __dmul_rn(coef, x);
    const double pe = fma(coef, x, -p);
    const double z = __dadd_rn(s, p);
    const double bb = __dsub_rn(z, s);
    const double se = __dadd_rn(__dsub_rn(s, __dsub_rn(z, bb)), __dsub_rn(p, bb));
    s = z;
    c = __dadd_rn(c, __dadd_rn(pe, se));
}
#if PLR_PAIRS
__device__ __forceinline__ void dot2_add(T& s, T& c, double coef, T x) {
    dot2_add(s.re, c.re, coef, x.re);
    dot2_add(s.im, c.im, coef, x.im);
}
__device__ __forceinline__ T __dadd_rn(T a, T b) { return T(__dadd_rn(a.re, b.re), __dadd_rn(a.im, b.im)); }
#endif
#endif

// f_j at chunk position q >= -K: the weight of carry j (the value j+1 places before the
// chunk) in element q; 1 where the carry itself stands, 0 past the truncated table.
__device__ __forceinline__ S factor(const S* __restrict__ consts, int j, int q) {
    return q < FAC_LEN ? consts[j * FAC_STRIDE + K + q] : (S)0;
}

// The position of logical sample i in its channel of n samples.
__device__ __forceinline__ long long plr_at(long long n, long long i) {
    return PLR_REVERSED ? n - 1 - i : i;
}

// Whether the channel's segments may move by 16-byte vectors: a thread's V values (a multiple
// of 16 bytes) start on a 16-byte boundary in x and in y (backwards: where the channel ends).
__device__ __forceinline__ bool plr_vec_ok(const T* xc, const T* yc, long long n) {
    const unsigned long long ax = (unsigned long long)(PLR_REVERSED ? xc + n : xc);
    const unsigned long long ay = (unsigned long long)(PLR_REVERSED ? yc + n : yc);
    return ((ax | ay) & 15ull) == 0;
}

// V consecutive values from seg on; zero past n. 16-byte loads where aligned and whole.
__device__ __forceinline__ void load_segment(const T* __restrict__ src, long long n, long long seg, bool vec_ok, T* v) {
#if PLR_REVERSED
    sigpu_thread_load_reversed<T, V>(src, n, seg, vec_ok, v);
#else
    sigpu_thread_load<T, V>(src, n, seg, vec_ok, v);
#endif
}

__device__ __forceinline__ void store_segment(T* __restrict__ dst, long long n, long long seg, bool vec_ok, const T* v) {
#if PLR_REVERSED
    sigpu_thread_store_reversed<T, V>(dst, n, seg, vec_ok, v);
#else
    sigpu_thread_store<T, V>(dst, n, seg, vec_ok, v);
#endif
}

#if PLR_LOOK_BACK
// Publishes K values of chunk g with a status; the flag is written after the values are
// visible device-wide. Flags carry the launch's epoch, so stale flags never match.
__device__ __forceinline__ void post(unsigned int* flags, T* values, long long g, const T* v,
                                     unsigned int status, unsigned int epoch) {
    #pragma unroll
    for (int r = 0; r < K; ++r) __stcg(&values[g * K + r], v[r]);
    sigpu_lookback_flag(flags, g, status, epoch);
}

#endif

#if PLR_LOOK_BACK_WARP
// Barrier `id` for `count` threads (a multiple of 32), so some warps can meet while others keep
// running. It follows lane-divergent code (lane 31 storing its warp's aggregate), and the
// compiler does not promise that a warp has reconverged there: the aligned form (`bar.sync`,
// which is `barrier.sync.aligned`) is undefined for a divergent warp, and may count a part of
// a warp as the whole warp and release the barrier before the other part's shared-memory
// writes. So the warp reconverges first (__syncwarp) and the barrier is the non-aligned
// `barrier.sync`, which waits for every non-exited thread of each warp.
__device__ __forceinline__ void named_barrier(int id, int count) {
    __syncwarp();
    asm volatile("barrier.sync %0, %1;" ::"r"(id), "r"(count) : "memory");
}

// Arrives at barrier `id` (counting `count` threads) without waiting: the look-back warp
// counts itself in at the data warps' merge barrier at the block's start, so that barrier holds
// every thread of the block (tools then see one complete barrier, never a partial one) while
// the look-back warp goes on polling.
__device__ __forceinline__ void named_arrive(int id, int count) {
    __syncwarp();
    asm volatile("barrier.arrive %0, %1;" ::"r"(id), "r"(count) : "memory");
}
#endif

#if PLR_TRANSPOSE
// A warp's 32*V values from wseg on, read with coalesced 16-byte loads (lane l takes vectors
// 32q + l), handed to their threads (V consecutive values each) through shared memory.
__device__ __forceinline__ void load_warp(const T* __restrict__ src, long long n, long long seg, long long wseg,
                                          bool vec_ok, uint4* tile, int lane, T* v) {
#if PLR_REVERSED
    sigpu_warp_load_reversed<T, V, SIGPU_CACHE_DEFAULT>(src, n, seg, wseg, vec_ok, tile, lane, v);
#else
    sigpu_warp_load<T, V, SIGPU_CACHE_DEFAULT>(src, n, seg, wseg, vec_ok, tile, lane, v);
#endif
}

__device__ __forceinline__ void store_warp(T* __restrict__ dst, long long n, long long seg, long long wseg,
                                           bool vec_ok, uint4* tile, int lane, const T* v) {
#if PLR_REVERSED
    sigpu_warp_store_reversed<T, V, SIGPU_CACHE_DEFAULT, false>(dst, n, seg, wseg, vec_ok, tile, lane, v);
#else
    sigpu_warp_store<T, V, SIGPU_CACHE_DEFAULT, false>(dst, n, seg, wseg, vec_ok, tile, lane, v);
#endif
}
#endif

// out[r] += sum_j f_j[m-1-r] * c[j]: what the K carries before a segment of m elements
// add to its last K values.
__device__ __forceinline__ void add_transfer(const S* __restrict__ consts, long long m, const T* c, T* out) {
#if PLR_ONES
    out[0] += c[0];  // prefix sum: every factor is 1
#else
    if (m - K >= FAC_LEN) return;  // truncated: no effect
    #pragma unroll
    for (int r = 0; r < K; ++r) {
        #pragma unroll
        for (int j = 0; j < K; ++j) out[r] += factor(consts, j, (int)(m - 1 - r)) * c[j];
    }
#endif
}

#if PLR_LOOK_BACK
// Decoupled look-back by one warp: lane l inspects chunk g-1-l. Once every lane's chunk has
// posted, the nearest full carry and the partial aggregates after it are folded:
// carry = sum_l T_C^l * value(g-1-l), T_C being the chunk transfer matrix. Chunks before the
// channel's first count as full with zero carry. No full carry in the window: step 32 back.
__device__ __forceinline__ void look_back(const unsigned int* flags, const T* aggs, const T* incls,
                          const S* __restrict__ consts, long long g, long long first,
                          unsigned int epoch, int lane, T* carry) {
    #pragma unroll
    for (int r = 0; r < K; ++r) carry[r] = (T)0;
#if !PLR_ONES
    S scale[K * K];  // T_C^(32 w) for window w
    #pragma unroll
    for (int i = 0; i < K * K; ++i) scale[i] = (i / K == i % K) ? (S)1 : (S)0;
#endif
    long long base = g - 1;
    while (true) {
        const long long idx = base - lane;
        const bool inside = idx >= first;
        const int stop = sigpu_lookback_wait(flags, idx, inside, epoch);
        T val[K];
        #pragma unroll
        for (int r = 0; r < K; ++r) val[r] = (T)0;
        if (inside && lane <= stop) {
            const T* src = lane == stop ? incls : aggs;
            #pragma unroll
            for (int r = 0; r < K; ++r) val[r] = __ldcg(&src[idx * K + r]);
        }
#if PLR_ONES
        T part[K] = {val[0]};  // T_C^l = 1 for a prefix sum
#else
        T part[K];  // T_C^lane * val
        const S* pw = consts + TPOW_OFFSET + lane * K * K;
        #pragma unroll
        for (int r = 0; r < K; ++r) {
            part[r] = (T)0;
            #pragma unroll
            for (int j = 0; j < K; ++j) part[r] += pw[r * K + j] * val[j];
        }
#endif
        sigpu_warp_sum<K>(part);
#if PLR_ONES
        carry[0] += part[0];
        if (stop < 32) break;
#else
        #pragma unroll
        for (int r = 0; r < K; ++r) {
            #pragma unroll
            for (int j = 0; j < K; ++j) carry[r] += scale[r * K + j] * part[j];
        }
        if (stop < 32) break;
        const S* p32 = consts + TPOW_OFFSET + 32 * K * K;
        S next[K * K];
        #pragma unroll
        for (int r = 0; r < K; ++r) {
            #pragma unroll
            for (int c = 0; c < K; ++c) {
                S acc = (S)0;
                #pragma unroll
                for (int i = 0; i < K; ++i) acc += scale[r * K + i] * p32[i * K + c];
                next[r * K + c] = acc;
            }
        }
        #pragma unroll
        for (int i = 0; i < K * K; ++i) scale[i] = next[i];
#endif
        base -= 32;
    }
}
#endif
