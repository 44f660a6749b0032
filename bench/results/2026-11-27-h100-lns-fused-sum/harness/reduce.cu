// Fused LNS sum and dot product (src/gpu/fused.rs is the host side, src/array.rs the CPU
// twin, src/gpu/fused/model.rs a CPU model of this file, operation for operation, that the
// unit tests run; keep the two in step): every term (a product of two codes for the dot,
// exact) is scaled by a running maximum and summed in f64 with Neumaier's compensation; the
// total is rounded to a code once.
//
// One pass: each thread keeps M = the largest binade seen and compensated sums of
// 2^(value - M); a larger binade rescales the sums exactly (rare after the first elements).
// Terms are scaled by 2^-M for an integer M, never by a fractional power: rescaling is then
// exact, and x and -x give exactly opposite terms whichever thread and whichever M they meet,
// so sums that cancel do so exactly, as on the CPU. Blocks reduce their threads and write one
// partial; a single block combines the partials in a fixed order, so a launch configuration
// always gives the same word.

struct LnsFmt {
    int F;         // fractional bits
    int log_bits;  // I + F
};

struct Partial {
    long long max;  // largest binade (code >> F) seen (RED_NONE: none)
    double sum;     // sum of +-2^(code * 2^-F - max) ...
    double comp;    // ... and its running compensation
    int flags;      // 1: NaN, 2: +inf, 4: -inf
    int pad;
};

#define RED_NAN 1
#define RED_PINF 2
#define RED_NINF 4
#define RED_NONE (-9223372036854775807ll - 1)

// Word classes, as src/value.rs decodes them.
#define CLS_ZERO 0
#define CLS_FINITE 1
#define CLS_INF 2
#define CLS_NAN 3

// The class of x * y (exact), as src/arith.rs `product`: NaN and 0 * inf give NaN.
__device__ __forceinline__ int red_product(int cx, int cy) {
    if (cx == CLS_NAN || cy == CLS_NAN) return CLS_NAN;
    if ((cx == CLS_ZERO && cy == CLS_INF) || (cx == CLS_INF && cy == CLS_ZERO)) return CLS_NAN;
    if (cx == CLS_ZERO || cy == CLS_ZERO) return CLS_ZERO;
    return (cx == CLS_INF || cy == CLS_INF) ? CLS_INF : CLS_FINITE;
}

// s + v with Neumaier's compensation in comp.
__device__ __forceinline__ void red_add(double& s, double& comp, double v) {
    const double t = s + v;
    comp += fabs(s) >= fabs(v) ? (s - t) + v : (v - t) + s;
    s = t;
}

__device__ __forceinline__ Partial red_merge(Partial a, const Partial& b) {
    a.flags |= b.flags;
    if (b.max == RED_NONE) return a;
    if (a.max == RED_NONE) {
        Partial r = b;
        r.flags = a.flags;
        return r;
    }
    const long long m = a.max > b.max ? a.max : b.max;
    const int da = (int)max(a.max - m, -2000ll), db = (int)max(b.max - m, -2000ll);
    Partial r;
    r.max = m;
    r.flags = a.flags;
    r.sum = ldexp(a.sum, da);
    r.comp = ldexp(a.comp, da) + ldexp(b.comp, db);
    red_add(r.sum, r.comp, ldexp(b.sum, db));
    return r;
}

__device__ __forceinline__ Partial red_shfl(const Partial& p, int offset) {
    Partial q;
    q.max = __shfl_down_sync(0xffffffffu, p.max, offset);
    q.sum = __shfl_down_sync(0xffffffffu, p.sum, offset);
    q.comp = __shfl_down_sync(0xffffffffu, p.comp, offset);
    q.flags = __shfl_down_sync(0xffffffffu, p.flags, offset);
    return q;
}

// Reduces the block's partials into thread 0's return value (blockDim.x a multiple of 32, <= 1024),
// warps[] holding blockDim.x / 32 partials in shared memory.
__device__ Partial red_block(Partial p, Partial* warps) {
    for (int o = 16; o > 0; o >>= 1) p = red_merge(p, red_shfl(p, o));
    if ((threadIdx.x & 31) == 0) warps[threadIdx.x >> 5] = p;
    __syncthreads();
    if (threadIdx.x < 32) {
        Partial q = threadIdx.x < (blockDim.x >> 5) ? warps[threadIdx.x] : Partial{RED_NONE, 0.0, 0.0, 0, 0};
        for (int o = 16; o > 0; o >>= 1) q = red_merge(q, red_shfl(q, o));
        p = q;
    }
    return p;
}

__device__ __forceinline__ Partial red_empty() { return Partial{RED_NONE, 0.0, 0.0, 0, 0}; }

// Per-thread state of the streaming pass: two independent (sum, comp) accumulators, so two
// compensated adds are in flight per thread, over one shared integer binade M (32-bit codes).
struct Acc {
    int max;  // largest binade seen (INT_MIN: none)
    double s0, c0, s1, c1;
    int flags;
};

#define ACC_NONE (-2147483647 - 1)
#ifndef EXP_TBITS
#define EXP_TBITS 12
#endif

// Blocks of 256 threads resident per SM (the register budget: 64 per thread at 4).
#ifndef RED_MINB
#define RED_MINB 4
#endif

// exp2 of a code's fraction frac / 2^F in [0, 1): the table holds 2^(j / 4096) (f64, from
// exp2) for the top 12 fraction bits; the rest, r = low bits, is below 2^(F - 12) codes, i.e.
// below 2^-12 in the exponent, and 2^(r ulp) - 1 = r q(r) with q a degree-2 Taylor polynomial
// in r (coefficients (ln 2 ulp)^k / k!, parameters in the constant bank): its truncation error
// is below (ln 2 / 4096)^4 / 24 < 2^-54.6 (0.16 f64 ulp of a term), so a term is within 2 f64
// ulps of 2^(frac ulp) (exp2 itself within 1), far below the final rounding to a code (2^-23
// of a binade for lns32). r is made exact by the 2^52 trick (one f64 add) rather than an
// int-to-f64 conversion. (A 1024-entry table needs a degree-3 q, one DFMA more per word.)
struct ExpPoly {
    double c1, c2, c3;      // (ln 2 * 2^-F)^k / k!
    unsigned rmask;         // low fraction bits (F - tb of them)
    int rshift;             // F - tb
};

// s + v into (s, c) with Knuth's branch-free TwoSum: the same exact rounding error as
// red_add's Neumaier step (so the same bits), without the compare and selects.
__device__ __forceinline__ void acc_add(double& s, double& c, double v) {
    const double t = s + v;
    const double bv = t - s;
    const double as = t - bv;
    c += (s - as) + (v - bv);
    s = t;
}

// Makes m the accumulators' binade if it is larger: an exact power-of-two rescale (underflow
// only below 2^-1074). NARROW formats (I <= 8: binades of terms, products included, within 512
// of each other) rescale by one multiply with 2^drop built from its bits.
template <bool NARROW>
__device__ __forceinline__ void acc_raise(Acc& a, int m) {
    if (m > a.max) {
        if (a.max != ACC_NONE) {
            const int drop = max(a.max - m, -2000);
            if (NARROW) {
                const double k = __hiloint2double((drop + 1023) << 20, 0);
                a.s0 *= k;
                a.c0 *= k;
                a.s1 *= k;
                a.c1 *= k;
            } else {
                a.s0 = ldexp(a.s0, drop);
                a.c0 = ldexp(a.c0, drop);
                a.s1 = ldexp(a.s1, drop);
                a.c1 = ldexp(a.c1, drop);
            }
        }
        a.max = m;
    }
}

// The finite term +-2^(bin + frac ulp) (sign bit sbit: 0 or 0x80000000) into accumulator K,
// bin <= the accumulators' binade M. 2^d with d = bin - M >= -1022 goes straight into the
// table entry's exponent field (exact: the entry is in [1, 2), the result stays normal), the
// sign into its sign bit; NARROW formats never see d < -1022.
template <bool NARROW, int K>
__device__ __forceinline__ void acc_scaled(Acc& a, int bin, unsigned frac, unsigned sbit, const double* tab,
                                           const ExpPoly& e) {
    const int d = bin - a.max;  // <= 0
#if RED_I2F
    const double r = __uint2double_rn(frac & e.rmask);
#else
    const double r = __hiloint2double(0x43300000, (int)(frac & e.rmask)) - 4503599627370496.0;
#endif
    const double q = fma(r, fma(r, e.c3, e.c2), e.c1);
    const double t = tab[frac >> e.rshift];
    double ts;
    if (NARROW || d >= -1022) {
        ts = __hiloint2double((__double2hiint(t) + (d << 20)) ^ (int)sbit, __double2loint(t));
    } else {
        ts = ldexp(t, max(d, -2000));
        ts = sbit ? -ts : ts;
    }
    const double v = fma(ts, r * q, ts);
    if (K == 0) acc_add(a.s0, a.c0, v);
    else acc_add(a.s1, a.c1, v);
}

template <int K>
__device__ __forceinline__ void acc_term(Acc& a, int bin, unsigned frac, unsigned sbit, const double* tab,
                                         const ExpPoly& e) {
    acc_raise<false>(a, bin);
    acc_scaled<false, K>(a, bin, frac, sbit, tab, e);
}

// Word w as (class, binade, fraction, sign bit), 32-bit arithmetic only.
__device__ __forceinline__ int acc_split(unsigned w, int L, int F, int& bin, unsigned& frac, unsigned& sbit) {
    const int c = (int)(w << (32 - L)) >> (32 - L);
    sbit = (w << (31 - L)) & 0x80000000u;
    bin = c >> F;
    frac = (unsigned)c & ((1u << F) - 1u);
    if (c == -(1 << (L - 1))) return sbit ? CLS_NAN : CLS_ZERO;
    return c == (1 << (L - 1)) - 1 ? CLS_INF : CLS_FINITE;
}

template <int K>
__device__ __forceinline__ void acc_word(Acc& a, unsigned w, int L, int F, const double* tab,
                                         const ExpPoly& e) {
    int bin;
    unsigned frac, sbit;
    const int cls = acc_split(w, L, F, bin, frac, sbit);
    if (cls == CLS_FINITE) acc_term<K>(a, bin, frac, sbit, tab, e);
    else if (cls == CLS_NAN) a.flags |= RED_NAN;
    else if (cls == CLS_INF) a.flags |= sbit ? RED_NINF : RED_PINF;
}

// The exact product x * y: binades add, fractions add with a carry into the binade.
template <int K>
__device__ __forceinline__ void acc_pair(Acc& a, unsigned x, unsigned y, int L, int F, const double* tab,
                                         const ExpPoly& e) {
    int bx, by;
    unsigned fx, fy, sx, sy;
    const int cls = red_product(acc_split(x, L, F, bx, fx, sx), acc_split(y, L, F, by, fy, sy));
    const unsigned sbit = sx ^ sy;
    if (cls == CLS_FINITE) {
        const unsigned f = fx + fy;  // < 2^(F + 1) <= 2^31
        acc_term<K>(a, bx + by + (int)(f >> F), f & ((1u << F) - 1u), sbit, tab, e);
    } else if (cls == CLS_NAN) {
        a.flags |= RED_NAN;
    } else if (cls == CLS_INF) {
        a.flags |= sbit ? RED_NINF : RED_PINF;
    }
}

// Fast paths once a whole vector is known finite: no class tests per word, one binade test
// per vector.
__device__ __forceinline__ int acc_bin(unsigned w, int L, int F) { return (int)(w << (32 - L)) >> (32 - L + F); }

__device__ __forceinline__ unsigned acc_sbit(unsigned w, int L) { return (w << (31 - L)) & 0x80000000u; }

// True when no word of p is zero, NaN or +-inf. The log field moved to the top of the word,
// w << (32 - L) (the shift acc_bin makes, so it is computed once), minus the inf code's, is 0
// (inf) or 2^(32 - L) (the zero/NaN code) only for those; every other difference is a larger
// multiple of 2^(32 - L), unsigned.
__device__ __forceinline__ bool acc_finite4(uint4 p, int L) {
    const unsigned sh = 32 - L, top = ((1u << (L - 1)) - 1u) << sh;
    const unsigned m = min(min((p.x << sh) - top, (p.y << sh) - top), min((p.z << sh) - top, (p.w << sh) - top));
    return m > (1u << sh);
}

template <bool NARROW>
__device__ __forceinline__ void acc_vec(Acc& a, uint4 p, int L, int F,
                                        const double* tab, const ExpPoly& e) {
    if (acc_finite4(p, L)) {
        const unsigned fm = (1u << F) - 1u;
        const int b0 = acc_bin(p.x, L, F), b1 = acc_bin(p.y, L, F), b2 = acc_bin(p.z, L, F),
                  b3 = acc_bin(p.w, L, F);
        acc_raise<NARROW>(a, max(max(b0, b1), max(b2, b3)));
        acc_scaled<NARROW, 0>(a, b0, p.x & fm, acc_sbit(p.x, L), tab, e);
        acc_scaled<NARROW, 1>(a, b1, p.y & fm, acc_sbit(p.y, L), tab, e);
        acc_scaled<NARROW, 0>(a, b2, p.z & fm, acc_sbit(p.z, L), tab, e);
        acc_scaled<NARROW, 1>(a, b3, p.w & fm, acc_sbit(p.w, L), tab, e);
    } else {
        acc_word<0>(a, p.x, L, F, tab, e);
        acc_word<1>(a, p.y, L, F, tab, e);
        acc_word<0>(a, p.z, L, F, tab, e);
        acc_word<1>(a, p.w, L, F, tab, e);
    }
}

// Eight words (two vectors) under one finiteness test and one binade test, so eight
// independent terms are in flight per thread.
template <bool NARROW>
__device__ __forceinline__ void acc_vec8(Acc& a, uint4 p, uint4 q, int L, int F,
                                         const double* tab, const ExpPoly& e) {
    if (acc_finite4(p, L) && acc_finite4(q, L)) {
        const unsigned fm = (1u << F) - 1u;
        const int b0 = acc_bin(p.x, L, F), b1 = acc_bin(p.y, L, F), b2 = acc_bin(p.z, L, F),
                  b3 = acc_bin(p.w, L, F), b4 = acc_bin(q.x, L, F), b5 = acc_bin(q.y, L, F),
                  b6 = acc_bin(q.z, L, F), b7 = acc_bin(q.w, L, F);
        acc_raise<NARROW>(a, max(max(max(b0, b1), max(b2, b3)), max(max(b4, b5), max(b6, b7))));
        acc_scaled<NARROW, 0>(a, b0, p.x & fm, acc_sbit(p.x, L), tab, e);
        acc_scaled<NARROW, 1>(a, b1, p.y & fm, acc_sbit(p.y, L), tab, e);
        acc_scaled<NARROW, 0>(a, b2, p.z & fm, acc_sbit(p.z, L), tab, e);
        acc_scaled<NARROW, 1>(a, b3, p.w & fm, acc_sbit(p.w, L), tab, e);
        acc_scaled<NARROW, 0>(a, b4, q.x & fm, acc_sbit(q.x, L), tab, e);
        acc_scaled<NARROW, 1>(a, b5, q.y & fm, acc_sbit(q.y, L), tab, e);
        acc_scaled<NARROW, 0>(a, b6, q.z & fm, acc_sbit(q.z, L), tab, e);
        acc_scaled<NARROW, 1>(a, b7, q.w & fm, acc_sbit(q.w, L), tab, e);
    } else {
        acc_vec<NARROW>(a, p, L, F, tab, e);
        acc_vec<NARROW>(a, q, L, F, tab, e);
    }
}

template <bool NARROW>
__device__ __forceinline__ void acc_vec2(Acc& a, uint4 p, uint4 u, int L, int F,
                                         const double* tab, const ExpPoly& e) {
    if (acc_finite4(p, L) && acc_finite4(u, L)) {
        const unsigned fm = (1u << F) - 1u;
        const unsigned f0 = (p.x & fm) + (u.x & fm), f1 = (p.y & fm) + (u.y & fm), f2 = (p.z & fm) + (u.z & fm),
                       f3 = (p.w & fm) + (u.w & fm);
        const int b0 = acc_bin(p.x, L, F) + acc_bin(u.x, L, F) + (int)(f0 >> F);
        const int b1 = acc_bin(p.y, L, F) + acc_bin(u.y, L, F) + (int)(f1 >> F);
        const int b2 = acc_bin(p.z, L, F) + acc_bin(u.z, L, F) + (int)(f2 >> F);
        const int b3 = acc_bin(p.w, L, F) + acc_bin(u.w, L, F) + (int)(f3 >> F);
        acc_raise<NARROW>(a, max(max(b0, b1), max(b2, b3)));
        acc_scaled<NARROW, 0>(a, b0, f0 & fm, acc_sbit(p.x ^ u.x, L), tab, e);
        acc_scaled<NARROW, 1>(a, b1, f1 & fm, acc_sbit(p.y ^ u.y, L), tab, e);
        acc_scaled<NARROW, 0>(a, b2, f2 & fm, acc_sbit(p.z ^ u.z, L), tab, e);
        acc_scaled<NARROW, 1>(a, b3, f3 & fm, acc_sbit(p.w ^ u.w, L), tab, e);
    } else {
        acc_pair<0>(a, p.x, u.x, L, F, tab, e);
        acc_pair<1>(a, p.y, u.y, L, F, tab, e);
        acc_pair<0>(a, p.z, u.z, L, F, tab, e);
        acc_pair<1>(a, p.w, u.w, L, F, tab, e);
    }
}

// The thread's partial: its two accumulators merged (same binade).
__device__ __forceinline__ Partial acc_partial(const Acc& a) {
    Partial p = red_empty();
    p.flags = a.flags;
    if (a.max != ACC_NONE) {
        p.max = a.max;
        p.sum = a.s0;
        p.comp = a.c0;
        Partial q = red_empty();
        q.max = a.max;
        q.sum = a.s1;
        q.comp = a.c1;
        p = red_merge(p, q);
    }
    return p;
}

// The words t .. n - 1 (one to three of them) as a vector, the missing lanes zero words.
__device__ __forceinline__ uint4 acc_tail(const unsigned* __restrict__ v, long long t, long long n, unsigned zero) {
    uint4 p = make_uint4(__ldcs(&v[t]), zero, zero, zero);
    if (t + 1 < n) p.y = __ldcs(&v[t + 1]);
    if (t + 2 < n) p.z = __ldcs(&v[t + 2]);
    return p;
}

#if RED_CPA
// cp.async (16 bytes, global to shared, bypassing L1): loads in flight that hold no registers.
__device__ __forceinline__ void cpa16(void* smem, const void* gmem) {
    const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem) : "memory");
}
__device__ __forceinline__ void cpa_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cpa_wait() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}
#endif

// Per-block partials of sum xs (ys == nullptr) or sum xs[i] * ys[i]. One pass, 16-byte
// streaming loads (when both buffers are 16-byte aligned), two loads in flight per array and
// thread, two accumulators per thread. The order of the terms depends only on n and the grid,
// so a launch configuration always gives the same word. LT, FT: the format's log bits and
// fraction bits fixed at compile time (0: from f), so that shifts and masks are immediates.
template <bool NARROW, int LT, int FT>
__device__ __forceinline__ void fused_partials(LnsFmt f, const ExpPoly& e0, const unsigned* __restrict__ xs,
                                               const unsigned* __restrict__ ys, long long n,
                                               Partial* __restrict__ out) {
    __shared__ double tab[1 << EXP_TBITS];
    const int L = LT ? LT : f.log_bits, F = FT ? FT : f.F;
    const int tb = F < EXP_TBITS ? F : EXP_TBITS;
    ExpPoly e = e0;
    if (FT) {
        e.rshift = FT - (FT < EXP_TBITS ? FT : EXP_TBITS);
        e.rmask = (1u << e.rshift) - 1u;
    }
    for (int j = threadIdx.x; j < (1 << tb); j += blockDim.x) tab[j] = exp2((double)j / (double)(1 << tb));
    __syncthreads();
    Acc a{ACC_NONE, 0.0, 0.0, 0.0, 0.0, 0};
    const long long tid = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    const long long stride = (long long)gridDim.x * blockDim.x;
    const bool aligned = ((((size_t)xs) | ((size_t)ys)) & 15) == 0;
    Partial tail = red_empty();
    if (aligned) {
        const uint4* xv = reinterpret_cast<const uint4*>(xs);
        const uint4* yv = reinterpret_cast<const uint4*>(ys);
        const long long nv = n >> 2;
        long long i = tid;
        if (ys) {
            for (; i + stride < nv; i += 2 * stride) {
                const uint4 p = __ldcs(xv + i), q = __ldcs(xv + i + stride);
                const uint4 u = __ldcs(yv + i), v = __ldcs(yv + i + stride);
                acc_vec2<NARROW>(a, p, u, L, F, tab, e);
                acc_vec2<NARROW>(a, q, v, L, F, tab, e);
            }
        } else {
#if RED_CPA
            // Each thread stages its own two vectors RED_CPA - 1 iterations ahead (blockDim.x
            // == 256) and reads back only its own slots, so no barrier is needed.
            __shared__ uint4 stg[RED_CPA][2][256];
            const int tx = threadIdx.x;
#pragma unroll
            for (int k = 0; k < RED_CPA - 1; ++k) {
                const long long j = i + 2 * k * stride;
                if (j + stride < nv) {
                    cpa16(&stg[k][0][tx], xv + j);
                    cpa16(&stg[k][1][tx], xv + j + stride);
                }
                cpa_commit();
            }
            int s = 0;
            for (; i + stride < nv; i += 2 * stride) {
                const long long j = i + 2 * (RED_CPA - 1) * stride;
                const int sn = s == 0 ? RED_CPA - 1 : s - 1;
                if (j + stride < nv) {
                    cpa16(&stg[sn][0][tx], xv + j);
                    cpa16(&stg[sn][1][tx], xv + j + stride);
                }
                cpa_commit();
                cpa_wait<RED_CPA - 1>();
                const uint4 p = stg[s][0][tx], q = stg[s][1][tx];
                acc_vec8<NARROW>(a, p, q, L, F, tab, e);
                s = s + 1 == RED_CPA ? 0 : s + 1;
            }
            cpa_wait<0>();
#else
            for (; i + stride < nv; i += 2 * stride) {
                const uint4 p = __ldcs(xv + i), q = __ldcs(xv + i + stride);
                acc_vec8<NARROW>(a, p, q, L, F, tab, e);
            }
#endif
        }
        if (i < nv) {
            if (ys) acc_vec2<NARROW>(a, __ldcs(xv + i), __ldcs(yv + i), L, F, tab, e);
            else acc_vec<NARROW>(a, __ldcs(xv + i), L, F, tab, e);
        }
        // The last n mod 4 words: one vector padded with zero words, taken by the thread that
        // owns vector nv in the grid-stride order into accumulators of its own, lanes into
        // accumulators 0, 1, 0 as in every other vector; its partial joins the thread's last.
        // Handing these words to threads 0, 1, 2 split an x, -x pair between two running sums
        // that round differently, so the pair left a residue instead of cancelling (an exactly
        // zero total came out as a tiny nonzero word); adding them to the thread's running
        // sums broke the mirror between its two accumulators (pairs 2k, 2k + 1 give sums s and
        // -s, which merge to exactly 0) wherever n is odd, and a last word far below the others
        // was lost in the compensation's rounding.
        if ((nv << 2) < n && tid == nv % stride) {
            const unsigned zero = 1u << (L - 1);  // the zero word: the reserved code, sign clear
            const long long t = nv << 2;
            Acc b{ACC_NONE, 0.0, 0.0, 0.0, 0.0, 0};
            if (ys) acc_vec2<NARROW>(b, acc_tail(xs, t, n, zero), acc_tail(ys, t, n, zero), L, F, tab, e);
            else acc_vec<NARROW>(b, acc_tail(xs, t, n, zero), L, F, tab, e);
            tail = acc_partial(b);
        }
    } else {
        // Unaligned buffers (the host side never passes them: its buffers are whole
        // allocations): one word at a time into accumulator 0, thread t taking t, t + stride, ...
        for (long long i = tid; i < n; i += stride) {
            if (ys) acc_pair<0>(a, __ldcs(&xs[i]), __ldcs(&ys[i]), L, F, tab, e);
            else acc_word<0>(a, __ldcs(&xs[i]), L, F, tab, e);
        }
    }
    Partial p = red_merge(acc_partial(a), tail);
    __syncthreads();  // every thread is done with the table: it becomes red_block's scratch
    p = red_block(p, reinterpret_cast<Partial*>(tab));
    if (threadIdx.x == 0) out[blockIdx.x] = p;
}

// Formats of more than 8 integer bits (binades of terms up to 2^30 apart).
extern "C" __global__ void __launch_bounds__(256, RED_MINB)
    lns_fused_partials(LnsFmt f, ExpPoly e, const unsigned* __restrict__ xs, const unsigned* __restrict__ ys,
                       long long n, Partial* __restrict__ out) {
    fused_partials<false, 0, 0>(f, e, xs, ys, n, out);
}

// Formats of at most 8 integer bits (lns16, lns32): no term is below 2^-1022 of the largest.
extern "C" __global__ void __launch_bounds__(256, RED_MINB)
    lns_fused_partials_narrow(LnsFmt f, ExpPoly e, const unsigned* __restrict__ xs,
                              const unsigned* __restrict__ ys, long long n, Partial* __restrict__ out) {
    fused_partials<true, 0, 0>(f, e, xs, ys, n, out);
}

// lns32 (8 integer, 23 fraction bits) and lns16 (5, 10): the narrow kernel with the format's
// shifts and masks as immediates (fewer instructions per word, the same arithmetic).
extern "C" __global__ void __launch_bounds__(256, RED_MINB)
    lns_fused_partials_lns32(LnsFmt f, ExpPoly e, const unsigned* __restrict__ xs, const unsigned* __restrict__ ys,
                             long long n, Partial* __restrict__ out) {
    fused_partials<true, 31, 23>(f, e, xs, ys, n, out);
}

extern "C" __global__ void __launch_bounds__(256, RED_MINB)
    lns_fused_partials_lns16(LnsFmt f, ExpPoly e, const unsigned* __restrict__ xs, const unsigned* __restrict__ ys,
                             long long n, Partial* __restrict__ out) {
    fused_partials<true, 15, 10>(f, e, xs, ys, n, out);
}

// Combines n partials (one block of 1024 threads) and rounds the total to one word.
extern "C" __global__ void lns_fused_finish(LnsFmt f, const Partial* __restrict__ parts, int n,
                                            unsigned* __restrict__ out) {
    const double ulp = exp2(-(double)f.F);
    // Each thread folds a contiguous run, so the order is fixed for a given n.
    const int per = (n + blockDim.x - 1) / blockDim.x;
    Partial p = red_empty();
    for (int k = threadIdx.x * per; k < min(n, (int)(threadIdx.x + 1) * per); ++k) p = red_merge(p, parts[k]);
    __shared__ Partial warps[32];
    p = red_block(p, warps);
    if (threadIdx.x != 0) return;
    const int L = f.log_bits;
    const unsigned sign = 1u << L, mask = sign - 1u;
    const long long special = -(1ll << (L - 1)), inf = (1ll << (L - 1)) - 1;
    unsigned word;
    if ((p.flags & RED_NAN) || (p.flags & RED_PINF && p.flags & RED_NINF)) {
        word = sign | ((unsigned)special & mask);
    } else if (p.flags & (RED_PINF | RED_NINF)) {
        word = (p.flags & RED_NINF ? sign : 0u) | ((unsigned)inf & mask);
    } else {
        const double total = p.sum + p.comp;
        if (p.max == RED_NONE || total == 0.0) {
            word = (unsigned)special & mask;
        } else {
            const double lg = (double)(p.max << f.F) + log2(fabs(total)) / ulp;
            const long long code = (long long)rint(fmin(fmax(lg, -1099511627776.0), 1099511627776.0));
            const unsigned s = total < 0.0 ? sign : 0u;
            if (code > inf - 1) word = s | ((unsigned)inf & mask);           // overflow: +-inf
            else if (code < special + 1) word = (unsigned)special & mask;    // underflow: zero
            else word = s | ((unsigned)code & mask);
        }
    }
    *out = word;
}
