// Fused LNS sum / dot variants against the kernel in the crate (base): bit-identical words and
// partials on several inputs, then timed on the benchmark's input (2^28 lns32 words).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <vector>
#include <algorithm>
#include <random>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1);} } while (0)
typedef void (*Run)(int, int, const double*, unsigned, int, const unsigned*, const unsigned*, long long, void*, int, unsigned*);
#define DECL(v) void run_##v(int, int, const double*, unsigned, int, const unsigned*, const unsigned*, long long, void*, int, unsigned*);
DECL(base) DECL(u4) DECL(base_m5) DECL(v4) DECL(v4_m5) DECL(v4_m6) DECL(u4_m3)
struct V { const char* name; Run fn; int minb; };
static V vars[] = {{"base", run_base, 4}, {"u4", run_u4, 4}, {"base_m5", run_base_m5, 5}, {"v4", run_v4, 4}, {"v4_m5", run_v4_m5, 5}, {"v4_m6", run_v4_m6, 6}, {"u4_m3", run_u4_m3, 3}, {"base_g5", run_base, 5}, {"base_g6", run_base, 6}};
const int F = 23, L = 31;  // lns32
double C[4]; unsigned RMASK; int RSHIFT;
int SMS;
unsigned enc(bool neg, long long log) { return (neg ? 0x80000000u : 0u) | ((unsigned)log & 0x7fffffffu); }

int main(int argc, char** argv) {
    bool ncu = argc > 1 && !strcmp(argv[1], "--ncu");
    const char* only = argc > 2 ? argv[2] : nullptr;
    cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0)); SMS = prop.multiProcessorCount;
    const double x = std::log(2.0) * std::ldexp(1.0, -F);
    double t = 1; for (int k = 0; k < 4; ++k) { t *= x / (k + 1); C[k] = t; }
    RSHIFT = F - 10; RMASK = (1u << RSHIFT) - 1;
    const long long N = 1ll << 28;
    std::mt19937_64 rng(3);
    std::vector<unsigned> w(1 << 20);
    auto fill_bench = [&](bool allpos) { for (auto& v : w) { long long lg = (long long)(rng() % (24ull << F)) - (12ll << F); v = enc(allpos ? false : (rng() & 1), lg); } };
    unsigned *xa, *xb, *out; void* parts;
    CK(cudaMalloc(&xa, N * 4)); CK(cudaMalloc(&xb, N * 4)); CK(cudaMalloc(&out, 4)); CK(cudaMalloc(&parts, 1 << 20));
    auto upload_tiled = [&](long long n) {
        std::vector<unsigned> a(n), b(n);
        for (long long i = 0; i < n; ++i) a[i] = w[i % w.size()];
        for (long long i = 0; i < n; ++i) b[i] = a[(i + 12345) % n];
        CK(cudaMemcpy(xa, a.data(), n * 4, cudaMemcpyHostToDevice)); CK(cudaMemcpy(xb, b.data(), n * 4, cudaMemcpyHostToDevice));
    };
    auto run = [&](V& v, int minb, long long n, bool dot, unsigned& word, std::vector<unsigned char>& pp) {
        int blocks = (int)std::min<long long>((n + 255) / 256, SMS * minb);
        CK(cudaMemset(parts, 0xcd, 1 << 20)); CK(cudaMemset(out, 0xcd, 4));
        v.fn(F, L, C, RMASK, RSHIFT, xa, dot ? xb : nullptr, n, parts, blocks, out);
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(&word, out, 4, cudaMemcpyDeviceToHost));
        pp.resize(blocks * 32); CK(cudaMemcpy(pp.data(), parts, pp.size(), cudaMemcpyDeviceToHost));
    };
    if (!ncu) {
        // Checks: every variant gives the base kernel's word and partials, bit for bit.
        struct Case { const char* name; long long n; int kind; };
        Case cases[] = {{"bench_2^28", N, 0}, {"bench_2^20+3", (1 << 20) + 3, 0}, {"positive_2^24", 1 << 24, 1},
                        {"wide_2^22+1", (1 << 22) + 1, 2}, {"cancel_pairs_2^22+2", (1 << 22) + 2, 3}};
        for (auto& cs : cases) {
            if (cs.kind == 0) fill_bench(false);
            if (cs.kind == 1) fill_bench(true);
            if (cs.kind == 2) for (auto& v : w) v = enc(rng() & 1, (long long)(rng() % ((2ull << 30) - 4)) - (1ll << 30) + 2);
            if (cs.kind == 3) { fill_bench(false); for (size_t i = 0; i + 1 < w.size(); i += 2) w[i + 1] = w[i] ^ 0x80000000u; }
            upload_tiled(cs.n);
            for (int dot = 0; dot < 2; ++dot) {
                for (auto& v : vars) {
                    unsigned w0; std::vector<unsigned char> p0;
                    run(vars[0], v.minb, cs.n, dot, w0, p0);
                    unsigned w1; std::vector<unsigned char> p1;
                    run(v, v.minb, cs.n, dot, w1, p1);
                    printf("{\"check\": \"%s\", \"op\": \"%s\", \"variant\": \"%s\", \"word\": \"0x%08x\", \"same_word\": %s, \"same_partials\": %s}\n",
                           cs.name, dot ? "dot" : "sum", v.name, w1, w1 == w0 ? "true" : "false", p1 == p0 ? "true" : "false");
                }
            }
        }
    }
    fill_bench(false);
    upload_tiled(N);
    cudaEvent_t s, e; CK(cudaEventCreate(&s)); CK(cudaEventCreate(&e));
    if (!ncu) {
        std::vector<float> ts;
        for (int i = 0; i < 23; ++i) { CK(cudaEventRecord(s)); CK(cudaMemcpyAsync(xb, xa, N * 4, cudaMemcpyDeviceToDevice)); CK(cudaEventRecord(e)); CK(cudaEventSynchronize(e)); float ms; cudaEventElapsedTime(&ms, s, e); if (i >= 3) ts.push_back(ms); }
        std::sort(ts.begin(), ts.end());
        printf("{\"kernel\": \"memcpy_d2d_2^30B\", \"ms\": %.5f, \"gbps\": %.1f}\n", ts[10], 2.0 * N * 4 / ts[10] / 1e6);
        upload_tiled(N);
    }
    for (int rep = 0; rep < (ncu ? 1 : 2); ++rep)
    for (auto& v : vars) {
        if (only && strcmp(only, v.name)) continue;
        for (int dot = 0; dot < 2; ++dot) {
            int blocks = SMS * v.minb;
            std::vector<float> ts;
            for (int i = 0; i < (ncu ? 1 : 33); ++i) {
                CK(cudaEventRecord(s));
                v.fn(F, L, C, RMASK, RSHIFT, xa, dot ? xb : nullptr, N, parts, blocks, out);
                CK(cudaEventRecord(e)); CK(cudaEventSynchronize(e));
                float ms; cudaEventElapsedTime(&ms, s, e); if (i >= 3 || ncu) ts.push_back(ms);
            }
            CK(cudaGetLastError());
            std::sort(ts.begin(), ts.end());
            float ms = ts[ts.size() / 2];
            printf("{\"rep\": %d, \"variant\": \"%s\", \"op\": \"%s\", \"ms\": %.5f, \"gelem\": %.1f, \"read_gbps\": %.1f}\n", rep, v.name, dot ? "dot" : "sum", ms, N / ms / 1e6, (dot ? 8.0 : 4.0) * N / ms / 1e6);
            fflush(stdout);
        }
    }
    return 0;
}
