// sigpu_reduce.cuh: warp-level reductions on shuffles, the first layer of sigpu's shared CUDA
// primitives (warp -> block -> kernel, CUB's layering). Header only; every kernel that needs a
// warp-wide total takes it from here.
#ifndef SIGPU_REDUCE_CUH
#define SIGPU_REDUCE_CUH

// Every lane of a full warp takes part.
#define FULL_MASK 0xffffffffu

// Sums COUNT values across the warp in place, every lane ending with the totals: a butterfly of
// xor shuffles, 16 lanes apart first, the COUNT sums interleaved step by step (the additions
// are in the same order on every lane, so the totals agree bit for bit).
template <int COUNT, typename Elem>
__device__ __forceinline__ void sigpu_warp_sum(Elem* x) {
    #pragma unroll
    for (int off = 16; off > 0; off >>= 1) {
        #pragma unroll
        for (int r = 0; r < COUNT; ++r) x[r] += __shfl_xor_sync(FULL_MASK, x[r], off);
    }
}

#endif  // SIGPU_REDUCE_CUH
