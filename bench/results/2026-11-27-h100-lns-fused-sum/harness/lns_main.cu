// Fused LNS sum / dot: the crate's kernel before (base) and after (new) this change, and switches
// of the new one. Checks: every new variant gives new's word and block partials bit for bit; new's
// words equal the CPU model's (crates/lns/src/gpu/fused/model.rs, expected.txt, computed off the
// device for the same inputs and grid); the device's 4096-entry exp2 table equals the host's.
// Then timed on the benchmark's input (2^28 lns32 words) with the copy rate in the same process.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <vector>
#include <algorithm>
#include <random>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1);} } while (0)
typedef void (*Run)(int, int, const double*, const unsigned*, const unsigned*, long long, void*, int, unsigned*);
#define DECL(v) void run_##v(int, int, const double*, const unsigned*, const unsigned*, long long, void*, int, unsigned*);
DECL(base) DECL(new) DECL(new_narrow) DECL(new_i2f) DECL(new_cpa2)
struct V { const char* name; Run fn; };
static V vars[] = {{"base", run_base}, {"new", run_new}, {"new_narrow", run_new_narrow}, {"new_i2f", run_new_i2f}, {"new_cpa2", run_new_cpa2}};
const int NV = sizeof(vars) / sizeof(vars[0]);
const int F = 23, L = 31;  // lns32
double C[4];
unsigned enc(bool neg, long long log) { return (neg ? 0x80000000u : 0u) | ((unsigned)log & 0x7fffffffu); }

// The check inputs, as model.rs's harness_inputs::case draws them.
static unsigned long long splitmix(unsigned long long& s) {
    s += 0x9E3779B97F4A7C15ull;
    unsigned long long z = s;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static std::vector<unsigned> check_case(int kind) {
    const long long ns[5] = {(1 << 20) + 3, 1 << 20, (1 << 20) + 1, (1 << 20) + 2, (1 << 20) + 1};
    long long n = ns[kind];
    unsigned long long s = kind + 1;
    std::vector<unsigned> w(n);
    for (long long i = 0; i < n; ++i) {
        unsigned long long r = splitmix(s), b = splitmix(s);
        if (kind == 2) w[i] = enc(b & 1, (long long)(r % ((2ull << 30) - 4)) - (1ll << 30) + 2);
        else if (kind == 1) w[i] = enc(false, (long long)(r % (24ull << 23)) - (12ll << 23));
        else w[i] = enc(b & 1, (long long)(r % (24ull << 23)) - (12ll << 23));
    }
    if (kind == 3) for (long long k = 0; k + 1 < n; k += 2) w[k + 1] = w[k] ^ 0x80000000u;
    if (kind == 4) for (long long k = 0; k < n; k += 997) w[k] = 0x40000000u;
    return w;
}

__global__ void exp2_table(double* t) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < 4096) t[j] = exp2((double)j / 4096.0);
}

int main(int argc, char** argv) {
    bool ncu = argc > 1 && !strcmp(argv[1], "--ncu");
    const char* only = argc > 2 ? argv[2] : nullptr;
    cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0));
    const int SMS = prop.multiProcessorCount;
    const double x = std::log(2.0) * std::ldexp(1.0, -F);
    double t = 1; for (int k = 0; k < 4; ++k) { t *= x / (k + 1); C[k] = t; }
    const long long N = 1ll << 28;
    unsigned *xa, *xb, *out; void* parts;
    CK(cudaMalloc(&xa, N * 4)); CK(cudaMalloc(&xb, N * 4)); CK(cudaMalloc(&out, 4)); CK(cudaMalloc(&parts, 1 << 20));
    auto upload = [&](const std::vector<unsigned>& a) {
        long long n = a.size();
        std::vector<unsigned> b(n);
        for (long long i = 0; i < n; ++i) b[i] = a[(i + 12345) % n];
        CK(cudaMemcpy(xa, a.data(), n * 4, cudaMemcpyHostToDevice)); CK(cudaMemcpy(xb, b.data(), n * 4, cudaMemcpyHostToDevice));
    };
    auto run = [&](V& v, long long n, bool dot, unsigned& word, std::vector<unsigned char>& pp) {
        int blocks = (int)std::min<long long>((n + 255) / 256, SMS * 4);
        CK(cudaMemset(parts, 0xcd, 1 << 20)); CK(cudaMemset(out, 0xcd, 4));
        v.fn(F, L, C, xa, dot ? xb : nullptr, n, parts, blocks, out);
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(&word, out, 4, cudaMemcpyDeviceToHost));
        pp.resize(blocks * 32); CK(cudaMemcpy(pp.data(), parts, pp.size(), cudaMemcpyDeviceToHost));
    };
    if (!ncu) {
        printf("{\"device\": \"%s\", \"sms\": %d}\n", prop.name, SMS);
        double* dt; CK(cudaMalloc(&dt, 4096 * 8)); exp2_table<<<16, 256>>>(dt);
        std::vector<double> ht(4096); CK(cudaMemcpy(ht.data(), dt, 4096 * 8, cudaMemcpyDeviceToHost));
        int diff = 0; for (int j = 0; j < 4096; ++j) diff += ht[j] != std::exp2((double)j / 4096.0);
        printf("{\"check\": \"exp2_table_4096_device_vs_host\", \"entries_differing\": %d}\n", diff);
        unsigned exp_s[5] = {0}, exp_d[5] = {0};
        FILE* fe = fopen("expected.txt", "r");
        for (int k = 0; fe && k < 5; ++k) { int kk; if (fscanf(fe, "%d %x %x", &kk, &exp_s[k], &exp_d[k]) != 3) break; }
        if (fe) fclose(fe);
        for (int kind = 0; kind < 5; ++kind) {
            std::vector<unsigned> w = check_case(kind);
            upload(w);
            for (int dot = 0; dot < 2; ++dot) {
                unsigned w0; std::vector<unsigned char> p0;
                run(vars[1], w.size(), dot, w0, p0);
                unsigned want = dot ? exp_d[kind] : exp_s[kind];
                for (int k = 0; k < NV; ++k) {
                    unsigned w1; std::vector<unsigned char> p1;
                    run(vars[k], w.size(), dot, w1, p1);
                    printf("{\"check\": %d, \"n\": %zu, \"op\": \"%s\", \"variant\": \"%s\", \"word\": \"0x%08x\", \"model_word\": \"0x%08x\", \"equals_model\": %s, \"same_word_as_new\": %s, \"same_partials_as_new\": %s}\n",
                           kind, w.size(), dot ? "dot" : "sum", vars[k].name, w1, want, w1 == want ? "true" : "false", w1 == w0 ? "true" : "false", p1 == p0 ? "true" : "false");
                }
            }
        }
    }
    // The benchmark's input: 2^20 random lns32 words, log uniform in [-12, 12), random sign, tiled.
    std::mt19937_64 rng(3);
    std::vector<unsigned> w(1 << 20);
    for (auto& v : w) { long long lg = (long long)(rng() % (24ull << F)) - (12ll << F); v = enc(rng() & 1, lg); }
    std::vector<unsigned> big(N);
    for (long long i = 0; i < N; ++i) big[i] = w[i % w.size()];
    cudaEvent_t s, e; CK(cudaEventCreate(&s)); CK(cudaEventCreate(&e));
    if (!ncu) {
        upload(big);
        std::vector<float> ts;
        for (int i = 0; i < 23; ++i) { CK(cudaEventRecord(s)); CK(cudaMemcpyAsync(xb, xa, N * 4, cudaMemcpyDeviceToDevice)); CK(cudaEventRecord(e)); CK(cudaEventSynchronize(e)); float ms; cudaEventElapsedTime(&ms, s, e); if (i >= 3) ts.push_back(ms); }
        std::sort(ts.begin(), ts.end());
        printf("{\"kernel\": \"memcpy_d2d_2^30B\", \"ms\": %.5f, \"gbps\": %.1f}\n", ts[10], 2.0 * N * 4 / ts[10] / 1e6);
    }
    upload(big);
    for (int rep = 0; rep < (ncu ? 1 : 2); ++rep)
    for (auto& v : vars) {
        if (only && strcmp(only, v.name)) continue;
        for (int dot = 0; dot < (ncu ? 1 : 2); ++dot) {  // ncu: the sums only
            int blocks = SMS * 4;
            std::vector<float> ts;
            for (int i = 0; i < (ncu ? 1 : 33); ++i) {
                CK(cudaEventRecord(s));
                v.fn(F, L, C, xa, dot ? xb : nullptr, N, parts, blocks, out);
                CK(cudaEventRecord(e)); CK(cudaEventSynchronize(e));
                float ms; cudaEventElapsedTime(&ms, s, e); if (i >= 3 || ncu) ts.push_back(ms);
            }
            CK(cudaGetLastError());
            unsigned word; CK(cudaMemcpy(&word, out, 4, cudaMemcpyDeviceToHost));
            std::sort(ts.begin(), ts.end());
            float ms = ts[ts.size() / 2];
            printf("{\"rep\": %d, \"variant\": \"%s\", \"op\": \"%s\", \"word\": \"0x%08x\", \"ms\": %.5f, \"gelem\": %.1f, \"read_gbps\": %.1f}\n", rep, v.name, dot ? "dot" : "sum", word, ms, N / ms / 1e6, (dot ? 8.0 : 4.0) * N / ms / 1e6);
            fflush(stdout);
        }
    }
    return 0;
}
