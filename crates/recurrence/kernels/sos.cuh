// sos.cuh: the fused second-order-section cascade (scipy.signal.sosfilt), one pass over memory.
//
// The generated prelude defines, before including this header: the element type T, the
// arithmetic's type W (double: see "Precision" below); S (sections),
// V (values per thread), THREADS, WARPS, CHUNK = THREADS * V, Q (16-byte vectors per thread),
// LOG_WARPS; and the __constant__ tables (SOS_TABLE: `const`, so literals, where SOS_LITERALS),
// all computed exactly on the host and rounded once:
//   SosCoef<s>::b0, b1, b2, na1, na2   section s's b0 b1 b2 and -a1 -a2 (T's values) in W, as
//                                      constexpr literals (so 0, 1 and 2 cost what they should);
//   SOS_A[S][2]                  a1 a2 of each section, in W (for zf);
//   SOS_F[S][2][V]               (A^i)[0][j]: output i of a thread from a unit state j at its start;
//   SOS_FMAX[S][2]               max_i |SOS_F[s][j][i]|;
//   SOS_WM[S][5][4]              A^(2^k V), the warp's doubling merges (row-major 2x2; zero
//                                where every entry is below eps^2 of W);
//   SOS_BM[S][LOG_WARPS + 1][4]  A^(2^k 32 V), the block's merges over warps;
//   SOS_WP[S][WARPS][4]          A^(w 32 V) in double: the chunk's carry-in into warp w;
//   SOS_WPW[S][WARPS][4]         the same in W (the tail-carry kernel's);
//   SOS_W32[S][4]                A^(32 V) in double;
// and the switch SOS_TAIL (0 or 1) with BLOCK_THREADS = THREADS + 32 * SOS_TAIL, and CPB: the
// consecutive chunks one block filters (1 without SOS_TAIL); after its first, a chunk's carry-ins
// are the previous chunk's end states, so the tail warp works once per CPB chunks.
// and passes two tables in global memory: lane_pow[S][32][4] = A^(l V) in W (lane-indexed), and
// chunk_pow[S][33][4] = A^(l CHUNK) in double (the look-back's powers of the chunk transfer).
//
// A is a section's state transition in transposed direct form II, the state (d0, d1) being
// scipy's zi for the section: y = b0 u + d0, d0' = b1 u - a1 y + d1, d1' = b2 u - a2 y; with no
// input, (d0, d1)' = [[-a1, 1], [-a2, 0]] (d0, d1) and y = d0.
//
// One block filters one chunk through every section in turn. Per section: each thread runs the
// section from zero state over its V values; threads merge their end states (warp shuffles, then
// warps through shared memory); warp 0 posts the chunk's end state from zero (partial), resolves
// the chunk's true carry-in by the decoupled look-back over the same section of earlier chunks,
// and posts the chunk's true end state (full) in double; every thread adds its carry-in's
// response to its values, which are then the next section's input. Chunk g's section s waits only
// on chunk g-1's section s partial, which follows its section s-1: a staircase of depth S, never a
// chain along the signal. Carries between chunks travel and combine in double (f32 blocks, f64
// carries): errors do not accumulate along the look-back chain.
//
// SOS_TAIL (chosen on the host where the whole cascade's zero-input response over 32 V samples is
// below a thousandth of the element type's rounding): the block has one more warp, which runs the
// cascade from zero state over the previous chunk's last 32 V inputs; its end states are this
// chunk's carry-ins, so there is no look-back and blocks never wait on one another (the scheme of
// the (b, a) kernel's tail carry, for all sections at once). One barrier per section.
//
// Precision. Where the input's energy lies in a section's stopband, a thread's zero-state
// output and the carry-in's correction are each far larger than the true output and cancel in
// the sum; their rounding errors do not. So the arithmetic is in W = double whatever T is (the
// CPU engine does the same), and each block reports, per channel, the largest zero-state value,
// the largest correction term (sum_j |state_j| max_i |F_j(i)|, for every thread's carry-in and
// zero-state end state) and the largest output into
// peaks[channel][0..3] (as the bits of non-negative doubles, which order as integers), and the
// sums over the channel of each thread's largest carry-in correction term of any section (times
// V: per value) and of |output|
// into peaks[channel][3..5] (doubles, added atomically): a large output where the channel
// starts from its zero state masks the peaks, not the averages. The host compares them and
// filters again a channel whose cancellation the arithmetic cannot carry.

// Loads, stores, warp sums and the look-back protocol (FULL_MASK, STATUS_PARTIAL, STATUS_FULL,
// the flags and the chunk order) are the runtime's shared primitives. SOS_HEADER carries them in
// front of this file, so the includes below are skipped there; attached as headers they resolve.
#ifndef SIGPU_REDUCE_CUH
#include "sigpu_reduce.cuh"
#endif
#ifndef SIGPU_WARP_IO_CUH
#include "sigpu_warp_io.cuh"
#endif
#ifndef SIGPU_LOOKBACK_CUH
#include "sigpu_lookback.cuh"
#endif

typedef double C;  // carry type

// SOS_REVERSED 1 (a compile option): every channel is stored backwards in time (logical sample
// i at position n - 1 - i) and filtered so, in place: the adjoint of the cascade. Only the
// loads and stores (and where they may be 16-byte vectors) differ.
#ifndef SOS_REVERSED
#define SOS_REVERSED 0
#endif

// A warp's 32*V values from wseg on, read with coalesced streaming 16-byte loads and handed to
// their threads (V consecutive values each) through shared memory; zero past n.
__device__ __forceinline__ void sos_load(const T* src, long long n, long long seg, long long wseg,
                                         bool vec_ok, uint4* tile, int lane, W* v) {
    __align__(16) T raw[V];
#if SOS_REVERSED
    sigpu_warp_load_reversed<T, V, SIGPU_CACHE_STREAMING>(src, n, seg, wseg, vec_ok, tile, lane, raw);
#else
    sigpu_warp_load<T, V, SIGPU_CACHE_STREAMING>(src, n, seg, wseg, vec_ok, tile, lane, raw);
#endif
    #pragma unroll
    for (int i = 0; i < V; ++i) v[i] = (W)raw[i];
}

// The way back, streaming; the tile is free for the block's next chunk afterwards.
__device__ __forceinline__ void sos_store(T* dst, long long n, long long seg, long long wseg,
                                          bool vec_ok, uint4* tile, int lane, const W* v) {
    __align__(16) T raw[V];
    #pragma unroll
    for (int i = 0; i < V; ++i) raw[i] = (T)v[i];
#if SOS_REVERSED
    sigpu_warp_store_reversed<T, V, SIGPU_CACHE_STREAMING, true>(dst, n, seg, wseg, vec_ok, tile, lane, raw);
#else
    sigpu_warp_store<T, V, SIGPU_CACHE_STREAMING, true>(dst, n, seg, wseg, vec_ok, tile, lane, raw);
#endif
}

// The warp's largest of p into *into (a non-negative double's bits): read first, so that once
// the channel's peak is known almost no warp issues the atomic.
__device__ __forceinline__ void sos_post_peak(unsigned long long* into, W p) {
#if SOS_LITERALS && __CUDA_ARCH__ >= 800
    // f32: a non-negative float's bits order as the value, so one warp reduction instruction
    // (sm_80 on) takes the largest (peaks are never NaN: fmax drops a NaN operand)
    p = __uint_as_float(__reduce_max_sync(FULL_MASK, __float_as_uint(p)));
#else
    #pragma unroll
    for (int d = 16; d > 0; d >>= 1) p = fmax(p, __shfl_xor_sync(FULL_MASK, p, d));
#endif
    const unsigned long long bits = (unsigned long long)__double_as_longlong((double)p);
    if ((threadIdx.x & 31) == 0 && bits > __ldcg(into)) atomicMax(into, bits);
}

// The block's sums of (a, b) added to into[0], into[1] (doubles' bits; peaks[channel][3..5]):
// one atomic per block and sum, not per warp, since every block of a channel adds to the same
// two addresses. Every thread of the block calls it (one barrier).
__device__ __forceinline__ void sos_post_sums(unsigned long long* into, C a, C b, C (*s_sums)[2]) {
    #pragma unroll
    for (int d = 16; d > 0; d >>= 1) {
        a += __shfl_xor_sync(FULL_MASK, a, d);
        b += __shfl_xor_sync(FULL_MASK, b, d);
    }
    if ((threadIdx.x & 31) == 0) { s_sums[threadIdx.x >> 5][0] = a; s_sums[threadIdx.x >> 5][1] = b; }
    __syncthreads();
    if (threadIdx.x == 0) {
        C ta = 0.0, tb = 0.0;
        for (int w = 0; w < (int)(blockDim.x >> 5); ++w) { ta += s_sums[w][0]; tb += s_sums[w][1]; }
        if (ta > 0.0) atomicAdd(reinterpret_cast<double*>(into), ta);
        if (tb > 0.0) atomicAdd(reinterpret_cast<double*>(into + 1), tb);
    }
}

// Publishes a section's 2-value state of chunk slot gs with a status; the flag is written after
// the values are visible device-wide, and carries the launch's epoch so stale flags never match.
__device__ __forceinline__ void sos_post(unsigned int* flags, double2* values, long long gs, C v0, C v1,
                                         unsigned int status, unsigned int epoch) {
    __stcg(&values[gs], make_double2(v0, v1));
    sigpu_lookback_flag(flags, gs, status, epoch);
}

// Decoupled look-back by warp 0 for section s of chunk g: lane l inspects chunk g-1-l. Once
// every lane's chunk has posted, the nearest full state and the partial ones after it are folded:
// carry = sum_l A_C^l value(g-1-l). No full state in the window: step 32 chunks back.
__device__ __forceinline__ void sos_look_back(const unsigned int* flags, const double2* aggs,
        const double2* incls, const C* __restrict__ chunk_pow, int s, long long g, long long first,
        unsigned int epoch, int lane, C& c0, C& c1) {
    c0 = 0.0; c1 = 0.0;
    C m00 = 1.0, m01 = 0.0, m10 = 0.0, m11 = 1.0;  // A_C^(32 w) for window w
    const C* pw = chunk_pow + ((long long)s * 33 + lane) * 4;
    const C p00 = pw[0], p01 = pw[1], p10 = pw[2], p11 = pw[3];
    const C* p32 = chunk_pow + ((long long)s * 33 + 32) * 4;
    long long base = g - 1;
    while (true) {
        const long long idx = base - lane;
        const bool inside = idx >= first;
        const int stop = sigpu_lookback_wait(flags, idx * S + s, inside, epoch);
        C v0 = 0.0, v1 = 0.0;
        if (inside && lane <= stop) {
            const double2 t = __ldcg(&((lane == stop ? incls : aggs)[idx * S + s]));
            v0 = t.x; v1 = t.y;
        }
        C q[2] = {p00 * v0 + p01 * v1, p10 * v0 + p11 * v1};
        sigpu_warp_sum<2>(q);
        c0 += m00 * q[0] + m01 * q[1];
        c1 += m10 * q[0] + m11 * q[1];
        if (stop < 32) break;
        const C n00 = m00 * p32[0] + m01 * p32[2], n01 = m00 * p32[1] + m01 * p32[3];
        const C n10 = m10 * p32[0] + m11 * p32[2], n11 = m10 * p32[1] + m11 * p32[3];
        m00 = n00; m01 = n01; m10 = n10; m11 = n11;
        base -= 32;
    }
}

// b * u + c and b * u for a coefficient b known at compile time: 0 and 1 cost nothing, and the
// rest is one fused multiply-add (the order written out, as the compiler keeps it).
#define SOS_MADD(b, u, c) ((b) == (W)0 ? (c) : (b) == (W)1 ? (u) + (c) : fma((b), (u), (c)))
#define SOS_MUL(b, u) ((b) == (W)0 ? (W)0 : (b) == (W)1 ? (u) : (b) * (u))

// With SOS_LITERALS (f32 arithmetic) the tables are `const` with their values in the prelude, so
// an entry read at an index known after unrolling is a literal: the multiply-adds below take it
// as an immediate operand, and the tests on it cost nothing. f64 tables stay in the constant
// bank (operands too), where such tests would cost instructions at run time.

// A thread's values plus a carry's response, v[i] += F0[i] c0 + F1[i] c1 (F a section's SOS_F):
// with literals, the first entries (1 and 0, the identity) cost what they should.
template <int s>
__device__ __forceinline__ void sos_correct(W* v, W c0, W c1) {
    #pragma unroll
    for (int i = 0; i < V; ++i) {
#if SOS_LITERALS
        v[i] = SOS_MADD(SOS_F[s][1][i], c1, SOS_MADD(SOS_F[s][0][i], c0, v[i]));
#else
        v[i] = fma(SOS_F[s][1][i], c1, fma(SOS_F[s][0][i], c0, v[i]));
#endif
    }
}

// One doubling step of a scan over lanes: a <- a + M (a of lane - d) where lane >= d, M a
// row-major 2x2 table entry. With literals, a merge that rounds to zero changes no finite state:
// the step is left out (its two shuffles and four multiply-adds), as the emulation leaves it out.
__device__ __forceinline__ void sos_merge_up(W& a0, W& a1, int d, int lane, const W* m) {
#if SOS_LITERALS
    if (m[0] == (W)0 && m[1] == (W)0 && m[2] == (W)0 && m[3] == (W)0) return;
#endif
    const W p0 = __shfl_up_sync(FULL_MASK, a0, d), p1 = __shfl_up_sync(FULL_MASK, a1, d);
#if SOS_LITERALS
    // selects: fewer instructions and registers than predicated updates in f32 (NVRTC 13, sm_90)
    const W n0 = fma(m[1], p1, fma(m[0], p0, a0));
    const W n1 = fma(m[3], p1, fma(m[2], p0, a1));
    a0 = lane >= d ? n0 : a0;
    a1 = lane >= d ? n1 : a1;
#else
    // predicated updates: a double select costs two instructions
    if (lane >= d) {
        a0 = fma(m[1], p1, fma(m[0], p0, a0));
        a1 = fma(m[3], p1, fma(m[2], p0, a1));
    }
#endif
}

// The f64 kernel's peaks in integer arithmetic: the largest high word of |y| (a compare and two
// selects on the FP64 pipe for each fmax otherwise). sos_hi_max takes the high word of |y| into
// a running maximum; sos_hi_above / sos_hi_below turn it back into a double at or above / at or
// below every |y| it took (0 for none), as the emulation does.
__device__ __forceinline__ unsigned int sos_hi_max(unsigned int m, double y) {
    return max(m, (unsigned int)__double2hiint(y) & 0x7fffffffu);
}
__device__ __forceinline__ double sos_hi_above(unsigned int m) {
    return m ? __hiloint2double((int)m, (int)0xffffffffu) : 0.0;
}
__device__ __forceinline__ double sos_hi_below(unsigned int m) {
    return __hiloint2double((int)m, 0);
}

// Section s from zero state over a thread's V values, in place; (d0, d1) is the end state. With
// CAPTURE, (z0, z1) is the state after value `at` (the channel's last sample): for zf. `peak`
// takes the largest zero-state output (without PEAK, none).
template <int s, bool CAPTURE, bool PEAK = true>
__device__ __forceinline__ void sos_local(W* v, W& d0, W& d1, int at, W& z0, W& z1, W& peak) {
#if !SOS_LITERALS
    unsigned int peak_hi = (unsigned int)__double2hiint(peak);  // peak: 0 or sos_hi_above's
#endif
    constexpr W b0 = SosCoef<s>::b0, b1 = SosCoef<s>::b1, b2 = SosCoef<s>::b2;
    constexpr W na1 = SosCoef<s>::na1, na2 = SosCoef<s>::na2;  // -a1, -a2
    d0 = (W)0; d1 = (W)0;
    #pragma unroll
    for (int i = 0; i < V; ++i) {
        const W u = v[i];
        const W yv = SOS_MADD(b0, u, d0);
        d0 = SOS_MADD(na1, yv, SOS_MADD(b1, u, d1));
        d1 = SOS_MADD(na2, yv, SOS_MUL(b2, u));
        v[i] = yv;
#if SOS_LITERALS
        if (PEAK) peak = fmax(peak, fabs(yv));
#else
        if (PEAK) peak_hi = sos_hi_max(peak_hi, yv);
#endif
        if (CAPTURE && i == at) { z0 = d0; z1 = d1; }
    }
#if !SOS_LITERALS
    if (PEAK) peak = sos_hi_above(peak_hi);
#endif
}

template <int s>
__device__ __forceinline__ void sos_section(W* v, const W* __restrict__ lane_pow,
        const C* __restrict__ chunk_pow, const T* zi, int has_zi, T* zf, bool capture, int at,
        long long g, long long ch, long long ci, unsigned int* flags, double2* aggs, double2* incls,
        unsigned int epoch, int lane, int warp, W (*s_warp)[WARPS + 1][2], C (*s_carry)[2],
        bool first, int nb, W (*s_next)[S][2], W& local_peak, W& correction_peak,
        W& chunk_term) {
    constexpr int P = s & 1;  // shared buffers alternate between sections: one barrier each
#if SOS_TAIL
    // After a block's first chunk the carry-ins come from its previous chunk: the tail warp
    // has nothing to compute, but still meets the section's one barrier, at the same
    // __syncthreads as every other warp (a barrier reached at two different instructions is
    // undefined behaviour).
    const bool idle = warp == WARPS && !first;
#else
    const bool idle = false;
#endif
    W a0 = (W)0, a1 = (W)0, z0 = (W)0, z1 = (W)0, e0 = (W)0, e1 = (W)0;
    if (!idle) {
        if (capture) sos_local<s, true>(v, a0, a1, at, z0, z1, local_peak);
#if SOS_TAIL
        // the tail warp's values are the previous chunk's, whose peaks that chunk counts
        else if (warp == WARPS) sos_local<s, false, false>(v, a0, a1, at, z0, z1, local_peak);
#endif
        else sos_local<s, false>(v, a0, a1, at, z0, z1, local_peak);
        // the thread's end state is a term of every later carry-in (as the emulation counts it)
        correction_peak = fmax(correction_peak, fabs(a0) * SOS_FMAX[s][0] + fabs(a1) * SOS_FMAX[s][1]);
        // warp: inclusive scan of the threads' end states, a <- a + A^(dV) (a of lane - d)
        #pragma unroll
        for (int k = 0; k < 5; ++k) sos_merge_up(a0, a1, 1 << k, lane, SOS_WM[s][k]);
        e0 = __shfl_up_sync(FULL_MASK, a0, 1);
        e1 = __shfl_up_sync(FULL_MASK, a1, 1);
        if (lane == 0) { e0 = (W)0; e1 = (W)0; }
        if (lane == 31) {
#if SOS_TAIL
            // A channel's first chunk starts from zi (or zero): the tail warp, which had no
            // values to run, posts it as its end state, so that the others need no test of their own.
            if (warp == WARPS && ci == 0) {
                a0 = has_zi ? (W)zi[(ch * S + s) * 2] : (W)0;
                a1 = has_zi ? (W)zi[(ch * S + s) * 2 + 1] : (W)0;
            }
#endif
            s_warp[P][warp][0] = a0; s_warp[P][warp][1] = a1;
        }
    }
    // Every thread of the block, once per section: the warps' end states are in s_warp.
    __syncthreads();
#if SOS_TAIL
    if (idle) return;
    // The tail warp's segment (the previous chunk's last 32 V values, from zero state) only
    // needs its own lanes' carries; its end state is this chunk's carry-in.
    if (warp == WARPS) {
        if (s + 1 < S) sos_correct<s>(v, e0, e1);  // the last section's outputs are not needed
        return;
    }
    // The chunk's carry-in: the tail warp's end state (a block's first chunk; zi or zero for a
    // channel's first), or the end state of the block's previous chunk.
    const W cin0 = first ? s_warp[P][WARPS][0] : s_next[nb][s][0];
    const W cin1 = first ? s_warp[P][WARPS][1] : s_next[nb][s][1];
    // Every warp scans the warps' end states itself (a lane per warp, doubling merges), so one
    // barrier per section suffices; the carry into warp w is the prefix before it plus the
    // chunk's carry-in through w 32 V values.
    W w0 = lane < WARPS ? s_warp[P][lane][0] : (W)0, w1 = lane < WARPS ? s_warp[P][lane][1] : (W)0;
    #pragma unroll
    for (int k = 0; k < LOG_WARPS; ++k) sos_merge_up(w0, w1, 1 << k, lane, SOS_BM[s][k]);
    const int before = warp > 0 ? warp - 1 : 0;
    W t0 = __shfl_sync(FULL_MASK, w0, before), t1 = __shfl_sync(FULL_MASK, w1, before);
    if (warp == 0) { t0 = (W)0; t1 = (W)0; }
    t0 = fma(SOS_WPW[s][warp][1], cin1, fma(SOS_WPW[s][warp][0], cin0, t0));
    t1 = fma(SOS_WPW[s][warp][3], cin1, fma(SOS_WPW[s][warp][2], cin0, t1));
    if (CPB > 1 && warp == WARPS - 1 && lane == 31) {
        // the chunk's true end state, the block's next chunk's carry-in: a + A^(32 V) t
        s_next[nb ^ 1][s][0] = a0 + (W)SOS_W32[s][0] * t0 + (W)SOS_W32[s][1] * t1;
        s_next[nb ^ 1][s][1] = a1 + (W)SOS_W32[s][2] * t0 + (W)SOS_W32[s][3] * t1;
    }
#else
    if (warp == 0) {
        // block: inclusive scan over the warps' end states, a lane per warp
        W w0 = lane < WARPS ? s_warp[P][lane][0] : (W)0, w1 = lane < WARPS ? s_warp[P][lane][1] : (W)0;
        #pragma unroll
        for (int k = 0; k < LOG_WARPS; ++k) sos_merge_up(w0, w1, 1 << k, lane, SOS_BM[s][k]);
        if (lane < WARPS) { s_warp[P][lane][0] = w0; s_warp[P][lane][1] = w1; }
        const C g0 = (C)__shfl_sync(FULL_MASK, w0, WARPS - 1), g1 = (C)__shfl_sync(FULL_MASK, w1, WARPS - 1);
        C c0 = 0.0, c1 = 0.0;
        const long long gs = g * S + s;
        if (ci == 0) {
            if (has_zi) { c0 = (C)zi[(ch * S + s) * 2]; c1 = (C)zi[(ch * S + s) * 2 + 1]; }
        } else {
            if (lane == 0) sos_post(flags, aggs, gs, g0, g1, STATUS_PARTIAL, epoch);
            sos_look_back(flags, aggs, incls, chunk_pow, s, g, g - ci, epoch, lane, c0, c1);
        }
        if (lane == 0) {
            const C* pc = chunk_pow + ((long long)s * 33 + 1) * 4;  // A^CHUNK
            sos_post(flags, incls, gs, g0 + pc[0] * c0 + pc[1] * c1, g1 + pc[2] * c0 + pc[3] * c1,
                     STATUS_FULL, epoch);
            s_carry[P][0] = c0; s_carry[P][1] = c1;
        }
    }
    __syncthreads();
    // the carry into this warp: the warps before it, and the chunk's carry-in through them
    const C cin0 = s_carry[P][0], cin1 = s_carry[P][1];
    C t0 = SOS_WP[s][warp][0] * cin0 + SOS_WP[s][warp][1] * cin1;
    C t1 = SOS_WP[s][warp][2] * cin0 + SOS_WP[s][warp][3] * cin1;
    if (warp > 0) { t0 += (C)s_warp[P][warp - 1][0]; t1 += (C)s_warp[P][warp - 1][1]; }
#endif
    // the carry into this thread
    // A^(lane V), one 16-byte load per 4 bytes of W (the entries are 16-byte aligned)
    W lp[4];
    #pragma unroll
    for (int q = 0; q < (int)sizeof(W) / 4; ++q)
        reinterpret_cast<uint4*>(lp)[q] =
            __ldg(reinterpret_cast<const uint4*>(lane_pow + ((long long)s * 32 + lane) * 4) + q);
    const W tw0 = (W)t0, tw1 = (W)t1;
    const W c0 = e0 + lp[0] * tw0 + lp[1] * tw1;
    const W c1 = e1 + lp[2] * tw0 + lp[3] * tw1;
    const W term = fabs(c0) * SOS_FMAX[s][0] + fabs(c1) * SOS_FMAX[s][1];
    correction_peak = fmax(correction_peak, term);
    chunk_term = fmax(chunk_term, term);
    sos_correct<s>(v, c0, c1);
    if (capture && at >= 0) {  // at < V: set so by the kernel
        // the state after the channel's last sample: the local one plus A^(at+1) c
        C q0 = (C)c0, q1 = (C)c1;
        for (int i = 0; i <= at; ++i) {
            const C y = q0;
            q0 = -(C)SOS_A[s][0] * y + q1;
            q1 = -(C)SOS_A[s][1] * y;
        }
        zf[(ch * S + s) * 2] = (T)((C)z0 + q0);
        zf[(ch * S + s) * 2 + 1] = (T)((C)z1 + q1);
    }
}

// sos_filter(x, y, n, chunks_per_channel, zi, has_zi, zf, has_zf, lane_pow, chunk_pow, flags,
// aggs, incls, counters, epoch, peaks): x and y hold channels x n values (y may be x), zi and zf
// channels x S x 2 (read / written only when has_zi / has_zf), the look-back buffers at least
// chunks x S entries, peaks channels x 5 (zeroed before the launch).
#if MIN_BLOCKS > 0
#define SOS_BOUNDS __launch_bounds__(BLOCK_THREADS, MIN_BLOCKS)
#else
#define SOS_BOUNDS __launch_bounds__(BLOCK_THREADS)
#endif
extern "C" __global__ void SOS_BOUNDS sos_filter(
    const T* x, T* y, long long n, long long chunks_per_channel,
    const T* zi, int has_zi, T* zf, int has_zf,
    const W* __restrict__ lane_pow, const C* __restrict__ chunk_pow,
    unsigned int* flags, double2* aggs, double2* incls, unsigned int* counters, unsigned int epoch,
    unsigned long long* peaks)
{
    __shared__ long long s_chunk;
    __shared__ W s_warp[2][WARPS + 1][2];  // warp end states (slot WARPS: the tail warp's)
    __shared__ C s_carry[2][2];        // the chunk's carry-in
    __shared__ uint4 s_tile[WARPS + SOS_TAIL][32 * Q];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    __shared__ W s_next[2][S][2];      // a chunk's end states: the block's next chunk's carry-ins
#if SOS_TAIL
    // Block b filters CPB consecutive chunks of one channel; blocks never wait on one another.
    const long long g = blockIdx.x;
    const long long blocks_per_channel = (chunks_per_channel + CPB - 1) / CPB;
    const long long ch = g / blocks_per_channel;
    const long long ci0 = (g - ch * blocks_per_channel) * CPB;
#else
    // Chunks in start order, so a chunk only ever waits on chunks already running.
    const long long g = sigpu_chunk_in_start_order(counters, epoch, &s_chunk);
    const long long ch = g / chunks_per_channel;
    const long long ci0 = g - ch * chunks_per_channel;
#endif
    const T* xc = x + ch * n;
    T* yc = y + ch * n;
    // The tail warp (SOS_TAIL) takes the previous chunk's last 32 V values.
    const bool tail = SOS_TAIL && warp == WARPS;
    // 16-byte accesses where both channel starts (backwards: ends) are 16-byte aligned (raw
    // pointers may not be)
    const long long edge = SOS_REVERSED ? n : 0;
    const bool vec_ok = (((unsigned long long)(xc + edge) | (unsigned long long)(yc + edge)) & 15ull) == 0;
    W local_peak = 0.0, correction_peak = 0.0, out_peak = 0.0;
    C correction_sum = 0.0, out_sum = 0.0;
    for (int c = 0; c < CPB; ++c) {
    const long long ci = ci0 + c;
    if (ci >= chunks_per_channel) break;
    const bool first = c == 0;
    const int nb = c & 1;
    const long long wseg = ci * CHUNK + (tail ? -32LL * V : (long long)warp * 32 * V);
    const long long seg = wseg + (long long)lane * V;
    W v[V];
    if (!tail || (ci > 0 && first)) {
        sos_load(xc, n, seg, wseg, vec_ok, s_tile[warp], lane, v);
    } else {
        #pragma unroll
        for (int i = 0; i < V; ++i) v[i] = (W)0;
    }
    // Only the warp holding the channel's last sample captures states for zf.
    const long long at_ll = n - 1 - seg;
    int at = (at_ll >= 0 && at_ll < V) ? (int)at_ll : -1;
    // kept in a register: recomputed from n and seg in every section, it cost a dozen instructions each
    asm volatile("" : "+r"(at));
    const bool holds_last = __any_sync(FULL_MASK, at >= 0);
    const bool capture = has_zf && ci == chunks_per_channel - 1 && holds_last;
#define SOS_SECTION(s) sos_section<s>(v, lane_pow, chunk_pow, zi, has_zi, zf, capture, at, g, ch, ci, \
        flags, aggs, incls, epoch, lane, warp, s_warp, s_carry, first, nb, s_next, local_peak, \
        correction_peak, chunk_term);
    W chunk_term = (W)0;  // the thread's largest carry-in term of any section, this chunk
    SOS_SECTIONS  // the prelude's SOS_SECTION(0) ... SOS_SECTION(S - 1)
#undef SOS_SECTION
    correction_sum += (C)chunk_term * V;
    if (!tail) {
        W sum = (W)0;
#if SOS_LITERALS
        #pragma unroll
        for (int i = 0; i < V; ++i) {
            out_peak = fmax(out_peak, fabs(v[i]));
            sum += fabs(v[i]);
        }
#else
        // at or below the largest |y| (the ratios against it only grow)
        unsigned int out_hi = (unsigned int)__double2hiint(out_peak);
        #pragma unroll
        for (int i = 0; i < V; ++i) {
            out_hi = sos_hi_max(out_hi, v[i]);
            sum += fabs(v[i]);
        }
        out_peak = sos_hi_below(out_hi);
#endif
        out_sum += (C)sum;
        sos_store(yc, n, seg, wseg, vec_ok, s_tile[warp], lane, v);
    }
    }
    // The tail warp's values are the previous chunk's, counted there.
    if (!tail) {
        sos_post_peak(peaks + ch * 5, local_peak);
        sos_post_peak(peaks + ch * 5 + 1, correction_peak);
        sos_post_peak(peaks + ch * 5 + 2, out_peak);
    }
    __shared__ C s_sums[WARPS + 1][2];
    sos_post_sums(peaks + ch * 5 + 3, tail ? 0.0 : correction_sum, tail ? 0.0 : out_sum, s_sums);
}
