// Gaussian elimination (Rodinia gaussian): Fan1 forms the multipliers of column t by
// division, Fan2 subtracts them from the rows below. The host runs both for every t.

extern "C" __global__ void fan1(float* m, const float* a, int n, int t) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n - 1 - t) return;
    m[n * (i + t + 1) + t] = a[n * (i + t + 1) + t] / a[n * t + t];
}

extern "C" __global__ void fan2(const float* m, float* a, float* b, int n, int t) {
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= n - 1 - t || col >= n - t) return;
    const float mul = m[n * (row + 1 + t) + t];
    a[n * (row + 1 + t) + (col + t)] -= mul * a[n * t + (col + t)];
    if (col == 0) b[row + 1 + t] -= mul * b[t];
}
