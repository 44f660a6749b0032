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

// The term 2^(d·2^-F) as fixed point (ax_term) with the table in shared memory and the
// polynomial's coefficients in registers; POLY false when F ≤ the table's bits (no
// remainder: exp_frac is the table entry, fma(t, 0·q, t) = t).
template <bool POLY>
__device__ __forceinline__ Ax128 ax_mm_term(const double* s_exp, double c0, double c1, double c2, int f,
                                            int sh, i64 d) {
    i64 kk = d >> f;
    u64 frac = (u64)(d & ((1ll << f) - 1));
    double t = s_exp[frac >> sh];
    if (POLY) {
        double r = (double)(frac & ((1ull << sh) - 1));
        double q = __fma_rn(r, __fma_rn(r, c2, c1), c0);
        t = __fma_rn(t, __dmul_rn(r, q), t);
    }
    u64 bits = (u64)__double_as_longlong(t);
    i64 e = (i64)((bits >> 52) & 0x7ff) - 1023;
    u64 mant = (bits & ((1ull << 52) - 1)) | (1ull << 52);
    i64 shift = kk + e + AX_FIX_BITS - 52;
    Ax128 r;
    if (shift >= 64) {
        r.lo = 0;
        r.hi = mant << (shift - 64);
    } else if (shift > 0) {
        r.lo = mant << shift;
        r.hi = mant >> (64 - shift);
    } else if (shift == 0) {
        r.lo = mant;
        r.hi = 0;
    } else if (shift > -64) {
        r.lo = mant >> (-shift);
        r.hi = 0;
    } else {
        r.lo = 0;
        r.hi = 0;
    }
    return r;
}

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

template <typename W, bool POLY>
__device__ void ax_matmul_tiled(AxFmt fm, const double* __restrict__ k, const W* __restrict__ a,
                                const W* __restrict__ b, i64 m, i64 kk, i64 n, W* __restrict__ out,
                                const double* s_exp, unsigned (*s_a)[AX_MM_BM + 1], unsigned (*s_b)[AX_MM_BN]) {
    const int R = AX_MM_R;
    int tx = threadIdx.x % AX_MM_T, ty = threadIdx.x / AX_MM_T;
    i64 i0 = (i64)blockIdx.y * AX_MM_BM, j0 = (i64)blockIdx.x * AX_MM_BN;
    unsigned zero = 1u << (fm.log_bits - 1);
    int f = fm.f;
    int sh = f > AX_EXP_TABLE_BITS ? f - AX_EXP_TABLE_BITS : 0;
    double c0 = k[0], c1 = k[1], c2 = k[2];

    // Pass 1: the largest finite product code and the flags (bit 0 NaN, 1 +∞, 2 −∞).
    int top[R][R];
    int flags[R][R];
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

    // Pass 2: the terms of outputs whose sum is needed (no special, some finite product);
    // the others keep a harmless top so that differences stay in range.
    Ax128 acc[R][R];
    int any_ok = 0;
#pragma unroll
    for (int i = 0; i < R; i++)
#pragma unroll
        for (int j = 0; j < R; j++) {
            acc[i][j].lo = 0;
            acc[i][j].hi = 0;
            int ok = flags[i][j] == 0 && top[i][j] != AX_MM_NO_TOP;
            any_ok |= ok;
            if (!ok) top[i][j] = 0;
        }
    if (__syncthreads_or(any_ok)) {
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
                    la[i] = ax_mm_code(fm, s_a[t][ty + AX_MM_T * i], na[i], fa[i]);
                    lb[i] = ax_mm_code(fm, s_b[t][tx + AX_MM_T * i], nb[i], fb[i]);
                }
#pragma unroll
                for (int i = 0; i < R; i++)
#pragma unroll
                    for (int j = 0; j < R; j++) {
                        if (fa[i] & fb[j]) {
                            i64 d = (i64)la[i] + lb[j] - top[i][j];
                            Ax128 v = ax_mm_term<POLY>(s_exp, c0, c1, c2, f, sh, d);
                            acc[i][j] = na[i] != nb[j] ? ax_sub(acc[i][j], v) : ax_add(acc[i][j], v);
                        }
                    }
            }
        }
    }

#pragma unroll
    for (int i = 0; i < R; i++)
#pragma unroll
        for (int j = 0; j < R; j++) {
            i64 gi = i0 + ty + AX_MM_T * i, gj = j0 + tx + AX_MM_T * j;
            if (gi < m && gj < n) {
                AxFlags fl;
                fl.nan = flags[i][j] & 1;
                fl.pinf = (flags[i][j] >> 1) & 1;
                fl.ninf = (flags[i][j] >> 2) & 1;
                // An output without a finite product kept top 0 and summed only zero terms:
                // ax_finish gives zero from the empty sum, as from the CPU's top = MIN.
                fl.top = top[i][j];
                out[gi * n + gj] = (W)ax_encode(fm, ax_finish(k, f, fl, acc[i][j]));
            }
        }
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
