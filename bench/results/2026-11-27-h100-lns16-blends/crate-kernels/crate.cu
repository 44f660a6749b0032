// The crate's own lns.cu kernels (included verbatim), lns16: texlut codes and adds vs the
// FP64 kernels, the texlut+SFU blend's codes, and the bench kernels' throughput in the shape
// of `sigpu bench lns` (8 blocks of 256 per SM, 2048 inputs per thread, z in [z0, z0 + 8191]).
#include "lns.cu"
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e), __LINE__); exit(1);} } while (0)
typedef unsigned long long u64;
__global__ void words(unsigned short* a, unsigned short* b, long long n, int z0) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned h = (unsigned)i * 2654435761u; h ^= h >> 15; h *= 2246822519u; h ^= h >> 13;
    unsigned k = (unsigned)(i + 7) * 3266489917u; k ^= k >> 16; k *= 668265263u; k ^= k >> 15;
    // log in [-12, 12) * 1024, random sign (bit 15), as the bench's stream inputs
    int la = (int)(h % 24576u) - 12288, lb = (int)(k % 24576u) - 12288;
    a[i] = (unsigned short)(((h >> 31) << 15) | (la & 0x7fff));
    b[i] = (unsigned short)(((k >> 31) << 15) | (lb & 0x7fff));
}
int main(int argc, char** argv) {
    bool profile = argc > 1 && !strcmp(argv[1], "profile");
    cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0));
    Geo g = {}; g.F = 10; g.z0 = -11807; g.log_bits = 15;
    const int first = g.z0 - 1, nt = 1 - first;
    int *dsb, *ddb; CK(cudaMalloc(&dsb, nt * 4)); CK(cudaMalloc(&ddb, nt * 4));
    lns_sb_f64<<<(nt + 255) / 256, 256>>>(g, 0, 0, 0, 0, first, nt, dsb);
    lns_db_f64<<<(nt + 255) / 256, 256>>>(g, 0, 0, 0, 0, first, nt, ddb);
    std::vector<int> sb(nt), db(nt); CK(cudaMemcpy(sb.data(), dsb, nt * 4, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(db.data(), ddb, nt * 4, cudaMemcpyDeviceToHost));
    db[nt - 1] = 0;  // z = 0: never read
    u64 tex[2];
    for (int f = 0; f < 2; ++f) {
        std::vector<float> t(nt); for (int i = 0; i < nt; ++i) t[i] = 12582912.0f + (f ? db[i] : sb[i]);
        cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>(); cudaArray_t arr; CK(cudaMallocArray(&arr, &cd, nt));
        CK(cudaMemcpy2DToArray(arr, 0, 0, t.data(), nt * 4, nt * 4, 1, cudaMemcpyHostToDevice));
        cudaResourceDesc rd = {}; rd.resType = cudaResourceTypeArray; rd.res.array.array = arr;
        cudaTextureDesc td = {}; td.addressMode[0] = cudaAddressModeClamp; td.filterMode = cudaFilterModePoint; td.readMode = cudaReadModeElementType;
        cudaTextureObject_t o; CK(cudaCreateTextureObject(&o, &rd, &td, nullptr)); tex[f] = o;
    }
    const int sms = prop.multiProcessorCount, blocks = sms * 8, threads = blocks * 256, iters = 2048;
    int* out; CK(cudaMalloc(&out, threads * 4));
    if (!profile) {
        // codes over every input, z0 - 2 .. 0 (one below the domain too), and the blend's
        const int s0 = first - 1, n = nt + 1;
        int *o1, *o2; CK(cudaMalloc(&o1, n * 4)); CK(cudaMalloc(&o2, n * 4)); std::vector<int> h1(n), h2(n);
        for (int f = 0; f < 2; ++f) {
            int m = f ? n - 1 : n;  // d_b: z <= -1
            if (f) { lns_db_texlut<<<(m + 255) / 256, 256>>>(g, tex[0], tex[1], 0, 0, s0, m, o1); lns_db_f64<<<(m + 255) / 256, 256>>>(g, 0, 0, 0, 0, s0, m, o2); }
            else   { lns_sb_texlut<<<(m + 255) / 256, 256>>>(g, tex[0], tex[1], 0, 0, s0, m, o1); lns_sb_f64<<<(m + 255) / 256, 256>>>(g, 0, 0, 0, 0, s0, m, o2); }
            CK(cudaMemcpy(h1.data(), o1, m * 4, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(h2.data(), o2, m * 4, cudaMemcpyDeviceToHost));
            int bad = 0; for (int i = 0; i < m; ++i) bad += h1[i] != h2[i];
            printf("texlut %s: %d inputs from z = %d, %d differ from lns_%s_f64\n", f ? "db" : "sb", m, s0, bad, f ? "db" : "sb");
            for (int lambda : {1, 4, 7}) {
                lns_blend_eval_texlut_sfu<<<(m + 255) / 256, 256>>>(g, tex[0], tex[1], 0, 0, g, 0, 0, 0, 0, lambda, f, s0, m, o1);
                if (f) lns_db_sfu<<<(m + 255) / 256, 256>>>(g, 0, 0, 0, 0, s0, m, o2); else lns_sb_sfu<<<(m + 255) / 256, 256>>>(g, 0, 0, 0, 0, s0, m, o2);
                std::vector<int> hs(m); CK(cudaMemcpy(h1.data(), o1, m * 4, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(hs.data(), o2, m * 4, cudaMemcpyDeviceToHost));
                int bad_a = 0, bad_b = 0, na = 0;
                for (int i = 0; i < m; ++i) {
                    int ref = f ? (i < nt ? (int)(s0 + i < first ? 0 : db[s0 + i - first]) : 0) : (s0 + i < first ? 0 : sb[s0 + i - first]);
                    if (((i >> 5) & 7) < lambda) { ++na; bad_a += h1[i] != ref; } else bad_b += h1[i] != hs[i];
                }
                printf("blend texlut+sfu %s lambda %d/8: %d on texlut (%d differ from f64), %d on sfu (%d differ from lns_%s_sfu)\n", f ? "db" : "sb", lambda, na, bad_a, m - na, bad_b, f ? "db" : "sb");
            }
        }
        // streaming add of 2^28 u16 words: texlut vs f64 (identical codes expected), SFU timed beside
        const long long N = 1ll << 28;
        unsigned short *a, *b, *r1, *r2; CK(cudaMalloc(&a, N * 2)); CK(cudaMalloc(&b, N * 2)); CK(cudaMalloc(&r1, N * 2)); CK(cudaMalloc(&r2, N * 2));
        words<<<(unsigned)(N / 256), 256>>>(a, b, N, g.z0);
        const int sb_ = sms * 4 * 2; (void)sb_;
        int ablocks; CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&ablocks, lns_add_texlut_u16, 256, 0));
        int sblocks; CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&sblocks, lns_add_sfu_u16, 256, 0));
        lns_add_texlut_u16<<<sms * ablocks, 256>>>(g, tex[0], tex[1], 0, 0, a, b, r1, N, 0);
        lns_add_f64_u16<<<sms * 4, 256>>>(g, 0, 0, 0, 0, a, b, r2, N, 0);
        CK(cudaDeviceSynchronize());
        { std::vector<unsigned short> x(N), y(N); CK(cudaMemcpy(x.data(), r1, N * 2, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(y.data(), r2, N * 2, cudaMemcpyDeviceToHost));
          long long bad = 0; for (long long i = 0; i < N; ++i) bad += x[i] != y[i];
          printf("add u16 texlut vs f64: %lld of %lld words differ\n", bad, N); }
        auto time = [&](auto launch) {
            cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
            for (int i = 0; i < 3; ++i) launch();
            std::vector<float> ms;
            for (int i = 0; i < 20; ++i) { cudaEventRecord(e0); launch(); cudaEventRecord(e1); cudaEventSynchronize(e1); float t; cudaEventElapsedTime(&t, e0, e1); ms.push_back(t); }
            CK(cudaGetLastError()); std::sort(ms.begin(), ms.end()); return ms[ms.size() / 2];
        };
        printf("%s: add blocks/SM texlut %d sfu %d\n", prop.name, ablocks, sblocks);
        for (int m = 0; m < 2; ++m) {
            float t = time([&] { if (m) lns_add_sfu_u16<<<sms * sblocks, 256>>>(g, 0, 0, 0, 0, a, b, r2, N, 0); else lns_add_texlut_u16<<<sms * ablocks, 256>>>(g, tex[0], tex[1], 0, 0, a, b, r1, N, 0); });
            printf("streaming add u16 %-7s %8.4f ms %8.1f G adds/s\n", m ? "sfu" : "texlut", t, N / (t * 1e-3) / 1e9);
        }
        const double evals = (double)threads * iters;
        printf("bench shape: %d blocks x 256, %d iters, %.0f evals/launch\n", blocks, iters, evals);
        for (int both = 0; both < 2; ++both) {
            float t = time([&] { lns_bench_sfu<<<blocks, 256>>>(g, 0, 0, 0, 0, g.z0, 8191u, iters, both, out); });
            printf("sfu            -   both=%d %8.4f ms %8.1f G evals/s\n", both, t, evals / (t * 1e-3) / 1e9);
            t = time([&] { lns_bench_texlut<<<blocks, 256>>>(g, tex[0], tex[1], 0, 0, g.z0, 8191u, iters, both, out); });
            printf("texlut         -   both=%d %8.4f ms %8.1f G evals/s\n", both, t, evals / (t * 1e-3) / 1e9);
            t = time([&] { lns_bench_f64<<<blocks, 256>>>(g, 0, 0, 0, 0, g.z0, 8191u, iters, both, out); });
            printf("f64            -   both=%d %8.4f ms %8.1f G evals/s\n", both, t, evals / (t * 1e-3) / 1e9);
            for (int l = 1; l < 8; ++l) {
                t = time([&] { lns_blend_texlut_sfu<<<blocks, 256>>>(g, tex[0], tex[1], 0, 0, g, 0, 0, 0, 0, l, g.z0, 8191u, iters, both, out); });
                printf("texlut+sfu     %d/8 both=%d %8.4f ms %8.1f G evals/s\n", l, both, t, evals / (t * 1e-3) / 1e9);
            }
        }
        return 0;
    }
    lns_bench_sfu<<<blocks, 256>>>(g, 0, 0, 0, 0, g.z0, 8191u, iters, 0, out);
    lns_bench_texlut<<<blocks, 256>>>(g, tex[0], tex[1], 0, 0, g.z0, 8191u, iters, 0, out);
    for (int l : {3, 4}) lns_blend_texlut_sfu<<<blocks, 256>>>(g, tex[0], tex[1], 0, 0, g, 0, 0, 0, 0, l, g.z0, 8191u, iters, 0, out);
    CK(cudaDeviceSynchronize());
    return 0;
}
