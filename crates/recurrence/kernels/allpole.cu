// Time-varying all-pole filter, y[t] = x[t] - sum_{k<ORDER} a[t][k] * y[t-k-1], on chunks of
// the time axis (module `time_varying::gpu` launches it; `time_varying::chunked` is its CPU
// twin, step for step). Every value is computed in double and each output rounded once.
//
// Both directions run the same three passes; `reverse` = 1 runs the adjoint
// u[t] = g[t] - sum_k a[t+k+1][k] * u[t+k+1] from t = n-1 down, in transposed form (pending
// partial sums as the state), so that it reads a's rows contiguously too.
//   tvap_summary: one block per (chunk, channel). Lane j < ORDER runs the chunk from the unit
//     state e_j with no input (column j of the chunk's transition matrix), lane ORDER from the
//     zero state with the input (the chunk's zero-state end state).
//   tvap_carry: one block per channel walks its chunks: state_in[c + 1] = M_c state_in[c] + s_c,
//     from zi (or zero); the last is the final state (zf, or the gradient of zi).
//   tvap_apply: one thread per (channel, chunk) reruns its chunk from the true incoming state.
//   tvap_grad_a: grad_a[t][k] = -u[t] * y[t-k-1] (y[-j-1] = zi[j]).
// The state of the direct form is the last ORDER outputs (state[i] = y[t-1-i]); of the
// transposed form, the pending sums (state[i] = what is still to be added to u[t-1-i]).
//
// Defined by the launcher (defaults here so the file compiles alone): REAL, ORDER, CHUNK.

#ifndef REAL
#define REAL float
#endif
#ifndef ORDER
#define ORDER 16
#endif
#ifndef CHUNK
#define CHUNK 256
#endif

#define LANES (((ORDER + 1 + 31) / 32) * 32)

// One step of the direct form at position J of a group of ORDER steps: the state lives in a
// ring whose logical entry i (= y[t-1-i]) sits at R[(i - J) mod ORDER]; the new output replaces
// the oldest. Terms are fused (one FMA each, half the FP64 work of the serial loop's product
// and difference) and summed oldest first, so the newest output enters last and the
// dependency between steps is one FMA; the twin does the same.
template <int J>
__device__ __forceinline__ double direct_ring(double (&R)[ORDER], const REAL *row, double in) {
    double acc = in;
#pragma unroll
    for (int k = ORDER - 1; k >= 0; --k) {
        acc = fma(-(double)row[k], R[(k - J + ORDER) % ORDER], acc);
    }
    R[(ORDER - 1 - J) % ORDER] = acc;
    return acc;
}

// The transposed form at position J: logical pending sum i sits at P[(i + J) mod ORDER].
template <int J>
__device__ __forceinline__ double transposed_ring(double (&P)[ORDER], const REAL *row, double in) {
    double v = in + P[J % ORDER];
#pragma unroll
    for (int i = 0; i < ORDER - 1; ++i) {
        P[(i + J + 1) % ORDER] = fma(-(double)row[i], v, P[(i + J + 1) % ORDER]);
    }
    P[J % ORDER] = -(double)row[ORDER - 1] * v;
    return v;
}

// The same steps with the state kept in logical order (shifted): for the last steps of a chunk
// that do not fill a group.
__device__ __forceinline__ double direct_shift(double (&R)[ORDER], const REAL *row, double in) {
    double acc = in;
#pragma unroll
    for (int k = ORDER - 1; k >= 0; --k) {
        acc = fma(-(double)row[k], R[k], acc);
    }
#pragma unroll
    for (int k = ORDER - 1; k > 0; --k) {
        R[k] = R[k - 1];
    }
    R[0] = acc;
    return acc;
}

__device__ __forceinline__ double transposed_shift(double (&P)[ORDER], const REAL *row, double in) {
    double v = in + P[0];
#pragma unroll
    for (int i = 0; i < ORDER - 1; ++i) {
        P[i] = fma(-(double)row[i], v, P[i + 1]);
    }
    P[ORDER - 1] = -(double)row[ORDER - 1] * v;
    return v;
}

template <int J, int REVERSE>
__device__ __forceinline__ double ring_step(double (&S)[ORDER], const REAL *row, double in) {
    return REVERSE ? transposed_ring<J>(S, row, in) : direct_ring<J>(S, row, in);
}

// Runs steps [first, last) of one channel (processing order: t = s forward, t = n-1-s in
// reverse) from state S. `x` (the channel's input, or null for none) and `y` (its output, or
// null) are indexed by t; `a` is the channel's rows.
template <int REVERSE>
__device__ __forceinline__ void run_steps(double (&S)[ORDER], const REAL *__restrict__ x,
                                          const REAL *__restrict__ a, REAL *__restrict__ y,
                                          long long n, long long first, long long last) {
    long long s = first;
    for (; s + ORDER <= last; s += ORDER) {
#define STEP(J)                                                                            \
    {                                                                                      \
        long long t = REVERSE ? n - 1 - (s + J) : s + J;                                   \
        double in = x ? (double)x[t] : 0.0;                                                \
        double v = ring_step<J, REVERSE>(S, a + t * ORDER, in);                            \
        if (y) y[t] = (REAL)v;                                                             \
    }
        // ORDER is at most 64: steps past ORDER are compiled out by the guard.
#define STEP_IF(J) if (J < ORDER) STEP((J) % ORDER)
#define STEP8(B) STEP_IF(B) STEP_IF(B + 1) STEP_IF(B + 2) STEP_IF(B + 3) STEP_IF(B + 4) \
    STEP_IF(B + 5) STEP_IF(B + 6) STEP_IF(B + 7)
        STEP8(0) STEP8(8) STEP8(16) STEP8(24) STEP8(32) STEP8(40) STEP8(48) STEP8(56)
#undef STEP8
#undef STEP_IF
#undef STEP
    }
    for (; s < last; ++s) {
        long long t = REVERSE ? n - 1 - s : s;
        double in = x ? (double)x[t] : 0.0;
        double v = REVERSE ? transposed_shift(S, a + t * ORDER, in)
                           : direct_shift(S, a + t * ORDER, in);
        if (y) y[t] = (REAL)v;
    }
}

// The ring is back in logical order after every full group; the tail steps shift. So the
// state after run_steps is in logical order whatever the step count.

template <int REVERSE>
__device__ void summary(const REAL *__restrict__ x, const REAL *__restrict__ a, long long n,
                        int chunks, double *__restrict__ mats, double *__restrict__ sums) {
    const int lane = threadIdx.x;
    const int c = blockIdx.x;
    const long long ch = blockIdx.y;
    if (lane > ORDER) return;
    double S[ORDER];
#pragma unroll
    for (int i = 0; i < ORDER; ++i) S[i] = (i == lane) ? 1.0 : 0.0;
    const long long first = (long long)c * CHUNK;
    const long long last = min(n, first + CHUNK);
    const REAL *xc = lane == ORDER ? x + ch * n : nullptr;
    run_steps<REVERSE>(S, xc, a + ch * n * ORDER, nullptr, n, first, last);
    const long long at = ch * chunks + c;
    if (lane < ORDER) {
        // Column-major: column `lane` contiguous, so that the carry's lanes (rows) read a
        // column's entries side by side.
        double *m = mats + (at * ORDER + lane) * ORDER;
#pragma unroll
        for (int i = 0; i < ORDER; ++i) m[i] = S[i];
    } else {
        double *z = sums + at * ORDER;
#pragma unroll
        for (int i = 0; i < ORDER; ++i) z[i] = S[i];
    }
}

extern "C" __global__ void __launch_bounds__(LANES)
    tvap_summary(const REAL *__restrict__ x, const REAL *__restrict__ a, long long n, int chunks,
                 int reverse, double *__restrict__ mats, double *__restrict__ sums) {
    if (reverse) {
        summary<1>(x, a, n, chunks, mats, sums);
    } else {
        summary<0>(x, a, n, chunks, mats, sums);
    }
}

// One block of ORDER_LANES threads per channel; thread i owns state entry i. The next chunk's
// column entries and sum are loaded before the current one is applied (the walk is serial, so
// the loads' latency would otherwise be paid once per chunk).
#define CARRY_LANES (((ORDER + 31) / 32) * 32)

extern "C" __global__ void __launch_bounds__(CARRY_LANES)
    tvap_carry(const double *__restrict__ mats, const double *__restrict__ sums, int chunks,
               const REAL *__restrict__ zi, int has_zi, double *__restrict__ states,
               REAL *__restrict__ zf, int has_zf) {
    __shared__ double S[ORDER];
    const int i = threadIdx.x;
    const long long ch = blockIdx.x;
    if (i < ORDER) S[i] = has_zi ? (double)zi[ch * ORDER + i] : 0.0;
    __syncthreads();
    double row[ORDER], sum = 0.0;
    const long long base = ch * chunks;
    if (i < ORDER) {
#pragma unroll
        for (int j = 0; j < ORDER; ++j) row[j] = mats[(base * ORDER + j) * ORDER + i];
        sum = sums[base * ORDER + i];
    }
    for (int c = 0; c < chunks; ++c) {
        double next_row[ORDER], next_sum = 0.0;
        if (i < ORDER && c + 1 < chunks) {
            const long long at = base + c + 1;
#pragma unroll
            for (int j = 0; j < ORDER; ++j) next_row[j] = mats[(at * ORDER + j) * ORDER + i];
            next_sum = sums[at * ORDER + i];
        }
        double v = sum;
        if (i < ORDER) {
            states[(base + c) * ORDER + i] = S[i];
#pragma unroll
            for (int j = 0; j < ORDER; ++j) v = fma(row[j], S[j], v);
        }
        __syncthreads();
        if (i < ORDER) S[i] = v;
        __syncthreads();
        if (i < ORDER && c + 1 < chunks) {
#pragma unroll
            for (int j = 0; j < ORDER; ++j) row[j] = next_row[j];
            sum = next_sum;
        }
    }
    if (has_zf && i < ORDER) zf[ch * ORDER + i] = (REAL)S[i];
}

template <int REVERSE>
__device__ void apply(const REAL *__restrict__ x, const REAL *__restrict__ a, long long n,
                      int chunks, int channels, const double *__restrict__ states,
                      REAL *__restrict__ y) {
    const long long id = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (id >= (long long)chunks * channels) return;
    const long long ch = id / chunks;
    const int c = (int)(id % chunks);
    double S[ORDER];
#pragma unroll
    for (int i = 0; i < ORDER; ++i) S[i] = states[id * ORDER + i];
    const long long first = (long long)c * CHUNK;
    const long long last = min(n, first + CHUNK);
    run_steps<REVERSE>(S, x + ch * n, a + ch * n * ORDER, y + ch * n, n, first, last);
}

extern "C" __global__ void tvap_apply(const REAL *__restrict__ x, const REAL *__restrict__ a,
                                      long long n, int chunks, int channels, int reverse,
                                      const double *__restrict__ states, REAL *__restrict__ y) {
    if (reverse) {
        apply<1>(x, a, n, chunks, channels, states, y);
    } else {
        apply<0>(x, a, n, chunks, channels, states, y);
    }
}

// grad_a[ch][t][k] = -u[ch][t] * y[ch][t-k-1], the value before the signal's start taken from
// zi (or zero): one element per thread, grid-stride, writes coalesced.
extern "C" __global__ void tvap_grad_a(const REAL *__restrict__ u, const REAL *__restrict__ y,
                                       const REAL *__restrict__ zi, int has_zi, long long n,
                                       long long total, REAL *__restrict__ ga) {
    for (long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x; idx < total;
         idx += (long long)gridDim.x * blockDim.x) {
        const int k = (int)(idx % ORDER);
        const long long tt = idx / ORDER;  // ch * n + t
        const long long t = tt % n;
        const long long ch = tt / n;
        const long long prev = t - k - 1;
        double p;
        if (prev >= 0) {
            p = (double)y[tt - k - 1];
        } else {
            p = has_zi ? (double)zi[ch * ORDER + (-prev - 1)] : 0.0;
        }
        ga[idx] = (REAL)(-(double)u[tt] * p);
    }
}
