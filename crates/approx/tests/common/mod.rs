//! What the approx integration tests share.

/// A kernel written the way a user writes it: device helpers, loops, integer arithmetic.
pub const USER_KERNEL: &str = r#"
#define PI 3.14159265f
__device__ float radius(float u) { return sqrtf(-2.0f * logf(u)); }
extern "C" __global__ void box_muller(const float* u, float* out, int n, int per_thread) {
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    for (int k = 0; k < per_thread; k += 2) {
        const int i = tid + k * n;
        const float r = radius(u[i]);
        const float phi = 2.0f * PI * u[i + n];
        out[i] = r * cosf(phi);
        out[i + n] = r * sinf(phi) / (1.0f + (float)(k / 2));
    }
}
extern "C" __global__ void norms(const double* x, double* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 1.0 / sqrt(x[i]) + x[i] / (x[i] + 1.0) + exp(x[i]);
}
"#;
