// The quasi-cyclic 5G NR layered 8-bit min-sum of ldpc_nr_layered8.cu with two check lanes
// per thread: each thread updates checks 2t and 2t + 1 of a block row with the 16-bit
// posteriors of both packed in one 32-bit word and SIMD-in-word arithmetic (__vsub2,
// __vmins2, __vminu2, __vcmpgtu2, ...), halving the arithmetic per check. Same tables, same
// check-state format (8 bytes per check lane), same results bit for bit: every packed
// operation is the 16-bit operation of the one-lane kernel on each half (no carry or borrow
// crosses halves), and the clamp to ±127 keeps every magnitude within 7 bits.
//
// A block of NR_PAIR_THREADS threads decodes G = NR_PAIR_THREADS / ⌈Z / 2⌉ codewords (one for
// Z > 192, 192 for Z = 2: the same shared memory as the one-lane kernel). For odd Z the last
// thread of a codeword has one lane; its upper half computes nothing that is stored.

#include "ldpc_nr_qc.cuh"

#define NR_PAIR_THREADS 192

// Lanes a = 2t and b = a + 1 (b < z when `has_b`) of one block row; see nr_row_update.
__device__ __forceinline__ void nr_row_update_pair(short* __restrict__ p, unsigned long long* st,
                                                   const unsigned* edge, unsigned d, unsigned z,
                                                   unsigned a, bool has_b, unsigned mode,
                                                   unsigned param) {
    const unsigned long long s0 = st[a], s1 = has_b ? st[a + 1] : 0ull;
    const unsigned lo0 = (unsigned)s0, lo1 = (unsigned)s1;
    const unsigned m1 = (lo0 & 0xffu) | (lo1 & 0xffu) << 16;
    const unsigned m2 = (lo0 >> 8 & 0xffu) | (lo1 >> 8 & 0xffu) << 16;
    const unsigned am = (lo0 >> 16 & 0xffu) | (lo1 >> 16 & 0xffu) << 16;
    const unsigned sg0 = (unsigned)(s0 >> 32), sg1 = (unsigned)(s1 >> 32);
    unsigned diff[NR_MAX_DEGREE], ia[NR_MAX_DEGREE], ib[NR_MAX_DEGREE];
    unsigned min1 = 0x007f007fu, min2 = 0x007f007fu, at = 0x00ff00ffu, sgn = 0;
#pragma unroll
    for (int j = 0; j < NR_MAX_DEGREE; ++j) {
        if (j < (int)d) {
            const unsigned e = edge[j], base = e >> 16;
            unsigned i = a + (e & 0xffffu);
            if (i >= z) i -= z;
            unsigned i2 = i + 1 == z ? 0 : i + 1;
            ia[j] = base + i;
            ib[j] = base + i2;
            const unsigned pa = (unsigned short)p[ia[j]];
            const unsigned pb = has_b ? (unsigned short)p[ib[j]] : 0u;
            const unsigned pp = pa | pb << 16;
            const unsigned jj = (unsigned)j * 0x00010001u;
            const unsigned eq = __vcmpeq2(am, jj);
            const unsigned mag = (m2 & eq) | (m1 & ~eq);
            const unsigned nm = ((sg0 >> j) & 1u) * 0x0000ffffu | ((sg1 >> j) & 1u) * 0xffff0000u;
            const unsigned old = __vsub2(mag ^ nm, nm);
            const unsigned df = __vsub2(pp, old);
            diff[j] = df;
            const unsigned x = __vmaxs2(__vmins2(df, 0x007f007fu), 0xff81ff81u);
            const unsigned ax = __vabs2(x);
            const unsigned below = __vcmpgtu2(min1, ax);
            min2 = (min1 & below) | (__vminu2(min2, ax) & ~below);
            min1 = __vminu2(min1, ax);
            at = (jj & below) | (at & ~below);
            sgn ^= df & 0x80008000u;
        }
    }
    if (mode == 1) {
        min1 = ((min1 * param) >> 4) & 0x007f007fu;
        min2 = ((min2 * param) >> 4) & 0x007f007fu;
    } else if (mode == 2) {
        min1 = __vsubus2(min1, param * 0x00010001u);
        min2 = __vsubus2(min2, param * 0x00010001u);
    }
    unsigned out0 = 0, out1 = 0;
#pragma unroll
    for (int j = 0; j < NR_MAX_DEGREE; ++j) {
        if (j < (int)d) {
            const unsigned jj = (unsigned)j * 0x00010001u;
            const unsigned eq = __vcmpeq2(at, jj);
            const unsigned mag = (min2 & eq) | (min1 & ~eq);
            const unsigned t = (sgn ^ diff[j]) & 0x80008000u;
            const unsigned nm = (t >> 15) * 0xffffu;
            const unsigned np = __vadd2(diff[j], __vsub2(mag ^ nm, nm));
            out0 |= (t >> 15 & 1u) << j;
            out1 |= (t >> 31) << j;
            p[ia[j]] = (short)(np & 0xffffu);
            if (has_b) p[ib[j]] = (short)(np >> 16);
        }
    }
    st[a] = (unsigned long long)(min1 & 0xffu) | (unsigned long long)(min2 & 0xffu) << 8 |
            (unsigned long long)(at & 0xffu) << 16 | (unsigned long long)out0 << 32;
    if (has_b)
        st[a + 1] = (unsigned long long)(min1 >> 16) | (unsigned long long)(min2 >> 16) << 8 |
                    (unsigned long long)(at >> 16) << 16 | (unsigned long long)out1 << 32;
}

extern "C" __global__ void __launch_bounds__(NR_PAIR_THREADS)
ldpc_nr_layered8x2(const unsigned* __restrict__ codes, const unsigned* __restrict__ graph,
                   const unsigned* __restrict__ blocks, const unsigned* __restrict__ words,
                   const signed char* __restrict__ llr, const unsigned* __restrict__ known_mask,
                   unsigned long long* __restrict__ state, unsigned* __restrict__ hard,
                   unsigned* __restrict__ iterations_run, unsigned* __restrict__ valid,
                   unsigned iterations, unsigned early, unsigned mode, unsigned param) {
    __shared__ unsigned g_s[NR_GRAPH_WORDS];
    __shared__ unsigned ok_s[NR_PAIR_THREADS];
    extern __shared__ short ps[];
    const unsigned tid = threadIdx.x, nt = blockDim.x;
    const unsigned* blk = blocks + NR_BLOCK_WORDS * blockIdx.x;
    const unsigned code = blk[0], count = blk[1], first = blk[2];
    const unsigned* c = codes + NR_CODE_WORDS * code;
    const unsigned z = c[NR_CODE_Z], rows = c[NR_CODE_ROWS], n = c[NR_CODE_N];
    const unsigned hw = c[NR_CODE_HARD_WORDS], goff = c[NR_CODE_GRAPH_OFFSET];
    const unsigned glen = c[NR_CODE_GRAPH_LEN];
    const short known = (short)c[NR_CODE_KNOWN];
    for (unsigned i = tid; i < glen; i += nt) g_s[i] = graph[goff + i];

    const unsigned tw = (z + 1) / 2;  // threads per codeword
    const unsigned g = tid / tw, t = tid - g * tw, a = 2 * t;
    const bool active = g < count, has_b = a + 1 < z;
    short* p = ps + (size_t)g * n;
    unsigned lloff = 0, hoff = 0, stoff = 0;
    if (active) {
        const unsigned* w = words + NR_WORD_WORDS * (first + g);
        lloff = w[0];
        hoff = w[1];
        stoff = w[2];
        for (unsigned v = t; v < n; v += tw) {
            int x = llr[lloff + v];
            bool k = (known_mask[hoff + v / 32] >> (v % 32)) & 1u;
            p[v] = k ? (x > 0 ? known : (short)-known) : (short)max(-127, x);
        }
        for (unsigned i = t; i < rows * z; i += tw) state[stoff + i] = 0ull;
    }
    unsigned long long* st = state + stoff;
    const unsigned* edges = g_s + rows + 1;
    __syncthreads();

    bool done = !active;
    unsigned its = iterations;
    for (unsigned it = 1; it <= iterations; ++it) {
        for (unsigned r = 0; r < rows; ++r) {
            if (!done) nr_row_update_pair(p, st + (size_t)r * z, edges + g_s[r], g_s[r + 1] - g_s[r],
                                          z, a, has_b, mode, param);
            __syncthreads();
        }
        if (early && it < iterations) {
            bool fail = !done && !(nr_syndrome_ok(p, g_s, edges, rows, z, a) &&
                                   (!has_b || nr_syndrome_ok(p, g_s, edges, rows, z, a + 1)));
            if (active && t == 0) ok_s[g] = 1;
            __syncthreads();
            if (fail) ok_s[g] = 0;
            __syncthreads();
            if (active && !done && ok_s[g]) {
                done = true;
                its = it;
            }
            if (!__syncthreads_or(!done)) break;
        }
    }

    bool fail = active && !(nr_syndrome_ok(p, g_s, edges, rows, z, a) &&
                            (!has_b || nr_syndrome_ok(p, g_s, edges, rows, z, a + 1)));
    if (active && t == 0) ok_s[g] = 1;
    __syncthreads();
    if (fail) ok_s[g] = 0;
    __syncthreads();
    if (active) {
        for (unsigned wi = t; wi < hw; wi += tw) {
            unsigned bits = 0;
            for (unsigned b = 0; b < 32; ++b) {
                unsigned v = wi * 32 + b;
                if (v < n && p[v] < 0) bits |= 1u << b;
            }
            hard[hoff + wi] = bits;
        }
        if (t == 0) {
            iterations_run[first + g] = its;
            valid[first + g] = ok_s[g];
        }
    }
}
