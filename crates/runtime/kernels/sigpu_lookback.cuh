// sigpu_lookback.cuh: the decoupled look-back protocol of a single-pass chained scan (Merrill
// and Garland), shared by every sigpu kernel that chains chunks: the chunk order, the flags, and
// the wait for a window of 32 predecessors. What a chunk posts (its aggregate from zero, then its
// inclusive value) and how a window is folded are the kernel's own.
//
// Protocol: chunk g's slot holds a flag word (epoch << 2) | status next to the posted values.
// A chunk stores its values with __stcg, makes them visible device-wide (__threadfence), then
// writes the flag with atomicExch (sigpu_lookback_flag). Flags carry the launch's epoch, so
// stale flags of an earlier launch never match and the flags need no clearing between launches.
// A reader polls the flag with a volatile load until it carries the epoch, then reads the values
// with __ldcg (L2, never a stale L1 line).
#ifndef SIGPU_LOOKBACK_CUH
#define SIGPU_LOOKBACK_CUH

#ifndef SIGPU_REDUCE_CUH
#include "sigpu_reduce.cuh"
#endif

#define STATUS_PARTIAL 1u  // the chunk's aggregate from zero carry-in
#define STATUS_FULL 2u     // the chunk's inclusive value (its true carry-out)

// The next chunk in start order, for every thread of the block (a counter per launch parity,
// reset for the next launch by the block that takes chunk 0), so a chunk only ever waits on
// chunks already running. s_chunk: a __shared__ slot of the kernel's, for the hand-over.
__device__ __forceinline__ long long sigpu_chunk_in_start_order(unsigned int* counters, unsigned int epoch,
                                                                long long* s_chunk) {
    if (threadIdx.x == 0) {
        const unsigned int g = atomicAdd(&counters[epoch & 1], 1u);
        if (g == 0) counters[(epoch + 1) & 1] = 0;  // the next launch's counter
        *s_chunk = g;
    }
    __syncthreads();
    return *s_chunk;
}

// Marks slot's values (stored by the caller with __stcg) as posted with `status`: the flag is
// written after the values are visible device-wide.
__device__ __forceinline__ void sigpu_lookback_flag(unsigned int* flags, long long slot, unsigned int status,
                                                    unsigned int epoch) {
    __threadfence();
    atomicExch(&flags[slot], (epoch << 2) | status);
}

// One window of the look-back, by a full warp: lane l waits on the flag of `slot` (its chunk;
// a lane with !inside, before the channel's first chunk, counts as full with zero carry) until
// every lane's chunk has posted in this launch. Returns the lowest lane whose chunk is full (the
// nearest full predecessor), or 32 when none is: then the window steps 32 chunks back.
__device__ __forceinline__ int sigpu_lookback_wait(const unsigned int* flags, long long slot, bool inside,
                                                   unsigned int epoch) {
    unsigned int f = (epoch << 2) | STATUS_FULL;
    do {
        if (inside) f = *((volatile const unsigned int*)&flags[slot]);
    } while (__any_sync(FULL_MASK, (f >> 2) != epoch));
    const unsigned int fulls = __ballot_sync(FULL_MASK, (f & 3u) == STATUS_FULL);
    return fulls ? __ffs(fulls) - 1 : 32;
}

#endif  // SIGPU_LOOKBACK_CUH
