// Complex-coefficient filters, one channel per thread: SciPy's serial loops (transposed direct
// form II for (b, a); the per-section pair for sosfilt) in complex double, operation for
// operation as the CPU engine `complex::serial` runs them, so that the output is the CPU's bit
// for bit. Every product, sum and difference is written with a round-to-nearest intrinsic
// (__dmul_rn, __dadd_rn, __dsub_rn), which the compiler never contracts into a fused
// multiply-add: a complex product is (ar*br - ai*bi, ar*bi + ai*br), two roundings per part
// and one for the sum, as the CPU's `C64` computes it.
//
// Data are the caller's interleaved (re, im) values of REAL (float: complex64, double:
// complex128): x and y hold `channels` channels of 2n values one after another, zi / zf
// `channels` × 2·STATE values. Values are read into double (exactly) and each output rounded
// once to REAL (__double2float_rn for float), as the CPU engine does.
//
// `coef` holds the normalised coefficients as (re, im) doubles: for (b, a), b[0..=STATE] then
// a[0..=STATE]; for sections (SOS = 1), STATE / 2 rows of six complex values
// [b0, b1, b2, a0 = 1, a1, a2].
//
// Long signals with few channels run the chunked scan below instead (for complex64 data).
//
// Defined by the launcher (defaults here so the file compiles alone): REAL, SOS, STATE.

#ifndef REAL
#define REAL double
#endif
#ifndef SOS
#define SOS 0
#endif
#ifndef STATE
#define STATE 2
#endif

// A filter without state still gets one slot, so the array has a size.
#define SLOTS (STATE > 0 ? STATE : 1)

struct cx {
    double re, im;
};

__device__ __forceinline__ cx cx_add(cx a, cx b) {
    return cx{__dadd_rn(a.re, b.re), __dadd_rn(a.im, b.im)};
}

__device__ __forceinline__ cx cx_sub(cx a, cx b) {
    return cx{__dsub_rn(a.re, b.re), __dsub_rn(a.im, b.im)};
}

__device__ __forceinline__ cx cx_mul(cx a, cx b) {
    return cx{__dsub_rn(__dmul_rn(a.re, b.re), __dmul_rn(a.im, b.im)),
              __dadd_rn(__dmul_rn(a.re, b.im), __dmul_rn(a.im, b.re))};
}

// Coefficient i of `coef` (uniform across the warp: one broadcast load, kept in L1).
__device__ __forceinline__ cx cx_coef(const double *__restrict__ coef, int i) {
    return cx{__ldg(coef + 2 * i), __ldg(coef + 2 * i + 1)};
}

__device__ __forceinline__ cx cx_load(const REAL *__restrict__ p, long long i) {
    return cx{(double)p[2 * i], (double)p[2 * i + 1]};
}

__device__ __forceinline__ void cx_store(REAL *__restrict__ p, long long i, cx v) {
    p[2 * i] = (REAL)v.re;
    p[2 * i + 1] = (REAL)v.im;
}

// One sample through the filter: the state z advances, the output is returned. (b, a):
// y = z[0] + b[0]·x; z[j] = z[j+1] + x·b[j+1] − y·a[j+1]; z[k−1] = x·b[k] − y·a[k].
// Sections: new = b0·cur + z0; z0 = b1·cur − a1·new + z1; z1 = b2·cur − a2·new.
__device__ __forceinline__ cx filter_step(cx (&z)[SLOTS], cx xn,
                                          const double *__restrict__ coef) {
#if SOS == 0
#if STATE == 0
    return cx_mul(xn, cx_coef(coef, 0));
#else
    const cx yn = cx_add(z[0], cx_mul(cx_coef(coef, 0), xn));
#pragma unroll
    for (int j = 0; j < STATE - 1; ++j) {
        z[j] = cx_sub(cx_add(z[j + 1], cx_mul(xn, cx_coef(coef, j + 1))),
                      cx_mul(yn, cx_coef(coef, STATE + 1 + j + 1)));
    }
    z[STATE - 1] = cx_sub(cx_mul(xn, cx_coef(coef, STATE)),
                          cx_mul(yn, cx_coef(coef, STATE + 1 + STATE)));
    return yn;
#endif
#else
    cx cur = xn;
#pragma unroll
    for (int s = 0; s < STATE / 2; ++s) {
        const int r = 6 * s;
        const cx nw = cx_add(cx_mul(cx_coef(coef, r), cur), z[2 * s]);
        z[2 * s] = cx_add(cx_sub(cx_mul(cx_coef(coef, r + 1), cur),
                                 cx_mul(cx_coef(coef, r + 4), nw)),
                          z[2 * s + 1]);
        z[2 * s + 1] = cx_sub(cx_mul(cx_coef(coef, r + 2), cur),
                              cx_mul(cx_coef(coef, r + 5), nw));
        cur = nw;
    }
    return cur;
#endif
}

// One channel per thread: the whole signal in order, SciPy's loop.
extern "C" __global__ void complex_serial(const REAL *__restrict__ x, REAL *__restrict__ y,
                                          long long n, int channels,
                                          const REAL *__restrict__ zi, int has_zi,
                                          REAL *__restrict__ zf, int has_zf,
                                          const double *__restrict__ coef) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= channels) {
        return;
    }
    const REAL *xc = x + (long long)c * 2 * n;
    REAL *yc = y + (long long)c * 2 * n;
    cx z[SLOTS];
#pragma unroll
    for (int j = 0; j < SLOTS; ++j) {
        z[j] = (has_zi && STATE > 0) ? cx_load(zi, (long long)c * STATE + j) : cx{0.0, 0.0};
    }
    for (long long i = 0; i < n; ++i) {
        cx_store(yc, i, filter_step(z, cx_load(xc, i), coef));
    }
    if (has_zf && STATE > 0) {
#pragma unroll
        for (int j = 0; j < SLOTS; ++j) {
            cx_store(zf, (long long)c * STATE + j, z[j]);
        }
    }
}

// The chunked scan of long signals (module `complex::chunked` is its CPU twin, operation for
// operation): chunk c of a channel holds samples [c·chunk, min(n, (c+1)·chunk)); the state is
// kept in double between the passes.
//   complex_chunk_end: one thread per (channel, chunk) runs its chunk from the zero state and
//     writes the end state e_c (STATE complex values).
//   complex_chunk_carry: one thread per channel walks its chunks, s_0 = zi (or 0),
//     s_{c+1} = e_c + Φ·s_c (Φ: the STATE × STATE transition of `chunk` zero-input steps,
//     row-major complex; each row summed from e_c, columns in order), and writes each s_c.
//   complex_chunk_apply: one thread per (channel, chunk) reruns its chunk from s_c, writing y;
//     the last chunk's end state is zf.
// Built for states of at most CHUNKED_MAX_STATE values (the carry unrolls STATE² products).
#define CHUNKED_MAX_STATE 16
#if STATE <= CHUNKED_MAX_STATE
extern "C" __global__ void complex_chunk_end(const REAL *__restrict__ x, long long n,
                                             long long chunk, int chunks, int channels,
                                             const double *__restrict__ coef,
                                             double *__restrict__ ends) {
    const long long id = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (id >= (long long)chunks * channels) {
        return;
    }
    const long long ch = id / chunks, c = id % chunks;
    const REAL *xc = x + ch * 2 * n;
    const long long lo = c * chunk, hi = min(n, lo + chunk);
    cx z[SLOTS];
#pragma unroll
    for (int j = 0; j < SLOTS; ++j) {
        z[j] = cx{0.0, 0.0};
    }
    for (long long i = lo; i < hi; ++i) {
        filter_step(z, cx_load(xc, i), coef);
    }
#pragma unroll
    for (int j = 0; j < STATE; ++j) {
        ends[2 * (id * STATE + j)] = z[j].re;
        ends[2 * (id * STATE + j) + 1] = z[j].im;
    }
}

extern "C" __global__ void complex_chunk_carry(const double *__restrict__ ends, int chunks,
                                               int channels, const REAL *__restrict__ zi,
                                               int has_zi, const double *__restrict__ phi,
                                               double *__restrict__ starts) {
    const int ch = blockIdx.x * blockDim.x + threadIdx.x;
    if (ch >= channels) {
        return;
    }
    cx s[SLOTS];
#pragma unroll
    for (int j = 0; j < SLOTS; ++j) {
        s[j] = (has_zi && STATE > 0) ? cx_load(zi, (long long)ch * STATE + j) : cx{0.0, 0.0};
    }
    for (int c = 0; c < chunks; ++c) {
        const long long id = (long long)ch * chunks + c;
#pragma unroll
        for (int j = 0; j < STATE; ++j) {
            starts[2 * (id * STATE + j)] = s[j].re;
            starts[2 * (id * STATE + j) + 1] = s[j].im;
        }
        cx next[SLOTS];
#pragma unroll
        for (int i = 0; i < STATE; ++i) {
            cx acc = cx{ends[2 * (id * STATE + i)], ends[2 * (id * STATE + i) + 1]};
#pragma unroll
            for (int j = 0; j < STATE; ++j) {
                acc = cx_add(acc, cx_mul(cx_coef(phi, i * STATE + j), s[j]));
            }
            next[i] = acc;
        }
#pragma unroll
        for (int j = 0; j < STATE; ++j) {
            s[j] = next[j];
        }
    }
}

extern "C" __global__ void complex_chunk_apply(const REAL *__restrict__ x, REAL *__restrict__ y,
                                               long long n, long long chunk, int chunks,
                                               int channels, const double *__restrict__ starts,
                                               REAL *__restrict__ zf, int has_zf,
                                               const double *__restrict__ coef) {
    const long long id = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (id >= (long long)chunks * channels) {
        return;
    }
    const long long ch = id / chunks, c = id % chunks;
    const REAL *xc = x + ch * 2 * n;
    REAL *yc = y + ch * 2 * n;
    const long long lo = c * chunk, hi = min(n, lo + chunk);
    cx z[SLOTS];
#pragma unroll
    for (int j = 0; j < SLOTS; ++j) {
        z[j] = STATE > 0 ? cx{starts[2 * (id * STATE + j)], starts[2 * (id * STATE + j) + 1]}
                         : cx{0.0, 0.0};
    }
    for (long long i = lo; i < hi; ++i) {
        cx_store(yc, i, filter_step(z, cx_load(xc, i), coef));
    }
    if (has_zf && c == chunks - 1) {
#pragma unroll
        for (int j = 0; j < STATE; ++j) {
            cx_store(zf, ch * STATE + j, z[j]);
        }
    }
}
#endif
