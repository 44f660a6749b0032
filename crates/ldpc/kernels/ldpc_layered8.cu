// Fused layered 8-bit min-sum: one block decodes one codeword through all its iterations in a
// single launch. The 16-bit posteriors P of the codeword live in shared memory (N·2 bytes,
// 130 KB for a normal frame); thread t updates check t of the current layer (a DVB circulant of
// 360 checks), so a layer costs one pass with two barriers, and no kernel boundary separates
// layers or iterations. A thread always owns the same checks, so it loads the next layer's
// check state and columns while it works on the current one.
//
// Check-node state instead of per-edge messages: a check's c2v are all min1 or min2 with a
// sign, so each check keeps (min1, min2, argmin, one sign per edge) in 8 bytes, read and
// written once per layer: 8 bytes per check instead of one byte per edge per codeword.
//
// Arithmetic and order are those of the CPU twin's layered schedule
// (crates/ldpc/src/decoder/fixed8.rs): v2c = clamp(P − c2v, ±127); CN: the two smallest
// |v2c| (the first one met wins ties), sign product, normalised min·k/16 (mode 1) or offset
// max(min − b, 0) (mode 2); every check of a layer reads P before any writes it, then the
// changes new − old c2v are added. A bit that two checks of one layer share (bit 31 of its
// column index, set by the host) is updated by compare-and-swap on its 32-bit word; the others
// by a plain 16-bit store, as no other check of the layer touches them.
// Early termination: after each iteration a codeword whose hard decision satisfies every check
// stops with that decision.

#define SHARED_BIT 0x80000000u

__device__ __forceinline__ void p_add_shared(short* ps, unsigned c, int delta) {
    unsigned* w = reinterpret_cast<unsigned*>(ps) + (c >> 1);
    unsigned shift = (c & 1) * 16, old = *w, assumed;
    do {
        assumed = old;
        unsigned half = ((assumed >> shift) + (unsigned)delta) & 0xffffu;
        old = atomicCAS(w, assumed, (assumed & ~(0xffffu << shift)) | (half << shift));
    } while (old != assumed);
}

__device__ __forceinline__ int correct1(int m, unsigned mode, unsigned param) {
    if (mode == 1) return (m * (int)param) >> 4;
    if (mode == 2) return max(m - (int)param, 0);
    return m;
}

// Check r's state, degree and columns (a thread loads its next layer's one layer ahead).
template <int D>
__device__ __forceinline__ void load_check(unsigned r, const unsigned long long* __restrict__ st,
                                           const unsigned* __restrict__ row_start,
                                           const unsigned* __restrict__ edge_col, unsigned long long& s,
                                           unsigned& d, unsigned* cols) {
    s = st[r];
    unsigned a = row_start[r];
    d = row_start[r + 1] - a;
#pragma unroll
    for (int j = 0; j < D; ++j)
        if (j < (int)d) cols[j] = edge_col[a + j];
}

// D: the largest check degree this instance handles (8, 16 or 32).
template <int D>
__device__ __forceinline__ void layered(const signed char* __restrict__ llr, const unsigned* __restrict__ row_start,
                                        const unsigned* __restrict__ edge_col,
                                        const unsigned* __restrict__ layer_start, unsigned layers, unsigned n,
                                        unsigned m, unsigned long long* __restrict__ state,
                                        unsigned* __restrict__ hard, unsigned* __restrict__ iterations_run,
                                        unsigned iterations, unsigned early, unsigned mode, unsigned param) {
    extern __shared__ short ps[];
    const unsigned cw = blockIdx.x, tid = threadIdx.x, nt = blockDim.x;
    const signed char* l = llr + (size_t)cw * n;
    unsigned long long* st = state + (size_t)cw * m;
    for (unsigned v = tid; v < n; v += nt) ps[v] = (short)max(-127, (int)l[v]);
    for (unsigned r = tid; r < m; r += nt) st[r] = 0;
    __syncthreads();
    // The next layer's check (row), degree, state and columns, loaded one layer ahead.
    unsigned nr = layer_start[0] + tid, nd = 0, ncols[D];
    bool nlive = nr < layer_start[1];
    unsigned long long ns = 0;
    if (nlive) load_check<D>(nr, st, row_start, edge_col, ns, nd, ncols);
    unsigned it = 1;
    for (; it <= iterations; ++it) {
        for (unsigned layer = 0; layer < layers; ++layer) {
            const unsigned r = nr, d = nd;
            const bool live = nlive;
            unsigned cols[D];
#pragma unroll
            for (int j = 0; j < D; ++j) cols[j] = ncols[j];
            const unsigned long long s = ns;
            {
                unsigned following = layer + 1 == layers ? 0 : layer + 1;
                nr = layer_start[following] + tid;
                nlive = nr < layer_start[following + 1];
                if (nlive) load_check<D>(nr, st, row_start, edge_col, ns, nd, ncols);
            }
            int v2c[D], old[D];
            int min1 = 127, min2 = 127, at = 255;
            unsigned sgn = 0;
            if (live) {
                int m1 = (int)(s & 0xff), m2 = (int)((s >> 8) & 0xff), am = (int)((s >> 16) & 0xff);
                unsigned signs = (unsigned)(s >> 32);
#pragma unroll
                for (int j = 0; j < D; ++j) {
                    if (j >= (int)d) break;
                    int mag = j == am ? m2 : m1;
                    old[j] = (signs >> j) & 1 ? -mag : mag;
                    int x = max(-127, min(127, (int)ps[cols[j] & ~SHARED_BIT] - old[j]));
                    v2c[j] = x;
                    int ax = abs(x);
                    bool below = ax < min1;
                    min2 = below ? min1 : min(min2, ax);
                    min1 = min(min1, ax);
                    at = below ? j : at;
                    sgn ^= x < 0;
                }
                min1 = correct1(min1, mode, param);
                min2 = correct1(min2, mode, param);
            }
            __syncthreads();  // every check of the layer has read P
            if (live) {
                unsigned signs = 0;
#pragma unroll
                for (int j = 0; j < D; ++j) {
                    if (j >= (int)d) break;
                    unsigned neg = sgn ^ (unsigned)(v2c[j] < 0);
                    int mag = j == at ? min2 : min1;
                    int c2v = neg ? -mag : mag;
                    signs |= neg << j;
                    int delta = c2v - old[j];
                    unsigned c = cols[j];
                    if (c & SHARED_BIT) {
                        if (delta != 0) p_add_shared(ps, c & ~SHARED_BIT, delta);
                    } else {
                        ps[c] = (short)(ps[c] + delta);
                    }
                }
                unsigned long long out = (unsigned long long)min1 | ((unsigned long long)min2 << 8) |
                                         ((unsigned long long)(at & 0xff) << 16) |
                                         ((unsigned long long)signs << 32);
                st[r] = out;
                if (nr == r) ns = out;  // a code of one layer: the prefetch read the old state
            }
            __syncthreads();  // the layer's changes are in P
        }
        if (early && it < iterations) {
            int failed = 0;
            for (unsigned r = tid; r < m && !failed; r += nt) {
                unsigned parity = 0;
                for (unsigned e = row_start[r]; e < row_start[r + 1]; ++e)
                    parity ^= ps[edge_col[e] & ~SHARED_BIT] < 0;
                failed = parity;
            }
            if (!__syncthreads_or(failed)) break;
        }
    }
    // Hard decisions, bit v % 32 of word v / 32.
    unsigned words = (n + 31) / 32;
    for (unsigned v = tid; v < words * 32; v += nt) {
        unsigned bits = __ballot_sync(0xffffffffu, v < n && ps[v] < 0);
        if ((tid & 31) == 0) hard[(size_t)cw * words + v / 32] = bits;
    }
    if (tid == 0) iterations_run[cw] = min(it, iterations);
}

#define LDPC_LAYERED(D)                                                                           \
    extern "C" __global__ void ldpc_layered_##D(                                                   \
        const signed char* __restrict__ llr, const unsigned* __restrict__ row_start,                \
        const unsigned* __restrict__ edge_col, const unsigned* __restrict__ layer_start, unsigned layers, \
        unsigned n, unsigned m, unsigned long long* __restrict__ state, unsigned* __restrict__ hard, \
        unsigned* __restrict__ iterations_run, unsigned iterations, unsigned early, unsigned mode,   \
        unsigned param) {                                                                           \
        layered<D>(llr, row_start, edge_col, layer_start, layers, n, m, state, hard, iterations_run, \
                   iterations, early, mode, param);                                                 \
    }
LDPC_LAYERED(8)
LDPC_LAYERED(16)
LDPC_LAYERED(32)
