// The quasi-cyclic primitives of the 5G NR layered decoder (ldpc_nr_layered8.cu): the tables'
// layout, one check's layered update with compressed check state, and one lane's syndrome.
// The host writes the tables (crates/ldpc/src/gpu/nr_layout.rs); the constants below must
// match it.
#pragma once

// Threads per block: Z = 384 lanes of one codeword, or 384 / Z codewords of a smaller Z.
#define NR_THREADS 384
// The most circulants in a block row (BG1's core rows have 19).
#define NR_MAX_DEGREE 19
// Shared words for one code's graph: rows + 1 row starts, then the edges (BG1: 47 + 316).
#define NR_GRAPH_WORDS 512

// One code's entry in the code table, NR_CODE_WORDS words.
#define NR_CODE_WORDS 8
#define NR_CODE_Z 0
#define NR_CODE_ROWS 1
#define NR_CODE_N 2
#define NR_CODE_HARD_WORDS 3
#define NR_CODE_KNOWN 4
#define NR_CODE_GRAPH_OFFSET 5
#define NR_CODE_GRAPH_LEN 6

// One block's descriptor: code, codewords, index of its first codeword.
#define NR_BLOCK_WORDS 4
// One codeword's offsets: LLRs (bytes), hard decisions and known mask (words), check state.
#define NR_WORD_WORDS 4

__device__ __forceinline__ int nr_correct(int m, unsigned mode, unsigned param) {
    if (mode == 1) return (m * (int)param) >> 4;
    if (mode == 2) return max(m - (int)param, 0);
    return m;
}

// Check `lane` of one block row: its d circulants are `edge[j]` = column · Z << 16 | shift, its
// state *st = min1 | min2 << 8 | argmin << 16 | signs << 32 (corrected magnitudes, so that
// edge j's c2v is ±(j == argmin ? min2 : min1)).
__device__ __forceinline__ void nr_row_update(short* __restrict__ p, unsigned long long* st,
                                              const unsigned* edge, unsigned d, unsigned z,
                                              unsigned lane, unsigned mode, unsigned param) {
    const unsigned long long s = *st;
    const int m1 = (int)(s & 0xff), m2 = (int)((s >> 8) & 0xff), am = (int)((s >> 16) & 0xff);
    const unsigned signs = (unsigned)(s >> 32);
    int diff[NR_MAX_DEGREE];
    unsigned bit[NR_MAX_DEGREE];
    int min1 = 127, min2 = 127, at = 255;
    unsigned sgn = 0;
#pragma unroll
    for (int j = 0; j < NR_MAX_DEGREE; ++j) {
        if (j < (int)d) {
            const unsigned e = edge[j];
            unsigned idx = lane + (e & 0xffffu);
            if (idx >= z) idx -= z;
            bit[j] = (e >> 16) + idx;
            const int mag = j == am ? m2 : m1;
            const int old = (signs >> j) & 1u ? -mag : mag;
            const short df = (short)(p[bit[j]] - old);
            diff[j] = df;
            const int x = max(-127, min(127, (int)df));
            const int a = abs(x);
            const bool below = a < min1;
            min2 = below ? min1 : min(min2, a);
            min1 = min(min1, a);
            at = below ? j : at;
            sgn ^= x < 0;
        }
    }
    min1 = nr_correct(min1, mode, param);
    min2 = nr_correct(min2, mode, param);
    unsigned out_signs = 0;
#pragma unroll
    for (int j = 0; j < NR_MAX_DEGREE; ++j) {
        if (j < (int)d) {
            // v2c = clamp(diff) has diff's sign.
            const unsigned neg = sgn ^ (diff[j] < 0);
            const int mag = j == at ? min2 : min1;
            out_signs |= neg << j;
            p[bit[j]] = (short)(diff[j] + (neg ? -mag : mag));
        }
    }
    *st = (unsigned long long)min1 | ((unsigned long long)min2 << 8) |
          ((unsigned long long)(at & 0xff) << 16) | ((unsigned long long)out_signs << 32);
}

// Whether check `lane` of every block row is satisfied by the hard decisions P < 0.
__device__ __forceinline__ bool nr_syndrome_ok(const short* __restrict__ p, const unsigned* row_start,
                                               const unsigned* edges, unsigned rows, unsigned z,
                                               unsigned lane) {
    for (unsigned r = 0; r < rows; ++r) {
        unsigned parity = 0;
        for (unsigned e = row_start[r]; e < row_start[r + 1]; ++e) {
            const unsigned ed = edges[e];
            unsigned idx = lane + (ed & 0xffffu);
            if (idx >= z) idx -= z;
            parity ^= p[(ed >> 16) + idx] < 0;
        }
        if (parity) return false;
    }
    return true;
}
