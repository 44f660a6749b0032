// The generated kernels (new: look-back warp, prefix sums at 512x32; old: warp 0 looks back,
// 256 threads) checked against references and timed with the device copy, same process.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <vector>
#include <string>
#include <algorithm>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1);} } while (0)
typedef void (*L)(const void*, void*, long long, const void*, unsigned*, void*, void*, unsigned*, unsigned);
#define D(t) void launch_##t(const void*, void*, long long, const void*, unsigned*, void*, void*, unsigned*, unsigned);
D(ps_i32_new) D(ps_i32_old) D(ps_f32_new) D(ps_f32_old) D(p999_f32_new) D(p999_f32_old) D(k2_f64_new) D(k2_f64_old)
struct G { const char* tag; L fn; int type; double b0, a1, a2; int k; };  // type 0 u32, 1 f32, 2 f64
static G gens[] = {
    {"ps_i32_new", launch_ps_i32_new, 0, 1, 1, 0, 1}, {"ps_i32_old", launch_ps_i32_old, 0, 1, 1, 0, 1},
    {"ps_f32_new", launch_ps_f32_new, 1, 1, 1, 0, 1}, {"ps_f32_old", launch_ps_f32_old, 1, 1, 1, 0, 1},
    {"p999_f32_new", launch_p999_f32_new, 1, 0.001, 0.999, 0, 1}, {"p999_f32_old", launch_p999_f32_old, 1, 0.001, 0.999, 0, 1},
    {"k2_f64_new", launch_k2_f64_new, 2, 0.000001, 1.998, -0.998001, 2}, {"k2_f64_old", launch_k2_f64_old, 2, 0.000001, 1.998, -0.998001, 2},
};
template <typename F> double median_ms(F f, int warm, int runs) {
    cudaEvent_t s, e; CK(cudaEventCreate(&s)); CK(cudaEventCreate(&e));
    for (int i = 0; i < warm; ++i) f();
    std::vector<float> t;
    for (int i = 0; i < runs; ++i) { CK(cudaEventRecord(s)); f(); CK(cudaEventRecord(e)); CK(cudaEventSynchronize(e)); float ms; CK(cudaEventElapsedTime(&ms, s, e)); t.push_back(ms); }
    CK(cudaGetLastError());
    std::sort(t.begin(), t.end()); return t[t.size() / 2];
}
int main(int argc, char** argv) {
    const char* only = argc > 1 ? argv[1] : nullptr;
    bool ncu = argc > 2;
    unsigned *flags, *counters; void *aggs, *incls;
    const long long maxchunks = (1ll << 30) / 2048;
    CK(cudaMalloc(&flags, maxchunks * 4)); CK(cudaMemset(flags, 0, maxchunks * 4));
    CK(cudaMalloc(&aggs, maxchunks * 16)); CK(cudaMalloc(&incls, maxchunks * 16));
    CK(cudaMalloc(&counters, 8)); CK(cudaMemset(counters, 0, 8));
    unsigned epoch = 0;
    for (int lg : {26, 28, 30}) {
        const long long n = 1ll << lg;
        void *x, *y; CK(cudaMalloc(&x, n * 8)); CK(cudaMalloc(&y, n * 8));
        if (!ncu) {
            double ms = median_ms([&] { CK(cudaMemcpyAsync(y, x, n * 4, cudaMemcpyDeviceToDevice)); }, 3, 30);
            printf("{\"log2n\": %d, \"kernel\": \"memcpy_d2d_4B\", \"ms\": %.5f, \"gbps\": %.1f}\n", lg, ms, 8.0 * n / ms / 1e6);
        }
        for (auto& g : gens) {
            if (only && !strstr(g.tag, only)) continue;
            const bool ps = g.tag[0] == 'p' && g.tag[1] == 's';
            if (ps != (lg >= 28)) continue;
            if (ncu && lg != 28) continue;
            const size_t es = g.type == 2 ? 8 : 4;
            // constants
            std::string cf = std::string("gen/") + g.tag + ".consts";
            FILE* f = fopen(cf.c_str(), "rb"); fseek(f, 0, SEEK_END); long cb = ftell(f); fseek(f, 0, SEEK_SET);
            std::vector<char> cbuf(cb); fread(cbuf.data(), 1, cb, f); fclose(f);
            void* consts; CK(cudaMalloc(&consts, cb)); CK(cudaMemcpy(consts, cbuf.data(), cb, cudaMemcpyHostToDevice));
            unsigned long long st = 0x9e3779b97f4a7c15ull + lg;
            auto rnd = [&] { st ^= st << 13; st ^= st >> 7; st ^= st << 17; return st; };
            std::vector<char> hx(n * es), hy(n * es);
            std::vector<double> ref(ncu ? 0 : n);
            if (g.type == 0) {
                unsigned acc = 0; unsigned* p = (unsigned*)hx.data();
                for (long long i = 0; i < n; ++i) { p[i] = (unsigned)((int)(rnd() % 200) - 100); acc += p[i]; if (!ncu) ref[i] = (double)acc; }
            } else {
                const double b0 = g.type == 1 ? (double)(float)g.b0 : g.b0, a1 = g.type == 1 ? (double)(float)g.a1 : g.a1, a2 = g.type == 1 ? (double)(float)g.a2 : g.a2;
                double y1 = 0, y2 = 0;
                for (long long i = 0; i < n; ++i) {
                    double u = (rnd() >> 11) * (1.0 / 9007199254740992.0);
                    double xv;
                    if (g.type == 1) { float fv = (float)u; memcpy(&hx[i * 4], &fv, 4); xv = fv; }
                    else { xv = 2 * u - 1; memcpy(&hx[i * 8], &xv, 8); }
                    double yv = b0 * xv + a1 * y1 + a2 * y2; y2 = y1; y1 = yv;
                    if (!ncu) ref[i] = yv;
                }
            }
            CK(cudaMemcpy(x, hx.data(), n * es, cudaMemcpyHostToDevice));
            CK(cudaMemset(y, 0xff, n * es));
            epoch++; g.fn(x, y, n, consts, flags, aggs, incls, counters, epoch);
            CK(cudaDeviceSynchronize()); CK(cudaGetLastError());
            if (ncu) { epoch++; g.fn(x, y, n, consts, flags, aggs, incls, counters, epoch); CK(cudaDeviceSynchronize()); continue; }
            CK(cudaMemcpy(hy.data(), y, n * es, cudaMemcpyDeviceToHost));
            unsigned long long bad = 0; double maxerr = 0, scale = 0;
            for (long long i = 0; i < n; ++i) {
                double got;
                if (g.type == 0) { unsigned u; memcpy(&u, &hy[i * 4], 4); bad += u != (unsigned)(long long)ref[i]; continue; }
                if (g.type == 1) { float fv; memcpy(&fv, &hy[i * 4], 4); got = fv; } else memcpy(&got, &hy[i * 8], 8);
                double err = std::isnan(got) ? INFINITY : fabs(got - ref[i]);
                maxerr = std::max(maxerr, err); scale = std::max(scale, fabs(ref[i]));
            }
            double ms = median_ms([&] { epoch++; g.fn(x, y, n, consts, flags, aggs, incls, counters, epoch); }, 3, 30);
            printf("{\"log2n\": %d, \"kernel\": \"%s\", \"ms\": %.5f, \"gelem\": %.1f, \"gbps\": %.1f, \"mismatches\": %llu, \"max_rel_err\": %.3e}\n",
                   lg, g.tag, ms, n / ms / 1e6, 2.0 * es * n / ms / 1e6, bad, g.type == 0 ? 0.0 : maxerr / scale);
            fflush(stdout);
            CK(cudaFree(consts));
        }
        CK(cudaFree(x)); CK(cudaFree(y));
    }
    return 0;
}
