// Complex LNS on the GPU: S_b(Z) = log(1 + Z) by four methods, element-wise add and multiply,
// and compute-bound benchmarks (the seed's Table I and the texture-cache cliff).
// CPU twins: src/sb.rs (S_b, tables bit-exact up to the filter's final rounding) and
// src/arith.rs (add, mul). A value is uint2 {log code (sign-extended int), angle (turn/2^32)}.

struct ClnsGeo {
    int F;              // fractional bits of the log
    int P;              // angle bits
    int log_bits;       // I + F: the special (zero/NaN) and infinity codes sit at its ends
    int z_min;          // essential zero: below it S_b is (0, 0)
    int near_z;         // near region: z > near_z and pi - theta < near_phi
    unsigned near_phi;
    int p_cl;           // table points along r = 2^z in [0, 1]
    int p_theta;        // table points along theta in [0, pi]
    float r_scale;      // p_cl - 1
    float theta_scale;  // (p_theta - 1) / 2^31
    float c[6];         // 2^f on [0, 1), ascending degree
    // The f32-radian variant (src/radian.rs) reads the same table:
    float theta_scale_rad;  // (p_theta - 1) / pi
    float near_z_rad;       // near region in log2 units and radians: z > near_z_rad,
    float near_phi_rad;     //   pi - theta < near_phi_rad
};

#define HALF_TURN 0x80000000u

__device__ __forceinline__ float pow2i(int k) { return __int_as_float((127 + k) << 23); }

struct SbOut { int re; unsigned im; };

// Rounds (Re in log2 units, Im in turns) to codes; a slightly negative angle wraps.
__device__ __forceinline__ SbOut round_out(const ClnsGeo& g, float re, float im) {
    SbOut o;
    o.re = __float2int_rn(re * pow2i(g.F));
    o.im = ((unsigned)__float2int_rn(im * pow2i(g.P))) << (32 - g.P);
    return o;
}

// ---- S_b methods: sb(g, tex, table, z, theta) for z <= 0, theta in [0, 2^31] ---------------
// Cancellation-free forms (src/sb.rs): d = 1 - r, s = 2 sin(phi/2), phi = pi - theta:
// |1 + Z|^2 = d^2 + r s^2, Re(1 + Z) = d + r s^2 / 2, Im(1 + Z) = r sin(phi).

struct F64 {
    static __device__ SbOut sb(const ClnsGeo& g, unsigned long long, const float2*, int z, unsigned theta) {
        if (z < g.z_min) return SbOut{0, 0u};
        const double zd = (double)z * (double)pow2i(-g.F);
        const double r = exp2(zd);
        const double d = -expm1(zd * 0.69314718055994531);
        const double phi = (double)(HALF_TURN - theta) * 2.3283064365386963e-10;  // turns
        const double s = 2.0 * sinpi(phi);
        const double rs2 = r * s * s;
        const double re = 0.5 * log2(d * d + rs2);
        // |Z| = 1: arg(1 + Z) = theta / 2 exactly, often a tie: take it exactly (as the twin).
        const double im = z == 0 ? (double)theta * 1.1641532182693481e-10
                                 : atan2(r * sinpi(2.0 * phi), d + 0.5 * rs2) * 0.15915494309189535;
        SbOut o;
        o.re = __double2int_rn(re * (double)pow2i(g.F));
        o.im = ((unsigned)__double2int_rn(im * (double)pow2i(g.P))) << (32 - g.P);
        return o;
    }
};

struct Accurate {
    static __device__ SbOut sb(const ClnsGeo& g, unsigned long long, const float2*, int z, unsigned theta) {
        if (z < g.z_min) return SbOut{0, 0u};
        const float zf = (float)z * pow2i(-g.F);
        const float r = exp2f(zf);
        const float d = -expm1f(zf * 0.69314718f);
        const float phi = (float)(HALF_TURN - theta) * 2.3283064e-10f;
        const float s = 2.0f * sinpif(phi);
        const float rs2 = r * s * s;
        const float re = 0.5f * log2f(fmaf(d, d, rs2));
        const float im = atan2f(r * sinpif(2.0f * phi), fmaf(0.5f, rs2, d)) * 0.15915494f;
        return round_out(g, re, im);
    }
};

// r = 2^z for f32 z >= -126 with FMAs only (bit-exact twin: sb::pow2_f32).
__device__ __forceinline__ float pow2_f32(const ClnsGeo& g, float zf) {
    const float i = floorf(zf);
    const float f = zf - i;
    float p = g.c[5];
#pragma unroll
    for (int k = 4; k >= 0; --k) p = fmaf(p, f, g.c[k]);
    return p * pow2i((int)i);
}
__device__ __forceinline__ float pow2_code(const ClnsGeo& g, int z) { return pow2_f32(g, (float)z * pow2i(-g.F)); }

// The bilinear filter: both parts of S_b in one float2 fetch. t is theta in any unit, ts its
// scale to cells (angle units for the code formats, radians for the f32 variant).
struct TexRead {
    static __device__ __forceinline__ float2 read(const ClnsGeo& g, unsigned long long tex, const float2*, float r, float t, float ts) {
        return tex2D<float2>(tex, fmaf(t, ts, 0.5f), fmaf(r, g.r_scale, 0.5f));
    }
};

// The same table from global memory, three FMA lerps per part (twin: Grid2::eval_fma).
struct FmaRead {
    static __device__ __forceinline__ float2 read(const ClnsGeo& g, unsigned long long, const float2* __restrict__ table, float r, float t, float ts) {
        const float u = fminf(fmaxf(__fmul_rn(t, ts), 0.0f), (float)(g.p_theta - 1));
        const float v = fminf(fmaxf(__fmul_rn(r, g.r_scale), 0.0f), (float)(g.p_cl - 1));
        const int i = min((int)u, g.p_theta - 2), j = min((int)v, g.p_cl - 2);
        const float a = __fsub_rn(u, (float)i), b = __fsub_rn(v, (float)j);
        const float2* row = table + j * g.p_theta + i;
        const float2 t00 = __ldg(row), t10 = __ldg(row + 1);
        const float2 t01 = __ldg(row + g.p_theta), t11 = __ldg(row + g.p_theta + 1);
        const float lx = fmaf(a, t10.x - t00.x, t00.x), hx = fmaf(a, t11.x - t01.x, t01.x);
        const float ly = fmaf(a, t10.y - t00.y, t00.y), hy = fmaf(a, t11.y - t01.y, t01.y);
        return make_float2(fmaf(b, hx - lx, lx), fmaf(b, hy - ly, ly));
    }
};

// ---- S_b through the SFUs: MUFU ex2 / cos / lg2 / sqrt / rcp and short FMA polynomials ----------
// The same cancellation-free form as F64 and Accurate, every transcendental an approximate MUFU
// op (PTX .approx.ftz) except where a MUFU error would be amplified: d = 1 - r for |z| < 2^-5
// (cancellation; a Taylor cubic of -expm1 instead), s = 2 sin(phi/2) (relative accuracy needed
// next to Z = -1; an odd degree-7 minimax polynomial), and the angle from the half-angle form
// arg(1 + Z) = 2 atan(y / (|1 + Z| + x)), the atan an odd degree-11 minimax polynomial on
// [0, 1). Five MUFU ops per S_b. Twin: the f64 reference (sb::SbF64); the error contract is a
// bound (docs/design/clns.md), certified over the clns16 lattice by clns_certify_sfu.

__device__ __forceinline__ float mufu_ex2(float x) { float y; asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x)); return y; }
__device__ __forceinline__ float mufu_lg2(float x) { float y; asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x)); return y; }
__device__ __forceinline__ float mufu_sin(float x) { float y; asm("sin.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x)); return y; }
__device__ __forceinline__ float mufu_cos(float x) { float y; asm("cos.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x)); return y; }
__device__ __forceinline__ float mufu_sqrt(float x) { float y; asm("sqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x)); return y; }
__device__ __forceinline__ float mufu_rcp(float x) { float y; asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x)); return y; }

#define SFU_SMALL_Z -0.03125f  // above it (z in log2 units) d comes from the Taylor cubic
#define SFU_MAGIC 12582912.0f  // 1.5 * 2^23: adding it rounds to an integer (ties to even)
#define SFU_MAGIC_BITS 0x4B400000

struct SfuPolar {
    float lq;  // log2 |1 + Z|^2
    float im;  // arg(1 + Z) in turns, negated when asked (mirrored inputs)
};

// z = log2 |Z| <= 0, u = phi / 2pi = (pi - theta) in turns, u in [0, 1/2]; `sign` (0 or the
// sign bit) negates the angle: both parts are odd in it, so the mirror costs one XOR.
__device__ __forceinline__ SfuPolar sfu_polar(float z, float u, unsigned sign) {
    const float r = mufu_ex2(z);
    // -expm1(z ln 2) = -(z ln2)(1 + z ln2 / 2 + (z ln2)^2 / 6): relative error < 5e-7 for z > -2^-5.
    const float d = z > SFU_SMALL_Z ? z * fmaf(z, fmaf(z, -0.0555041087f, -0.240226507f), -0.693147181f) : 1.0f - r;
#ifdef SFU_MUFU_SIN
    const float s = 2.0f * mufu_sin(u * 3.14159265f);
#else
    const float v = u * u;
    // 2 sin(pi u) on [0, 1/2], relative error 9.4e-7.
    const float s = u * fmaf(v, fmaf(v, fmaf(v, -1.11680341f, 5.08721495f), -10.3347359f), 6.28317928f);
#endif
    const float c = mufu_cos(u * 3.14159265f);  // cos(phi / 2)
    const float rs = r * s, rs2 = rs * s;
    const float q = fmaf(d, d, rs2);     // |1 + Z|^2
    const float x = fmaf(0.5f, rs2, d);  // Re(1 + Z) >= 0
    const float y = __uint_as_float(__float_as_uint(rs * c) ^ sign);  // +-Im(1 + Z), |Im| = r sin(phi)
    const float t = y * mufu_rcp(mufu_sqrt(q) + x);  // tan(arg / 2), |t| < 1
    const float w = t * t;
    // atan(t) / pi on [-1, 1], absolute error 5.3e-7: arg(1 + Z) in turns.
    const float a = t * fmaf(w, fmaf(w, fmaf(w, fmaf(w, fmaf(w, -0.00373031525f, 0.0167581718f), -0.0370597057f),
                                                0.0616058223f), -0.105877139f), 0.318302631f);
    return {mufu_lg2(q), a};
}

// Integer <-> float by the 1.5 * 2^23 magic (full-rate FP32/INT32 ops instead of the quarter-rate
// conversions, which share the MUFU's throughput): exact for |codes| < 2^22, which
// Method::serves guarantees (F <= 16, I <= 5, P <= 20; GpuClns refuses other formats).
__device__ __forceinline__ float sfu_code_to_log2(const ClnsGeo& g, int z) {
    // 1.5 * 2^(23 - F) + z 2^-F, then the magic's value off: z 2^-F exactly.
    const int m = ((150 - g.F) << 23) | 0x400000;
    return __int_as_float(m + z) - __int_as_float(m);
}
// phi = pi - theta in turns from theta in angle units (<= 2^31): 1.5 - (1 + theta 2^-32),
// both steps exact while P <= 23.
__device__ __forceinline__ float sfu_phi_turns(unsigned theta) {
    return 1.5f - __uint_as_float(0x3F800000u + (theta >> 9));
}
__device__ __forceinline__ int sfu_round(float v, float scale) {
    return __float_as_int(fmaf(v, scale, SFU_MAGIC)) - SFU_MAGIC_BITS;
}
__device__ __forceinline__ SbOut sfu_round_out(const ClnsGeo& g, SfuPolar p) {
    SbOut o;
    o.re = sfu_round(p.lq, pow2i(g.F - 1));
    o.im = (unsigned)sfu_round(p.im, pow2i(g.P)) << (32 - g.P);
    return o;
}

struct Sfu {
    static __device__ SbOut sb(const ClnsGeo& g, unsigned long long, const float2*, int z, unsigned theta) {
        return sfu_round_out(g, sfu_polar(sfu_code_to_log2(g, z), sfu_phi_turns(theta), 0u));
    }
};

template <class R> struct Table {
    static __device__ SbOut sb(const ClnsGeo& g, unsigned long long tex, const float2* table, int z, unsigned theta) {
        if (z < g.z_min) return SbOut{0, 0u};
        // Next to Z = -1 the table cannot follow S_b: the closed form takes over.
        if (z > g.near_z && HALF_TURN - theta < g.near_phi) return Accurate::sb(g, tex, table, z, theta);
        const float2 v = R::read(g, tex, table, pow2_code(g, z), (float)theta, g.theta_scale);
        return round_out(g, v.x, v.y);
    }
};
typedef Table<TexRead> Tex;
typedef Table<FmaRead> Fma;

// ---- values -----------------------------------------------------------------------------------

__device__ __forceinline__ uint2 clns_nan(const ClnsGeo& g) { return make_uint2((unsigned)(-(1 << (g.log_bits - 1))), 1u << (32 - g.P)); }
__device__ __forceinline__ uint2 clns_zero(const ClnsGeo& g) { return make_uint2((unsigned)(-(1 << (g.log_bits - 1))), 0u); }
__device__ __forceinline__ uint2 clns_inf(const ClnsGeo& g) { return make_uint2((unsigned)((1 << (g.log_bits - 1)) - 1), 0u); }

// 0 finite, 1 zero, 2 NaN, 3 infinity (as ClnsFormat::class).
__device__ __forceinline__ int clns_class(const ClnsGeo& g, uint2 x) {
    const int special = -(1 << (g.log_bits - 1)), inf = (1 << (g.log_bits - 1)) - 1;
    const int log = (int)x.x;
    if (log == special) return x.y != 0u ? 2 : 1;
    if (log >= inf) return 3;
    if (log < special) return 1;
    return 0;
}

__device__ __forceinline__ uint2 clns_finite(const ClnsGeo& g, int log, unsigned angle) {
    const int special = -(1 << (g.log_bits - 1)), inf = (1 << (g.log_bits - 1)) - 1;
    if (log > inf - 1) return clns_inf(g);
    if (log < special + 1) return clns_zero(g);
    return make_uint2((unsigned)log, angle);
}

__device__ __forceinline__ uint2 clns_mul(const ClnsGeo& g, uint2 x, uint2 y) {
    // Fast path, both finite (one unsigned compare each): two integer adds and a range check.
    const int special = -(1 << (g.log_bits - 1)), inf = (1 << (g.log_bits - 1)) - 1;
    const unsigned finite_span = (unsigned)(inf - special - 1);
    if ((unsigned)((int)x.x - special - 1) < finite_span && (unsigned)((int)y.x - special - 1) < finite_span) {
        const int log = (int)x.x + (int)y.x;
        if (log > special && log < inf) return make_uint2((unsigned)log, x.y + y.y);
        return log >= inf ? clns_inf(g) : clns_zero(g);
    }
    const int cx = clns_class(g, x), cy = clns_class(g, y);
    if (cx | cy) {
        if (cx == 2 || cy == 2 || (cx == 1 && cy == 3) || (cx == 3 && cy == 1)) return clns_nan(g);
        if (cx == 1 || cy == 1) return clns_zero(g);
        return clns_inf(g);
    }
    return clns_finite(g, (int)x.x + (int)y.x, x.y + y.y);
}

// x * y for operands the caller knows are finite with an in-range product (twin:
// ClnsFormat::mul_finite): the two integer adds, no class or range test.
__device__ __forceinline__ uint2 clns_mul_finite(uint2 x, uint2 y) {
    return make_uint2(x.x + y.x, x.y + y.y);
}

template <class M>
__device__ __forceinline__ uint2 clns_add(const ClnsGeo& g, unsigned long long tex, const float2* table, uint2 x, uint2 y) {
    const int special = -(1 << (g.log_bits - 1)), inf = (1 << (g.log_bits - 1)) - 1;
    const unsigned finite_span = (unsigned)(inf - special - 1);
    if ((unsigned)((int)x.x - special - 1) >= finite_span || (unsigned)((int)y.x - special - 1) >= finite_span) {
        const int cx = clns_class(g, x), cy = clns_class(g, y);
        if (cx == 2 || cy == 2 || (cx == 3 && cy == 3)) return clns_nan(g);
        if (cx == 3 || cy == 3) return clns_inf(g);
        return cx == 1 ? y : x;
    }
    const int a = (int)x.x, b = (int)y.x;
    const bool xb = a >= b;
    const int big = xb ? a : b;
    const unsigned big_angle = xb ? x.y : y.y;
    const int z = (xb ? b : a) - big;
    unsigned theta = (xb ? y.y : x.y) - big_angle;
    const bool mirrored = theta > HALF_TURN;
    if (mirrored) theta = 0u - theta;
    if (z == 0 && theta == HALF_TURN) return clns_zero(g);  // x + (-x) = 0 exactly
    const SbOut s = M::sb(g, tex, table, z, theta);
    return clns_finite(g, big + s.re, big_angle + (mirrored ? 0u - s.im : s.im));
}

// The SFU add: the reduction of clns_add folded into the S_b evaluation, branch-free on finite
// operands with an in-range sum. |a - b| and |theta| by integer abs; the mirror (theta > pi
// after the swap) is the sign of t0 xor that of a - b, applied as the sign of the atan argument;
// x + (-x) needs no test: q = 0 gives lg2 = -inf, a log code far below the range, which the
// range check turns into exact zero. Special operands and out-of-range sums share one rarely
// taken branch at the end (the math before it is harmless on any codes). The same results as
// clns_add<M> with M::sb = Sfu::sb (both parts of S_b are odd in the mirror, the rounding is
// symmetric).
template <>
__device__ __forceinline__ uint2 clns_add<Sfu>(const ClnsGeo& g, unsigned long long, const float2*, uint2 x, uint2 y) {
    const int special = -(1 << (g.log_bits - 1)), inf = (1 << (g.log_bits - 1)) - 1;
    const unsigned finite_span = (unsigned)(inf - special - 1);
    const int a = (int)x.x, b = (int)y.x;
    const int diff = a - b;
    const int t0 = (int)(y.y - x.y);           // small - big angle, or its negation
    const unsigned theta = (unsigned)abs(t0);  // the reduced theta in [0, 2^31]
    const unsigned sign = (unsigned)(t0 ^ diff) & 0x80000000u;
    const SfuPolar p = sfu_polar(sfu_code_to_log2(g, -abs(diff)), sfu_phi_turns(theta), sign);
    const int log = max(a, b) + sfu_round(p.lq, pow2i(g.F - 1));
    // (k << (32 - P)) for the rounded Im code k, as one multiply-add of the magic's bits.
    const unsigned unit = 1u << (32 - g.P);
    const unsigned angle = (diff >= 0 ? x.y : y.y) - SFU_MAGIC_BITS * unit
                         + (unsigned)__float_as_int(fmaf(p.im, pow2i(g.P), SFU_MAGIC)) * unit;
    // Finite operands: min(a, b) > special and max(a, b) < inf (clns_class's classes).
    const bool finite_in = min(a, b) > special && max(a, b) < inf;
    if (finite_in && (unsigned)(log - special - 1) < finite_span) return make_uint2((unsigned)log, angle);
    if (finite_in) return log > 0 ? clns_inf(g) : clns_zero(g);
    const int cx = clns_class(g, x), cy = clns_class(g, y);
    if (cx == 2 || cy == 2 || (cx == 3 && cy == 3)) return clns_nan(g);
    if (cx == 3 || cy == 3) return clns_inf(g);
    return cx == 1 ? y : x;
}

// ---- kernels ----------------------------------------------------------------------------------

#define CLNS_SB_KERNEL(NAME, M)                                                                  \
    extern "C" __global__ void NAME(ClnsGeo g, unsigned long long tex, const float2* __restrict__ table, \
                                    const int* __restrict__ z, const unsigned* __restrict__ theta,   \
                                    int n, int2* __restrict__ out) {                            \
        const int i = blockIdx.x * blockDim.x + threadIdx.x;                                    \
        if (i < n) { const SbOut s = M::sb(g, tex, table, z[i], theta[i]); out[i] = make_int2(s.re, (int)s.im); } \
    }
CLNS_SB_KERNEL(clns_sb_f64, F64)
CLNS_SB_KERNEL(clns_sb_accurate, Accurate)
CLNS_SB_KERNEL(clns_sb_tex, Tex)
CLNS_SB_KERNEL(clns_sb_fma, Fma)
CLNS_SB_KERNEL(clns_sb_sfu, Sfu)

#define CLNS_ADD_KERNEL(NAME, M)                                                                 \
    extern "C" __global__ void NAME(ClnsGeo g, unsigned long long tex, const float2* __restrict__ table, \
                                    const uint2* __restrict__ a, const uint2* __restrict__ b,   \
                                    uint2* __restrict__ out, unsigned long long n) {            \
        const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;           \
        for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) \
            out[i] = clns_add<M>(g, tex, table, a[i], b[i]);                                     \
    }
CLNS_ADD_KERNEL(clns_add_f64, F64)
CLNS_ADD_KERNEL(clns_add_accurate, Accurate)
CLNS_ADD_KERNEL(clns_add_tex, Tex)
CLNS_ADD_KERNEL(clns_add_fma, Fma)
CLNS_ADD_KERNEL(clns_add_sfu, Sfu)

extern "C" __global__ void clns_mul_kernel(ClnsGeo g, const uint2* __restrict__ a, const uint2* __restrict__ b,
                                           uint2* __restrict__ out, unsigned long long n) {
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = clns_mul(g, a[i], b[i]);
}

extern "C" __global__ void clns_mul_finite_kernel(const uint2* __restrict__ a, const uint2* __restrict__ b,
                                                  uint2* __restrict__ out, unsigned long long n) {
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = clns_mul_finite(a[i], b[i]);
}

// Element-wise complex f32 add and multiply (complex64 in, complex64 out): the streaming
// counterparts of clns_add / clns_mul, same bytes per op.
extern "C" __global__ void stream_cf32_add(const float2* __restrict__ a, const float2* __restrict__ b,
                                           float2* __restrict__ out, unsigned long long n) {
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const float2 x = a[i], y = b[i];
        out[i] = make_float2(x.x + y.x, x.y + y.y);
    }
}
extern "C" __global__ void stream_cf32_mul(const float2* __restrict__ a, const float2* __restrict__ b,
                                           float2* __restrict__ out, unsigned long long n) {
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const float2 x = a[i], y = b[i];
        out[i] = make_float2(fmaf(x.x, y.x, -x.y * y.y), fmaf(x.x, y.y, x.y * y.x));
    }
}

// ---- Table I: register-resident chains ---------------------------------------------------------
// Each thread runs CHAINS independent chains of `iters` steps. Add: (x, y) -> (x + y, -x), a
// rotation by 60 degrees of the pair, so magnitudes stay bounded and every step is one complex
// add (the negation is a sign flip folded into the next add, or one integer add on an angle).
// Mul: x -> x * w with |w| = 1. Results are folded into one word per thread so nothing is dead.

#define CHAINS 2

// The chains' frame: each thread loads CHAINS states from init[(tid * CHAINS + c) & 4095], runs
// `iters` steps of every chain, and folds the states into out[tid]. C gives State, load (one
// init element to a state), step (chain c of the states) and fold (a state to a word).
template <class C, class Init>
__device__ __forceinline__ void run_chains(const C& ch, const Init* __restrict__ init, int iters, unsigned* out) {
    const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    typename C::State s[CHAINS];
#pragma unroll
    for (int c = 0; c < CHAINS; ++c) s[c] = C::load(init[(tid * CHAINS + c) & 4095]);
    for (int it = 0; it < iters; ++it) {
#pragma unroll
        for (int c = 0; c < CHAINS; ++c) ch.step(s, c);
    }
    unsigned acc = 0;
#pragma unroll
    for (int c = 0; c < CHAINS; ++c) acc ^= C::fold(s[c]);
    out[tid] = acc;
}

struct F2Pair { float2 x, y; };  // an add chain's (x, y) in complex f32 or the f32 variant
struct U2Pair { uint2 x, y; };   // an add chain's (x, y) in a code format

__device__ __forceinline__ F2Pair load_f2_pair(float4 v) { return {make_float2(v.x, v.y), make_float2(v.z, v.w)}; }
__device__ __forceinline__ unsigned fold_f2_pair(const F2Pair& p) {
    return __float_as_uint(p.x.x) ^ __float_as_uint(p.x.y) ^ __float_as_uint(p.y.x);
}
__device__ __forceinline__ unsigned fold_f2(float2 x) { return __float_as_uint(x.x) ^ __float_as_uint(x.y); }

// Complex f32 add: (x, y) -> (x + y, -x).
struct Cf32Add {
    typedef F2Pair State;
    static __device__ __forceinline__ State load(float4 v) { return load_f2_pair(v); }
    __device__ __forceinline__ void step(State* s, int c) const {
        const float2 x = s[c].x, y = s[c].y;
        s[c].x = make_float2(x.x + y.x, x.y + y.y);
        s[c].y = make_float2(-x.x, -x.y);
    }
    static __device__ __forceinline__ unsigned fold(const State& p) { return fold_f2_pair(p); }
};

__device__ __forceinline__ float2 clnsf_mul(float2 x, float2 y);  // the f32 variant's, below

// x -> x * w, in complex f32 (Radian false) or in the f32-radian variant.
template <bool Radian> struct F2Mul {
    typedef float2 State;
    float2 w;
    static __device__ __forceinline__ State load(float4 v) { return make_float2(v.x, v.y); }
    __device__ __forceinline__ void step(State* s, int c) const {
        const float2 x = s[c];
        s[c] = Radian ? clnsf_mul(x, w) : make_float2(fmaf(x.x, w.x, -x.y * w.y), fmaf(x.x, w.y, x.y * w.x));
    }
    static __device__ __forceinline__ unsigned fold(State x) { return fold_f2(x); }
};

extern "C" __global__ void bench_cf32_add(const float4* __restrict__ init, int iters, unsigned* out) {
    run_chains(Cf32Add{}, init, iters, out);
}
extern "C" __global__ void bench_cf32_mul(const float4* __restrict__ init, float2 w, int iters, unsigned* out) {
    run_chains(F2Mul<false>{w}, init, iters, out);
}

// CLNS multiply, x -> x * w (Finite: the finite fast path; see bench_clns_mul_finite).
template <bool Finite> struct ClnsMulChain {
    typedef uint2 State;
    const ClnsGeo& g;
    uint2 w;
    static __device__ __forceinline__ State load(uint4 v) { return make_uint2(v.x, v.y); }
    __device__ __forceinline__ void step(State* s, int c) const {
        s[c] = Finite ? clns_mul_finite(s[c], s[(c + 1) % CHAINS]) : clns_mul(g, s[c], w);
    }
    static __device__ __forceinline__ unsigned fold(State x) { return x.x ^ x.y; }
};

extern "C" __global__ void bench_clns_mul(ClnsGeo g, const uint4* __restrict__ init, uint2 w, int iters, unsigned* out) {
    run_chains(ClnsMulChain<false>{g, w}, init, iters, out);
}

// The finite fast path is two integer adds; x <- x * w with a fixed w would be an add chain
// the compiler may fold (x + 2w per two steps, IADD3), so the chains multiply each other
// instead (x0 <- x0 x1, x1 <- x1 x0: CHAINS muls a step, none foldable). The logs leave the
// range and wrap, which the fast path never looks at: this times its two adds. w is unused.
extern "C" __global__ void bench_clns_mul_finite(ClnsGeo g, const uint4* __restrict__ init, uint2 w, int iters, unsigned* out) {
    run_chains(ClnsMulChain<true>{g, w}, init, iters, out);
}

// CLNS add by S_b method M: (x, y) -> (x + y, -x), the negation one integer add on the angle.
template <class M> struct ClnsAddChain {
    typedef U2Pair State;
    const ClnsGeo& g;
    unsigned long long tex;
    const float2* table;
    static __device__ __forceinline__ State load(uint4 v) { return {make_uint2(v.x, v.y), make_uint2(v.z, v.w)}; }
    __device__ __forceinline__ void step(State* s, int c) const {
        const uint2 sum = clns_add<M>(g, tex, table, s[c].x, s[c].y);
        s[c].y = make_uint2(s[c].x.x, s[c].x.y + HALF_TURN);
        s[c].x = sum;
    }
    static __device__ __forceinline__ unsigned fold(const State& p) { return p.x.x ^ p.x.y ^ p.y.x; }
};

// The add chains' entry points: S_b by CHAIN's method, init of type INIT; lambda is the blend's
// (unused here, so every add kernel takes the same arguments).
#define BENCH_ADD(NAME, CHAIN, INIT)                                                             \
    extern "C" __global__ void NAME(ClnsGeo g, unsigned long long tex, const float2* __restrict__ table, \
                                    const INIT* __restrict__ init, int lambda, int iters, unsigned* out) { \
        run_chains(CHAIN{g, tex, table}, init, iters, out);                                      \
    }
#define BENCH_CLNS_ADD(NAME, M) BENCH_ADD(NAME, ClnsAddChain<M>, uint4)
BENCH_CLNS_ADD(bench_clns_add_f64, F64)
BENCH_CLNS_ADD(bench_clns_add_accurate, Accurate)
BENCH_CLNS_ADD(bench_clns_add_tex, Tex)
BENCH_CLNS_ADD(bench_clns_add_fma, Fma)
BENCH_CLNS_ADD(bench_clns_add_sfu, Sfu)

// Blend: warps with (warp index % 8) < lambda read the texture, the others the FMA path.
extern "C" __global__ void bench_clns_add_blend(ClnsGeo g, unsigned long long tex, const float2* __restrict__ table,
                                                const uint4* __restrict__ init, int lambda, int iters, unsigned* out) {
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if ((warp & 7) < lambda) run_chains(ClnsAddChain<Tex>{g, tex, table}, init, iters, out);
    else run_chains(ClnsAddChain<Fma>{g, tex, table}, init, iters, out);
}

// Element-wise blend add (for the check): the same warp split over a grid-stride loop.
extern "C" __global__ void clns_add_blend(ClnsGeo g, unsigned long long tex, const float2* __restrict__ table,
                                          const uint2* __restrict__ a, const uint2* __restrict__ b,
                                          uint2* __restrict__ out, unsigned long long n, int lambda) {
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    const bool use_tex = (((blockIdx.x * blockDim.x + threadIdx.x) >> 5) & 7) < (unsigned)lambda;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = use_tex ? clns_add<Tex>(g, tex, table, a[i], b[i]) : clns_add<Fma>(g, tex, table, a[i], b[i]);
}

// ---- the texture-cache cliff: S_b at random inputs ------------------------------------------------
// Each iteration draws (z, theta) from a per-thread xorshift over the whole table domain (outside
// the near region), so the working set is the whole table.

template <class R>
__device__ __forceinline__ void cliff(const ClnsGeo& g, unsigned long long tex, const float2* table, int iters, unsigned* out) {
    unsigned s = (blockIdx.x * blockDim.x + threadIdx.x) * 2654435761u + 12345u;
    unsigned acc = 0;
    const int span = -g.z_min;
    for (int it = 0; it < iters; ++it) {
        s ^= s << 13; s ^= s >> 17; s ^= s << 5;
        const int z = -(int)(s % (unsigned)span);
        const unsigned theta = (s * 747796405u) >> 1;  // [0, 2^31)
        const float2 v = R::read(g, tex, table, pow2_code(g, z), (float)theta, g.theta_scale);
        acc ^= __float_as_uint(v.x) ^ __float_as_uint(v.y);
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
extern "C" __global__ void cliff_tex(ClnsGeo g, unsigned long long tex, const float2* table, int iters, unsigned* out) { cliff<TexRead>(g, tex, table, iters, out); }
extern "C" __global__ void cliff_fma(ClnsGeo g, unsigned long long tex, const float2* table, int iters, unsigned* out) { cliff<FmaRead>(g, tex, table, iters, out); }

// ---- batched radix-2 FFT in CLNS: one block per transform, in shared memory ------------------
// Decimation in time, bit-reversed load; butterflies (u, v) -> (u + w v, u - w v) with the
// twiddle w = e^(-2 pi i k / len) exact (log 0, angle -k 2^32 / len). Twin: fft::clns_fft.

__device__ __forceinline__ uint2 clns_neg(const ClnsGeo& g, uint2 x) {
    return clns_class(g, x) == 0 ? make_uint2(x.x, x.y + HALF_TURN) : x;
}

template <class M>
__device__ __forceinline__ void fft_block(const ClnsGeo& g, unsigned long long tex, const float2* table, uint2* data, int log2n) {
    extern __shared__ uint2 sh[];
    const int n = 1 << log2n;
    uint2* x = data + (size_t)blockIdx.x * n;
    for (int i = threadIdx.x; i < n; i += blockDim.x) sh[__brev((unsigned)i) >> (32 - log2n)] = x[i];
    __syncthreads();
    for (int s = 0; s < log2n; ++s) {
        const int half = 1 << s;
        for (int t = threadIdx.x; t < n / 2; t += blockDim.x) {
            const int k = t & (half - 1);
            const int j = ((t >> s) << (s + 1)) + k;
            const uint2 w = make_uint2(0u, 0u - ((unsigned)k << (31 - s)));
            const uint2 u = sh[j];
            const uint2 v = clns_mul(g, sh[j + half], w);
            sh[j] = clns_add<M>(g, tex, table, u, v);
            sh[j + half] = clns_add<M>(g, tex, table, u, clns_neg(g, v));
        }
        __syncthreads();
    }
    for (int i = threadIdx.x; i < n; i += blockDim.x) x[i] = sh[i];
}

#define CLNS_FFT_KERNEL(NAME, M)                                                                 \
    extern "C" __global__ void NAME(ClnsGeo g, unsigned long long tex, const float2* __restrict__ table, \
                                    uint2* data, int log2n) {                                    \
        fft_block<M>(g, tex, table, data, log2n);                                                \
    }
CLNS_FFT_KERNEL(clns_fft_f64, F64)
CLNS_FFT_KERNEL(clns_fft_accurate, Accurate)
CLNS_FFT_KERNEL(clns_fft_tex, Tex)
CLNS_FFT_KERNEL(clns_fft_fma, Fma)
CLNS_FFT_KERNEL(clns_fft_sfu, Sfu)

// ---- the f32-radian variant (the seed's representation; twin: src/radian.rs) ----------------------
// A value is float2 {log2 |X|, angle in radians in (-pi_f32, pi_f32]}; zero is log -inf, complex
// infinity log +inf, NaN a NaN log or a non-finite angle. Every operation below is the twin's, in
// the same order, with products that must not fuse into a later add written as __fmul_rn.

#define PI_HI 3.14159274f               // pi rounded to f32 (above pi)
#define PI_LO -8.74227766e-08f          // pi - PI_HI, rounded to f32
#define TAU_HI 6.28318548f              // 2 PI_HI
#define TAU_LO -1.74845553e-07f         // 2 PI_LO
#define RAD_Z_MIN -126.0f               // below it S_b reads as (0, 0)
#define RAD_INF __int_as_float(0x7f800000)

// a in (-2 pi, 2 pi] back into (-pi_f32, pi_f32]: a - TAU_HI is exact, then one rounding.
__device__ __forceinline__ float rad_wrap(float a) {
    if (a > PI_HI) return __fsub_rn(__fsub_rn(a, TAU_HI), TAU_LO);
    if (a <= -PI_HI) return __fadd_rn(__fadd_rn(a, TAU_HI), TAU_LO);
    return a;
}
// A tiny positive angle rounds to -pi_f32, outside (-pi_f32, pi_f32]: it maps to pi_f32 (twin: half_turn).
__device__ __forceinline__ float rad_half_turn(float a) {
    if (a > 0.0f) {
        const float r = __fsub_rn(__fsub_rn(a, PI_HI), PI_LO);
        return r <= -PI_HI ? PI_HI : r;
    }
    return __fadd_rn(__fadd_rn(a, PI_HI), PI_LO);
}
__device__ __forceinline__ bool rad_is_finite(float2 x) { return fabsf(x.x) < RAD_INF && fabsf(x.y) < RAD_INF; }
__device__ __forceinline__ bool rad_is_nan(float2 x) { return isnan(x.x) || !(fabsf(x.y) < RAD_INF); }

// The seed's multiply: two FADDs and a wrap, specials by IEEE on the logs (no tests).
__device__ __forceinline__ float2 clnsf_mul(float2 x, float2 y) {
    return make_float2(__fadd_rn(x.x, y.x), rad_wrap(__fadd_rn(x.y, y.y)));
}
__device__ __forceinline__ float2 clnsf_neg(float2 x) { return make_float2(x.x, rad_half_turn(x.y)); }

// ---- f32 S_b: z = log2|Z| <= 0, theta = arg Z in [0, pi], phi = pi - theta (accurate) --------------
struct RadF64 {
    static __device__ float2 sb(const ClnsGeo&, unsigned long long, const float2*, float z, float, float phi) {
        const double zd = (double)z;
        const double r = exp2(zd);
        const double d = -expm1(zd * 0.69314718055994531);
        const double ph = (double)phi;
        const double s = 2.0 * sin(0.5 * ph);
        const double rs2 = r * s * s;
        return make_float2((float)(0.5 * log2(d * d + rs2)), (float)atan2(r * sin(ph), d + 0.5 * rs2));
    }
};
struct RadAccurate {
    static __device__ float2 sb(const ClnsGeo&, unsigned long long, const float2*, float z, float, float phi) {
        const float r = exp2f(z);
        const float d = -expm1f(z * 0.69314718f);
        const float s = 2.0f * sinf(0.5f * phi);
        const float rs2 = r * s * s;
        return make_float2(0.5f * log2f(fmaf(d, d, rs2)), atan2f(r * sinf(phi), fmaf(0.5f, rs2, d)));
    }
};
// Through the SFUs (sfu_polar): phi to turns by one multiply, the angle back to radians.
struct RadSfu {
    static __device__ float2 sb(const ClnsGeo&, unsigned long long, const float2*, float z, float, float phi) {
        const SfuPolar p = sfu_polar(z, __fmul_rn(phi, 0.159154943f), 0u);
        return make_float2(0.5f * p.lq, __fmul_rn(p.im, 6.28318531f));
    }
};
template <class R> struct RadTable {
    static __device__ float2 sb(const ClnsGeo& g, unsigned long long tex, const float2* table, float z, float theta, float phi) {
        if (z < RAD_Z_MIN) return make_float2(0.0f, 0.0f);
        if (z > g.near_z_rad && phi < g.near_phi_rad) return RadAccurate::sb(g, tex, table, z, theta, phi);
        const float2 v = R::read(g, tex, table, pow2_f32(g, z), theta, g.theta_scale_rad);
        return make_float2(v.x, __fmul_rn(v.y, TAU_HI));  // turns -> radians, unfused as the twin
    }
};

// x + y (negate: x - y) = B (1 + Z), |Z| <= 1 (twin: radian::add_signed).
template <class M>
__device__ __forceinline__ float2 clnsf_add(const ClnsGeo& g, unsigned long long tex, const float2* table, float2 x, float2 y, bool negate) {
    if (!(rad_is_finite(x) && rad_is_finite(y))) {
        if (rad_is_nan(x) || rad_is_nan(y)) return make_float2(__int_as_float(0x7fc00000), 0.0f);
        if (y.x == -RAD_INF) return x;
        if (x.x == -RAD_INF) return negate ? clnsf_neg(y) : y;
        if (x.x == RAD_INF && y.x == RAD_INF) return make_float2(__int_as_float(0x7fc00000), 0.0f);
        return make_float2(RAD_INF, 0.0f);
    }
    const bool big_is_y = y.x > x.x || (y.x == x.x && y.y > x.y);
    const float2 big = big_is_y ? y : x, small = big_is_y ? x : y;
    const float z = __fsub_rn(small.x, big.x);
    // arg small - arg big, exact in f64, wrapped with f64's pi (twin: radian::add_signed).
    double d = (double)small.y - (double)big.y;
    if (d > 3.141592653589793) d -= 6.283185307179586;
    else if (d <= -3.141592653589793) d += 6.283185307179586;
    const float near = (float)(3.141592653589793 - fabs(d)), far = (float)fabs(d);
    const float theta = negate ? near : far, phi = negate ? far : near;
    const bool mirrored = negate ? d > 0.0 : d < 0.0;
    if (z == 0.0f && phi == 0.0f) return make_float2(-RAD_INF, 0.0f);  // x - x = 0 exactly
    const float2 s = M::sb(g, tex, table, z, theta, phi);
    const float angle = rad_wrap(__fadd_rn(big.y, mirrored ? -s.y : s.y));
    return make_float2(__fadd_rn(big.x, s.x), negate && big_is_y ? rad_half_turn(angle) : angle);
}

#define CLNSF_ADD_KERNEL(NAME, M)                                                                \
    extern "C" __global__ void NAME(ClnsGeo g, unsigned long long tex, const float2* __restrict__ table, \
                                    const float2* __restrict__ a, const float2* __restrict__ b, \
                                    float2* __restrict__ out, unsigned long long n, int negate) { \
        const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;           \
        for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) \
            out[i] = clnsf_add<M>(g, tex, table, a[i], b[i], negate != 0);                      \
    }
CLNSF_ADD_KERNEL(clnsf_add_f64, RadF64)
CLNSF_ADD_KERNEL(clnsf_add_accurate, RadAccurate)
CLNSF_ADD_KERNEL(clnsf_add_tex, RadTable<TexRead>)
CLNSF_ADD_KERNEL(clnsf_add_fma, RadTable<FmaRead>)
CLNSF_ADD_KERNEL(clnsf_add_sfu, RadSfu)

extern "C" __global__ void clnsf_mul_kernel(const float2* __restrict__ a, const float2* __restrict__ b,
                                            float2* __restrict__ out, unsigned long long n) {
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = clnsf_mul(a[i], b[i]);
}

// Table I chains for the f32 variant, as the code formats' (init: float4 {x.log, x.angle,
// y.log, y.angle} of finite values).
extern "C" __global__ void bench_clnsf_mul(const float4* __restrict__ init, float2 w, int iters, unsigned* out) {
    run_chains(F2Mul<true>{w}, init, iters, out);
}

// f32-radian add by S_b method M: (x, y) -> (x + y, -x).
template <class M> struct ClnsfAddChain {
    typedef F2Pair State;
    const ClnsGeo& g;
    unsigned long long tex;
    const float2* table;
    static __device__ __forceinline__ State load(float4 v) { return load_f2_pair(v); }
    __device__ __forceinline__ void step(State* s, int c) const {
        const float2 sum = clnsf_add<M>(g, tex, table, s[c].x, s[c].y, false);
        s[c].y = clnsf_neg(s[c].x);
        s[c].x = sum;
    }
    static __device__ __forceinline__ unsigned fold(const State& p) { return fold_f2_pair(p); }
};

#define BENCH_CLNSF_ADD(NAME, M) BENCH_ADD(NAME, ClnsfAddChain<M>, float4)
BENCH_CLNSF_ADD(bench_clnsf_add_f64, RadF64)
BENCH_CLNSF_ADD(bench_clnsf_add_accurate, RadAccurate)
BENCH_CLNSF_ADD(bench_clnsf_add_tex, RadTable<TexRead>)
BENCH_CLNSF_ADD(bench_clnsf_add_fma, RadTable<FmaRead>)
BENCH_CLNSF_ADD(bench_clnsf_add_sfu, RadSfu)

// ---- certificate of the SFU S_b over a whole lattice (twin: certify::LatticeCertificate) --------
// Point i of the lattice is z = -(i / nt) (a log code, z in [z_lo, 0]) and the angle code
// k = i % nt (theta = k 2^(32-P), theta in [0, pi]: nt = 2^(P-1) + 1). Against the f64
// cancellation-free form (at |Z| = 1 the exact theta / 2), each thread keeps the largest error of
// each part in ulps; the block's maxima go to worst[] as (error bits << 32 | point), by 64-bit
// atomicMax (errors are non-negative floats: their bits order as they do); wrong[] counts results
// off the correctly rounded codes. Part 2 and 3 of worst[] hold the f32-radian variant's largest
// absolute errors at the same points (Re in log2 units, Im in radians; z and phi rounded to f32
// first, the reference at those f32 inputs), for z >= -126 (below, it reads S_b as 0).
__device__ __forceinline__ unsigned long long warp_max_u64(unsigned long long v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        const unsigned long long w = __shfl_xor_sync(0xffffffffu, v, o);
        v = w > v ? w : v;
    }
    return v;
}

__device__ __forceinline__ void sb_reference(double z, double phi_turns, double* re, double* im) {
    const double r = exp2(z);
    const double d = -expm1(z * 0.69314718055994531);
    const double s = 2.0 * sinpi(phi_turns);
    const double rs2 = r * s * s;
    *re = 0.5 * log2(d * d + rs2);
    *im = atan2(r * sinpi(2.0 * phi_turns), d + 0.5 * rs2) * 0.15915494309189535;
}

__device__ __forceinline__ void certify_sfu_body(const ClnsGeo& g, int z_lo, unsigned long long n,
                                                 unsigned long long* worst, unsigned long long* wrong) {
    const unsigned nt = (1u << (g.P - 1)) + 1u;
    unsigned long long w[4] = {0, 0, 0, 0};
    unsigned long long bad[2] = {0, 0};
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const int z = -(int)(i / nt);
        const unsigned k = (unsigned)(i % nt);
        const unsigned theta = k << (32 - g.P);
        if (z < z_lo || (z == 0 && theta == HALF_TURN)) continue;  // Z = -1: x + (-x), exact zero in the add
        const SbOut s = Sfu::sb(g, 0, nullptr, z, theta);
        double re, im;
        const double zd = (double)z * (double)pow2i(-g.F);
        sb_reference(zd, (double)(HALF_TURN - theta) * 2.3283064365386963e-10, &re, &im);
        if (z == 0) im = (double)theta * 1.1641532182693481e-10;
        const double re_u = re * (double)pow2i(g.F), im_u = im * (double)pow2i(g.P);
        const int im_code = (int)s.im >> (32 - g.P);
        const float e_re = (float)fabs((double)s.re - re_u), e_im = (float)fabs((double)im_code - im_u);
        const unsigned long long idx = i & 0xffffffffull;
        w[0] = max(w[0], ((unsigned long long)__float_as_uint(e_re) << 32) | idx);
        w[1] = max(w[1], ((unsigned long long)__float_as_uint(e_im) << 32) | idx);
        bad[0] += (double)s.re != rint(re_u);
        bad[1] += (double)im_code != rint(im_u);
        if (z >= -126 * (1 << g.F)) {
            // The f32-radian variant at the same point: phi in radians rounded to f32.
            const float zf = (float)zd;
            const float phi = (float)((double)(HALF_TURN - theta) * 1.4629180792671596e-09);  // 2 pi / 2^32
            const float2 v = RadSfu::sb(g, 0, nullptr, zf, 0.0f, phi);
            double rre, rim;
            sb_reference((double)zf, (double)phi * 0.15915494309189535, &rre, &rim);
            const float a_re = (float)fabs((double)v.x - rre), a_im = (float)fabs((double)v.y - rim * 6.283185307179586);
            w[2] = max(w[2], ((unsigned long long)__float_as_uint(a_re) << 32) | idx);
            w[3] = max(w[3], ((unsigned long long)__float_as_uint(a_im) << 32) | idx);
        }
    }
#pragma unroll
    for (int p = 0; p < 4; ++p) {
        const unsigned long long m = warp_max_u64(w[p]);
        if ((threadIdx.x & 31) == 0 && m) atomicMax(worst + p, m);
    }
#pragma unroll
    for (int p = 0; p < 2; ++p) {
        unsigned long long c = bad[p];
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) c += __shfl_xor_sync(0xffffffffu, c, o);
        if ((threadIdx.x & 31) == 0 && c) atomicAdd(wrong + p, c);
    }
}

extern "C" __global__ void clns_certify_sfu(ClnsGeo g, int z_lo, unsigned long long n,
                                            unsigned long long* worst, unsigned long long* wrong) {
    certify_sfu_body(g, z_lo, n, worst, wrong);
}
