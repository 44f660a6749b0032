// Kernels of the runtime itself: the copy that sets the memory-bandwidth ceiling, and the small
// kernels `sigpu check` uses to prove buffers, launches and texture objects work on a device.
// Each has a CPU twin in src/cuda/selfcheck.rs.

// y[i] = a * x[i] + y[i], fused (the CPU twin uses f32::mul_add, so results match exactly).
extern "C" __global__ void saxpy_f32(float a, const float* __restrict__ x, float* __restrict__ y,
                                     unsigned long long n) {
    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaf(a, x[i], y[i]);
}

// dst[0..n) = src[0..n): 16-byte vector loads and stores with a grid-stride loop, scalar tail.
// Both pointers must be 16-byte aligned (every cudaMalloc allocation is).
extern "C" __global__ void copy_f32(const float* __restrict__ src, float* __restrict__ dst,
                                    unsigned long long n) {
    const unsigned long long n4 = n / 4;
    const float4* __restrict__ s4 = reinterpret_cast<const float4*>(src);
    float4* __restrict__ d4 = reinterpret_cast<float4*>(dst);
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    const unsigned long long first = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    for (unsigned long long i = first; i < n4; i += stride) {
        // Streaming hints: the data is touched once, so keep it from evicting anything.
        __stcs(&d4[i], __ldcs(&s4[i]));
    }
    const unsigned long long t = n4 * 4 + first;
    if (t < n) dst[t] = src[t];
}

// out[i] = tex1D(tex, x[i]) for f32 texels.
extern "C" __global__ void tex1d_f32(unsigned long long tex, const float* __restrict__ x,
                                     float* __restrict__ out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1D<float>(tex, x[i]);
}

// out[i] = tex2D(tex, xy[2i], xy[2i+1]), one kernel per texel width; outputs are packed.
extern "C" __global__ void tex2d_f32(unsigned long long tex, const float* __restrict__ xy,
                                     float* __restrict__ out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2D<float>(tex, xy[2 * i], xy[2 * i + 1]);
}

extern "C" __global__ void tex2d_f32x2(unsigned long long tex, const float* __restrict__ xy,
                                       float2* __restrict__ out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2D<float2>(tex, xy[2 * i], xy[2 * i + 1]);
}

extern "C" __global__ void tex2d_f32x4(unsigned long long tex, const float* __restrict__ xy,
                                       float4* __restrict__ out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2D<float4>(tex, xy[2 * i], xy[2 * i + 1]);
}

// SM clock: one thread counts clock64() cycles against the global nanosecond timer while it
// spins for `spin` cycles; out = {cycles, nanoseconds}. Twin: none (it measures the device).
extern "C" __global__ void sm_clock(long long spin, long long* out) {
    long long t0, t1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    const long long c0 = clock64();
    while (clock64() - c0 < spin) {}
    const long long c1 = clock64();
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
    out[0] = c1 - c0;
    out[1] = t1 - t0;
}
