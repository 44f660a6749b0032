// Elementary functions from IEEE-754 basic operations only: the line-for-line twin of
// crates/ldpc/src/sim/portable.rs (see there for the accuracy and why). Every operation is an
// explicit round-to-nearest intrinsic, so the compiler never contracts a multiply and an add
// into a fused multiply-add: the GPU computes exactly what the CPU computes.
#pragma once

#define PADD(a, b) __dadd_rn((a), (b))
#define PSUB(a, b) __dsub_rn((a), (b))
#define PMUL(a, b) __dmul_rn((a), (b))
#define PDIV(a, b) __ddiv_rn((a), (b))

#define PORTABLE_LN2_HI __longlong_as_double(0x3FE62E42FEE00000LL)
#define PORTABLE_LN2_LO __longlong_as_double(0x3DEA39EF35793C76LL)

// e^x for x <= 0 (0 below -708).
__device__ __forceinline__ double portable_exp(double x) {
    if (x < -708.0) return 0.0;
    double k = floor(PADD(PMUL(x, 1.4426950408889634), 0.5));
    double r = PSUB(PSUB(x, PMUL(k, PORTABLE_LN2_HI)), PMUL(k, PORTABLE_LN2_LO));
    double p = 1.0 / 6227020800.0;
    p = PADD(PMUL(p, r), 1.0 / 479001600.0);
    p = PADD(PMUL(p, r), 1.0 / 39916800.0);
    p = PADD(PMUL(p, r), 1.0 / 3628800.0);
    p = PADD(PMUL(p, r), 1.0 / 362880.0);
    p = PADD(PMUL(p, r), 1.0 / 40320.0);
    p = PADD(PMUL(p, r), 1.0 / 5040.0);
    p = PADD(PMUL(p, r), 1.0 / 720.0);
    p = PADD(PMUL(p, r), 1.0 / 120.0);
    p = PADD(PMUL(p, r), 1.0 / 24.0);
    p = PADD(PMUL(p, r), 1.0 / 6.0);
    p = PADD(PMUL(p, r), 1.0 / 2.0);
    p = PADD(PMUL(p, r), 1.0 / 1.0);
    p = PADD(PMUL(p, r), 1.0 / 1.0);
    long long ki = (long long)k;
    double scale = __longlong_as_double((unsigned long long)(ki + 1023) << 52);
    return PMUL(p, scale);
}

// ln x for positive normal x.
__device__ __forceinline__ double portable_ln(double x) {
    unsigned long long bits = (unsigned long long)__double_as_longlong(x);
    long long e = (long long)((bits >> 52) & 0x7ff) - 1023;
    double m = __longlong_as_double((long long)((bits & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL));
    if (m > 1.4142135623730951) {
        m = PMUL(m, 0.5);
        e += 1;
    }
    double s = PDIV(PSUB(m, 1.0), PADD(m, 1.0));
    double z = PMUL(s, s);
    double p = 1.0 / 23.0;
    p = PADD(PMUL(p, z), 1.0 / 21.0);
    p = PADD(PMUL(p, z), 1.0 / 19.0);
    p = PADD(PMUL(p, z), 1.0 / 17.0);
    p = PADD(PMUL(p, z), 1.0 / 15.0);
    p = PADD(PMUL(p, z), 1.0 / 13.0);
    p = PADD(PMUL(p, z), 1.0 / 11.0);
    p = PADD(PMUL(p, z), 1.0 / 9.0);
    p = PADD(PMUL(p, z), 1.0 / 7.0);
    p = PADD(PMUL(p, z), 1.0 / 5.0);
    p = PADD(PMUL(p, z), 1.0 / 3.0);
    p = PADD(PMUL(p, z), 1.0 / 1.0);
    double ef = (double)e;
    return PADD(PMUL(ef, PORTABLE_LN2_HI), PADD(PMUL(PMUL(2.0, s), p), PMUL(ef, PORTABLE_LN2_LO)));
}

// ln(1 + z) for z >= 0.
__device__ __forceinline__ double portable_ln_1p(double z) {
    double u = PADD(1.0, z);
    if (u == 1.0) return z;
    return PMUL(portable_ln(u), PDIV(z, PSUB(u, 1.0)));
}

// (cos 2 pi t, sin 2 pi t) for t in [0, 1).
__device__ __forceinline__ void portable_sincos_turns(double t, double* c_out, double* s_out) {
    double t4 = PMUL(t, 4.0);
    double q = floor(t4);
    double f = PSUB(t4, q);
    bool upper = f > 0.5;
    double h = upper ? PSUB(1.0, f) : f;
    double a = PMUL(h, 1.5707963267948966);
    double a2 = PMUL(a, a);
    double s = 1.0 / 355687428096000.0;
    s = PADD(PMUL(s, a2), 1.0 / -1307674368000.0);
    s = PADD(PMUL(s, a2), 1.0 / 6227020800.0);
    s = PADD(PMUL(s, a2), 1.0 / -39916800.0);
    s = PADD(PMUL(s, a2), 1.0 / 362880.0);
    s = PADD(PMUL(s, a2), 1.0 / -5040.0);
    s = PADD(PMUL(s, a2), 1.0 / 120.0);
    s = PADD(PMUL(s, a2), 1.0 / -6.0);
    s = PADD(PMUL(s, a2), 1.0 / 1.0);
    double sin_a = PMUL(s, a);
    double c = -1.0 / 6402373705728000.0;
    c = PADD(PMUL(c, a2), 1.0 / 20922789888000.0);
    c = PADD(PMUL(c, a2), 1.0 / -87178291200.0);
    c = PADD(PMUL(c, a2), 1.0 / 479001600.0);
    c = PADD(PMUL(c, a2), 1.0 / -3628800.0);
    c = PADD(PMUL(c, a2), 1.0 / 40320.0);
    c = PADD(PMUL(c, a2), 1.0 / -720.0);
    c = PADD(PMUL(c, a2), 1.0 / 24.0);
    c = PADD(PMUL(c, a2), 1.0 / -2.0);
    c = PADD(PMUL(c, a2), 1.0 / 1.0);
    double cos_a = c;
    double cf = upper ? sin_a : cos_a;
    double sf = upper ? cos_a : sin_a;
    switch ((unsigned)q) {
        case 0: *c_out = cf; *s_out = sf; break;
        case 1: *c_out = -sf; *s_out = cf; break;
        case 2: *c_out = -cf; *s_out = -sf; break;
        default: *c_out = sf; *s_out = -cf; break;
    }
}

// Two standard normal samples from four 32-bit words (Box-Muller), as portable::gauss_pair.
__device__ __forceinline__ void portable_gauss_pair(uint4 w, double* g0, double* g1) {
    unsigned long long a = (((unsigned long long)w.y << 32) | w.x) >> 11;
    unsigned long long b = (((unsigned long long)w.w << 32) | w.z) >> 11;
    double u1 = PMUL(__ull2double_rn(a + 1), 1.0 / 9007199254740992.0);
    double u2 = PMUL(__ull2double_rn(b), 1.0 / 9007199254740992.0);
    double r = __dsqrt_rn(PMUL(-2.0, portable_ln(u1)));
    double c, s;
    portable_sincos_turns(u2, &c, &s);
    *g0 = PMUL(r, c);
    *g1 = PMUL(r, s);
}
