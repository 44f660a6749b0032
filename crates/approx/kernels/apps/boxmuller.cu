// Box-Muller transform of uniform pairs into normal pairs (the CUDA SDK's MersenneTwister
// BoxMullerGPU, the seed's Listing 2), out of place; the uniforms come from a host generator.

#define PI 3.14159265358979f

__device__ void box_muller(float u1, float u2, float& n1, float& n2) {
    const float r = sqrtf(-2.0f * logf(u1));
    const float phi = 2.0f * PI * u2;
    n1 = r * cosf(phi);
    n2 = r * sinf(phi);
}

extern "C" __global__ void boxmuller(float* normals, const float* uniforms, int rngs,
                                     int per_rng) {
    const int tid = blockDim.x * blockIdx.x + threadIdx.x;
    if (tid >= rngs) return;
    for (int k = 0; k < per_rng; k += 2) {
        const int i = tid + k * rngs, j = tid + (k + 1) * rngs;
        box_muller(uniforms[i], uniforms[j], normals[i], normals[j]);
    }
}
