// Fused LNS sum and dot product (src/gpu_fused.rs is the host side, src/array.rs the CPU
// twin): every term (a product of two codes for the dot, exact) is scaled by a running maximum
// and summed in f64 with Neumaier's compensation; the total is rounded to a code once.
//
// One pass: each thread keeps (M, s, c) = largest binade seen, compensated sum of
// 2^(value - M); a larger binade rescales the sum exactly (rare after the first elements). Blocks reduce their threads and
// write one partial; a single block combines the partials in a fixed order, so a launch
// configuration always gives the same word.

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

__device__ __forceinline__ int red_class(unsigned w, const LnsFmt& f, long long& code, bool& neg) {
    const int L = f.log_bits;
    const int c = (int)(w << (32 - L)) >> (32 - L);
    neg = (w >> L) & 1u;
    code = c;
    if (c == -(1 << (L - 1))) return neg ? CLS_NAN : CLS_ZERO;
    return c == (1 << (L - 1)) - 1 ? CLS_INF : CLS_FINITE;
}

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

// Terms are scaled by 2^-M for an integer M (the largest binade seen), never by a fractional
// power: rescaling is then exact, and x and -x give exactly opposite terms whichever thread and
// whichever M they meet, so sums that cancel do so exactly, as on the CPU.
__device__ __forceinline__ void red_term(Partial& p, long long code, bool neg, int F, double ulp) {
    const long long binade = code >> F;
    if (binade > p.max) {
        if (p.max != RED_NONE) {
            const int drop = (int)max(p.max - binade, -2000ll);
            p.sum = ldexp(p.sum, drop);
            p.comp = ldexp(p.comp, drop);
        }
        p.max = binade;
    }
    const double v = exp2((double)(code - (p.max << F)) * ulp);
    red_add(p.sum, p.comp, neg ? -v : v);
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

// Reduces the block's partials into thread 0's return value (blockDim.x a multiple of 32, <= 1024).
__device__ Partial red_block(Partial p) {
    __shared__ Partial warps[32];
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

// Per-block partials of sum xs (ys == nullptr) or sum xs[i] * ys[i].
extern "C" __global__ void lns_fused_partials(LnsFmt f, const unsigned* __restrict__ xs,
                                              const unsigned* __restrict__ ys, long long n,
                                              Partial* __restrict__ out) {
    const double ulp = exp2(-(double)f.F);
    Partial p = red_empty();
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        long long code;
        bool neg;
        int cls = red_class(__ldcs(&xs[i]), f, code, neg);
        if (ys) {
            long long cy;
            bool ny;
            cls = red_product(cls, red_class(__ldcs(&ys[i]), f, cy, ny));
            code += cy;
            neg ^= ny;
        }
        if (cls == CLS_FINITE) red_term(p, code, neg, f.F, ulp);
        else if (cls == CLS_NAN) p.flags |= RED_NAN;
        else if (cls == CLS_INF) p.flags |= neg ? RED_NINF : RED_PINF;
    }
    p = red_block(p);
    if (threadIdx.x == 0) out[blockIdx.x] = p;
}

// Combines n partials (one block of 1024 threads) and rounds the total to one word.
extern "C" __global__ void lns_fused_finish(LnsFmt f, const Partial* __restrict__ parts, int n,
                                            unsigned* __restrict__ out) {
    const double ulp = exp2(-(double)f.F);
    // Each thread folds a contiguous run, so the order is fixed for a given n.
    const int per = (n + blockDim.x - 1) / blockDim.x;
    Partial p = red_empty();
    for (int k = threadIdx.x * per; k < min(n, (int)(threadIdx.x + 1) * per); ++k) p = red_merge(p, parts[k]);
    p = red_block(p);
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
