// The quasi-cyclic 5G NR layered decoder shared by its two kernels (ldpc_nr_layered8.cu, one
// check lane per thread; ldpc_nr_layered8x2.cu, two): the tables' layout, one check's layered
// update with compressed check state, the same for two lanes packed in a word, one lane's
// syndrome, and the decoder's body.
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

// The one-lane update (ldpc_nr_layered8.cu). Its posteriors never wrap: every P is the
// channel value plus the column's c2v (|c2v| ≤ 127), and a known bit starts at
// ±(32767 − 127 · the largest column degree), so |P| ≤ 32767 and |P − c2v| < 32767; the CPU
// twin's 16-bit wrapping sums therefore equal these 32-bit ones.

// One circulant of a block row as the one-lane update reads it (built in shared memory from
// the graph), byte-scaled: `col` = 2 · the column's first bit, `sh` = 2 · shift. Check lane
// `lane` meets byte col + min(2·lane + sh, 2·lane + sh − 2·Z) (unsigned: the second is the
// smaller exactly when lane + shift ≥ Z).
struct NrEdge {
    unsigned col, sh;
};

// One block row as the one-lane update reads it: its first circulant in the NrEdge table,
// which straight-line copy runs it (nr_row_case) and its degree.
struct __align__(16) NrRow {
    unsigned first, which, d, unused;
};

// The straight-line copies: degrees 3 to 10 and 19 (every row of both base graphs), then the
// general loop.
__device__ __forceinline__ unsigned nr_row_case(unsigned d) {
    return d >= 3 && d <= 10 ? d - 3 : d == 19 ? 8u : 9u;
}

// Shared-memory 16-bit load (sign-extended) and store at a shared-window byte address: the
// address arithmetic stays as written (a generic pointer lets the compiler split it).
__device__ __forceinline__ int nr_lds(unsigned addr) {
    int v;
    asm volatile("ld.shared.s16 %0, [%1];" : "=r"(v) : "r"(addr));
    return v;
}
__device__ __forceinline__ void nr_sts(unsigned addr, int v) {
    asm volatile("st.shared.u16 [%0], %1;" ::"r"(addr), "r"(v) : "memory");
}

// The correction of a minimum: max(⌊m · mul / 16⌋ − off, 0); mode 0 is mul 16, off 0; mode 1
// (normalised) mul k, off 0; mode 2 (offset) mul 16, off β — nr_correct without branches.
__device__ __forceinline__ int nr_correct2(int m, int mul, int off) {
    return max(((m * mul) >> 4) - off, 0);
}

// −1 when x < 0, else 0, on the multiply pipe (the high word of 2x): the integer ALU pipe,
// half as wide as the issue rate, is what bounds this kernel, so sign work goes to the
// multiplier where it can.
__device__ __forceinline__ int nr_neg_mask(int x) {
    return __mulhi(x, 2);
}

// Edge j of a check, first pass: reads P at the circulant's bit (`base`: the codeword's
// posteriors, shared window; `lane2` = 2 · lane), rebuilds the old c2v from the check state,
// keeps diff = P − old and folds |diff| into the two smallest keys.
// Key = |diff| · 32 + j: the smaller magnitude wins, the first edge met on a tie, and the
// argmin rides in the low five bits; the keys start at 127 · 32 + 31, so that magnitudes
// clamp at 127 as the CPU twin's clamp(diff, ±127) does (when the smallest clamped magnitude
// is 127, both minima are 127 and which edge is the argmin does not change a message).
template <int J>
__device__ __forceinline__ void nr_edge_first(unsigned base, NrEdge e, unsigned lane2,
                                              unsigned nz2, int c64, int m1, int m2,
                                              unsigned am, unsigned signs, unsigned& addr,
                                              int& diff, unsigned& k1, unsigned& k2, int& sgn) {
    const unsigned x = lane2 + e.sh;
    addr = base + e.col + __viaddmin_u32(x, nz2, x);  // min(x − 2Z, x), one instruction
    const int pv = nr_lds(addr);
    const int mag = am == (unsigned)J ? m2 : m1;
    const int df = (signs >> J) & 1u ? pv + mag : pv - mag;
    diff = df;
    // |df| · 32 + j as df · (±32) + j, multiplies all (c64 = 64 in a register, so that the
    // compiler does not turn the multiply into a shift on the integer pipe).
    const int f32 = nr_neg_mask(df) * c64 + 32;
    const unsigned key = (unsigned)(df * f32 + J);
    k2 = min(k2, max(k1, key));
    k1 = min(k1, key);
    sgn ^= df;
}

// Edge j, second pass: P = diff + new c2v, the c2v's sign σ = ±1 the product of the other
// edges' signs (`fs` = ±1 the product of all, so σ = fs · sign(diff) = t · 2fs + fs with
// t = −1 for a negative diff), and −σ · 2^j into `out2` (the state's sign bits, doubled and
// offset: nr_row_edges undoes it).
template <int J>
__device__ __forceinline__ void nr_edge_second(unsigned addr, int diff, unsigned at, int min1,
                                               int min2, int fs, int& out2) {
    const int sigma = nr_neg_mask(diff) * (2 * fs) + fs;
    const int mag = at == (unsigned)J ? min2 : min1;
    out2 += sigma * -(1 << J);
    nr_sts(addr, mag * sigma + diff);
}

// The D edges of one check (D known at compile time); `s` its state
// min1 | min2 << 8 | argmin << 16 | signs << 32 (corrected magnitudes, so that edge j's old
// c2v is ±(j == argmin ? min2 : min1)). Returns the new state.
template <int D>
__device__ __forceinline__ unsigned long long nr_row_edges(unsigned base, const NrEdge* edge,
                                                           unsigned lane2,
                                                           unsigned nz2, unsigned long long s,
                                                           int mul, int off, int c64) {
    const int m1 = (int)(s & 0xff), m2 = (int)((s >> 8) & 0xff);
    const unsigned am = (unsigned)(s >> 16) & 0xffu, signs = (unsigned)(s >> 32);
    unsigned addr[D];
    int diff[D];
    unsigned k1 = 127u << 5 | 31u, k2 = 127u << 5 | 31u;
    int sgn = 0;
#define NR_HAS(J) (J < D)
#define NR_FIRST(J) \
    if (NR_HAS(J)) nr_edge_first<J>(base, edge[J], lane2, nz2, c64, m1, m2, am, signs, addr[J], diff[J], k1, k2, sgn);
    NR_FIRST(0) NR_FIRST(1) NR_FIRST(2) NR_FIRST(3) NR_FIRST(4) NR_FIRST(5) NR_FIRST(6)
    NR_FIRST(7) NR_FIRST(8) NR_FIRST(9) NR_FIRST(10) NR_FIRST(11) NR_FIRST(12) NR_FIRST(13)
    NR_FIRST(14) NR_FIRST(15) NR_FIRST(16) NR_FIRST(17) NR_FIRST(18)
#undef NR_FIRST
    const int min1 = nr_correct2((int)(k1 >> 5), mul, off);
    const int min2 = nr_correct2((int)(k2 >> 5), mul, off);
    const unsigned at = k1 & 31u;
    const int fs = nr_neg_mask(sgn) * 2 + 1;
    int out2 = 0;
#define NR_SECOND(J) \
    if (NR_HAS(J)) nr_edge_second<J>(addr[J], diff[J], at, min1, min2, fs, out2);
    NR_SECOND(0) NR_SECOND(1) NR_SECOND(2) NR_SECOND(3) NR_SECOND(4) NR_SECOND(5) NR_SECOND(6)
    NR_SECOND(7) NR_SECOND(8) NR_SECOND(9) NR_SECOND(10) NR_SECOND(11) NR_SECOND(12)
    NR_SECOND(13) NR_SECOND(14) NR_SECOND(15) NR_SECOND(16) NR_SECOND(17) NR_SECOND(18)
#undef NR_SECOND
#undef NR_HAS
    // Σ (1 − σ_j) · 2^j = 2 · the sign bits.
    const unsigned out = (unsigned)((int)((1u << D) - 1u) + out2) >> 1;
    return (unsigned long long)((unsigned)min1 | (unsigned)min2 << 8 | at << 16) |
           (unsigned long long)out << 32;
}

// nr_row_edges for any degree d ≤ NR_MAX_DEGREE, one edge at a time (the addresses and
// differences in local memory): the rows whose degree has no straight-line copy, which no
// base graph has. Kept out of registers so that it costs the straight-line copies none.
__device__ __noinline__ unsigned long long nr_row_any(unsigned base, const NrEdge* edge,
                                                      unsigned d, unsigned lane2,
                                                      unsigned nz2, unsigned long long s,
                                                      int mul, int off) {
    const int m1 = (int)(s & 0xff), m2 = (int)((s >> 8) & 0xff);
    const unsigned am = (unsigned)(s >> 16) & 0xffu, signs = (unsigned)(s >> 32);
    unsigned addr[NR_MAX_DEGREE];
    int diff[NR_MAX_DEGREE];
    unsigned k1 = 127u << 5 | 31u, k2 = 127u << 5 | 31u;
    int sgn = 0;
#pragma unroll 1
    for (unsigned j = 0; j < d; ++j) {
        const NrEdge e = edge[j];
        const unsigned x = lane2 + e.sh;
        addr[j] = base + e.col + min(x + nz2, x);
        const int pv = nr_lds(addr[j]);
        const int mag = am == j ? m2 : m1;
        const int df = (signs >> j) & 1u ? pv + mag : pv - mag;
        diff[j] = df;
        const unsigned key = ((unsigned)abs(df) << 5) | j;
        k2 = min(k2, max(k1, key));
        k1 = min(k1, key);
        sgn ^= df;
    }
    const int min1 = nr_correct2((int)(k1 >> 5), mul, off);
    const int min2 = nr_correct2((int)(k2 >> 5), mul, off);
    const unsigned at = k1 & 31u;
    unsigned out = 0;
#pragma unroll 1
    for (unsigned j = 0; j < d; ++j) {
        const int t = (sgn ^ diff[j]) >> 31;  // 0 or −1: the new c2v is negative
        const int mag = at == j ? min2 : min1;
        out |= (unsigned)t & (1u << j);
        nr_sts(addr[j], diff[j] + ((mag ^ t) - t));
    }
    return (unsigned long long)((unsigned)min1 | (unsigned)min2 << 8 | at << 16) |
           (unsigned long long)out << 32;
}

// Check `lane` of one block row: the row's straight-line copy (no test per edge, so that the
// compiler schedules the loads freely), or the general loop for degrees no base graph has.
__device__ __forceinline__ unsigned long long nr_row_update(unsigned base, const NrEdge* edge,
                                                            unsigned which, unsigned d,
                                                            unsigned lane2, unsigned nz2,
                                                            unsigned long long s, int mul,
                                                            int off, int c64) {
    switch (which) {
    case 0: return nr_row_edges<3>(base, edge, lane2, nz2, s, mul, off, c64);
    case 1: return nr_row_edges<4>(base, edge, lane2, nz2, s, mul, off, c64);
    case 2: return nr_row_edges<5>(base, edge, lane2, nz2, s, mul, off, c64);
    case 3: return nr_row_edges<6>(base, edge, lane2, nz2, s, mul, off, c64);
    case 4: return nr_row_edges<7>(base, edge, lane2, nz2, s, mul, off, c64);
    case 5: return nr_row_edges<8>(base, edge, lane2, nz2, s, mul, off, c64);
    case 6: return nr_row_edges<9>(base, edge, lane2, nz2, s, mul, off, c64);
    case 7: return nr_row_edges<10>(base, edge, lane2, nz2, s, mul, off, c64);
    case 8: return nr_row_edges<19>(base, edge, lane2, nz2, s, mul, off, c64);
    default: return nr_row_any(base, edge, d, lane2, nz2, s, mul, off);
    }
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

// nr_syndrome_ok for the one-lane kernel: the bits addressed as its row update addresses them
// (byte-scaled circulants, one add-and-min for the wrap) and the parity as the sign bit of the
// XOR of the posteriors, about 6 instructions per edge against the generic loop's 10 (it runs
// once per launch, and after every iteration with early termination).
__device__ __forceinline__ bool nr_syndrome_ok_lane(unsigned base, const NrEdge* edge,
                                                    const NrRow* row, unsigned rows,
                                                    unsigned lane2, unsigned nz2) {
    for (unsigned r = 0; r < rows; ++r) {
        const NrRow w = row[r];
        int parity = 0;
        const NrEdge* e = edge + w.first;
        for (const NrEdge* end = e + w.d; e != end; ++e) {
            const unsigned x = lane2 + e->sh;
            parity ^= nr_lds(base + e->col + __viaddmin_u32(x, nz2, x));
        }
        if (parity < 0) return false;
    }
    return true;
}

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
        if (j >= (int)d) break;  // d is uniform: one exit, no test per missing edge
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
        if (j >= (int)d) break;  // d is uniform: one exit, no test per missing edge
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
    st[a] = (unsigned long long)(min1 & 0xffu) | (unsigned long long)(min2 & 0xffu) << 8 |
            (unsigned long long)(at & 0xffu) << 16 | (unsigned long long)out0 << 32;
    if (has_b)
        st[a + 1] = (unsigned long long)(min1 >> 16) | (unsigned long long)(min2 >> 16) << 8 |
                    (unsigned long long)(at >> 16) << 16 | (unsigned long long)out1 << 32;
}

// The whole decoder, L check lanes per thread (1: nr_row_update; 2: nr_row_update_pair),
// NR_THREADS / L threads per block; the entry points of ldpc_nr_layered8.cu (L = 1) and
// ldpc_nr_layered8x2.cu (L = 2) instantiate it. Thread t of codeword g works on lanes
// L·t .. L·t + L − 1 (those below Z).
template <int L>
__device__ __forceinline__ void nr_layered(
    const unsigned* __restrict__ codes, const unsigned* __restrict__ graph,
    const unsigned* __restrict__ blocks, const unsigned* __restrict__ words,
    const signed char* __restrict__ llr, const unsigned* __restrict__ known_mask,
    unsigned long long* __restrict__ state, unsigned* __restrict__ hard,
    unsigned* __restrict__ iterations_run, unsigned* __restrict__ valid, unsigned iterations,
    unsigned early, unsigned mode, unsigned param) {
    __shared__ unsigned g_s[NR_GRAPH_WORDS];
    __shared__ unsigned ok_s[NR_THREADS / L];
    __shared__ NrEdge e_s[L == 1 ? NR_GRAPH_WORDS : 1];
    __shared__ NrRow r_s[L == 1 ? NR_GRAPH_WORDS / 8 : 1];
    // Constants the row update takes from registers the compiler cannot fold (they are read
    // from shared memory): 64 (nr_edge_first) and −2Z (so that min(x − 2Z, x) stays one
    // add-and-min instruction).
    __shared__ int c64_s;
    __shared__ unsigned nz2_s;
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
    if (tid == 0) {
        c64_s = 64 + (int)(mode >> 8);  // mode < 3: 64
        nz2_s = 0u - 2u * z;
    }
    if (L == 1) {
        // The one-lane update's circulants, byte-scaled (no multiply or shift per edge), and
        // its rows.
        for (unsigned i = tid; i + rows + 1 < glen; i += nt) {
            const unsigned e = graph[goff + rows + 1 + i];
            e_s[i] = NrEdge{2u * (e >> 16), 2u * (e & 0xffffu)};
        }
        for (unsigned r = tid; r < rows; r += nt) {
            const unsigned f = graph[goff + r];
            const unsigned d = graph[goff + r + 1] - f;
            r_s[r] = NrRow{f, nr_row_case(d), d, 0u};
        }
    }

    const unsigned tw = (z + L - 1) / L;  // threads per codeword
    const unsigned g = tid / tw, t = tid - g * tw, a = L * t;
    const bool active = g < count, has_b = L == 2 && a + 1 < z;
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
    // This lane's byte address in the posteriors (shared window), its check states, and
    // the correction's multiplier and offset (nr_correct2).
    const unsigned pbase = (unsigned)__cvta_generic_to_shared(p);
    unsigned long long* const sl = st + a;
    const int mul = mode == 1 ? (int)param : 16, off = mode == 2 ? (int)param : 0;
    const int c64 = c64_s;
    const unsigned nz2 = nz2_s;
    // Whether this thread's check lanes are all satisfied by the hard decisions.
    auto syndrome_ok = [&]() {
        if (L == 1) return nr_syndrome_ok_lane(pbase, e_s, r_s, rows, 2u * a, nz2);
        return nr_syndrome_ok(p, g_s, edges, rows, z, a) &&
               (!has_b || nr_syndrome_ok(p, g_s, edges, rows, z, a + 1));
    };
    for (unsigned it = 1; it <= iterations; ++it) {
        unsigned long long* srow = sl;
        // The next row's check state, loaded one row ahead (only this thread writes it).
        unsigned long long s_next = L == 1 && !done ? *sl : 0ull;
        for (unsigned r = 0; r < rows; ++r) {
            if (!done) {
                if (L == 1) {
                    const NrRow row = r_s[r];
                    const unsigned long long s = s_next;
                    if (r + 1 < rows) s_next = srow[z];
                    const NrEdge* edge = e_s + row.first;
                    *srow = nr_row_update(pbase, edge, row.which, row.d, 2u * a, nz2, s,
                                          mul, off, c64);
                    srow += z;
                } else {
                    const unsigned d = g_s[r + 1] - g_s[r];
                    nr_row_update_pair(p, st + (size_t)r * z, edges + g_s[r], d, z, a, has_b,
                                       mode, param);
                }
            }
            __syncthreads();
        }
        if (early && it < iterations) {
            bool fail = !done && !syndrome_ok();
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

    // The final decision's syndrome, per codeword.
    bool fail = active && !syndrome_ok();
    if (active && t == 0) ok_s[g] = 1;
    __syncthreads();
    if (fail) ok_s[g] = 0;
    __syncthreads();
    if (active) {
        // Hard decisions, bit v % 32 of word v / 32 of the codeword.
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

// The parameters of both entry points.
#define NR_KERNEL_PARAMS                                                                         \
    const unsigned *__restrict__ codes, const unsigned *__restrict__ graph,                      \
        const unsigned *__restrict__ blocks, const unsigned *__restrict__ words,                 \
        const signed char *__restrict__ llr, const unsigned *__restrict__ known_mask,            \
        unsigned long long *__restrict__ state, unsigned *__restrict__ hard,                     \
        unsigned *__restrict__ iterations_run, unsigned *__restrict__ valid, unsigned iterations, \
        unsigned early, unsigned mode, unsigned param
#define NR_KERNEL_ARGS                                                                            \
    codes, graph, blocks, words, llr, known_mask, state, hard, iterations_run, valid, iterations, \
        early, mode, param
