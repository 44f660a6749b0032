// The batched matrix product of LNS words, C[p, i, j] = Σ_t A[p, i, t] · B[p, t, j], each
// output the fused sum of its exact products rounded once: the GPU twin of Format::matmul
// (src/axis/mod.rs), with lns_exact.cuh's arithmetic term for term. The 128-bit sum is exact,
// so the tiling below (which visits the products in another order than the CPU) gives the
// CPU's word.
//
// Tiling: a block of 256 threads owns a 64 × 64 tile of C, each thread 4 × 4 outputs (rows
// ty + 16·i, columns tx + 16·j, so shared-memory reads are broadcasts or consecutive). K is
// walked in slices of 16 through shared-memory tiles of A (stored k-major) and B. Two passes,
// as the CPU's: the largest finite product code and the specials' flags of every output,
// then the fixed-point terms relative to it. The table of 2^(j/4096) sits in shared memory
// (random reads of it are the terms' only gathers).
//
// Each thread decodes its 4 + 4 values of a slice once and forms the 16 products from them;
// a product with a zero, NaN or ±∞ factor adds no term (outputs that meet a NaN or an
// infinity take their word from the flags alone, as in ax_finish).

#include "lns_exact.cuh"

#define AX_MM_BM 64
#define AX_MM_BN 64
#define AX_MM_BK 16
#define AX_MM_T 16
#define AX_MM_R 4
// The code of a zero, NaN or infinity: below every finite code (≥ −2^30), so that the
// largest product code of finite values is never one of these; their terms are skipped.
#define AX_MM_NONE (-(1 << 30) - 1)
// A top below every product of two finite codes (≥ −2^31): no finite product yet.
#define AX_MM_NO_TOP ((int)0x80000000)
// Slices between flushes of the f64 sums: AX_MM_FLUSH · AX_MM_BK ≤ AX_FAST_TERMS.
#define AX_MM_FLUSH (AX_FAST_TERMS / AX_MM_BK)

// Loads slice k0 of A (rows i0 …) and of B (columns j0 …) into shared memory, zero words
// outside the matrices (products of two zeros past K add nothing; rows and columns past M
// and N are never stored).
template <typename W>
__device__ __forceinline__ void ax_mm_load(const W* __restrict__ a, const W* __restrict__ b, i64 m, i64 kk,
                                           i64 n, i64 i0, i64 j0, i64 k0, unsigned zero,
                                           unsigned (*s_a)[AX_MM_BM + 1], unsigned (*s_b)[AX_MM_BN]) {
    int tid = threadIdx.x;
#pragma unroll
    for (int q = 0; q < AX_MM_BM * AX_MM_BK / 256; q++) {
        int c = tid % AX_MM_BK, r = tid / AX_MM_BK + q * (256 / AX_MM_BK);
        i64 gi = i0 + r, gk = k0 + c;
        s_a[c][r] = gi < m && gk < kk ? (unsigned)a[gi * kk + gk] : zero;
    }
#pragma unroll
    for (int q = 0; q < AX_MM_BN * AX_MM_BK / 256; q++) {
        int c = tid % AX_MM_BN, r = tid / AX_MM_BN + q * (256 / AX_MM_BN);
        i64 gk = k0 + r, gj = j0 + c;
        s_b[r][c] = gk < kk && gj < n ? (unsigned)b[gk * n + gj] : zero;
    }
}

// A word's log code (AX_MM_NONE unless finite), its sign, and whether it is finite. Codes
// of words of at most 32 bits fit 31 bits, their products' codes 32 (ax_product's i64 sum of
// two such codes never leaves the int range), so codes and tops are ints.
__device__ __forceinline__ int ax_mm_code(AxFmt fm, unsigned w, int& neg, int& finite) {
    AxClass c = ax_decode(fm, w);
    neg = c.negative;
    finite = c.kind == 3;
    return finite ? (int)c.log : AX_MM_NONE;
}

// Pass 1 of the product: each output's largest finite product code (top) and the flags of
// its specials (bit 0 NaN, 1 +∞, 2 −∞).
template <typename W>
__device__ __forceinline__ void ax_mm_tops(AxFmt fm, const W* __restrict__ a, const W* __restrict__ b, i64 m,
                                           i64 kk, i64 n, unsigned (*s_a)[AX_MM_BM + 1],
                                           unsigned (*s_b)[AX_MM_BN], int (&top)[AX_MM_R][AX_MM_R],
                                           int (&flags)[AX_MM_R][AX_MM_R]) {
    const int R = AX_MM_R;
    int tx = threadIdx.x % AX_MM_T, ty = threadIdx.x / AX_MM_T;
    i64 i0 = (i64)blockIdx.y * AX_MM_BM, j0 = (i64)blockIdx.x * AX_MM_BN;
    unsigned zero = 1u << (fm.log_bits - 1);
#pragma unroll
    for (int i = 0; i < R; i++)
#pragma unroll
        for (int j = 0; j < R; j++) {
            top[i][j] = AX_MM_NO_TOP;
            flags[i][j] = 0;
        }
    for (i64 k0 = 0; k0 < kk; k0 += AX_MM_BK) {
        __syncthreads();
        ax_mm_load<W>(a, b, m, kk, n, i0, j0, k0, zero, s_a, s_b);
        __syncthreads();
#pragma unroll 4
        for (int t = 0; t < AX_MM_BK; t++) {
            int la[R], lb[R];
            int na, fa[R], fb[R], all = 1;
#pragma unroll
            for (int i = 0; i < R; i++) {
                la[i] = ax_mm_code(fm, s_a[t][ty + AX_MM_T * i], na, fa[i]);
                lb[i] = ax_mm_code(fm, s_b[t][tx + AX_MM_T * i], na, fb[i]);
                all &= fa[i] & fb[i];
            }
            if (all) {
#pragma unroll
                for (int i = 0; i < R; i++)
#pragma unroll
                    for (int j = 0; j < R; j++) {
                        int p = la[i] + lb[j];
                        top[i][j] = p > top[i][j] ? p : top[i][j];
                    }
            } else {
                // A zero, NaN or infinity among them: the products' classes (ax_product).
#pragma unroll
                for (int i = 0; i < R; i++)
#pragma unroll
                    for (int j = 0; j < R; j++) {
                        AxClass p = ax_product(ax_decode(fm, s_a[t][ty + AX_MM_T * i]),
                                               ax_decode(fm, s_b[t][tx + AX_MM_T * j]));
                        if (p.kind == 1) flags[i][j] |= 1;
                        if (p.kind == 2) flags[i][j] |= p.negative ? 4 : 2;
                        if (p.kind == 3 && p.log > top[i][j]) top[i][j] = (int)p.log;
                    }
            }
        }
    }

}

// Pass 2 of the exact product for the outputs whose bit is set in `ok` (bit i·R + j), and
// the words of those in `write` (every output of the thread, or only those of `ok`): the
// terms summed exactly by ax_fast_add and flushed to 128 bits every AX_MM_FLUSH slices, then
// ax_finish from the flags and the sum. Every thread of the block calls it (barriers).
template <typename W, bool POLY>
__device__ __forceinline__ void ax_mm_exact(AxFmt fm, const double* __restrict__ k, const W* __restrict__ a,
                                            const W* __restrict__ b, i64 m, i64 kk, i64 n, W* __restrict__ out,
                                            const double* s_exp, unsigned (*s_a)[AX_MM_BM + 1],
                                            unsigned (*s_b)[AX_MM_BN], const int (&top)[AX_MM_R][AX_MM_R],
                                            const int (&flags)[AX_MM_R][AX_MM_R], unsigned ok, unsigned write) {
    const int R = AX_MM_R;
    int tx = threadIdx.x % AX_MM_T, ty = threadIdx.x / AX_MM_T;
    i64 i0 = (i64)blockIdx.y * AX_MM_BM, j0 = (i64)blockIdx.x * AX_MM_BN;
    unsigned zero = 1u << (fm.log_bits - 1);
    int f = fm.f;
    int sh = f > AX_EXP_TABLE_BITS ? f - AX_EXP_TABLE_BITS : 0;
    double c0 = k[0], c1 = k[1], c2 = k[2];
    // Pass 2: the terms of outputs whose sum is needed (no special, some finite product),
    // summed exactly by ax_fast_add and flushed to 128 bits every AX_MM_FLUSH slices.
    AxFast acc[R][R];
#pragma unroll
    for (int i = 0; i < R; i++)
#pragma unroll
        for (int j = 0; j < R; j++) acc[i][j] = ax_fast_new();
    // Differences top − p up to `near` have kk ≥ AX_FAST_KK and fit an int.
    i64 near64 = (i64)(-AX_FAST_KK) << f;
    unsigned near = (unsigned)(near64 < 0x7fffffff ? near64 : 0x7fffffff);
    int fmask = (int)((1ll << f) - 1);
    if (__syncthreads_or(ok != 0)) {
        int slice = 0;
        for (i64 k0 = 0; k0 < kk; k0 += AX_MM_BK, slice++) {
            __syncthreads();
            ax_mm_load<W>(a, b, m, kk, n, i0, j0, k0, zero, s_a, s_b);
            __syncthreads();
#pragma unroll 2
            for (int t = 0; t < AX_MM_BK; t++) {
                int la[R], lb[R];
                int na[R], nb[R], fa[R], fb[R];
#pragma unroll
                for (int i = 0; i < R; i++) {
                    la[i] = ax_mm_code(fm, s_a[t][ty + AX_MM_T * i], na[i], fa[i]);
                    lb[i] = ax_mm_code(fm, s_b[t][tx + AX_MM_T * i], nb[i], fb[i]);
                    na[i] <<= 31;  // the sign as an f64's sign bit (of the high word)
                    nb[i] <<= 31;
                }
#pragma unroll
                for (int i = 0; i < R; i++)
#pragma unroll
                    for (int j = 0; j < R; j++) {
                        if (fa[i] & fb[j] & (ok >> (i * R + j))) {
                            // top − p < 2^32 (both are products of finite codes), so its
                            // unsigned 32-bit difference is exact; up to `near` the term takes
                            // the f64 path with int arithmetic (kk ≥ −36), else ax_fast_add.
                            int p = la[i] + lb[j];
                            unsigned u = (unsigned)top[i][j] - (unsigned)p;
                            if (u <= near) {
                                int d = -(int)u;
                                double e = ax_exp_frac_at(s_exp, c0, c1, c2, sh, POLY, (u64)(unsigned)(d & fmask));
                                double v = ax_scale(e, d >> f);
                                ax_fast2sum(acc[i][j].hi, acc[i][j].lo,
                                            __hiloint2double(__double2hiint(v) ^ (na[i] ^ nb[j]), __double2loint(v)));
                            } else {
                                i64 d = -(i64)u;
                                double e = ax_exp_frac_at(s_exp, c0, c1, c2, sh, POLY, (u64)(d & ((1ll << f) - 1)));
                                ax_fast_add(acc[i][j], e, d >> f, na[i] != nb[j]);
                            }
                        }
                    }
            }
            if (slice % AX_MM_FLUSH == AX_MM_FLUSH - 1 || k0 + AX_MM_BK >= kk) {
#pragma unroll
                for (int i = 0; i < R; i++)
#pragma unroll
                    for (int j = 0; j < R; j++) ax_fast_flush(acc[i][j]);
            }
        }
    }

#pragma unroll
    for (int i = 0; i < R; i++)
#pragma unroll
        for (int j = 0; j < R; j++) {
            i64 gi = i0 + ty + AX_MM_T * i, gj = j0 + tx + AX_MM_T * j;
            if (gi < m && gj < n && ((write >> (i * R + j)) & 1)) {
                AxFlags fl;
                fl.nan = flags[i][j] & 1;
                fl.pinf = (flags[i][j] >> 1) & 1;
                fl.ninf = (flags[i][j] >> 2) & 1;
                fl.top = top[i][j] == AX_MM_NO_TOP ? AX_I64_MIN : top[i][j];
                out[gi * n + gj] = (W)ax_encode(fm, ax_finish(k, f, fl, acc[i][j].tiny));
            }
        }
}


// The outputs that need a sum (no special, some finite product), bit i·R + j.
__device__ __forceinline__ unsigned ax_mm_needed(const int (&top)[AX_MM_R][AX_MM_R],
                                                 const int (&flags)[AX_MM_R][AX_MM_R]) {
    unsigned ok = 0;
#pragma unroll
    for (int i = 0; i < AX_MM_R; i++)
#pragma unroll
        for (int j = 0; j < AX_MM_R; j++)
            ok |= (unsigned)(flags[i][j] == 0 && top[i][j] != AX_MM_NO_TOP) << (i * AX_MM_R + j);
    return ok;
}

template <typename W, bool POLY>
__device__ void ax_matmul_tiled(AxFmt fm, const double* __restrict__ k, const W* __restrict__ a,
                                const W* __restrict__ b, i64 m, i64 kk, i64 n, W* __restrict__ out,
                                const double* s_exp, unsigned (*s_a)[AX_MM_BM + 1], unsigned (*s_b)[AX_MM_BN]) {
    int top[AX_MM_R][AX_MM_R];
    int flags[AX_MM_R][AX_MM_R];
    ax_mm_tops<W>(fm, a, b, m, kk, n, s_a, s_b, top, flags);
    ax_mm_exact<W, POLY>(fm, k, a, b, m, kk, n, out, s_exp, s_a, s_b, top, flags, ax_mm_needed(top, flags), ~0u);
}

// ax_mm_exact out of line, for the filtered product's rare declined outputs: its registers
// (the 16 outputs' 128-bit sums) then do not limit the filtered pass; it may spill.
template <typename W>
__device__ __noinline__ void ax_mm_exact_declined(AxFmt fm, const double* __restrict__ k, const W* __restrict__ a,
                                                  const W* __restrict__ b, i64 m, i64 kk, i64 n,
                                                  W* __restrict__ out, unsigned (*s_a)[AX_MM_BM + 1],
                                                  unsigned (*s_b)[AX_MM_BN], const int* tops, const int* flgs,
                                                  unsigned declined) {
    int top[AX_MM_R][AX_MM_R], flags[AX_MM_R][AX_MM_R];
    for (int q = 0; q < AX_MM_R * AX_MM_R; q++) {
        top[q / AX_MM_R][q % AX_MM_R] = tops[q];
        flags[q / AX_MM_R][q % AX_MM_R] = flgs[q];
    }
    // F ≤ 12 here: the table's entries are the terms (no polynomial), read from global memory.
    ax_mm_exact<W, false>(fm, k, a, b, m, kk, n, out, k + AX_OFF_EXP, s_a, s_b, top, flags, declined, declined);
}

// Terms below 2^-AX_MM_KK of an output's top count as 2^-AX_MM_KK in the filtered product.
#define AX_MM_KK 60

// The product for formats with F ≤ 12 (lns16), filtered: pass 2 sums each output's terms —
// the exact path's own doubles (the table entries, read from the lane's copy: ax_rep_layout)
// times 2^kk, or 2^-60 below that — in plain f64. With K products of |t| ≤ 1 the sum A is
// within E = K·(K + 2)·2^-53 of the exact integer's value S (recursive summation ≤
// (K − 1)·2^-53·K; terms truncated to the 2^-88 grid or raised to 2^-60 ≤ K·2^-60); where
// |A| ≥ 2^20·E, p = 2^F·log2|A| is within 2^F·(1.5·E/|A| + 2^-47) of the value the exact path
// rounds (as ax_row_sum_filtered), and where p is further than that from a half-integer the
// word is the exact path's. The outputs it declines (cancelling sums, near-ties) are summed
// exactly by a third pass, out of line, in the blocks that have any.
template <typename W, int FC, int LC>
__device__ __forceinline__ void ax_matmul_filtered(AxFmt fm, const double* __restrict__ k,
                                                   const W* __restrict__ a, const W* __restrict__ b, i64 m,
                                                   i64 kk, i64 n, W* __restrict__ out, double* rep,
                                                   unsigned (*s_a)[AX_MM_BM + 1], unsigned (*s_b)[AX_MM_BN]) {
    if (FC) {
        fm.f = FC;
        fm.log_bits = LC;
    }
    ax_rep_table(k, fm.f, rep);
    const int R = AX_MM_R;
    int top[R][R];
    int flags[R][R];
    ax_mm_tops<W>(fm, a, b, m, kk, n, s_a, s_b, top, flags);
    unsigned ok = ax_mm_needed(top, flags);
    int tx = threadIdx.x % AX_MM_T, ty = threadIdx.x / AX_MM_T;
    i64 i0 = (i64)blockIdx.y * AX_MM_BM, j0 = (i64)blockIdx.x * AX_MM_BN;
    unsigned zero = 1u << (fm.log_bits - 1);
    int f = fm.f;
    AxRep tl = ax_rep_layout(f);
    unsigned lane_copy = threadIdx.x & ((1u << tl.rbits) - 1);
    int up = 32 - fm.log_bits;
    int special = -(1 << (fm.log_bits - 1));
    unsigned umax = (unsigned)(AX_MM_KK << f);
    unsigned fmask = (1u << f) - 1;
    double sum[R][R];
#pragma unroll
    for (int i = 0; i < R; i++)
#pragma unroll
        for (int j = 0; j < R; j++) sum[i][j] = 0.0;
    if (__syncthreads_or(ok != 0)) {
        for (i64 k0 = 0; k0 < kk; k0 += AX_MM_BK) {
            __syncthreads();
            ax_mm_load<W>(a, b, m, kk, n, i0, j0, k0, zero, s_a, s_b);
            __syncthreads();
#pragma unroll 2
            for (int t = 0; t < AX_MM_BK; t++) {
                int la[R], lb[R];
                int na[R], nb[R], fa[R], fb[R];
#pragma unroll
                for (int i = 0; i < R; i++) {
                    // ax_mm_code in 32-bit operations: the log field sign-extended, the sign
                    // moved to bit 31, finite unless the code is the zero/NaN or the ∞ one.
                    unsigned wa = s_a[t][ty + AX_MM_T * i], wb = s_b[t][tx + AX_MM_T * i];
                    la[i] = (int)(wa << up) >> up;
                    lb[i] = (int)(wb << up) >> up;
                    na[i] = (int)((wa >> fm.log_bits) << 31);
                    nb[i] = (int)((wb >> fm.log_bits) << 31);
                    fa[i] = la[i] != special && la[i] != -special - 1;
                    fb[i] = lb[i] != special && lb[i] != -special - 1;
                }
                // Every product of the step finite and every output needed (the common case):
                // no test per product.
                int all = ok == 0xffffu;
#pragma unroll
                for (int i = 0; i < R; i++) all &= fa[i] & fb[i];
                // top − p < 2^32 (products of finite codes): exact as unsigned; lns16's codes
                // (FC) are small enough for the signed difference.
#define AX_MM_TERM(i, j)                                                                              \
    {                                                                                                 \
        int d = FC ? max(la[i] + lb[j] - top[i][j], -(int)umax)                                       \
                   : -(int)min((unsigned)top[i][j] - (unsigned)(la[i] + lb[j]), umax);                \
        double e = rep[(((unsigned)d & fmask) << tl.rbits) | lane_copy];                              \
        int hi = (__double2hiint(e) + ((d >> f) << 20)) ^ (na[i] ^ nb[j]);                            \
        sum[i][j] = __dadd_rn(sum[i][j], __hiloint2double(hi, __double2loint(e)));                    \
    }
                if (all) {
#pragma unroll
                    for (int i = 0; i < R; i++)
#pragma unroll
                        for (int j = 0; j < R; j++) AX_MM_TERM(i, j)
                } else {
#pragma unroll
                    for (int i = 0; i < R; i++)
#pragma unroll
                        for (int j = 0; j < R; j++)
                            if (fa[i] & fb[j] & (ok >> (i * R + j))) AX_MM_TERM(i, j)
                }
#undef AX_MM_TERM
            }
        }
    }
    const double magic = 6755399441055744.0;  // 1.5·2^52
    double kd = (double)kk;
    double err = __dmul_rn(__dmul_rn(kd, __dadd_rn(kd, 2.0)), ax_pow2(-53));
    unsigned declined = 0;
#pragma unroll
    for (int i = 0; i < R; i++)
#pragma unroll
        for (int j = 0; j < R; j++) {
            i64 gi = i0 + ty + AX_MM_T * i, gj = j0 + tx + AX_MM_T * j;
            bool need = (ok >> (i * R + j)) & 1;
            bool good = false;
            AxClass c;
            if (need) {
                double av = fabs(sum[i][j]);
                bool big = av >= __dmul_rn(err, ax_pow2(20));
                i64 e;
                double lm = ax_log2_split(k, big ? av : 1.0, &e);
                double ef = __dsub_rn(__hiloint2double(0x43300000, (int)(e << f) ^ (int)0x80000000),
                                      4503601774854144.0);
                double p = __fma_rn(lm, ax_pow2(f), ef);
                double nn = __dadd_rn(p, magic);
                double half = fabs(fabs(__dsub_rn(p, __dsub_rn(nn, magic))) - 0.5);
                good = big && __dmul_rn(half, av) > __dmul_rn(ax_pow2(f), __fma_rn(av, ax_pow2(-47), __dmul_rn(1.5, err)));
                c.kind = 3;
                c.negative = sum[i][j] < 0.0;
                c.log = (i64)top[i][j] + __double2loint(nn);
                declined |= (unsigned)!good << (i * R + j);
            }
            if (gi < m && gj < n && (good || !need)) {
                if (!need) {
                    // No sum: the class from the flags alone (ax_finish with no term).
                    AxFlags fl;
                    fl.nan = flags[i][j] & 1;
                    fl.pinf = (flags[i][j] >> 1) & 1;
                    fl.ninf = (flags[i][j] >> 2) & 1;
                    fl.top = top[i][j] == AX_MM_NO_TOP ? AX_I64_MIN : top[i][j];
                    Ax128 none = {0, 0};
                    c = ax_finish(k, f, fl, none);
                }
                out[gi * n + gj] = (W)ax_encode(fm, c);
            }
        }
    if (__syncthreads_or(declined != 0)) {
        int tops[R * R], flgs[R * R];
#pragma unroll
        for (int q = 0; q < R * R; q++) {
            tops[q] = top[q / R][q % R];
            flgs[q] = flags[q / R][q % R];
        }
        ax_mm_exact_declined<W>(fm, k, a, b, m, kk, n, out, s_a, s_b, tops, flgs, declined);
    }
}

// lns16 with F and the log field compiled in, other formats with F ≤ 12 from fm.
template <typename W>
__device__ void ax_matmul_filtered_entry(AxFmt fm, const double* __restrict__ k, const W* __restrict__ a,
                                         const W* __restrict__ b, i64 m, i64 kk, i64 n, W* __restrict__ out) {
    __shared__ double s_rep[1 << AX_EXP_TABLE_BITS];
    __shared__ unsigned s_a[AX_MM_BK][AX_MM_BM + 1];
    __shared__ unsigned s_b[AX_MM_BK][AX_MM_BN];
    i64 p = blockIdx.z;
    a += p * m * kk;
    b += p * kk * n;
    out += p * m * n;
    if (fm.f == 10 && fm.log_bits == 15) ax_matmul_filtered<W, 10, 15>(fm, k, a, b, m, kk, n, out, s_rep, s_a, s_b);
    else ax_matmul_filtered<W, 0, 0>(fm, k, a, b, m, kk, n, out, s_rep, s_a, s_b);
}

template <typename W>
__device__ void ax_matmul_entry(AxFmt fm, const double* __restrict__ k, const W* __restrict__ a,
                                const W* __restrict__ b, i64 m, i64 kk, i64 n, W* __restrict__ out) {
    __shared__ double s_exp[1 << AX_EXP_TABLE_BITS];
    __shared__ unsigned s_a[AX_MM_BK][AX_MM_BM + 1];  // padded: the k-major stores hit distinct banks
    __shared__ unsigned s_b[AX_MM_BK][AX_MM_BN];
    int f = fm.f;
    int entries = 1 << (f < AX_EXP_TABLE_BITS ? f : AX_EXP_TABLE_BITS);
    for (int i = threadIdx.x; i < entries; i += blockDim.x) s_exp[i] = k[AX_OFF_EXP + i];
    i64 p = blockIdx.z;
    const W* ap = a + p * m * kk;
    const W* bp = b + p * kk * n;
    W* op = out + p * m * n;
    // ax_mm_load's first __syncthreads orders the table's stores before any read.
    if (f > AX_EXP_TABLE_BITS) {
        ax_matmul_tiled<W, true>(fm, k, ap, bp, m, kk, n, op, s_exp, s_a, s_b);
    } else {
        ax_matmul_tiled<W, false>(fm, k, ap, bp, m, kk, n, op, s_exp, s_a, s_b);
    }
}

extern "C" __global__ void __launch_bounds__(256, 1)
lns_axis_matmul_tiled(AxFmt fm, const double* __restrict__ k, const unsigned* __restrict__ a,
                      const unsigned* __restrict__ b, i64 m, i64 kk, i64 n, unsigned* __restrict__ out) {
    ax_matmul_entry<unsigned>(fm, k, a, b, m, kk, n, out);
}

extern "C" __global__ void __launch_bounds__(256, 1)
lns_axis_matmul_tiled_u16(AxFmt fm, const double* __restrict__ k, const unsigned short* __restrict__ a,
                          const unsigned short* __restrict__ b, i64 m, i64 kk, i64 n,
                          unsigned short* __restrict__ out) {
    ax_matmul_entry<unsigned short>(fm, k, a, b, m, kk, n, out);
}

// Formats with F ≤ 12 (lns16): the filtered product (ax_matmul_filtered), 2 blocks per SM.
extern "C" __global__ void __launch_bounds__(256, 2)
lns_axis_matmul_filtered(AxFmt fm, const double* __restrict__ k, const unsigned* __restrict__ a,
                         const unsigned* __restrict__ b, i64 m, i64 kk, i64 n, unsigned* __restrict__ out) {
    ax_matmul_filtered_entry<unsigned>(fm, k, a, b, m, kk, n, out);
}

extern "C" __global__ void __launch_bounds__(256, 2)
lns_axis_matmul_filtered_u16(AxFmt fm, const double* __restrict__ k, const unsigned short* __restrict__ a,
                             const unsigned short* __restrict__ b, i64 m, i64 kk, i64 n,
                             unsigned short* __restrict__ out) {
    ax_matmul_filtered_entry<unsigned short>(fm, k, a, b, m, kk, n, out);
}
