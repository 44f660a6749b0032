// Bilateral filter (after the CUDA SDK's bilateralFilter): weights are a spatial and a range
// Gaussian, the output their normalised sum.

extern "C" __global__ void bilateral(float* out, const float* in, int width, int height,
                                     int radius, float sigma_d, float sigma_r) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    const float center = in[y * width + x];
    float sum = 0.0f, norm = 0.0f;
    for (int dy = -radius; dy <= radius; dy++) {
        for (int dx = -radius; dx <= radius; dx++) {
            const int sx = min(max(x + dx, 0), width - 1);
            const int sy = min(max(y + dy, 0), height - 1);
            const float p = in[sy * width + sx];
            const float d = p - center;
            const float w = expf(-(float)(dx * dx + dy * dy) / (2.0f * sigma_d * sigma_d)) *
                            expf(-(d * d) / (2.0f * sigma_r * sigma_r));
            sum += w * p;
            norm += w;
        }
    }
    out[y * width + x] = sum / norm;
}
