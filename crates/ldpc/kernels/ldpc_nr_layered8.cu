// Quasi-cyclic layered 8-bit min-sum for lifted 5G NR codes (TS 38.212, both base graphs,
// every Z from 2 to 384), bit for bit the CPU's quasi-cyclic decoder
// (crates/ldpc/src/decoder/qc.rs).
//
// Work split. A block of NR_THREADS threads decodes G = NR_THREADS / Z codewords of one code
// (one codeword for Z > 192, 192 of them for Z = 2); thread t works on lane t % Z of codeword
// t / Z. A lifted row block is Z checks that share no bit (every circulant is a permutation),
// so the Z threads of a codeword update a whole row block at once with no conflict, which is
// exactly the check-by-check layered schedule of the CPU twin; one barrier separates row
// blocks. Blocks of different codes run in one launch: each block reads its code from a
// descriptor (a mixed batch of different Z, base graphs, rates and redundancy versions).
//
// Memory. The 16-bit posteriors P of the block's codewords live in shared memory (at most
// NR_THREADS · 68 · 2 = 52 KB, any Z). A check keeps its c2v compressed as (min1, min2,
// argmin, one sign per edge) in 8 bytes in global memory, read and written once per
// iteration, each thread its own check: coalesced. The base graph's block row (first bit of
// the column and shift of every circulant) is copied into shared memory once; check `lane`
// of block row i meets bit (lane + V) mod Z of block column j, computed, never looked up.
//
// Arithmetic (as the CPU twin, operation for operation): P in i16 (channel LLR + Σ c2v,
// wrapping), diff = P − old c2v, v2c = clamp(diff, ±127), the two smallest |v2c| (the first
// met wins ties), the product of signs (0 counts as positive), the correction (mode 0 none,
// 1 normalised min·k/16 rounded down, 2 offset max(min − β, 0)), then P = diff + new c2v.
// A known bit (a filler bit: its mask bit set) starts at ±known instead of its 8-bit LLR.
//
// Early termination, per codeword: after each iteration but the last, every codeword that is
// still running checks the syndrome of its hard decisions; one that satisfies every check
// freezes (its threads skip the row blocks from then on) while the others of the block go on.

#include "ldpc_nr_qc.cuh"

extern "C" __global__ void __launch_bounds__(NR_THREADS)
ldpc_nr_layered8(const unsigned* __restrict__ codes, const unsigned* __restrict__ graph,
                 const unsigned* __restrict__ blocks, const unsigned* __restrict__ words,
                 const signed char* __restrict__ llr, const unsigned* __restrict__ known_mask,
                 unsigned long long* __restrict__ state, unsigned* __restrict__ hard,
                 unsigned* __restrict__ iterations_run, unsigned* __restrict__ valid,
                 unsigned iterations, unsigned early, unsigned mode, unsigned param) {
    __shared__ unsigned g_s[NR_GRAPH_WORDS];
    __shared__ unsigned ok_s[NR_THREADS];
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

    const unsigned g = tid / z, lane = tid - g * z;
    const bool active = g < count;
    short* p = ps + (size_t)g * n;
    unsigned lloff = 0, hoff = 0, stoff = 0;
    if (active) {
        const unsigned* w = words + NR_WORD_WORDS * (first + g);
        lloff = w[0];
        hoff = w[1];
        stoff = w[2];
        for (unsigned v = lane; v < n; v += z) {
            int x = llr[lloff + v];
            bool k = (known_mask[hoff + v / 32] >> (v % 32)) & 1u;
            p[v] = k ? (x > 0 ? known : (short)-known) : (short)max(-127, x);
        }
        for (unsigned r = 0; r < rows; ++r) state[stoff + (size_t)r * z + lane] = 0ull;
    }
    unsigned long long* st = state + stoff;
    const unsigned* edges = g_s + rows + 1;
    __syncthreads();

    bool done = !active;
    unsigned its = iterations;
    for (unsigned it = 1; it <= iterations; ++it) {
        for (unsigned r = 0; r < rows; ++r) {
            if (!done) nr_row_update(p, st + (size_t)r * z + lane, edges + g_s[r],
                                     g_s[r + 1] - g_s[r], z, lane, mode, param);
            __syncthreads();
        }
        if (early && it < iterations) {
            bool fail = !done && !nr_syndrome_ok(p, g_s, edges, rows, z, lane);
            if (active && lane == 0) ok_s[g] = 1;
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

    // The final decision's syndrome, per codeword.
    bool fail = active && !nr_syndrome_ok(p, g_s, edges, rows, z, lane);
    if (active && lane == 0) ok_s[g] = 1;
    __syncthreads();
    if (fail) ok_s[g] = 0;
    __syncthreads();
    if (active) {
        // Hard decisions, bit v % 32 of word v / 32 of the codeword.
        for (unsigned wi = lane; wi < hw; wi += z) {
            unsigned bits = 0;
            for (unsigned b = 0; b < 32; ++b) {
                unsigned v = wi * 32 + b;
                if (v < n && p[v] < 0) bits |= 1u << b;
            }
            hard[hoff + wi] = bits;
        }
        if (lane == 0) {
            iterations_run[first + g] = its;
            valid[first + g] = ok_s[g];
        }
    }
}
