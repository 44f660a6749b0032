// s_b(z) = log2(1 + 2^z) and d_b(z) = log2(1 - 2^z) on LNS codes, by every method of
// sigpu-lns (src/method.rs). Each kernel evaluates codes z = start .. start + n - 1 and writes
// the rounded result codes. The CPU twins are in src/tables.rs (table methods, bit-exact),
// src/f32split.rs (f32split, bit-exact) and src/arith.rs (f64). Geometry and the near-zero form of d_b are explained in src/tables.rs.

// Codes are 32-bit: |z| < 2^31 for every format of at most 32 bits, and 32-bit integer
// arithmetic is native where 64-bit is emulated.
struct Geo {
    int F;             // fractional bits
    int shift;         // codes per far segment: 2^shift
    int far_segments;  // far segments, ending at z = 0
    int near_shift;    // codes per near (h) segment: 2^near_shift
    int log2m_bits;    // log2 m segments: 2^log2m_bits
    int z0;            // essential zero: below it s_b and d_b round to 0
    int log_bits;      // I + F: the word is a sign bit above a two's-complement log field
};

// 2^k for integer k in the normal range, built from the exponent bits (no transcendental).
__device__ __forceinline__ float pow2(int k) { return __int_as_float((127 + k) << 23); }

// v * 2^F rounded to nearest, ties to even (the scaling is exact).
__device__ __forceinline__ int to_code(float v, int F) { return __float2int_rn(v * pow2(F)); }
__device__ __forceinline__ int to_code_d(double v, int F) { return __double2int_rn(v * (double)pow2(F)); }

// (u mod 2^b) * 2^-b: the local variable of a segment, exact in f32 for b <= 24.
__device__ __forceinline__ float local(int u, int b) { return (float)(u & ((1 << b) - 1)) * pow2(-b); }

// ---- table readers: f(segment w, local s) -------------------------------------------------

template <int DEG> struct Horner {
    static __device__ __forceinline__ float read(unsigned long long table, int w, float s) {
        const float* __restrict__ a = reinterpret_cast<const float*>(table) + w * (DEG + 1);
        float acc = a[DEG];
#pragma unroll
        for (int j = DEG - 1; j >= 0; --j) acc = fmaf(acc, s, a[j]);
        return acc;
    }
};

// Texel i sits at segment boundary i, centre i + 0.5.
struct Tex1 {
    static __device__ __forceinline__ float read(unsigned long long tex, int w, float s) {
        return tex1D<float>(tex, ((float)w + s) + 0.5f);
    }
};

// The order-2 trick: the 2k x 2 texture read at (2w + s + 0.5, s + 0.5).
struct Tex2 {
    static __device__ __forceinline__ float read(unsigned long long tex, int w, float s) {
        const float v = s + 0.5f;
        return tex2D<float>(tex, 2.0f * (float)w + v, v);
    }
};

// Far segment and local variable of z (z0 <= z <= 0).
__device__ __forceinline__ void far_index(const Geo& g, int z, int& w, float& s) {
    const int u = z + (g.far_segments << g.shift);
    w = u >> g.shift;
    if (w == g.far_segments) { w -= 1; s = 1.0f; } else { s = local(u, g.shift); }
}

template <class R> __device__ int sb_table(const Geo& g, const unsigned long long* t, int z) {
    if (z < g.z0) return 0;
    int w; float s;
    far_index(g, z, w, s);
    return to_code(R::read(t[0], w, s), g.F);
}

template <class R> __device__ int db_table(const Geo& g, const unsigned long long* t, int z) {
    if (z < g.z0) return 0;
    if (z <= -(1 << g.F)) {
        int w; float s;
        far_index(g, z, w, s);
        return to_code(R::read(t[1], w, s), g.F);
    }
    // d_b = log2|z| + h(z) with |z| = k 2^-F = 2^(e-F) m: the integer e - F stays exact.
    const int k = -z;
    const int e = 31 - __clz(k);
    const int frac = k - (1 << e);
    int mw; float ms;
    if (e >= g.log2m_bits) { const int low = e - g.log2m_bits; mw = frac >> low; ms = local(frac, low); }
    else { mw = frac << (g.log2m_bits - e); ms = 0.0f; }
    const int u = z + (1 << g.F);
    const int hw = u >> g.near_shift;
    const float hs = local(u, g.near_shift);
    const float fractional = R::read(t[3], mw, ms) + R::read(t[2], hw, hs);
    return ((e - g.F) << g.F) + to_code(fractional, g.F);
}

// ---- formula methods ------------------------------------------------------------------------

__device__ __forceinline__ float ex2_sfu(float x) { float y; asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x)); return y; }
__device__ __forceinline__ float lg2_sfu(float x) { float y; asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x)); return y; }

struct Libdevice {
    static __device__ __forceinline__ float ex2(float x) { return exp2f(x); }
    static __device__ __forceinline__ float lg2(float x) { return log2f(x); }
    // 1 - 2^z for z < 0, without cancellation.
    static __device__ __forceinline__ float one_minus_ex2(float z) { return -expm1f(z * 0.69314718055994531f); }
};
struct Sfu {
    static __device__ __forceinline__ float ex2(float x) { return ex2_sfu(x); }
    static __device__ __forceinline__ float lg2(float x) { return lg2_sfu(x); }
    static __device__ __forceinline__ float one_minus_ex2(float z) { return 1.0f - ex2_sfu(z); }
};

template <class M> __device__ int sb_formula(const Geo& g, const unsigned long long*, int z) {
    if (z < g.z0) return 0;
    const float zf = (float)z * pow2(-g.F);
    return to_code(M::lg2(1.0f + M::ex2(zf)), g.F);
}

template <class M> __device__ int db_formula(const Geo& g, const unsigned long long*, int z) {
    if (z < g.z0) return 0;
    const float zf = (float)z * pow2(-g.F);
    if (z <= -(1 << g.F)) return to_code(M::lg2(1.0f - M::ex2(zf)), g.F);
    const int k = -z;
    const int e = 31 - __clz(k);
    const float m = (float)k * pow2(-e);  // exact: k < 2^F <= 2^24
    const float h = M::lg2(M::one_minus_ex2(zf) / -zf);
    return ((e - g.F) << g.F) + to_code(M::lg2(m) + h, g.F);
}

// The SFU method without int <-> float conversions (they share the SFU's quarter-rate pipe on
// sm_90): 2^(z 2^-F) takes the fraction bits of z as the mantissa 1 + frac (exact), ex2 gives
// 2^(1 + frac) and the integer part goes into the exponent field; the result is rounded to a
// code by the FMA's own rounding against 1.5 * 2^23 while |v| 2^F < 2^22 (F <= 21).
__device__ __forceinline__ float exp2_code_sfu(int z, int F) {
    const unsigned frac = ((unsigned)z << (23 - F)) & 0x7fffffu;
    const float r = ex2_sfu(__uint_as_float(0x3f800000u | frac));
    return __int_as_float(__float_as_int(r) + (((z >> F) - 1) << 23));
}

__device__ __forceinline__ int to_code_sfu(float v, int F) {
    if (F > 21) return to_code(v, F);
    return __float_as_int(fmaf(v, pow2(F), 12582912.0f)) - 0x4b400000;
}

// Evaluated for every z and selected after, so no branch (and no convergence barrier) sits in
// the hot path: below the essential zero the arithmetic runs on garbage that is discarded.
// For F <= 21, s_b(z) = lg2(2 + y) - 1 and far d_b(z) = lg2(2 - y) - 1 with y = 2^(z + 1) =
// 2^(1 + frac) 2^k straight from the SFU (no exponent correction), the -1 folded into the
// rounding FMA's addend. One function for both, so an add kernel whose lanes mix sums and
// differences runs one evaluation per lane instead of both paths.
__device__ __forceinline__ int sbdb_far_sfu(const Geo& g, int z, bool db) {
    if (g.F <= 21) {
        const unsigned frac = ((unsigned)z << (23 - g.F)) & 0x7fffffu;
        const float r = ex2_sfu(__uint_as_float(0x3f800000u | frac));
        const float y = __int_as_float(__float_as_int(r) + ((z >> g.F) << 23));
        const float l = lg2_sfu(2.0f + (db ? -y : y));
        return __float_as_int(fmaf(l, pow2(g.F), 12582912.0f - pow2(g.F))) - 0x4b400000;
    }
    const float e = exp2_code_sfu(z, g.F);
    return to_code(lg2_sfu(1.0f + (db ? -e : e)), g.F);
}

// s_b (sub = false) or d_b (sub = true) by the SFU method.
__device__ __forceinline__ int sbdb_sfu(const Geo& g, const unsigned long long* t, int z, bool sub) {
    if (sub && z > -(1 << g.F)) return z < g.z0 ? 0 : db_formula<Sfu>(g, t, z);  // near the pole
    const int v = sbdb_far_sfu(g, z, sub);
    return z < g.z0 ? 0 : v;
}

__device__ int sb_sfu(const Geo& g, const unsigned long long* t, int z) { return sbdb_sfu(g, t, z, false); }
__device__ int db_sfu(const Geo& g, const unsigned long long* t, int z) { return sbdb_sfu(g, t, z, true); }

__device__ int sb_f64(const Geo& g, const unsigned long long*, int z) {
    if (z < g.z0) return 0;
    const double zd = (double)z * (double)pow2(-g.F);
    return to_code_d(log1p(exp2(zd)) / 0.69314718055994531, g.F);
}

__device__ int db_f64(const Geo& g, const unsigned long long*, int z) {
    if (z < g.z0) return 0;
    const double zd = (double)z * (double)pow2(-g.F);
    return to_code_d(log(-expm1(zd * 0.69314718055994531)) / 0.69314718055994531, g.F);
}

// ---- f32split: faithful lns32 in f32 alone (src/f32split.rs, its bit-exact CPU twin) ----------
// Each segment record is 4 words, [K, a1, a2, a3] (one 16-byte load); the value in codes is
// C + round(a0 + s (a1 + s (a2 + s a3))) with C = K >> 7 exact and a0 = (K & 127) / 128, so the
// f32 part carries only the variation within the segment. Only correctly rounded f32 operations (fmaf, __fadd_rn) and exact bit tricks, so the
// CPU twin gives the same words. Geo: shift = F - 5 (far and h segments), near_shift = shift,
// log2m_bits = 6.

// (x mod 2^b) 2^-b, exact: the low b bits as an f32 mantissa, minus 1 (no int -> float
// conversion, which would share the SFU's quarter-rate pipe).
__device__ __forceinline__ float unit_frac(unsigned int x, int b) {
    return __fadd_rn(__uint_as_float(0x3f800000u | ((x << (23 - b)) & 0x7fffffu)), -1.0f);
}

// The record's integer part (in c) and its residual polynomial at s, unrounded.
__device__ __forceinline__ float split_read(unsigned long long table, unsigned int w, float s, int& c) {
    const float4 r = __ldg(reinterpret_cast<const float4*>(table) + w);
    const int k = __float_as_int(r.x);
    c = (k >> 7) - 1;  // the 1 of one_a0 below
    const float one_a0 = __uint_as_float(0x3f800000u | (((unsigned int)k << 16) & 0x7f0000u));
    return fmaf(fmaf(fmaf(r.w, s, r.z), s, r.y), s, one_a0);
}

// round(p) ties to even for |p| < 2^22: the integer lands in the low mantissa bits of p + 1.5 2^23.
__device__ __forceinline__ int round_small(float p) {
    return __float_as_int(__fadd_rn(p, 12582912.0f)) - 0x4b400000;
}

// s_b, or d_b for z <= -2^F, from the far table at z0 <= z <= 0.
__device__ __forceinline__ int split_far(const Geo& g, unsigned long long table, int z) {
    const unsigned int u = (unsigned int)(z + (g.far_segments << g.shift));
    int c;
    const float p = split_read(table, u >> g.shift, unit_frac(u, g.shift), c);
    return c + round_small(p);
}

// d_b for -2^F < z < 0: (e - F) 2^F + log2 m + h(z), |z| = 2^(e - F) m; the two residual
// polynomials are added in f32 before the one rounding.
__device__ __forceinline__ int split_near(const Geo& g, const unsigned long long* t, int z) {
    const unsigned int k = (unsigned int)(-z);
    const int e = 31 - __clz((int)k);
    const unsigned int mant = (k << (23 - e)) & 0x7fffffu;
    const unsigned int u = (unsigned int)(z + (1 << g.F));
    int cm, ch;
    const float pm = split_read(t[3], mant >> (23 - g.log2m_bits), unit_frac(mant, 23 - g.log2m_bits), cm);
    const float ph = split_read(t[2], u >> g.shift, unit_frac(u, g.shift), ch);
    return ((e - g.F) << g.F) + cm + ch + round_small(__fadd_rn(pm, ph));
}

// s_b (sub = false) or d_b: s_b and far d_b share one code path (only the table differs), so
// an add whose lanes mix sums and differences runs it once. Below z0 the far path reads the
// first segment (z clamped) and the result is replaced by 0.
__device__ __forceinline__ int sbdb_split(const Geo& g, const unsigned long long* t, int z, bool sub) {
    if (sub && z > -(1 << g.F)) return split_near(g, t, z);
    const int v = split_far(g, sub ? t[1] : t[0], max(z, g.z0));
    return z < g.z0 ? 0 : v;
}

__device__ int sb_split(const Geo& g, const unsigned long long* t, int z) { return sbdb_split(g, t, z, false); }
__device__ int db_split(const Geo& g, const unsigned long long* t, int z) { return sbdb_split(g, t, z, true); }

// ---- texlut: every result code in one point-sampled texture per function -------------------
// For formats with few codes (lns16: 11,809 inputs z0 - 1 .. 0) the whole function is a table:
// texel i holds 1.5 * 2^23 + code(z0 - 1 + i), exact in f32 (|code| < 2^22), so one TEX returns
// the final code after an integer subtract (the f32's bits minus those of 1.5 * 2^23). The
// coordinate i + 0.5 is built from the bits of 2^23 + i (integer add, one FADD: no int -> float
// conversion, which would share the SFU's quarter-rate pipe); inputs below z0 - 1 land on a
// negative coordinate that the clamp address mode takes to texel 0, code 0, as below the
// essential zero. The texels are the f64 reference's codes (src/gpu/lut.rs), so the CPU twin
// is the f64 method itself and the results are correctly rounded. Point sampling returns a
// texel unchanged, so no filter rounding enters (unlike tex1/tex2).
__device__ __forceinline__ int lut_read(const Geo& g, unsigned long long tex, int z) {
    const float c = __int_as_float(z + (0x4b000000 - (g.z0 - 1))) - 8388607.5f;
    return __float_as_int(tex1D<float>(tex, c)) - 0x4b400000;
}
__device__ int sb_texlut(const Geo& g, const unsigned long long* t, int z) { return lut_read(g, t[0], z); }
__device__ int db_texlut(const Geo& g, const unsigned long long* t, int z) { return lut_read(g, t[1], z); }

// Every method of src/method.rs that has a kernel: X(name, s_b evaluator, d_b evaluator). The
// entry points of each family below are stamped from this one list.
#define LNS_METHODS(X)                                                                          \
    X(f64, sb_f64, db_f64) \
    X(f32split, sb_split, db_split) \
    X(accurate, sb_formula<Libdevice>, db_formula<Libdevice>) \
    X(sfu, sb_sfu, db_sfu) \
    X(horner2, sb_table<Horner<2>>, db_table<Horner<2>>) \
    X(horner3, sb_table<Horner<3>>, db_table<Horner<3>>) \
    X(horner4, sb_table<Horner<4>>, db_table<Horner<4>>) \
    X(horner5, sb_table<Horner<5>>, db_table<Horner<5>>) \
    X(tex1, sb_table<Tex1>, db_table<Tex1>) \
    X(tex2, sb_table<Tex2>, db_table<Tex2>) \
    X(texlut, sb_texlut, db_texlut)

// ---- kernels: out[i] = f(start + i) ---------------------------------------------------------

#define LNS_KERNEL(NAME, EXPR)                                                                  \
    extern "C" __global__ void NAME(Geo g, unsigned long long t0, unsigned long long t1,       \
                                    unsigned long long t2, unsigned long long t3,              \
                                    long long start, int n, int* __restrict__ out) {           \
        const unsigned long long t[4] = {t0, t1, t2, t3};                                       \
        const int i = blockIdx.x * blockDim.x + threadIdx.x;                                    \
        if (i < n) out[i] = EXPR(g, t, (int)(start + i));                                       \
    }

#define LNS_KERNEL_PAIR(M, SB, DB) LNS_KERNEL(lns_sb_##M, SB) LNS_KERNEL(lns_db_##M, DB)
LNS_METHODS(LNS_KERNEL_PAIR)

// ---- compute-bound throughput (texture-LNS's Table 1) ---------------------------------------
// Each thread evaluates `iters` inputs z = zlo + ((tid + it * stride) & mask) held in registers
// and folds the results into one word, so only the arithmetic is timed. BOTH also evaluates
// d_b at the same point. A blend runs warps with (global warp index % 8) < lambda on method A
// and the others on method B, so two kinds of units work at once.

#define LNS_BENCH_BODY(EXPR_SB, EXPR_DB, BOTH)                                                  \
    const unsigned long long t[4] = {t0, t1, t2, t3};                                           \
    const unsigned int tid = blockIdx.x * blockDim.x + threadIdx.x;                             \
    const unsigned int stride = gridDim.x * blockDim.x;                                         \
    int acc = 0;                                                                                \
    for (int it = 0; it < iters; ++it) {                                                        \
        const int z = (int)zlo + (int)((tid + (unsigned int)it * stride) & mask);              \
        acc ^= EXPR_SB(g, t, z);                                                                \
        if (BOTH) acc ^= EXPR_DB(g, t, z - 1);                                                  \
    }                                                                                           \
    out[tid] = acc;

#define LNS_BENCH(NAME, EXPR_SB, EXPR_DB)                                                       \
    extern "C" __global__ void NAME(Geo g, unsigned long long t0, unsigned long long t1,       \
                                    unsigned long long t2, unsigned long long t3, long long zlo,\
                                    unsigned int mask, int iters, int both, int* __restrict__ out) { \
        if (both) { LNS_BENCH_BODY(EXPR_SB, EXPR_DB, 1) } else { LNS_BENCH_BODY(EXPR_SB, EXPR_DB, 0) } \
    }

#define LNS_BENCH_ENTRY(M, SB, DB) LNS_BENCH(lns_bench_##M, SB, DB)
LNS_METHODS(LNS_BENCH_ENTRY)

// Blends: method A (tables in a0..a3) on warps below lambda of every 8, method B (b0..b3) on the rest.
#define LNS_BLEND(NAME, A_SB, A_DB, B_SB, B_DB)                                                  \
    extern "C" __global__ void NAME(Geo ga, unsigned long long a0, unsigned long long a1,       \
                                    unsigned long long a2, unsigned long long a3, Geo gb,       \
                                    unsigned long long b0, unsigned long long b1,               \
                                    unsigned long long b2, unsigned long long b3, int lambda,   \
                                    long long zlo, unsigned int mask, int iters, int both,      \
                                    int* __restrict__ out) {                                    \
        const int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;                          \
        if ((warp & 7) < lambda) {                                                              \
            const Geo g = ga; const unsigned long long t0 = a0, t1 = a1, t2 = a2, t3 = a3;      \
            if (both) { LNS_BENCH_BODY(A_SB, A_DB, 1) } else { LNS_BENCH_BODY(A_SB, A_DB, 0) }  \
        } else {                                                                                \
            const Geo g = gb; const unsigned long long t0 = b0, t1 = b1, t2 = b2, t3 = b3;      \
            if (both) { LNS_BENCH_BODY(B_SB, B_DB, 1) } else { LNS_BENCH_BODY(B_SB, B_DB, 0) }  \
        }                                                                                       \
    }

LNS_BLEND(lns_blend_tex2_sfu, sb_table<Tex2>, db_table<Tex2>, sb_sfu, db_sfu)
LNS_BLEND(lns_blend_tex2_horner3, sb_table<Tex2>, db_table<Tex2>, sb_table<Horner<3>>, db_table<Horner<3>>)
LNS_BLEND(lns_blend_horner3_sfu, sb_table<Horner<3>>, db_table<Horner<3>>, sb_sfu, db_sfu)
LNS_BLEND(lns_blend_tex1_sfu, sb_table<Tex1>, db_table<Tex1>, sb_sfu, db_sfu)
LNS_BLEND(lns_blend_texlut_sfu, sb_texlut, db_texlut, sb_sfu, db_sfu)

// A blend's codes, for its self-check and certificate: out[i] = f(start + i) by method A on
// warps with (global warp index % 8) < lambda and by B on the others, f = d_b when `db` is set.
#define LNS_BLEND_EVAL(NAME, A_SB, A_DB, B_SB, B_DB)                                             \
    extern "C" __global__ void NAME(Geo ga, unsigned long long a0, unsigned long long a1,       \
                                    unsigned long long a2, unsigned long long a3, Geo gb,       \
                                    unsigned long long b0, unsigned long long b1,               \
                                    unsigned long long b2, unsigned long long b3, int lambda,   \
                                    int db, long long start, int n, int* __restrict__ out) {    \
        const int i = blockIdx.x * blockDim.x + threadIdx.x;                                    \
        if (i >= n) return;                                                                     \
        const int z = (int)(start + i);                                                         \
        if (((i >> 5) & 7) < lambda) {                                                          \
            const unsigned long long t[4] = {a0, a1, a2, a3};                                   \
            out[i] = db ? A_DB(ga, t, z) : A_SB(ga, t, z);                                      \
        } else {                                                                                \
            const unsigned long long t[4] = {b0, b1, b2, b3};                                   \
            out[i] = db ? B_DB(gb, t, z) : B_SB(gb, t, z);                                      \
        }                                                                                       \
    }

LNS_BLEND_EVAL(lns_blend_eval_texlut_sfu, sb_texlut, db_texlut, sb_sfu, db_sfu)

// ---- LNS words: element-wise add and fused reductions ----------------------------------------
// A word is a sign bit above a (log_bits)-bit two's-complement log code; the most negative code
// is zero (sign clear) or NaN (sign set), the most positive is +-infinity (src/format.rs).

struct Word {
    bool negative;
    int log;  // sign-extended log code
};

__device__ __forceinline__ Word unpack(const Geo& g, unsigned int w) {
    const int shift = 32 - g.log_bits;
    return Word{((w >> g.log_bits) & 1u) != 0, (int)(w << shift) >> shift};
}

__device__ __forceinline__ unsigned int pack(const Geo& g, bool negative, int log) {
    const unsigned int mask = (1u << g.log_bits) - 1u;
    return (negative ? (1u << g.log_bits) : 0u) | ((unsigned int)log & mask);
}

// s_b or d_b for an add: by default the two functions (a warp whose lanes mix sums and
// differences runs both); the SFU method evaluates either with one code path.
template <int (*SB)(const Geo&, const unsigned long long*, int), int (*DB)(const Geo&, const unsigned long long*, int)>
struct SbDb {
    static __device__ __forceinline__ int eval(const Geo& g, const unsigned long long* t, int z, bool sub) {
        return sub ? DB(g, t, z) : SB(g, t, z);
    }
};
template <> struct SbDb<sb_sfu, db_sfu> {
    static __device__ __forceinline__ int eval(const Geo& g, const unsigned long long* t, int z, bool sub) {
        return sbdb_sfu(g, t, z, sub);
    }
};
template <> struct SbDb<sb_split, db_split> {
    static __device__ __forceinline__ int eval(const Geo& g, const unsigned long long* t, int z, bool sub) {
        return sbdb_split(g, t, z, sub);
    }
};

// x + y for two finite nonzero words (no special code among them): lns_add without its
// special-case tests, for vectors known to hold none; lns_add's finite path.
template <int (*SB)(const Geo&, const unsigned long long*, int), int (*DB)(const Geo&, const unsigned long long*, int)>
__device__ __forceinline__ unsigned int lns_add_finite(const Geo& g, const unsigned long long* t, unsigned int a, unsigned int b) {
    const int special = -(1 << (g.log_bits - 1)), inf = (1 << (g.log_bits - 1)) - 1;
    const Word x = unpack(g, a), y = unpack(g, b);
    const bool x_big = x.log >= y.log;
    const int big = x_big ? x.log : y.log, z = x_big ? y.log - x.log : x.log - y.log;
    const bool negative = x_big ? x.negative : y.negative;
    const bool sub = x.negative != y.negative;
    if (sub && z == 0) return pack(g, false, special);  // x + (-x) = 0 exactly
    const int log = big + SbDb<SB, DB>::eval(g, t, z, sub);
    if (log > inf - 1) return pack(g, negative, inf);           // overflow: +-infinity
    if (log < special + 1) return pack(g, false, special);      // underflow: the one zero
    return pack(g, negative, log);
}

// x + y through the method's s_b / d_b, exactly as Format::add in src/arith.rs.
template <int (*SB)(const Geo&, const unsigned long long*, int), int (*DB)(const Geo&, const unsigned long long*, int)>
__device__ unsigned int lns_add(const Geo& g, const unsigned long long* t, unsigned int a, unsigned int b) {
    const int special = -(1 << (g.log_bits - 1)), inf = (1 << (g.log_bits - 1)) - 1;
    const Word x = unpack(g, a), y = unpack(g, b);
    const bool x_nan = x.log == special && x.negative, y_nan = y.log == special && y.negative;
    if (x_nan || y_nan) return pack(g, true, special);
    const bool x_inf = x.log == inf, y_inf = y.log == inf;
    if (x_inf && y_inf && x.negative != y.negative) return pack(g, true, special);
    if (x_inf) return a;
    if (y_inf) return b;
    if (x.log == special) return b;  // 0 + y
    if (y.log == special) return a;  // x + 0
    return lns_add_finite<SB, DB>(g, t, a, b);
}

// Whether a word holds a special code (zero, NaN, +-infinity): its log field + 1 is the most
// negative code or one above it (3 integer operations).
__device__ __forceinline__ bool is_special(const Geo& g, unsigned int w) {
    const unsigned int field = (1u << g.log_bits) - 1u, top = 1u << (g.log_bits - 1);
    return ((w + 1u) & (field - 1u)) == top;
}

// -y: the sign flips except on the special code (zero stays zero, NaN stays NaN).
__device__ __forceinline__ unsigned int lns_neg(const Geo& g, unsigned int w) {
    return unpack(g, w).log == -(1 << (g.log_bits - 1)) ? w : w ^ (1u << g.log_bits);
}

// Element-wise streaming over words of type W: out[i] = op.one(a[i], b[i]), a vector of V
// words at a time through op.vec (which may schedule its words as it likes). 16-byte vectors
// (4 u32 or 8 u16 words) with streaming loads and stores, LNS_ADD_UNROLL vectors per thread and
// step in flight, so the loads of a warp cover whole 512-byte lines and enough bytes are in
// flight per SM; then the last n mod (16 / sizeof W) words (or all of them, for buffers not
// 16-byte aligned) one at a time. Each word is computed alone, so the result does not depend on
// the path.
#ifndef LNS_ADD_UNROLL
#define LNS_ADD_UNROLL 1
#endif
template <typename W, class Op>
__device__ __forceinline__ void stream2(const W* __restrict__ a, const W* __restrict__ b, W* __restrict__ out,
                                        unsigned long long n, Op op) {
    constexpr int V = 16 / sizeof(W), U = LNS_ADD_UNROLL;
    union Vec { uint4 v; W w[V]; };
    const unsigned long long tid = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    unsigned long long done = 0;
    if ((((unsigned long long)a | (unsigned long long)b | (unsigned long long)out) & 15) == 0) {
        const unsigned long long nv = n / V;
        const uint4* a4 = reinterpret_cast<const uint4*>(a);
        const uint4* b4 = reinterpret_cast<const uint4*>(b);
        uint4* o4 = reinterpret_cast<uint4*>(out);
        for (unsigned long long base = tid; base < nv; base += stride * U) {
            Vec x[U], y[U];
#pragma unroll
            for (int k = 0; k < U; ++k) {
                const unsigned long long i = base + k * stride;
                if (i < nv) { x[k].v = __ldcs(a4 + i); y[k].v = __ldcs(b4 + i); }
            }
#pragma unroll
            for (int k = 0; k < U; ++k) {
                const unsigned long long i = base + k * stride;
                if (i < nv) {
                    Vec r;
                    op.template vec<W, V>(x[k].w, y[k].w, r.w);
                    __stcs(o4 + i, r.v);
                }
            }
        }
        done = nv * V;
    }
    for (unsigned long long i = done + tid; i < n; i += stride) out[i] = (W)op.one(__ldcs(&a[i]), __ldcs(&b[i]));
}

// An element-wise op word by word: `vec` applies `one` to each word of a vector.
template <class Self> struct WordByWord {
    template <typename W, int V> __device__ __forceinline__ void vec(const W* x, const W* y, W* r) const {
#pragma unroll
        for (int j = 0; j < V; ++j) r[j] = (W)static_cast<const Self*>(this)->one(x[j], y[j]);
    }
};

// a + b, or a - b when `negate_b` is set, through the method's s_b / d_b.
#ifndef LNS_ADD_FASTPATH
#define LNS_ADD_FASTPATH 1
#endif
template <int (*SB)(const Geo&, const unsigned long long*, int), int (*DB)(const Geo&, const unsigned long long*, int)>
struct AddOp : WordByWord<AddOp<SB, DB>> {
    const Geo& g;
    const unsigned long long* t;
    int negate_b;
    __device__ AddOp(const Geo& g, const unsigned long long* t, int negate_b) : g(g), t(t), negate_b(negate_b) {}
    __device__ __forceinline__ unsigned int one(unsigned int x, unsigned int y) const {
        return lns_add<SB, DB>(g, t, x, negate_b ? lns_neg(g, y) : y);
    }
#if LNS_ADD_FASTPATH
    // A vector without special words (the common case) skips the special-case tests; the
    // words are those of `one` either way.
    template <typename W, int V> __device__ __forceinline__ void vec(const W* x, const W* y, W* r) const {
        bool special = false;
#pragma unroll
        for (int j = 0; j < V; ++j) special |= is_special(g, x[j]) | is_special(g, y[j]);
        if (special) {
#pragma unroll
            for (int j = 0; j < V; ++j) r[j] = (W)one(x[j], y[j]);
        } else {
            const unsigned int flip = negate_b ? 1u << g.log_bits : 0u;
#pragma unroll
            for (int j = 0; j < V; ++j) r[j] = (W)lns_add_finite<SB, DB>(g, t, x[j], y[j] ^ flip);
        }
    }
#endif
};

// out = a + b, or a - b when `negate_b` is set, over words of type W (u32, or u16 for formats
// of at most 16 bits: half the memory traffic).
template <typename W, int (*SB)(const Geo&, const unsigned long long*, int), int (*DB)(const Geo&, const unsigned long long*, int)>
__device__ void lns_add_loop(const Geo& g, const unsigned long long* t, const W* __restrict__ a,
                             const W* __restrict__ b, W* __restrict__ out, unsigned long long n,
                             int negate_b) {
    stream2<W>(a, b, out, n, AddOp<SB, DB>(g, t, negate_b));
}

#ifndef LNS_ADD_BOUNDS
#define LNS_ADD_BOUNDS
#endif
#define LNS_ADD_KERNEL(NAME, SB, DB)                                                            \
    extern "C" __global__ void LNS_ADD_BOUNDS NAME(Geo g, unsigned long long t0, unsigned long long t1,       \
                                    unsigned long long t2, unsigned long long t3,              \
                                    const unsigned int* __restrict__ a,                        \
                                    const unsigned int* __restrict__ b,                        \
                                    unsigned int* __restrict__ out, unsigned long long n,      \
                                    int negate_b) {                                            \
        const unsigned long long t[4] = {t0, t1, t2, t3};                                       \
        lns_add_loop<unsigned int, SB, DB>(g, t, a, b, out, n, negate_b);                       \
    }                                                                                           \
    extern "C" __global__ void LNS_ADD_BOUNDS NAME##_u16(Geo g, unsigned long long t0, unsigned long long t1, \
                                          unsigned long long t2, unsigned long long t3,        \
                                          const unsigned short* __restrict__ a,                \
                                          const unsigned short* __restrict__ b,                \
                                          unsigned short* __restrict__ out,                    \
                                          unsigned long long n, int negate_b) {                \
        const unsigned long long t[4] = {t0, t1, t2, t3};                                       \
        lns_add_loop<unsigned short, SB, DB>(g, t, a, b, out, n, negate_b);                     \
    }

#define LNS_ADD_ENTRY(M, SB, DB) LNS_ADD_KERNEL(lns_add_##M, SB, DB)
LNS_METHODS(LNS_ADD_ENTRY)

// x * y (div == 0) or x / y, exact, as Format::mul / Format::div in src/arith.rs.
__device__ unsigned int lns_mul_div(const Geo& g, unsigned int a, unsigned int b, bool div) {
    const int special = -(1 << (g.log_bits - 1)), inf = (1 << (g.log_bits - 1)) - 1;
    const Word x = unpack(g, a), y = unpack(g, b);
    const bool xs = x.log == special, ys = y.log == special;
    const bool xi = x.log == inf, yi = y.log == inf;
    const bool neg = x.negative != y.negative;
    const unsigned int nan = pack(g, true, special), zero = pack(g, false, special);
    if ((xs && x.negative) || (ys && y.negative)) return nan;
    long long log;
    if (!div) {
        if ((xs && yi) || (xi && ys)) return nan;  // 0 * inf
        if (xs || ys) return zero;
        if (xi || yi) return pack(g, neg, inf);
        log = (long long)x.log + y.log;
    } else {
        if ((xs && ys) || (xi && yi)) return nan;  // 0 / 0, inf / inf
        if (xs || yi) return zero;
        if (ys) return pack(g, x.negative, inf);   // x / 0: zero has no sign
        if (xi) return pack(g, neg, inf);
        log = (long long)x.log - y.log;
    }
    if (log > inf - 1) return pack(g, neg, inf);
    if (log < special + 1) return zero;
    return pack(g, neg, (int)log);
}

struct MulDivOp : WordByWord<MulDivOp> {
    const Geo& g;
    bool div;
    __device__ MulDivOp(const Geo& g, bool div) : g(g), div(div) {}
    __device__ __forceinline__ unsigned int one(unsigned int x, unsigned int y) const { return lns_mul_div(g, x, y, div); }
};

extern "C" __global__ void lns_mul_div_words(Geo g, const unsigned int* __restrict__ a,
                                             const unsigned int* __restrict__ b,
                                             unsigned int* __restrict__ out, unsigned long long n,
                                             int div) {
    stream2<unsigned int>(a, b, out, n, MulDivOp(g, div != 0));
}
