// Standalone harness for the f32split kernels of crates/lns/kernels/lns.cu (nvcc-built, no
// Rust on the GPU machine): exhaustive lns32 certificate of s_b and d_b on the GPU against an
// FP64 reference, bit-exactness against the CPU twin (a checksum of every result), add / sub /
// mul words against the CPU's, compute-bound throughput (the lab's lns_bench_* shape) against
// the f64 method, and streaming add / mul against a device copy, all in one run.
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -I<dir of lns.cu> f32split_harness.cu
// Run:   ./a.out <dir with geo.bin t0..t3.bin sums.bin a.bin b.bin add.bin sub.bin mul.bin> [stream-only]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <string>
#include <algorithm>
#include <cuda_runtime.h>
#include "lns.cu"
#define STR2(x) #x
#define STR(x) STR2(x)
#define BOUNDS_NAME STR(LNS_ADD_BOUNDS)

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); exit(1); } } while (0)

static std::vector<unsigned> load(const std::string& path) {
    FILE* f = fopen(path.c_str(), "rb");
    if (!f) { printf("cannot open %s\n", path.c_str()); exit(1); }
    fseek(f, 0, SEEK_END); long n = ftell(f); fseek(f, 0, SEEK_SET);
    std::vector<unsigned> v(n / 4);
    if (fread(v.data(), 4, v.size(), f) != v.size()) exit(1);
    fclose(f);
    return v;
}

__device__ __host__ unsigned long long mix(unsigned long long i) {
    unsigned long long z = i + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

struct Tally { unsigned long long max_err_bits, worst, correct, near_ties, hash; };

// As certify.rs: error vs the f64 value (sb_f64 / db_f64 formulas), correctly rounded count
// (ties within 1e-7 ulp count as correct when the error is < 1), and the checksum the CPU
// twin's export computed.
__global__ void certify_kernel(const int* got, long long start, long long n, int F, int db, Tally* t) {
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    double err = 0.0; unsigned long long correct = 0, tie_n = 0, h = 0, worst = 0;
    if (i < n) {
        const long long z = start + i;
        const double ulp = ldexp(1.0, -F), x = (double)z * ulp;
        const double v = db ? log(-expm1(x * 0.6931471805599453)) / 0.6931471805599453 : log1p(exp2(x)) / 0.6931471805599453;
        const double exact = v / ulp;
        const long long g = got[i];
        err = fabs((double)g - exact);
        const bool tie = fabs(exact - floor(exact) - 0.5) < 1e-7;
        tie_n = tie;
        correct = (tie && err < 1.0) || g == (long long)llround(exact) ? 1 : 0;
        // llround rounds half away; ties are counted by `tie` above, elsewhere both agree.
        h = (unsigned long long)(unsigned)got[i] * mix((unsigned long long)i);
        worst = (unsigned long long)z;
    }
    for (int o = 16; o; o >>= 1) {
        const double e2 = __shfl_down_sync(~0u, err, o);
        const unsigned long long w2 = __shfl_down_sync(~0u, worst, o);
        if (e2 > err) { err = e2; worst = w2; }
        correct += __shfl_down_sync(~0u, correct, o);
        tie_n += __shfl_down_sync(~0u, tie_n, o);
        h += __shfl_down_sync(~0u, h, o);
    }
    if ((threadIdx.x & 31) == 0) {
        const unsigned long long prev = atomicMax(&t->max_err_bits, (unsigned long long)__double_as_longlong(err));
        if ((unsigned long long)__double_as_longlong(err) > prev) t->worst = worst;  // approximate worst input
        atomicAdd(&t->correct, correct);
        atomicAdd(&t->near_ties, tie_n);
        atomicAdd(&t->hash, h);
    }
}

// The previous add loop (one word per thread and step), as the reference and the old timing.
template <typename W, int (*SB)(const Geo&, const unsigned long long*, int), int (*DB)(const Geo&, const unsigned long long*, int)>
__global__ void scalar_add(Geo g, unsigned long long t0, unsigned long long t1, unsigned long long t2, unsigned long long t3,
                           const W* __restrict__ a, const W* __restrict__ b, W* __restrict__ out, unsigned long long n, int negate_b) {
    const unsigned long long t[4] = {t0, t1, t2, t3};
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const unsigned int y = __ldcs(&b[i]);
        out[i] = (W)lns_add<SB, DB>(g, t, __ldcs(&a[i]), negate_b ? lns_neg(g, y) : y);
    }
}

__global__ void count_diff(const unsigned* a, const unsigned* b, unsigned long long n, unsigned long long* d) {
    unsigned long long c = 0;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (unsigned long long)gridDim.x * blockDim.x)
        c += a[i] != b[i];
    if (c) atomicAdd(d, c);
}

static unsigned long long diff_words(const void* a, const void* b, size_t bytes) {
    unsigned long long* d; CK(cudaMalloc(&d, 8)); CK(cudaMemset(d, 0, 8));
    count_diff<<<1024, 256>>>((const unsigned*)a, (const unsigned*)b, bytes / 4, d);
    unsigned long long h; CK(cudaMemcpy(&h, d, 8, cudaMemcpyDeviceToHost)); cudaFree(d);
    return h;
}

template <class F> static double median_ms(int warm, int runs, F f) {
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    for (int i = 0; i < warm; ++i) f();
    std::vector<float> ts;
    for (int i = 0; i < runs; ++i) {
        cudaEventRecord(e0); f(); cudaEventRecord(e1); cudaEventSynchronize(e1);
        float ms; cudaEventElapsedTime(&ms, e0, e1); ts.push_back(ms);
    }
    CK(cudaGetLastError());
    std::sort(ts.begin(), ts.end());
    return ts[ts.size() / 2];
}

int main(int argc, char** argv) {
    std::string dir = argv[1];
    const bool stream_only = argc > 2;
    cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0));
    const int sms = prop.multiProcessorCount;
    printf("device %s, %d SMs\n", prop.name, sms);
    auto geo = load(dir + "/geo.bin");
    Geo g{(int)geo[0], (int)geo[1], (int)geo[2], (int)geo[3], (int)geo[4], (int)geo[5], (int)geo[6]};
    unsigned long long th[4];
    for (int i = 0; i < 4; ++i) {
        auto t = load(dir + "/t" + std::to_string(i) + ".bin");
        void* p; CK(cudaMalloc(&p, t.size() * 4)); CK(cudaMemcpy(p, t.data(), t.size() * 4, cudaMemcpyHostToDevice));
        th[i] = (unsigned long long)p;
    }
    Geo g64 = g;  // the f64 method reads only F, z0, log_bits

    if (!stream_only) {
        // 1. Exhaustive certificate + checksum against the CPU twin.
        auto sums = load(dir + "/sums.bin");
        for (int f = 0; f < 2; ++f) {
            const long long start = (long long)((unsigned long long)sums[6 * f] | ((unsigned long long)sums[6 * f + 1] << 32));
            const long long n = (long long)((unsigned long long)sums[6 * f + 2] | ((unsigned long long)sums[6 * f + 3] << 32));
            const unsigned long long want = (unsigned long long)sums[6 * f + 4] | ((unsigned long long)sums[6 * f + 5] << 32);
            int* out; CK(cudaMalloc(&out, n * 4));
            Tally* t; CK(cudaMalloc(&t, sizeof(Tally))); CK(cudaMemset(t, 0, sizeof(Tally)));
            const int chunk = 1 << 25;
            for (long long at = 0; at < n; at += chunk) {
                const int m = (int)std::min<long long>(chunk, n - at);
                if (f == 0) lns_sb_f32split<<<(m + 255) / 256, 256>>>(g, th[0], th[1], th[2], th[3], start + at, m, out + at);
                else lns_db_f32split<<<(m + 255) / 256, 256>>>(g, th[0], th[1], th[2], th[3], start + at, m, out + at);
            }
            certify_kernel<<<(unsigned)((n + 255) / 256), 256>>>(out, start, n, g.F, f, t);
            Tally h; CK(cudaMemcpy(&h, t, sizeof(Tally), cudaMemcpyDeviceToHost));
            double maxe; memcpy(&maxe, &h.max_err_bits, 8);
            printf("CERT %s lns32 f32split on GPU: inputs %lld, max error %.6f ulp (near z=%lld), faithful %s, correctly rounded %llu (%.5f%%), near ties %llu, checksum %016llx vs CPU twin %016llx: %s\n",
                   f ? "db" : "sb", n, maxe, (long long)h.worst, maxe < 1.0 ? "yes" : "NO", h.correct, 100.0 * h.correct / n, h.near_ties,
                   h.hash, want, h.hash == want ? "BIT-EXACT" : "DIFFER");
            cudaFree(out); cudaFree(t);
        }
        // 2. Words vs the CPU: add, sub (f32split) and mul.
        auto a = load(dir + "/a.bin"), b = load(dir + "/b.bin");
        const size_t n = a.size();
        unsigned *da, *db, *dout;
        CK(cudaMalloc(&da, n * 4)); CK(cudaMalloc(&db, n * 4)); CK(cudaMalloc(&dout, n * 4));
        CK(cudaMemcpy(da, a.data(), n * 4, cudaMemcpyHostToDevice)); CK(cudaMemcpy(db, b.data(), n * 4, cudaMemcpyHostToDevice));
        std::vector<unsigned> got(n);
        const char* names[3] = {"add", "sub", "mul"};
        for (int op = 0; op < 3; ++op) {
            auto want = load(dir + "/" + names[op] + ".bin");
            CK(cudaMemset(dout, 0xff, n * 4));
            if (op < 2) lns_add_f32split<<<256, 256>>>(g, th[0], th[1], th[2], th[3], da, db, dout, n, op);
            else lns_mul_div_words<<<256, 256>>>(g, da, db, dout, n, 0);
            CK(cudaMemcpy(got.data(), dout, n * 4, cudaMemcpyDeviceToHost));
            size_t bad = 0; for (size_t i = 0; i < n; ++i) bad += got[i] != want[i];
            printf("WORDS %s lns32 f32split: %zu words (n mod 4 = %zu), %zu differ from the CPU twin\n", names[op], n, n % 4, bad);
        }
        // 3. Compute-bound throughput, the lab's shape: 8 blocks of 256 per SM, 2048 inputs each.
        const int blocks = sms * 8, iters = 2048;
        const long long zlo = g.z0;
        unsigned long long span = 1; while (span * 2 <= (unsigned long long)(-(long long)g.z0)) span *= 2;
        const unsigned mask = (unsigned)(span - 1);
        int* o; CK(cudaMalloc(&o, blocks * 256 * 4));
        const double evals = (double)blocks * 256 * iters;
        for (int both = 0; both < 2; ++both) {
            double ms;
            ms = median_ms(2, 10, [&] { lns_bench_f64<<<blocks, 256>>>(g64, 0, 0, 0, 0, zlo, mask, iters, both, o); });
            printf("BENCH f64 %s: %.3f ms, %.1f G evals/s\n", both ? "sb+db" : "sb", ms, evals / ms / 1e6);
            const double f64ms = ms;
            ms = median_ms(2, 10, [&] { lns_bench_f32split<<<blocks, 256>>>(g, th[0], th[1], th[2], th[3], zlo, mask, iters, both, o); });
            printf("BENCH f32split %s: %.3f ms, %.1f G evals/s (%.2fx f64)\n", both ? "sb+db" : "sb", ms, evals / ms / 1e6, f64ms / ms);
            ms = median_ms(2, 10, [&] { lns_bench_accurate<<<blocks, 256>>>(g64, 0, 0, 0, 0, zlo, mask, iters, both, o); });
            printf("BENCH accurate %s: %.3f ms, %.1f G evals/s\n", both ? "sb+db" : "sb", ms, evals / ms / 1e6);
        }
    }
    // 4. Streaming: 2^28 words, as the lab's stream_inputs (2^20 random words tiled, b rotated).
    const size_t N = 1u << 28;
    std::vector<unsigned> ha(N), hb(N);
    unsigned long long s = 3;
    auto rnd = [&] { s = s * 6364136223846793005ull + 1442695040888963407ull; return (unsigned)(s >> 33); };
    auto words = [&](int F, int log_bits, std::vector<unsigned>& out) {
        std::vector<unsigned> w(1 << 20);
        for (auto& x : w) {
            const long long span = 24ll << F;
            const long long lg = (long long)(((unsigned long long)rnd() << 31 | rnd()) % span) - (12ll << F);
            x = ((rnd() & 1u) << log_bits) | ((unsigned)lg & ((1u << log_bits) - 1));
        }
        for (size_t i = 0; i < N; ++i) out[i] = w[i & ((1 << 20) - 1)];
    };
    words(g.F, g.log_bits, ha);
    for (size_t i = 0; i < N; ++i) hb[i] = ha[(i + 12345) % N];
    unsigned *a, *b, *o1, *o2;
    CK(cudaMalloc(&a, N * 4)); CK(cudaMalloc(&b, N * 4)); CK(cudaMalloc(&o1, N * 4)); CK(cudaMalloc(&o2, N * 4));
    CK(cudaMemcpy(a, ha.data(), N * 4, cudaMemcpyHostToDevice)); CK(cudaMemcpy(b, hb.data(), N * 4, cudaMemcpyHostToDevice));
    // Copy reference: cudaMemcpy device to device of 2^30 bytes, read + write counted, best of 20.
    double copy_best = 0;
    {
        cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
        for (int i = 0; i < 23; ++i) {
            cudaEventRecord(e0); CK(cudaMemcpyAsync(o1, a, N * 4, cudaMemcpyDeviceToDevice)); cudaEventRecord(e1); cudaEventSynchronize(e1);
            float ms; cudaEventElapsedTime(&ms, e0, e1);
            if (i >= 3) copy_best = std::max(copy_best, 2.0 * N * 4 / (ms * 1e-3) / 1e9);
        }
    }
    printf("COPY %.0f GB/s (device-to-device 2^30 bytes, read + write)\n", copy_best);
    const unsigned blocks = (unsigned)std::min<unsigned long long>((N + 255) / 256, (unsigned long long)sms * 32);
    auto row = [&](const char* name, double ms, double bytes) {
        const double gbs = bytes * N / (ms * 1e-3) / 1e9;
        printf("STREAM %-38s U=%d fastpath=%d %s: %.3f ms, %.1f G ops/s, %.0f GB/s, %.1f%% of copy\n", name, LNS_ADD_UNROLL, LNS_ADD_FASTPATH, BOUNDS_NAME, ms, N / (ms * 1e-3) / 1e9, gbs, 100 * gbs / copy_best);
    };
    double ms;
    ms = median_ms(3, 20, [&] { scalar_add<unsigned, sb_split, db_split><<<blocks, 256>>>(g, th[0], th[1], th[2], th[3], a, b, o2, N, 0); });
    row("lns32 f32split add (scalar loop)", ms, 12);
    ms = median_ms(3, 20, [&] { lns_add_f32split<<<blocks, 256>>>(g, th[0], th[1], th[2], th[3], a, b, o1, N, 0); });
    row("lns32 f32split add (16-byte vectors)", ms, 12);
    printf("CHECK vector vs scalar loop lns32 f32split add: %llu words differ\n", diff_words(o1, o2, N * 4));
    ms = median_ms(3, 20, [&] { lns_add_f32split<<<blocks, 256>>>(g, th[0], th[1], th[2], th[3], a, b, o1, N, 1); });
    row("lns32 f32split sub (16-byte vectors)", ms, 12);
    ms = median_ms(3, 20, [&] { scalar_add<unsigned, sb_f64, db_f64><<<blocks, 256>>>(g64, 0, 0, 0, 0, a, b, o2, N, 0); });
    row("lns32 f64 add (scalar loop)", ms, 12);
    ms = median_ms(3, 20, [&] { lns_add_f64<<<blocks, 256>>>(g64, 0, 0, 0, 0, a, b, o1, N, 0); });
    row("lns32 f64 add (16-byte vectors)", ms, 12);
    printf("CHECK vector vs scalar loop lns32 f64 add: %llu words differ\n", diff_words(o1, o2, N * 4));
    ms = median_ms(3, 20, [&] { lns_mul_div_words<<<blocks, 256>>>(g64, a, b, o1, N, 0); });
    row("lns32 mul (16-byte vectors)", ms, 12);
    // lns16: SFU, u32 and u16 words.
    // z0 for lns16 as Format::essential_zero_code: floor((-(10 + 1) - log2(1/ln2)) 2^10) - 1.
    const Geo g16{10, 0, 0, 0, 0, (int)floor((-11.0 - 0.5287663729448977) * 1024.0) - 1, 15};
    words(10, 15, ha);
    for (size_t i = 0; i < N; ++i) hb[i] = ha[(i + 12345) % N];
    CK(cudaMemcpy(a, ha.data(), N * 4, cudaMemcpyHostToDevice)); CK(cudaMemcpy(b, hb.data(), N * 4, cudaMemcpyHostToDevice));
    ms = median_ms(3, 20, [&] { scalar_add<unsigned, sb_sfu, db_sfu><<<blocks, 256>>>(g16, 0, 0, 0, 0, a, b, o2, N, 0); });
    row("lns16 sfu add u32 (scalar loop)", ms, 12);
    ms = median_ms(3, 20, [&] { lns_add_sfu<<<blocks, 256>>>(g16, 0, 0, 0, 0, a, b, o1, N, 0); });
    row("lns16 sfu add u32 (16-byte vectors)", ms, 12);
    printf("CHECK vector vs scalar loop lns16 sfu add u32: %llu words differ\n", diff_words(o1, o2, N * 4));
    std::vector<unsigned short> h16a(N), h16b(N);
    for (size_t i = 0; i < N; ++i) { h16a[i] = (unsigned short)ha[i]; h16b[i] = (unsigned short)hb[i]; }
    unsigned short *a16 = (unsigned short*)a, *b16 = (unsigned short*)b, *p1 = (unsigned short*)o1, *p2 = (unsigned short*)o2;
    CK(cudaMemcpy(a16, h16a.data(), N * 2, cudaMemcpyHostToDevice)); CK(cudaMemcpy(b16, h16b.data(), N * 2, cudaMemcpyHostToDevice));
    ms = median_ms(3, 20, [&] { scalar_add<unsigned short, sb_sfu, db_sfu><<<blocks, 256>>>(g16, 0, 0, 0, 0, a16, b16, p2, N, 0); });
    row("lns16 sfu add u16 (scalar loop)", ms, 6);
    ms = median_ms(3, 20, [&] { lns_add_sfu_u16<<<blocks, 256>>>(g16, 0, 0, 0, 0, a16, b16, p1, N, 0); });
    row("lns16 sfu add u16 (16-byte vectors)", ms, 6);
    printf("CHECK vector vs scalar loop lns16 sfu add u16: %llu words differ\n", diff_words(p1, p2, N * 2));
    CK(cudaDeviceSynchronize());
    return 0;
}
