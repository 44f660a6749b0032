// The CUB peer of the prefix sums: cub::DeviceScan::InclusiveSum, u32 and f32 at 2^28 and 2^30,
// 3 warm-ups, median of 30 CUDA-event timings; one JSON line per case.
// usage: nvcc -O3 -arch=sm_90 -o scan_cub bench/peers/scan_cub.cu && ./scan_cub
#include <cub/cub.cuh>
#include <cstdio>
#include <vector>
#include <algorithm>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s\n", cudaGetErrorString(e_)); return 1;} } while (0)
template <typename T> int run(int lg, const char* name) {
    long long n = 1ll << lg;
    T *x, *y; CK(cudaMalloc(&x, n * sizeof(T))); CK(cudaMalloc(&y, n * sizeof(T)));
    CK(cudaMemset(x, 0, n * sizeof(T)));
    size_t tb = 0; cub::DeviceScan::InclusiveSum(nullptr, tb, x, y, n);
    void* tmp; CK(cudaMalloc(&tmp, tb));
    cudaEvent_t s, e; cudaEventCreate(&s); cudaEventCreate(&e);
    for (int i = 0; i < 3; ++i) cub::DeviceScan::InclusiveSum(tmp, tb, x, y, n);
    std::vector<float> t;
    for (int i = 0; i < 30; ++i) { cudaEventRecord(s); cub::DeviceScan::InclusiveSum(tmp, tb, x, y, n); cudaEventRecord(e); cudaEventSynchronize(e); float ms; cudaEventElapsedTime(&ms, s, e); t.push_back(ms); }
    CK(cudaGetLastError());
    std::sort(t.begin(), t.end()); float ms = t[15];
    printf("{\"log2n\": %d, \"kernel\": \"cub_InclusiveSum_%s\", \"cub_version\": %d, \"ms\": %.5f, \"gelem\": %.1f, \"gbps\": %.1f}\n", lg, name, CUB_VERSION, ms, n / ms / 1e6, 2.0 * sizeof(T) * n / ms / 1e6);
    cudaFree(x); cudaFree(y); cudaFree(tmp);
    return 0;
}
int main() { for (int lg : {28, 30}) { run<unsigned>(lg, "u32"); run<float>(lg, "f32"); } return 0; }
