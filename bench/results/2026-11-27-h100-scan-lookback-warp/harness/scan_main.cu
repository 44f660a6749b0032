// Prefix-sum prototypes against the generated kernel (golden), the device copy: checked and timed.
// usage: scan_main [log2n ...] [--ncu]   prints JSON lines.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <algorithm>
#include <string>
#include <cmath>
#include "scan_gen.cuh"
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1);} } while (0)
void launch_golden_i32(const void*, void*, long long, unsigned*, void*, void*, unsigned*, unsigned, cudaStream_t);
void launch_golden_f32(const void*, void*, long long, unsigned*, void*, void*, unsigned*, unsigned, cudaStream_t);

struct LB { unsigned* flags; void* aggs; void* incls; unsigned* counters; unsigned epoch; };

typedef void (*Launch)(const void*, void*, long long, LB&, int ns);

template <typename T, int THREADS, int V, bool LBW>
void launch_gen(const void* x, void* y, long long n, LB& lb, int ns) {
    const long long chunks = n / ((long long)THREADS * V);
    const size_t smem = (size_t)THREADS * V * sizeof(T);
    static bool once = false;
    if (!once) {
        CK(cudaFuncSetAttribute(scan_kernel<T, THREADS, V, LBW>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
        once = true;
    }
    lb.epoch++;
    scan_kernel<T, THREADS, V, LBW><<<(unsigned)chunks, THREADS + (LBW ? 32 : 0), smem>>>(
        (const T*)x, (T*)y, n, lb.flags, (T*)lb.aggs, (T*)lb.incls, lb.counters, lb.epoch, ns);
}
void golden_i32(const void* x, void* y, long long n, LB& lb, int) { lb.epoch++; launch_golden_i32(x, y, n, lb.flags, lb.aggs, lb.incls, lb.counters, lb.epoch, 0); }
void golden_f32(const void* x, void* y, long long n, LB& lb, int) { lb.epoch++; launch_golden_f32(x, y, n, lb.flags, lb.aggs, lb.incls, lb.counters, lb.epoch, 0); }

struct Variant { const char* name; bool is_f32; Launch fn; int ns; };

#define GEN(T, TH, VV, L, NS, F) {#T "_" #TH "x" #VV "_lbw" #L "_ns" #NS, F, launch_gen<T, TH, VV, L>, NS}
static Variant variants[] = {
    {"golden_u32_256x32", false, golden_i32, 0},
    {"golden_f32_256x32", true, golden_f32, 0},
#define FOR_T(T, F) \
    GEN(T, 256, 32, false, 0, F), GEN(T, 256, 32, true, 0, F), GEN(T, 256, 32, true, 100, F), \
    GEN(T, 256, 64, false, 0, F), GEN(T, 256, 64, true, 0, F), GEN(T, 256, 64, true, 100, F), \
    GEN(T, 512, 32, false, 0, F), GEN(T, 512, 32, true, 0, F), \
    GEN(T, 384, 32, true, 0, F), GEN(T, 512, 16, true, 0, F), GEN(T, 128, 64, true, 0, F)
    FOR_T(unsigned, false),
    FOR_T(float, true),
};

__global__ void count_mismatch_u32(const unsigned* a, const unsigned* b, long long n, unsigned long long* out) {
    unsigned long long c = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) c += a[i] != b[i];
    if (c) atomicAdd(out, c);
}
// max |got - ref| (ref in double), as ordered bits of the positive double
__global__ void max_err_f32(const float* a, const double* ref, long long n, unsigned long long* out) {
    double m = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        double d = fabs((double)a[i] - ref[i]);
        if (!(d <= 1e300)) d = 1e300;
        m = fmax(m, d);
    }
    atomicMax(out, (unsigned long long)__double_as_longlong(m));
}
__global__ void copy_kernel(const uint4* __restrict__ a, uint4* __restrict__ b, long long n) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) b[i] = a[i];
}

template <typename F>
double median_ms(F f, int warm, int runs) {
    cudaEvent_t s, e;
    CK(cudaEventCreate(&s)); CK(cudaEventCreate(&e));
    for (int i = 0; i < warm; ++i) f();
    std::vector<float> t;
    for (int i = 0; i < runs; ++i) {
        CK(cudaEventRecord(s)); f(); CK(cudaEventRecord(e)); CK(cudaEventSynchronize(e));
        float ms; CK(cudaEventElapsedTime(&ms, s, e)); t.push_back(ms);
    }
    CK(cudaGetLastError());
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

int main(int argc, char** argv) {
    std::vector<int> logs;
    bool ncu = false;
    const char* only = nullptr;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--ncu")) ncu = true;
        else if (!strncmp(argv[i], "--only=", 7)) only = argv[i] + 7;
        else logs.push_back(atoi(argv[i]));
    }
    if (logs.empty()) logs = {28, 30};
    int runs = ncu ? 1 : 30, warm = ncu ? 0 : 3;
    cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0));
    printf("{\"device\": \"%s\", \"sms\": %d}\n", prop.name, prop.multiProcessorCount);
    for (int lg : logs) {
        const long long n = 1ll << lg;
        const size_t bytes = n * 4;
        void *x, *y, *ref;
        CK(cudaMalloc(&x, bytes)); CK(cudaMalloc(&y, bytes)); CK(cudaMalloc(&ref, n * 8));
        const long long maxchunks = n / 2048;
        LB lb;
        CK(cudaMalloc(&lb.flags, maxchunks * 4)); CK(cudaMemset(lb.flags, 0, maxchunks * 4));
        CK(cudaMalloc(&lb.aggs, maxchunks * 4)); CK(cudaMalloc(&lb.incls, maxchunks * 4));
        CK(cudaMalloc(&lb.counters, 8)); CK(cudaMemset(lb.counters, 0, 8));
        lb.epoch = 0;
        unsigned long long* dres; CK(cudaMalloc(&dres, 8));
        if (!ncu) {
            // copy ceiling: cudaMemcpy D2D and a grid-stride uint4 kernel; bytes read + written
            double ms = median_ms([&] { CK(cudaMemcpyAsync(y, x, bytes, cudaMemcpyDeviceToDevice)); }, warm, runs);
            printf("{\"log2n\": %d, \"kernel\": \"memcpy_d2d\", \"ms\": %.5f, \"gbps\": %.1f}\n", lg, ms, 2.0 * bytes / ms / 1e6);
            ms = median_ms([&] { copy_kernel<<<prop.multiProcessorCount * 8, 256>>>((const uint4*)x, (uint4*)y, n / 4); }, warm, runs);
            printf("{\"log2n\": %d, \"kernel\": \"copy_kernel\", \"ms\": %.5f, \"gbps\": %.1f}\n", lg, ms, 2.0 * bytes / ms / 1e6);
        }
        for (int tf = 0; tf < 2; ++tf) {
            const bool f32 = tf == 1;
            // inputs: i32 random in [-100, 100); f32 U[0,1). References on the host.
            std::vector<unsigned> hx(n);
            unsigned long long st = 0x9e3779b97f4a7c15ull + lg;
            auto rnd = [&] { st ^= st << 13; st ^= st >> 7; st ^= st << 17; return st; };
            if (!f32) {
                std::vector<unsigned> hr(n);
                unsigned acc = 0;
                for (long long i = 0; i < n; ++i) { hx[i] = (unsigned)((int)(rnd() % 200) - 100); acc += hx[i]; hr[i] = acc; }
                CK(cudaMemcpy(ref, hr.data(), bytes, cudaMemcpyHostToDevice));
            } else {
                std::vector<double> hr(n);
                double acc = 0;
                for (long long i = 0; i < n; ++i) { float f = (float)((rnd() >> 40) * (1.0 / 16777216.0)); memcpy(&hx[i], &f, 4); acc += f; hr[i] = acc; }
                CK(cudaMemcpy(ref, hr.data(), n * 8, cudaMemcpyHostToDevice));
            }
            CK(cudaMemcpy(x, hx.data(), bytes, cudaMemcpyHostToDevice));
            const double yscale = f32 ? 0.5 * (double)n : 1.0;  // ~max |y_ref| for U[0,1)
            for (auto& var : variants) {
                if (var.is_f32 != f32) continue;
                if (only) {
                    bool hit = false;
                    char buf[512]; strncpy(buf, only, 511); buf[511] = 0;
                    for (char* tok = strtok(buf, ","); tok; tok = strtok(nullptr, ",")) hit |= strstr(var.name, tok) != nullptr;
                    if (!hit) continue;
                }
                if (n % (1 << 14)) continue;
                CK(cudaMemset(y, 0xff, bytes));
                var.fn(x, y, n, lb, var.ns);
                CK(cudaDeviceSynchronize());
                CK(cudaMemset(dres, 0, 8));
                double err = 0;
                unsigned long long bad = 0;
                if (!f32) {
                    count_mismatch_u32<<<1024, 256>>>((const unsigned*)y, (const unsigned*)ref, n, dres);
                    CK(cudaMemcpy(&bad, dres, 8, cudaMemcpyDeviceToHost));
                } else {
                    max_err_f32<<<1024, 256>>>((const float*)y, (const double*)ref, n, dres);
                    unsigned long long b; CK(cudaMemcpy(&b, dres, 8, cudaMemcpyDeviceToHost));
                    memcpy(&err, &b, 8);
                    err /= yscale;
                }
                double ms = median_ms([&] { var.fn(x, y, n, lb, var.ns); }, warm, runs);
                printf("{\"log2n\": %d, \"kernel\": \"%s\", \"ms\": %.5f, \"gelem\": %.1f, \"gbps\": %.1f, \"mismatches\": %llu, \"max_rel_err\": %.3e}\n",
                       lg, var.name, ms, n / ms / 1e6, 8.0 * n / ms / 1e6, bad, err);
                fflush(stdout);
            }
        }
        CK(cudaFree(x)); CK(cudaFree(y)); CK(cudaFree(ref));
        CK(cudaFree(lb.flags)); CK(cudaFree(lb.aggs)); CK(cudaFree(lb.incls)); CK(cudaFree(lb.counters)); CK(cudaFree(dres));
    }
    return 0;
}
