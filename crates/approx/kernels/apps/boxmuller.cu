// Box-Muller transform of uniform pairs into normal pairs (the CUDA SDK's MersenneTwister
// BoxMullerGPU, the seed's Listing 2); the uniforms come from a host generator.

#define PI 3.14159265358979f

__device__ void box_muller(float& u1, float& u2) {
    const float r = sqrtf(-2.0f * logf(u1));
    const float phi = 2.0f * PI * u2;
    u1 = r * cosf(phi);
    u2 = r * sinf(phi);
}

extern "C" __global__ void boxmuller(float* values, int rngs, int per_rng) {
    const int tid = blockDim.x * blockIdx.x + threadIdx.x;
    if (tid >= rngs) return;
    for (int k = 0; k < per_rng; k += 2) {
        box_muller(values[tid + (k + 0) * rngs], values[tid + (k + 1) * rngs]);
    }
}
