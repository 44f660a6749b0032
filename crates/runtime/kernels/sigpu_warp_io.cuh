// sigpu_warp_io.cuh: moving a thread's COUNT consecutive values between global memory and
// registers (the blocked arrangement sigpu's scans work on), by 16-byte vectors. Two ways:
//   sigpu_thread_load / sigpu_thread_store: each thread moves its own values directly;
//   sigpu_warp_load / sigpu_warp_store: a warp moves its 32 * COUNT values with coalesced
//     16-byte accesses (lane l takes vectors 32 q + l: the striped arrangement) and hands them
//     to their threads through a staging tile in shared memory (32 * COUNT * sizeof(Elem) / 16
//     uint4 per warp), striped <-> blocked.
// Values past n read as zero and are not written. CACHE picks the accesses' cache policy:
// SIGPU_CACHE_DEFAULT, or SIGPU_CACHE_STREAMING (__ldcs / __stcs: data touched once).
// The _reversed variants move a channel stored backwards (logical value i at position n-1-i):
// the same accesses in memory order, the values reversed in registers (a renaming).
#ifndef SIGPU_WARP_IO_CUH
#define SIGPU_WARP_IO_CUH

#define SIGPU_CACHE_DEFAULT 0
#define SIGPU_CACHE_STREAMING 1

// Slot of 16-byte vector idx in a warp's staging tile, swizzled so that both the striped
// (32q + lane) and the blocked (Q*lane + q) patterns are free of bank conflicts.
__device__ __forceinline__ int sigpu_tile_slot(int idx) { return idx ^ ((idx >> 3) & 7); }

// COUNT consecutive values from seg on; zero past n. 16-byte loads where vec_ok and whole.
template <typename Elem, int COUNT>
__device__ __forceinline__ void sigpu_thread_load(const Elem* src, long long n, long long seg, bool vec_ok,
                                                  Elem* v) {
    if (vec_ok && seg + COUNT <= n) {
        const uint4* p = reinterpret_cast<const uint4*>(src + seg);
        #pragma unroll
        for (int q = 0; q < COUNT * (int)sizeof(Elem) / 16; ++q) reinterpret_cast<uint4*>(v)[q] = p[q];
    } else {
        #pragma unroll
        for (int i = 0; i < COUNT; ++i) v[i] = seg + i < n ? src[seg + i] : (Elem)0;
    }
}

template <typename Elem, int COUNT>
__device__ __forceinline__ void sigpu_thread_store(Elem* dst, long long n, long long seg, bool vec_ok,
                                                   const Elem* v) {
    if (vec_ok && seg + COUNT <= n) {
        uint4* p = reinterpret_cast<uint4*>(dst + seg);
        #pragma unroll
        for (int q = 0; q < COUNT * (int)sizeof(Elem) / 16; ++q) p[q] = reinterpret_cast<const uint4*>(v)[q];
    } else {
        #pragma unroll
        for (int i = 0; i < COUNT; ++i) if (seg + i < n) dst[seg + i] = v[i];
    }
}

// A warp's 32*COUNT values from wseg on, read with coalesced 16-byte loads (lane l takes
// vectors 32q + l), handed to their threads (COUNT consecutive values each, from seg on)
// through the staging tile; element by element where not vec_ok or not whole.
template <typename Elem, int COUNT, int CACHE>
__device__ __forceinline__ void sigpu_warp_load(const Elem* src, long long n, long long seg, long long wseg,
                                                bool vec_ok, uint4* tile, int lane, Elem* v) {
    constexpr int VECS = COUNT * (int)sizeof(Elem) / 16;
    if (vec_ok && wseg + 32 * COUNT <= n) {
        const uint4* p = reinterpret_cast<const uint4*>(src + wseg);
        uint4 r[VECS];
        #pragma unroll
        for (int q = 0; q < VECS; ++q) {
            if (CACHE == SIGPU_CACHE_STREAMING) r[q] = __ldcs(p + 32 * q + lane);
            else r[q] = p[32 * q + lane];
        }
        #pragma unroll
        for (int q = 0; q < VECS; ++q) tile[sigpu_tile_slot(32 * q + lane)] = r[q];
        __syncwarp();
        #pragma unroll
        for (int q = 0; q < VECS; ++q) reinterpret_cast<uint4*>(v)[q] = tile[sigpu_tile_slot(VECS * lane + q)];
        __syncwarp();
    } else {
        sigpu_thread_load<Elem, COUNT>(src, n, seg, false, v);
    }
}

// The way back. TILE_REUSED: the warp loads through the same tile again after this store
// (a block that filters several chunks), so the warp meets once more before it does.
template <typename Elem, int COUNT, int CACHE, bool TILE_REUSED>
__device__ __forceinline__ void sigpu_warp_store(Elem* dst, long long n, long long seg, long long wseg,
                                                 bool vec_ok, uint4* tile, int lane, const Elem* v) {
    constexpr int VECS = COUNT * (int)sizeof(Elem) / 16;
    if (vec_ok && wseg + 32 * COUNT <= n) {
        #pragma unroll
        for (int q = 0; q < VECS; ++q) tile[sigpu_tile_slot(VECS * lane + q)] = reinterpret_cast<const uint4*>(v)[q];
        __syncwarp();
        uint4* p = reinterpret_cast<uint4*>(dst + wseg);
        #pragma unroll
        for (int q = 0; q < VECS; ++q) {
            if (CACHE == SIGPU_CACHE_STREAMING) __stcs(p + 32 * q + lane, tile[sigpu_tile_slot(32 * q + lane)]);
            else p[32 * q + lane] = tile[sigpu_tile_slot(32 * q + lane)];
        }
        if (TILE_REUSED) __syncwarp();  // the tile is free for the next load
    } else {
        sigpu_thread_store<Elem, COUNT>(dst, n, seg, false, v);
    }
}

// COUNT values reversed in registers.
template <typename Elem, int COUNT>
__device__ __forceinline__ void sigpu_reverse(Elem* v) {
    #pragma unroll
    for (int i = 0; i < COUNT / 2; ++i) {
        const Elem t = v[i];
        v[i] = v[COUNT - 1 - i];
        v[COUNT - 1 - i] = t;
    }
}

// Logical values seg ... seg+COUNT-1 of a channel stored backwards: positions n-seg-COUNT ...
// n-1-seg. vec_ok: 16-byte aligned at position n (seg a multiple of COUNT, COUNT values a
// multiple of 16 bytes).
template <typename Elem, int COUNT>
__device__ __forceinline__ void sigpu_thread_load_reversed(const Elem* src, long long n, long long seg,
                                                           bool vec_ok, Elem* v) {
    const long long m = n - seg - COUNT;
    if (vec_ok && m >= 0) {
        sigpu_thread_load<Elem, COUNT>(src, n, m, true, v);
        sigpu_reverse<Elem, COUNT>(v);
    } else {
        #pragma unroll
        for (int i = 0; i < COUNT; ++i) v[i] = seg + i < n ? src[n - 1 - seg - i] : (Elem)0;
    }
}

template <typename Elem, int COUNT>
__device__ __forceinline__ void sigpu_thread_store_reversed(Elem* dst, long long n, long long seg,
                                                            bool vec_ok, const Elem* v) {
    const long long m = n - seg - COUNT;
    if (vec_ok && m >= 0) {
        __align__(16) Elem w[COUNT];
        #pragma unroll
        for (int i = 0; i < COUNT; ++i) w[i] = v[COUNT - 1 - i];
        sigpu_thread_store<Elem, COUNT>(dst, n, m, true, w);
    } else {
        #pragma unroll
        for (int i = 0; i < COUNT; ++i) if (seg + i < n) dst[n - 1 - seg - i] = v[i];
    }
}

// A warp's logical values wseg ... wseg+32*COUNT-1 of a channel stored backwards: the 32*COUNT
// positions before n-wseg, read with coalesced 16-byte loads into the tile; lane l's values
// are the tile's block 31-l, reversed.
template <typename Elem, int COUNT, int CACHE>
__device__ __forceinline__ void sigpu_warp_load_reversed(const Elem* src, long long n, long long seg,
                                                         long long wseg, bool vec_ok, uint4* tile,
                                                         int lane, Elem* v) {
    constexpr int VECS = COUNT * (int)sizeof(Elem) / 16;
    const long long m = n - wseg - 32 * COUNT;
    if (vec_ok && m >= 0) {
        const uint4* p = reinterpret_cast<const uint4*>(src + m);
        uint4 r[VECS];
        #pragma unroll
        for (int q = 0; q < VECS; ++q) {
            if (CACHE == SIGPU_CACHE_STREAMING) r[q] = __ldcs(p + 32 * q + lane);
            else r[q] = p[32 * q + lane];
        }
        #pragma unroll
        for (int q = 0; q < VECS; ++q) tile[sigpu_tile_slot(32 * q + lane)] = r[q];
        __syncwarp();
        #pragma unroll
        for (int q = 0; q < VECS; ++q) reinterpret_cast<uint4*>(v)[q] = tile[sigpu_tile_slot(VECS * (31 - lane) + q)];
        __syncwarp();
        sigpu_reverse<Elem, COUNT>(v);
    } else {
        sigpu_thread_load_reversed<Elem, COUNT>(src, n, seg, false, v);
    }
}

template <typename Elem, int COUNT, int CACHE, bool TILE_REUSED>
__device__ __forceinline__ void sigpu_warp_store_reversed(Elem* dst, long long n, long long seg,
                                                          long long wseg, bool vec_ok, uint4* tile,
                                                          int lane, const Elem* v) {
    constexpr int VECS = COUNT * (int)sizeof(Elem) / 16;
    const long long m = n - wseg - 32 * COUNT;
    if (vec_ok && m >= 0) {
        __align__(16) Elem w[COUNT];
        #pragma unroll
        for (int i = 0; i < COUNT; ++i) w[i] = v[COUNT - 1 - i];
        #pragma unroll
        for (int q = 0; q < VECS; ++q) tile[sigpu_tile_slot(VECS * (31 - lane) + q)] = reinterpret_cast<const uint4*>(w)[q];
        __syncwarp();
        uint4* p = reinterpret_cast<uint4*>(dst + m);
        #pragma unroll
        for (int q = 0; q < VECS; ++q) {
            if (CACHE == SIGPU_CACHE_STREAMING) __stcs(p + 32 * q + lane, tile[sigpu_tile_slot(32 * q + lane)]);
            else p[32 * q + lane] = tile[sigpu_tile_slot(32 * q + lane)];
        }
        if (TILE_REUSED) __syncwarp();  // the tile is free for the next load
    } else {
        sigpu_thread_store_reversed<Elem, COUNT>(dst, n, seg, false, v);
    }
}

#endif  // SIGPU_WARP_IO_CUH
