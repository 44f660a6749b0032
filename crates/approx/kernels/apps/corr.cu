// Correlation preprocessing (Polybench/GPU correlation, mean + std + reduce kernels in
// double precision): every column is centred and scaled by sqrt(n) times its deviation.

#define EPS 0.005

extern "C" __global__ void corr(double* out, const double* data, int m, int n) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= m) return;
    double mean = 0.0;
    for (int i = 0; i < n; i++) mean += data[i * m + j];
    mean /= (double)n;
    double var = 0.0;
    for (int i = 0; i < n; i++) {
        const double d = data[i * m + j] - mean;
        var += d * d;
    }
    double std = sqrt(var / (double)n);
    if (std <= EPS) std = 1.0;
    const double scale = sqrt((double)n) * std;
    for (int i = 0; i < n; i++) out[i * m + j] = (data[i * m + j] - mean) / scale;
}
