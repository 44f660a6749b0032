// Black-Scholes European option pricing (after the CUDA SDK's BlackScholes sample), written
// with the accurate standard functions; sigpu-approx derives the SFU and λ versions.

#define A1 0.31938153f
#define A2 -0.356563782f
#define A3 1.781477937f
#define A4 -1.821255978f
#define A5 1.330274429f
#define RSQRT2PI 0.39894228040143267793994605993438f

__device__ float cnd(float d) {
    const float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
    float c = RSQRT2PI * expf(-0.5f * d * d) * (k * (A1 + k * (A2 + k * (A3 + k * (A4 + k * A5)))));
    if (d > 0) c = 1.0f - c;
    return c;
}

extern "C" __global__ void blackscholes(float* call, float* put, const float* price,
                                        const float* strike, const float* years, float r,
                                        float v, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const float s = price[i], x = strike[i], t = years[i];
        const float sqrt_t = sqrtf(t);
        const float d1 = (logf(s / x) + (r + 0.5f * v * v) * t) / (v * sqrt_t);
        const float d2 = d1 - v * sqrt_t;
        const float cnd1 = cnd(d1), cnd2 = cnd(d2);
        const float exp_rt = expf(-r * t);
        call[i] = s * cnd1 - x * exp_rt * cnd2;
        put[i] = x * exp_rt * (1.0f - cnd2) - s * (1.0f - cnd1);
    }
}
