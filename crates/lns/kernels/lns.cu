// s_b(z) = log2(1 + 2^z) and d_b(z) = log2(1 - 2^z) on LNS codes, by every method of
// sigpu-lns (src/method.rs). Each kernel evaluates codes z = start .. start + n - 1 and writes
// the rounded result codes. The CPU twins are in src/tables.rs (table methods, bit-exact) and
// src/arith.rs (f64). Geometry and the near-zero form of d_b are explained in src/tables.rs.

struct Geo {
    int F;             // fractional bits
    int shift;         // codes per far segment: 2^shift
    int far_segments;  // far segments, ending at z = 0
    int near_shift;    // codes per near (h) segment: 2^near_shift
    int log2m_bits;    // log2 m segments: 2^log2m_bits
    int z0;            // essential zero: below it s_b and d_b round to 0
};

// v * 2^F rounded to nearest, ties to even (the scaling is exact).
__device__ __forceinline__ int to_code(float v, int F) { return __float2int_rn(v * exp2f((float)F)); }
__device__ __forceinline__ int to_code_d(double v, int F) { return __double2int_rn(v * exp2((double)F)); }

// (u mod 2^b) * 2^-b: the local variable of a segment, exact in f32 for b <= 24.
__device__ __forceinline__ float local(long long u, int b) {
    return (float)(u & ((1LL << b) - 1)) * exp2f((float)-b);
}

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
__device__ __forceinline__ void far_index(const Geo& g, long long z, int& w, float& s) {
    const long long u = z + ((long long)g.far_segments << g.shift);
    w = (int)(u >> g.shift);
    if (w == g.far_segments) { w -= 1; s = 1.0f; } else { s = local(u, g.shift); }
}

template <class R> __device__ int sb_table(const Geo& g, const unsigned long long* t, long long z) {
    if (z < g.z0) return 0;
    int w; float s;
    far_index(g, z, w, s);
    return to_code(R::read(t[0], w, s), g.F);
}

template <class R> __device__ int db_table(const Geo& g, const unsigned long long* t, long long z) {
    if (z < g.z0) return 0;
    if (z <= -(1LL << g.F)) {
        int w; float s;
        far_index(g, z, w, s);
        return to_code(R::read(t[1], w, s), g.F);
    }
    // d_b = log2|z| + h(z) with |z| = k 2^-F = 2^(e-F) m: the integer e - F stays exact.
    const long long k = -z;
    const int e = 63 - __clzll(k);
    const long long frac = k - (1LL << e);
    int mw; float ms;
    if (e >= g.log2m_bits) { const int low = e - g.log2m_bits; mw = (int)(frac >> low); ms = local(frac, low); }
    else { mw = (int)(frac << (g.log2m_bits - e)); ms = 0.0f; }
    const long long u = z + (1LL << g.F);
    const int hw = (int)(u >> g.near_shift);
    const float hs = local(u, g.near_shift);
    const float fractional = R::read(t[3], mw, ms) + R::read(t[2], hw, hs);
    return (int)((long long)(e - g.F) << g.F) + to_code(fractional, g.F);
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

template <class M> __device__ int sb_formula(const Geo& g, const unsigned long long*, long long z) {
    if (z < g.z0) return 0;
    const float zf = (float)z * exp2f((float)-g.F);
    return to_code(M::lg2(1.0f + M::ex2(zf)), g.F);
}

template <class M> __device__ int db_formula(const Geo& g, const unsigned long long*, long long z) {
    if (z < g.z0) return 0;
    const float zf = (float)z * exp2f((float)-g.F);
    if (z <= -(1LL << g.F)) return to_code(M::lg2(1.0f - M::ex2(zf)), g.F);
    const long long k = -z;
    const int e = 63 - __clzll(k);
    const float m = (float)k * exp2f((float)-e);  // exact: k < 2^F <= 2^24
    const float h = M::lg2(M::one_minus_ex2(zf) / -zf);
    return (int)((long long)(e - g.F) << g.F) + to_code(M::lg2(m) + h, g.F);
}

__device__ int sb_f64(const Geo& g, const unsigned long long*, long long z) {
    if (z < g.z0) return 0;
    const double zd = (double)z * exp2((double)-g.F);
    return to_code_d(log1p(exp2(zd)) / 0.69314718055994531, g.F);
}

__device__ int db_f64(const Geo& g, const unsigned long long*, long long z) {
    if (z < g.z0) return 0;
    const double zd = (double)z * exp2((double)-g.F);
    return to_code_d(log(-expm1(zd * 0.69314718055994531)) / 0.69314718055994531, g.F);
}

// ---- kernels: out[i] = f(start + i) ---------------------------------------------------------

#define LNS_KERNEL(NAME, EXPR)                                                                  \
    extern "C" __global__ void NAME(Geo g, unsigned long long t0, unsigned long long t1,       \
                                    unsigned long long t2, unsigned long long t3,              \
                                    long long start, int n, int* __restrict__ out) {           \
        const unsigned long long t[4] = {t0, t1, t2, t3};                                       \
        const int i = blockIdx.x * blockDim.x + threadIdx.x;                                    \
        if (i < n) out[i] = EXPR(g, t, start + i);                                              \
    }

LNS_KERNEL(lns_sb_f64, sb_f64)
LNS_KERNEL(lns_db_f64, db_f64)
LNS_KERNEL(lns_sb_accurate, sb_formula<Libdevice>)
LNS_KERNEL(lns_db_accurate, db_formula<Libdevice>)
LNS_KERNEL(lns_sb_sfu, sb_formula<Sfu>)
LNS_KERNEL(lns_db_sfu, db_formula<Sfu>)
LNS_KERNEL(lns_sb_horner2, sb_table<Horner<2>>)
LNS_KERNEL(lns_db_horner2, db_table<Horner<2>>)
LNS_KERNEL(lns_sb_horner3, sb_table<Horner<3>>)
LNS_KERNEL(lns_db_horner3, db_table<Horner<3>>)
LNS_KERNEL(lns_sb_horner4, sb_table<Horner<4>>)
LNS_KERNEL(lns_db_horner4, db_table<Horner<4>>)
LNS_KERNEL(lns_sb_horner5, sb_table<Horner<5>>)
LNS_KERNEL(lns_db_horner5, db_table<Horner<5>>)
LNS_KERNEL(lns_sb_tex1, sb_table<Tex1>)
LNS_KERNEL(lns_db_tex1, db_table<Tex1>)
LNS_KERNEL(lns_sb_tex2, sb_table<Tex2>)
LNS_KERNEL(lns_db_tex2, db_table<Tex2>)
