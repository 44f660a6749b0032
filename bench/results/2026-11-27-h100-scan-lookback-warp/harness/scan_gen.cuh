// Prototype prefix-sum kernels (decoupled look-back), templated on type, shape and whether a
// dedicated look-back warp polls from block start.
#pragma once

#define FULLM 0xffffffffu
#define ST_PART 1u
#define ST_FULL 2u

__device__ __forceinline__ void bar_sync(int id, int count) {
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(count) : "memory");
}

template <typename T>
__device__ __forceinline__ void post1(unsigned* flags, T* vals, long long g, T v, unsigned st, unsigned epoch) {
    __stcg(&vals[g], v);
    __threadfence();
    atomicExch(&flags[g], (epoch << 2) | st);
}

template <typename T>
__device__ __forceinline__ T look_back1(const unsigned* flags, const T* aggs, const T* incls, long long g,
                                        unsigned epoch, int lane, int ns) {
    T carry = (T)0;
    long long base = g - 1;
    while (true) {
        const long long idx = base - lane;
        const bool inside = idx >= 0;
        unsigned f = (epoch << 2) | ST_FULL;
        while (true) {
            if (inside) f = *((volatile const unsigned*)&flags[idx]);
            if (!__any_sync(FULLM, (f >> 2) != epoch)) break;
            if (ns) __nanosleep(ns);
        }
        const unsigned fulls = __ballot_sync(FULLM, (f & 3u) == ST_FULL);
        const int stop = fulls ? __ffs(fulls) - 1 : 32;
        T val = (T)0;
        if (inside && lane <= stop) val = __ldcg(&(lane == stop ? incls : aggs)[idx]);
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) val += __shfl_xor_sync(FULLM, val, off);
        carry += val;
        if (stop < 32) break;
        base -= 32;
    }
    return carry;
}

__device__ __forceinline__ int slot_(int idx) { return idx ^ ((idx >> 3) & 7); }

template <typename T, int THREADS, int V, bool LBW>
__global__ void __launch_bounds__(THREADS + (LBW ? 32 : 0))
    scan_kernel(const T* __restrict__ x, T* __restrict__ y, long long n, unsigned* flags, T* aggs, T* incls,
                unsigned* counters, unsigned epoch, int ns) {
    constexpr int WARPS = THREADS / 32;
    constexpr int Q = V * (int)sizeof(T) / 16;
    constexpr long long CHUNK = (long long)THREADS * V;
    extern __shared__ uint4 s_tiles[];
    __shared__ long long s_chunk;
    __shared__ T s_warp[WARPS];
    __shared__ T s_carry, s_agg;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (threadIdx.x == 0) {
        const unsigned g = atomicAdd(&counters[epoch & 1], 1u);
        if (g == 0) counters[(epoch + 1) & 1] = 0;
        s_chunk = g;
    }
    __syncthreads();
    const long long g = s_chunk;
    if (LBW && warp == WARPS) {
        // The look-back warp: the carry from the chunks before, while the data warps load.
        T carry = (T)0;
        if (g > 0) carry = look_back1<T>(flags, aggs, incls, g, epoch, lane, ns);
        if (lane == 0) s_carry = carry;
        bar_sync(2, THREADS + 32);
        if (lane == 0 && g > 0) post1<T>(flags, incls, g, s_agg + carry, ST_FULL, epoch);
        return;
    }
    const long long wseg = g * CHUNK + (long long)warp * 32 * V;
    uint4* tile = s_tiles + warp * 32 * Q;
    __align__(16) T v[V];
    {
        const uint4* p = reinterpret_cast<const uint4*>(x + wseg);
        uint4 r[Q];
#pragma unroll
        for (int q = 0; q < Q; ++q) r[q] = p[32 * q + lane];
#pragma unroll
        for (int q = 0; q < Q; ++q) tile[slot_(32 * q + lane)] = r[q];
        __syncwarp();
#pragma unroll
        for (int q = 0; q < Q; ++q) reinterpret_cast<uint4*>(v)[q] = tile[slot_(Q * lane + q)];
        __syncwarp();
    }
#pragma unroll
    for (int i = 1; i < V; ++i) v[i] += v[i - 1];
    T a = v[V - 1];
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        const T o = __shfl_up_sync(FULLM, a, d);
        if (lane >= d) a += o;
    }
    T e = __shfl_up_sync(FULLM, a, 1);
    if (lane == 0) e = (T)0;
    if (lane == 31) s_warp[warp] = a;
    if (LBW) bar_sync(1, THREADS);
    else __syncthreads();
    if (warp == 0) {
        T wv = lane < WARPS ? s_warp[lane] : (T)0;
#pragma unroll
        for (int d = 1; d < WARPS; d <<= 1) {
            const T o = __shfl_up_sync(FULLM, wv, d);
            if (lane >= d) wv += o;
        }
        if (lane < WARPS) s_warp[lane] = wv;
        const T agg = __shfl_sync(FULLM, wv, WARPS - 1);
        if (lane == 0) post1<T>(flags, g == 0 ? incls : aggs, g, agg, g == 0 ? ST_FULL : ST_PART, epoch);
        if (LBW) {
            if (lane == 0) s_agg = agg;
        } else {
            T carry = (T)0;
            if (g > 0) {
                carry = look_back1<T>(flags, aggs, incls, g, epoch, lane, ns);
                if (lane == 0) post1<T>(flags, incls, g, agg + carry, ST_FULL, epoch);
            }
            if (lane == 0) s_carry = carry;
        }
    }
    if (LBW) bar_sync(2, THREADS + 32);
    else __syncthreads();
    const T tw = (warp > 0 ? s_warp[warp - 1] : (T)0) + s_carry;
    const T c = e + tw;
#pragma unroll
    for (int i = 0; i < V; ++i) v[i] += c;
#pragma unroll
    for (int q = 0; q < Q; ++q) tile[slot_(Q * lane + q)] = reinterpret_cast<const uint4*>(v)[q];
    __syncwarp();
    uint4* p = reinterpret_cast<uint4*>(y + wseg);
#pragma unroll
    for (int q = 0; q < Q; ++q) p[32 * q + lane] = tile[slot_(32 * q + lane)];
}
