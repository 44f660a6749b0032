// Monte-Carlo European call pricing (after the CUDA SDK's MonteCarlo kernel): one block per
// option sums the discounted payoff over shared normal samples.

extern "C" __global__ void montecarlo(float* prices, const float* normals, int paths,
                                      const float* spot, const float* strike, float r, float v,
                                      float t) {
    __shared__ float partial[256];
    const int opt = blockIdx.x;
    const float mu_t = (r - 0.5f * v * v) * t;
    const float v_sqrt_t = v * sqrtf(t);
    const float s = spot[opt], x = strike[opt];
    float sum = 0.0f;
    for (int p = threadIdx.x; p < paths; p += blockDim.x) {
        const float end = s * expf(mu_t + v_sqrt_t * normals[p]);
        sum += fmaxf(end - x, 0.0f);
    }
    partial[threadIdx.x] = sum;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w >>= 1) {
        if (threadIdx.x < w) partial[threadIdx.x] += partial[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) prices[opt] = expf(-r * t) * partial[0] / (float)paths;
}
