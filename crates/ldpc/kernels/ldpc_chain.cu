// The simulation's frame chain on the GPU: ldpc_chain_encode (one block per frame) draws the
// information bits from Philox4x32-10 keyed by (seed, SNR, frame) and encodes them (staircase
// accumulator); ldpc_chain_llr (one thread per symbol of every frame) interleaves, maps, adds
// Box-Muller noise and demaps (log-sum-exp or max-log), LLRs rounded once to f32;
// ldpc_chain_count_errors counts each decoded frame's information-bit errors.
// The CPU twin is crates/ldpc/src/sim/chain.rs (FramePlan::make_frame): the same integer
// generator, the same encoder result (XOR), and the same IEEE basic operations in the same
// order (ldpc_portable_math.cuh), so every LLR is bit-identical to the CPU's.
#include "ldpc_portable_math.cuh"

// Information and parity words the encoder holds in shared memory: K and M up to 65,536 bits.
#define CHAIN_WORDS 2048
#define STREAM_INFO 0u
#define STREAM_NOISE 1u

__device__ __forceinline__ unsigned long long chain_splitmix(unsigned long long x) {
    unsigned long long z = x + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

__device__ __forceinline__ uint2 chain_frame_key(unsigned long long seed,
                                                 unsigned long long es_bits,
                                                 unsigned long long frame) {
    unsigned long long x = seed;
    x = chain_splitmix(x ^ chain_splitmix(es_bits));
    x = chain_splitmix(x ^ chain_splitmix(frame));
    return make_uint2((unsigned)x, (unsigned)(x >> 32));
}

__device__ __forceinline__ uint4 chain_philox(uint4 c, uint2 k) {
    const unsigned M0 = 0xD2511F53u, M1 = 0xCD9E8D57u, W0 = 0x9E3779B9u, W1 = 0xBB67AE85u;
#pragma unroll
    for (int round = 0; round < 10; ++round) {
        if (round > 0) {
            k.x += W0;
            k.y += W1;
        }
        unsigned hi0 = __umulhi(M0, c.x), lo0 = M0 * c.x;
        unsigned hi1 = __umulhi(M1, c.z), lo1 = M1 * c.z;
        c = make_uint4(hi1 ^ c.y ^ k.x, lo1, hi0 ^ c.w ^ k.y, lo0);
    }
    return c;
}

__device__ __forceinline__ uint4 chain_draw(uint2 key, unsigned stream, unsigned long long index) {
    return chain_philox(make_uint4((unsigned)index, (unsigned)(index >> 32), stream, 0u), key);
}

// Codeword bit c of a frame: information bits, then parity.
__device__ __forceinline__ unsigned chain_bit(const unsigned* info, const unsigned* par, int k,
                                              unsigned c) {
    if (c < (unsigned)k) return (info[c >> 5] >> (c & 31)) & 1u;
    unsigned p = c - (unsigned)k;
    return (par[p >> 5] >> (p & 31)) & 1u;
}

// LLRs of the PER_AXIS bits of one axis value y (sim::chain::demap_axis). Fully unrolled, so
// the metrics stay in registers: the largest of each set is tracked by value beside its index.
template <int PER_AXIS>
__device__ __forceinline__ void chain_demap_axis(double y, const double (&levels)[1 << PER_AXIS],
                                                 double scale, int exact,
                                                 double (&out)[PER_AXIS]) {
    const int L = 1 << PER_AXIS;
    double metric[L];
#pragma unroll
    for (int l = 0; l < L; ++l) {
        double d = PSUB(y, levels[l]);
        metric[l] = PMUL(-PMUL(d, d), scale);
    }
#pragma unroll
    for (int j = 0; j < PER_AXIS; ++j) {
        const int mask = 1 << (PER_AXIS - 1 - j);
        double half[2];
#pragma unroll
        for (int b = 0; b < 2; ++b) {
            // The first largest metric of the set (table order, strictly greater replaces).
            int best = -1;
            double hi = 0.0;
#pragma unroll
            for (int l = 0; l < L; ++l) {
                const bool member = (((l & mask) != 0) ? 1 : 0) == b;
                if (member && (best < 0 || metric[l] > hi)) {
                    best = l;
                    hi = metric[l];
                }
            }
            double h = hi;
            if (exact) {
                double sum = 0.0;
#pragma unroll
                for (int l = 0; l < L; ++l) {
                    const bool member = (((l & mask) != 0) ? 1 : 0) == b;
                    if (member && l != best) sum = PADD(sum, portable_exp(PSUB(metric[l], hi)));
                }
                if (sum > 0.0) h = PADD(hi, portable_ln_1p(sum));
            }
            half[b] = h;
        }
        out[j] = PSUB(half[0], half[1]);
    }
}

// Symbols of frames first .. first + count: blockIdx.y is the frame, one thread per symbol
// (grid-stride over x). The symbol's noise draw, its axes' levels from the encoded bits, the
// demapper, the LLRs to their codeword positions in llr (count x n).
template <int PER_AXIS, int AXES>
__device__ void chain_symbols(const unsigned* info, const unsigned* par, const unsigned* perm,
                              const double* levels_g, int n, int k, int m, int exact,
                              double sigma, double scale, unsigned long long seed,
                              unsigned long long es_bits, unsigned long long first, float* llr) {
    const int bps = PER_AXIS * AXES;
    const int L = 1 << PER_AXIS;
    double levels[L];
#pragma unroll
    for (int l = 0; l < L; ++l) levels[l] = levels_g[l];
    const int symbols = (n + bps - 1) / bps;
    const int kw = (k + 31) / 32, mw = (m + 31) / 32;
    const int f = blockIdx.y;
    const uint2 key = chain_frame_key(seed, es_bits, first + (unsigned long long)f);
    const unsigned* fi = info + (long long)f * kw;
    const unsigned* fp = par + (long long)f * mw;
    float* out = llr + (long long)f * n;
    for (int s = blockIdx.x * blockDim.x + threadIdx.x; s < symbols; s += gridDim.x * blockDim.x) {
        uint4 w = chain_draw(key, STREAM_NOISE, (unsigned long long)s);
        double g[2];
        portable_gauss_pair(w, &g[0], &g[1]);
#pragma unroll
        for (int axis = 0; axis < AXES; ++axis) {
            int v = 0;
#pragma unroll
            for (int j = 0; j < PER_AXIS; ++j) {
                int p = s * bps + axis + AXES * j;
                unsigned bit = p < n ? chain_bit(fi, fp, k, perm[p]) : 0u;
                v = (v << 1) | (int)bit;
            }
            // levels[v] without a dynamic index (which would put the table in local memory).
            double level = levels[0];
#pragma unroll
            for (int l = 1; l < L; ++l) level = v == l ? levels[l] : level;
            double y = PADD(level, PMUL(sigma, g[axis]));
            double l[PER_AXIS];
            chain_demap_axis<PER_AXIS>(y, levels, scale, exact, l);
#pragma unroll
            for (int j = 0; j < PER_AXIS; ++j) {
                int p = s * bps + axis + AXES * j;
                if (p < n) out[perm[p]] = __double2float_rn(l[j]);
            }
        }
    }
}

// Information and parity words of frames first .. first + count (count x ceil(k / 32) and
// count x ceil(m / 32); bit i of a frame is bit i % 32 of word i / 32), one block per frame
// of a multiple of 32 threads; k, m <= 32 * CHAIN_WORDS.
extern "C" __global__ void ldpc_chain_encode(
    const unsigned* __restrict__ row_start, const unsigned* __restrict__ info_end,
    const unsigned* __restrict__ edge_col, int k, int m, unsigned long long seed,
    unsigned long long es_bits, unsigned long long first, int count,
    unsigned* __restrict__ info_out, unsigned* __restrict__ par_out) {
    __shared__ unsigned info[CHAIN_WORDS];
    __shared__ unsigned par[CHAIN_WORDS];
    int f = blockIdx.x;
    if (f >= count) return;
    uint2 key = chain_frame_key(seed, es_bits, first + (unsigned long long)f);
    int kw = (k + 31) / 32, mw = (m + 31) / 32;

    // Information words: draw c gives words 4c .. 4c + 3.
    for (int c = threadIdx.x; c < (k + 127) / 128; c += blockDim.x) {
        uint4 w = chain_draw(key, STREAM_INFO, (unsigned long long)c);
        unsigned ws[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            int idx = 4 * c + j;
            if (idx < kw) {
                unsigned word = ws[j];
                if (idx == kw - 1 && (k & 31)) word &= (1u << (k & 31)) - 1u;
                info[idx] = word;
                info_out[(long long)f * kw + idx] = word;
            }
        }
    }
    __syncthreads();

    // Each check's XOR of its information bits, 32 checks per word (one warp's ballot), then
    // the XOR prefix within the word.
    int lane = threadIdx.x & 31;
    for (int base = threadIdx.x - lane; base < mw * 32; base += blockDim.x) {
        int r = base + lane;
        unsigned p = 0;
        if (r < m) {
            for (unsigned e = row_start[r]; e < info_end[r]; ++e) {
                unsigned c = edge_col[e];
                p ^= info[c >> 5] >> (c & 31);
            }
        }
        unsigned word = __ballot_sync(0xffffffffu, p & 1u);
        if (lane == 0) {
            word ^= word << 1;
            word ^= word << 2;
            word ^= word << 4;
            word ^= word << 8;
            word ^= word << 16;
            par[base >> 5] = word;
        }
    }
    __syncthreads();

    // The accumulator across words: warp 0, each lane a run of words, an XOR scan of the runs.
    if (threadIdx.x < 32) {
        int chunk = (mw + 31) / 32;
        int lo = min(lane * chunk, mw), hi = min(lo + chunk, mw);
        unsigned own = 0;
        for (int w = lo; w < hi; ++w) own ^= par[w] >> 31;
        unsigned incl = own;
#pragma unroll
        for (int off = 1; off < 32; off <<= 1) {
            unsigned t = __shfl_up_sync(0xffffffffu, incl, off);
            if (lane >= off) incl ^= t;
        }
        unsigned run = incl ^ own;
        for (int w = lo; w < hi; ++w) {
            unsigned word = run ? ~par[w] : par[w];
            par[w] = word;
            run = word >> 31;
        }
    }
    __syncthreads();
    for (int w = threadIdx.x; w < mw; w += blockDim.x) par_out[(long long)f * mw + w] = par[w];
}

// The channel LLRs (count x n, codeword order) of the frames ldpc_chain_encode encoded. Grid:
// x covers the symbols of a frame (grid-stride), y the count frames.
extern "C" __global__ void ldpc_chain_llr(
    const unsigned* __restrict__ info, const unsigned* __restrict__ par,
    const unsigned* __restrict__ perm, const double* __restrict__ levels, int n, int k, int m,
    int per_axis, int axes, int exact, double sigma, double scale, unsigned long long seed,
    unsigned long long es_bits, unsigned long long first, float* __restrict__ llr) {
#define CHAIN_SYMBOLS(P, A) \
    chain_symbols<P, A>(info, par, perm, levels, n, k, m, exact, sigma, scale, seed, es_bits, first, llr)
    if (axes == 1) {
        CHAIN_SYMBOLS(1, 1);
        return;
    }
    switch (per_axis) {
        case 1: CHAIN_SYMBOLS(1, 2); break;
        case 2: CHAIN_SYMBOLS(2, 2); break;
        case 3: CHAIN_SYMBOLS(3, 2); break;
        default: CHAIN_SYMBOLS(4, 2); break;
    }
#undef CHAIN_SYMBOLS
}

// Information-bit errors of each decoded frame: hard (count x n bytes, 0/1) against the
// information words ldpc_chain_frames wrote. One block per frame.
extern "C" __global__ void ldpc_chain_count_errors(const unsigned char* __restrict__ hard,
                                                   const unsigned* __restrict__ info, int n,
                                                   int k, int count,
                                                   unsigned* __restrict__ errors) {
    __shared__ unsigned total;
    int f = blockIdx.x;
    if (f >= count) return;
    if (threadIdx.x == 0) total = 0;
    __syncthreads();
    int kw = (k + 31) / 32;
    const unsigned char* h = hard + (long long)f * n;
    const unsigned* w = info + (long long)f * kw;
    unsigned e = 0;
    for (int i = threadIdx.x; i < k; i += blockDim.x)
        e += (unsigned)(h[i] != ((w[i >> 5] >> (i & 31)) & 1u));
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) e += __shfl_down_sync(0xffffffffu, e, off);
    if ((threadIdx.x & 31) == 0) atomicAdd(&total, e);
    __syncthreads();
    if (threadIdx.x == 0) errors[f] = total;
}
