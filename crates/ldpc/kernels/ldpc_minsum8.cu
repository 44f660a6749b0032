// The GPU LDPC decoder paper's 8-bit flooding min-sum, 4·W codewords per launch.
//
// Layout (the GPU LDPC decoder paper's coalesced layout): the messages of one edge for the 4·W codewords are
// contiguous, W words of 4 codewords; thread t of a group of W lanes owns word t, codewords
// 4t .. 4t+3. So m[e*W + t], llr[v*W + t]; a group covers one row (CN) or one column (VN).
// W = 32 is the GPU LDPC decoder paper's 128 codewords, one fully used 128-byte line per edge; W = 16 or 8
// (64 or 32 codewords) shrinks the messages of a launch so that they can stay in L2 across
// the iterations (a 128-codeword batch is then decoded as 2 or 4 sub-batches in turn).
//
// Hard decisions are packed by warp ballot: bit t of hd[v*4 + j] is codeword 4t + j.
// Arithmetic (shared with the CPU twin, crates/ldpc/src/decoder/fixed8.rs):
//   VN: s = LLR + sum c2v (in int); v2c = clamp(s - c2v, -127, 127); hard decision s < 0.
//   CN: the two smallest |v2c| per byte (first one wins ties), sign product; normalised
//       min*k/16 (mode 1) or offset max(min - b, 0) (mode 2); c2v = other min, other signs.

#ifndef LDPC_WORDS
#define LDPC_WORDS 32
#endif
#define W LDPC_WORDS
static_assert(W == 8 || W == 16 || W == 32, "LDPC_WORDS must be 8, 16 or 32");

__device__ __forceinline__ int lane_byte(unsigned w, int k) {
    return (int)(signed char)(w >> (8 * k));
}

__device__ __forceinline__ unsigned pack4(int a, int b, int c, int d) {
    return (unsigned)(a & 0xff) | ((unsigned)(b & 0xff) << 8) | ((unsigned)(c & 0xff) << 16) |
           ((unsigned)(d & 0xff) << 24);
}

// Codeword-major 8-bit LLRs in[4W][n] -> llr[v*W + t]; -128 becomes -127 so the range is
// symmetric. Block (32, 8): a tile of 32 bits x 4W codewords through shared memory.
extern "C" __global__ void ldpc_transpose_llr(const signed char* __restrict__ in,
                                              unsigned* __restrict__ llr, unsigned n) {
    __shared__ signed char tile[4 * W][33];
    unsigned v0 = blockIdx.x * 32;
    unsigned tx = threadIdx.x, ty = threadIdx.y;
    for (unsigned cw = ty; cw < 4 * W; cw += 8) {
        unsigned v = v0 + tx;
        tile[cw][tx] = v < n ? in[(size_t)cw * n + v] : 0;
    }
    __syncthreads();
    for (unsigned dv = ty; dv < 32; dv += 8) {
        unsigned v = v0 + dv;
        if (v < n && tx < W) {
            int b[4];
            for (int k = 0; k < 4; ++k) {
                int x = tile[4 * tx + k][dv];
                b[k] = x < -127 ? -127 : x;
            }
            llr[(size_t)v * W + tx] = pack4(b[0], b[1], b[2], b[3]);
        }
    }
}

// Messages start as the channel LLRs of their bits (the GPU LDPC decoder paper's initialisation kernel).
extern "C" __global__ void ldpc_init(const unsigned* __restrict__ llr,
                                     const unsigned* __restrict__ edge_col,
                                     unsigned* __restrict__ m, unsigned edges) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)edges * W) return;
    unsigned e = (unsigned)(i / W), t = (unsigned)(i % W);
    m[i] = llr[(size_t)edge_col[e] * W + t];
}

__device__ __forceinline__ unsigned correct(unsigned mins, unsigned mode, unsigned param) {
    if (mode == 1) {  // min * k / 16 per byte, via two 16-bit lanes per word
        unsigned lo = (((mins & 0x00ff00ffu) * param) >> 4) & 0x00ff00ffu;
        unsigned hi = ((((mins >> 8) & 0x00ff00ffu) * param) >> 4) & 0x00ff00ffu;
        return lo | (hi << 8);
    }
    if (mode == 2) return __vsubus4(mins, param * 0x01010101u);
    return mins;
}

// The per-byte steps both CN kernels and both VN kernels share: a message joins a row's
// (min1, min2, argmin, sign) in cn_accumulate and leaves it in cn_message; a column sums its
// messages in vn_add and gets each back, less its own, in vn_message.
__device__ __forceinline__ void cn_accumulate(unsigned x, unsigned j, unsigned& min1, unsigned& min2,
                                              unsigned& at, unsigned& sgn) {
    unsigned mag = __vabsss4(x);
    unsigned below = __vcmpltu4(mag, min1);
    min2 = (below & min1) | (~below & __vminu4(min2, mag));
    min1 = __vminu4(min1, mag);
    at = (below & (j * 0x01010101u)) | (~below & at);
    sgn ^= x;
}

__device__ __forceinline__ unsigned cn_message(unsigned x, unsigned j, unsigned min1, unsigned min2,
                                               unsigned at, unsigned sgn) {
    unsigned here = __vcmpeq4(at, j * 0x01010101u);
    unsigned mag = (here & min2) | (~here & min1);
    unsigned neg = (((sgn ^ x) & 0x80808080u) >> 7) * 0xffu;
    return (mag & ~neg) | (__vneg4(mag) & neg);
}

__device__ __forceinline__ void vn_add(int* s, unsigned x) {
    s[0] += lane_byte(x, 0);
    s[1] += lane_byte(x, 1);
    s[2] += lane_byte(x, 2);
    s[3] += lane_byte(x, 3);
}

__device__ __forceinline__ unsigned vn_message(const int* s, unsigned x) {
    return pack4(max(-127, min(127, s[0] - lane_byte(x, 0))), max(-127, min(127, s[1] - lane_byte(x, 1))),
                 max(-127, min(127, s[2] - lane_byte(x, 2))), max(-127, min(127, s[3] - lane_byte(x, 3))));
}

// CN update: one group of W lanes per row, each thread 4 codewords, per-byte SIMD within the word.
// With D > 0 a row's words are kept in registers (rows of degree <= D), so the messages are
// read from memory once; D = 0 reads them twice, as the GPU LDPC decoder paper did (any degree).
// The parameters of every CN kernel (cn and cn_vec, all D) and of every VN kernel (vn and
// vn_vec; the hard-decision ones add hd and done), written once.
#define CN_PARAMS                                                                                  \
    unsigned *__restrict__ m, const unsigned *__restrict__ row_start, unsigned rows, unsigned mode, \
        unsigned param
#define VN_PARAMS                                                                                  \
    const unsigned *__restrict__ llr, unsigned *__restrict__ m,                                    \
        const unsigned *__restrict__ col_start, const unsigned *__restrict__ col_edges, unsigned n
#define VN_HD_PARAMS VN_PARAMS, unsigned *__restrict__ hd, const unsigned *__restrict__ done

template <int D>
__device__ __forceinline__ void cn(CN_PARAMS) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned r = (unsigned)(i / W), t = (unsigned)(i % W);
    if (r >= rows) return;
    unsigned a = row_start[r], d = row_start[r + 1] - a;
    unsigned* row = m + (size_t)a * W + t;
    unsigned min1 = 0x7f7f7f7fu, min2 = 0x7f7f7f7fu, at = 0xffffffffu, sgn = 0;
    unsigned keep[D > 0 ? D : 1];
#pragma unroll
    for (unsigned j = 0; j < (D > 0 ? (unsigned)D : d); ++j) {
        if (D > 0 && j >= d) break;
        unsigned x = row[(size_t)j * W];
        if (D > 0) keep[D > 0 ? j : 0] = x;
        cn_accumulate(x, j, min1, min2, at, sgn);
    }
    min1 = correct(min1, mode, param);
    min2 = correct(min2, mode, param);
#pragma unroll
    for (unsigned j = 0; j < (D > 0 ? (unsigned)D : d); ++j) {
        if (D > 0 && j >= d) break;
        unsigned x = D > 0 ? keep[D > 0 ? j : 0] : row[(size_t)j * W];
        row[(size_t)j * W] = cn_message(x, j, min1, min2, at, sgn);
    }
}

// Entry points: one per register-cache bound D (0: re-read), for the 4-byte (cn) and 16-byte
// (cn_vec) kernels alike.
#define LDPC_CN(NAME, BODY, D)                                                                    \
    extern "C" __global__ void NAME(CN_PARAMS) { BODY<D>(m, row_start, rows, mode, param); }
LDPC_CN(ldpc_cn, cn, 0)
LDPC_CN(ldpc_cn_8, cn, 8)
LDPC_CN(ldpc_cn_16, cn, 16)
LDPC_CN(ldpc_cn_32, cn, 32)

// VN update; with HARD, also the hard decisions of codewords not yet marked done. With D > 0
// a column's words are kept in registers (columns of degree <= D).
template <bool HARD, int D>
__device__ __forceinline__ void vn(VN_HD_PARAMS) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v = (unsigned)(i / W), t = (unsigned)(i % W);
    bool live = v < n;
    // Without hard decisions a lane past the last column may leave; with them every lane of
    // the warp must reach the ballot (a warp holds 32 / W columns).
    if (!HARD && !live) return;
    int s[4] = {0, 0, 0, 0};
    if (live) {
        unsigned l = llr[(size_t)v * W + t];
        for (int k = 0; k < 4; ++k) s[k] = lane_byte(l, k);
        unsigned a = col_start[v], d = col_start[v + 1] - a;
        const unsigned* edges = col_edges + a;
        unsigned keep[D > 0 ? D : 1];
#pragma unroll
        for (unsigned j = 0; j < (D > 0 ? (unsigned)D : d); ++j) {
            if (D > 0 && j >= d) break;
            unsigned x = m[(size_t)edges[j] * W + t];
            if (D > 0) keep[D > 0 ? j : 0] = x;
            vn_add(s, x);
        }
#pragma unroll
        for (unsigned j = 0; j < (D > 0 ? (unsigned)D : d); ++j) {
            if (D > 0 && j >= d) break;
            size_t k = (size_t)edges[j] * W + t;
            unsigned x = D > 0 ? keep[D > 0 ? j : 0] : m[k];
            m[k] = vn_message(s, x);
        }
    }
    if (HARD) {
        unsigned shift = (threadIdx.x & 31) / W * W;
        unsigned mask = W == 32 ? 0xffffffffu : (1u << W) - 1u;
        for (int j = 0; j < 4; ++j) {
            unsigned bits = (__ballot_sync(0xffffffffu, s[j] < 0) >> shift) & mask;
            if (live && t == 0) {
                unsigned keep_hd = done[j];
                size_t k = (size_t)v * 4 + j;
                hd[k] = (hd[k] & keep_hd) | (bits & ~keep_hd);
            }
        }
    }
}

// Entry points ldpc_vn<SUFFIX> and ldpc_vn_hd<SUFFIX> (with hard decisions), for the 4-byte (vn)
// and 16-byte (vn_vec) kernels alike.
#define LDPC_VN(SUFFIX, BODY, D)                                                                  \
    extern "C" __global__ void ldpc_vn##SUFFIX(VN_PARAMS) {                                      \
        BODY<false, D>(llr, m, col_start, col_edges, n, nullptr, nullptr);                       \
    }                                                                                             \
    extern "C" __global__ void ldpc_vn_hd##SUFFIX(VN_HD_PARAMS) {                                \
        BODY<true, D>(llr, m, col_start, col_edges, n, hd, done);                                 \
    }
LDPC_VN(, vn, 0)
LDPC_VN(_8, vn, 8)
LDPC_VN(_16, vn, 16)

// Vector variants: L = W/4 lanes per row / column, each lane 4 words (16 codewords) through
// one 16-byte access, so a quarter of the load instructions of the kernels above and
// four times the bytes in flight per thread. Same layout and arithmetic. D > 0 keeps a
// row's / column's messages in registers (degree <= D), D = 0 reads them twice.
#define L (W / 4)
template <int D>
__device__ __forceinline__ void cn_vec(CN_PARAMS) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned r = (unsigned)(i / L), t = (unsigned)(i % L);
    if (r >= rows) return;
    unsigned a = row_start[r], d = row_start[r + 1] - a;
    uint4* row = reinterpret_cast<uint4*>(m + (size_t)a * W) + t;
    unsigned min1[4], min2[4], at[4], sgn[4];
#pragma unroll
    for (int w = 0; w < 4; ++w) {
        min1[w] = min2[w] = 0x7f7f7f7fu;
        at[w] = 0xffffffffu;
        sgn[w] = 0;
    }
    uint4 keep[D > 0 ? D : 1];
#pragma unroll
    for (unsigned j = 0; j < (D > 0 ? (unsigned)D : d); ++j) {
        if (D > 0 && j >= d) break;
        uint4 x = row[(size_t)j * L];
        if (D > 0) keep[D > 0 ? j : 0] = x;
        cn_accumulate(x.x, j, min1[0], min2[0], at[0], sgn[0]);
        cn_accumulate(x.y, j, min1[1], min2[1], at[1], sgn[1]);
        cn_accumulate(x.z, j, min1[2], min2[2], at[2], sgn[2]);
        cn_accumulate(x.w, j, min1[3], min2[3], at[3], sgn[3]);
    }
#pragma unroll
    for (int w = 0; w < 4; ++w) {
        min1[w] = correct(min1[w], mode, param);
        min2[w] = correct(min2[w], mode, param);
    }
#pragma unroll
    for (unsigned j = 0; j < (D > 0 ? (unsigned)D : d); ++j) {
        if (D > 0 && j >= d) break;
        uint4 x = D > 0 ? keep[D > 0 ? j : 0] : row[(size_t)j * L];
        uint4 out;
        out.x = cn_message(x.x, j, min1[0], min2[0], at[0], sgn[0]);
        out.y = cn_message(x.y, j, min1[1], min2[1], at[1], sgn[1]);
        out.z = cn_message(x.z, j, min1[2], min2[2], at[2], sgn[2]);
        out.w = cn_message(x.w, j, min1[3], min2[3], at[3], sgn[3]);
        row[(size_t)j * L] = out;
    }
}

LDPC_CN(ldpc_cn_v, cn_vec, 0)
LDPC_CN(ldpc_cn_v8, cn_vec, 8)

template <bool HARD, int D>
__device__ __forceinline__ void vn_vec(VN_HD_PARAMS) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v = (unsigned)(i / L), t = (unsigned)(i % L);
    bool live = v < n;
    if (!HARD && !live) return;  // with HARD every lane must reach the shuffles
    int s[4][4] = {};
    if (live) {
        uint4 l = reinterpret_cast<const uint4*>(llr + (size_t)v * W)[t];
        unsigned lw[4] = {l.x, l.y, l.z, l.w};
#pragma unroll
        for (int w = 0; w < 4; ++w)
            for (int k = 0; k < 4; ++k) s[w][k] = lane_byte(lw[w], k);
        unsigned a = col_start[v], d = col_start[v + 1] - a;
        const unsigned* edges = col_edges + a;
        uint4 keep[D > 0 ? D : 1];
#pragma unroll
        for (unsigned j = 0; j < (D > 0 ? (unsigned)D : d); ++j) {
            if (D > 0 && j >= d) break;
            uint4 x = reinterpret_cast<const uint4*>(m + (size_t)edges[j] * W)[t];
            if (D > 0) keep[D > 0 ? j : 0] = x;
            vn_add(s[0], x.x);
            vn_add(s[1], x.y);
            vn_add(s[2], x.z);
            vn_add(s[3], x.w);
        }
#pragma unroll
        for (unsigned j = 0; j < (D > 0 ? (unsigned)D : d); ++j) {
            if (D > 0 && j >= d) break;
            uint4* k = reinterpret_cast<uint4*>(m + (size_t)edges[j] * W) + t;
            uint4 x = D > 0 ? keep[D > 0 ? j : 0] : *k;
            uint4 out;
            out.x = vn_message(s[0], x.x);
            out.y = vn_message(s[1], x.y);
            out.z = vn_message(s[2], x.z);
            out.w = vn_message(s[3], x.w);
            *k = out;
        }
    }
    if (HARD) {
        // Bit 4t + w of hd[v*4 + j] is word 4t + w's codeword j: OR the lanes' nibbles.
        for (int j = 0; j < 4; ++j) {
            unsigned bits = 0;
#pragma unroll
            for (int w = 0; w < 4; ++w) bits |= (unsigned)(s[w][j] < 0) << (4 * t + w);
#pragma unroll
            for (int o = 1; o < L; o <<= 1) bits |= __shfl_xor_sync(0xffffffffu, bits, o);
            if (live && t == 0) {
                unsigned keep_hd = done[j];
                size_t k = (size_t)v * 4 + j;
                hd[k] = (hd[k] & keep_hd) | (bits & ~keep_hd);
            }
        }
    }
}

LDPC_VN(_v, vn_vec, 0)
LDPC_VN(_v8, vn_vec, 8)
#undef L

// Syndrome: one thread per check; failed[j] collects codewords 4t + j (bit t) with a
// violated check.
extern "C" __global__ void ldpc_syndrome(const unsigned* __restrict__ hd,
                                         const unsigned* __restrict__ row_start,
                                         const unsigned* __restrict__ edge_col, unsigned rows,
                                         unsigned* __restrict__ failed) {
    unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    unsigned p0 = 0, p1 = 0, p2 = 0, p3 = 0;
    for (unsigned e = row_start[r]; e < row_start[r + 1]; ++e) {
        const unsigned* h = hd + (size_t)edge_col[e] * 4;
        p0 ^= h[0];
        p1 ^= h[1];
        p2 ^= h[2];
        p3 ^= h[3];
    }
    if (p0) atomicOr(&failed[0], p0);
    if (p1) atomicOr(&failed[1], p1);
    if (p2) atomicOr(&failed[2], p2);
    if (p3) atomicOr(&failed[3], p3);
}

// Codewords with no violated check are done (their hard decisions stay); failed is cleared
// for the next iteration. One block of 4 threads.
extern "C" __global__ void ldpc_mark_done(unsigned* __restrict__ done, unsigned* __restrict__ failed) {
    unsigned j = threadIdx.x;
    if (j < 4) {
        done[j] |= ~failed[j];
        failed[j] = 0;
    }
}
