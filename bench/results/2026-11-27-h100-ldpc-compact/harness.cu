// Standalone prototype harness for ldpc_compact8.cu: builds the circulant tables from an alist,
// checks the kernel bit for bit against a C++ port of compact::decode_scalar, times batches.
#include "prototype_kernels.cu"
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cmath>
#include <vector>
#include <algorithm>
#include <string>
#include <fstream>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s at %d: %s\n", #x, __LINE__, cudaGetErrorString(e)); exit(1);} } while (0)
using namespace std;
struct Code { int n, k, m, q; vector<vector<int>> rows; };  // renumbered, decoding order
static Code load(const char* path) {
  ifstream f(path); int n, m, a, b; f >> n >> m >> a >> b;
  vector<int> cd(n), rd(m); for (auto& x : cd) f >> x; for (auto& x : rd) f >> x;
  for (int c = 0; c < n; ++c) for (int j = 0; j < a; ++j) { int x; f >> x; }
  vector<vector<int>> rows(m);
  for (int r = 0; r < m; ++r) for (int j = 0; j < b; ++j) { int x; f >> x; if (x > 0 && j < rd[r]) rows[r].push_back(x - 1); }
  Code c; c.n = n; c.m = m; c.k = n - m; c.q = m / 360;
  vector<int> perm(n); for (int i = 0; i < n; ++i) perm[i] = i;
  for (int j = 0; j < m; ++j) perm[c.k + j] = c.k + (j % c.q) * 360 + j / c.q;
  c.rows.resize(m);
  for (int r = 0; r < m; ++r) { int R = (r % c.q) * 360 + r / c.q; for (int x : rows[r]) c.rows[R].push_back(perm[x]); sort(c.rows[R].begin(), c.rows[R].end()); }
  return c;
}
// C++ twin of compact::decode_scalar on renumbered P (in/out).
static void ref_decode(const Code& c, vector<int8_t>& post, int iters, int mode, int param) {
  struct St { uint8_t m1, m2; int idx; uint32_t sg; };
  vector<St> st(c.m, St{0, 0, 0, 0});
  auto corr = [&](int m) { if (mode == 1) m = (m * param) >> 4; else if (mode == 2) m = max(m - param, 0); return min(m, 31); };
  auto cl = [](int x) { return (int8_t)max(-127, min(127, x)); };
  for (int it = 0; it < iters; ++it) for (int r = 0; r < c.m; ++r) {
    auto& cols = c.rows[r]; auto s = st[r]; int d = cols.size(); int8_t v[40];
    for (int j = 0; j < d; ++j) { int mag = j == s.idx ? s.m2 : s.m1; int old = (s.sg >> j & 1) ? -mag : mag; v[j] = cl(post[cols[j]] - old); }
    int n1 = 127, n2 = 127, at = 0, negs = 0;
    for (int j = 0; j < d; ++j) { int a = abs(v[j]); if (a < n1) { n2 = n1; n1 = a; at = j; } else if (a < n2) n2 = a; negs += v[j] < 0; }
    n1 = corr(n1); n2 = corr(n2); uint32_t sg = 0;
    for (int j = 0; j < d; ++j) { int mag = j == at ? n2 : n1; bool ng = (negs - (v[j] < 0)) % 2 == 1; sg |= (uint32_t)ng << j; post[cols[j]] = cl(v[j] + (ng ? -mag : mag)); }
    st[r] = St{(uint8_t)n1, (uint8_t)n2, at, sg};
  }
}
static uint64_t rs = 88172645463325252ull;
static double urand() { rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17; return (rs >> 11) * (1.0 / 9007199254740992.0); }
static double grand() { double u = urand() + 1e-300, v = urand(); return sqrt(-2 * log(u)) * cos(2 * M_PI * v); }
int main(int argc, char** argv) {
  Code c = load(argv[1]); int D = 0; int L = c.q;
  // tables
  vector<vector<int>> lg(L);
  vector<unsigned char> depth(L * 360); vector<unsigned> rounds(L); int total = 0;
  for (int l = 0; l < L; ++l) {
    vector<int> owner(c.n, -1); int mx = 0;
    for (int t = 0; t < 360; ++t) { int d = 0; for (int x : c.rows[l * 360 + t]) if (owner[x] >= 0) d = max(d, owner[x] + 1);
      depth[l * 360 + t] = d; mx = max(mx, d); for (int x : c.rows[l * 360 + t]) owner[x] = max(owner[x], d); }
    rounds[l] = mx + 1; total += mx + 1;
    // slots: each check's groups with multiplicity, the largest multiplicity per group
    vector<int> mult(c.n / 360, 0);
    for (int t = 0; t < 360; ++t) { vector<int> m2(c.n / 360, 0); for (int x : c.rows[l * 360 + t]) m2[x / 360]++; for (int g = 0; g < c.n / 360; ++g) mult[g] = max(mult[g], m2[g]); }
    for (int g = 0; g < c.n / 360; ++g) for (int i = 0; i < mult[g]; ++i) lg[l].push_back(g);
    D = max(D, (int)lg[l].size()); }
  printf("rounds per iteration %d\n", total);
  vector<unsigned> slots(L * D, 0), miss(L * D, SLOT_EMPTY);
  for (int l = 0; l < L; ++l) for (int j = 0; j < (int)lg[l].size(); ++j) {
    int g = lg[l][j], occ = 0, sh = -1, ms = SLOT_NONE;
    for (int i = 0; i < j; ++i) occ += lg[l][i] == g;
    for (int t = 0; t < 360; ++t) { vector<int> sv; for (int x : c.rows[l * 360 + t]) if (x / 360 == g) sv.push_back((x % 360 - t + 360) % 360);
      sort(sv.begin(), sv.end());
      if ((int)sv.size() <= occ) { if (ms != SLOT_NONE) { printf("two misses\n"); return 1; } ms = t; continue; }
      int s2 = sv[occ]; if (sh < 0) sh = s2; else if (sh != s2) { printf("not circulant l=%d g=%d\n", l, g); return 1; } }
    slots[l * D + j] = g | (sh << 16); miss[l * D + j] = ms;
  }
  printf("n=%d k=%d q=%d D=%d\n", c.n, c.k, c.q, D);
  int groups = c.n / 360, sg = min(groups, (int)(227 * 1024 / (360 * 4)));
  size_t smem = (size_t)sg * 360 * 4;
  int maxB = 4224;
  // LLRs
  vector<int8_t> llr((size_t)maxB * c.n);
  for (int cw = 0; cw < maxB; ++cw) { double sigma = cw % 3 == 0 ? 1.2 : 0.85 + 0.02 * (cw % 7);
    for (int i = 0; i < c.n; ++i) { double y = (cw % 5 == 0 ? (urand() < 0.5 ? 1 : -1) : 1) + sigma * grand(); double l = 2 * y / (sigma * sigma) * 2.0; llr[(size_t)cw * c.n + i] = (int8_t)max(-128.0, min(127.0, nearbyint(l))); } }
  bool w16 = argc > 3 && string(argv[3]) == "16";
  bool pair = argc > 3 && string(argv[3]) == "pair";
  auto kern = w16 ? (D == 7 ? ldpc_compact16_7 : ldpc_compact16_8) : D == 7 ? ldpc_compact_7 : D == 8 ? ldpc_compact_8 : D == 6 ? ldpc_compact_6 : D == 5 ? ldpc_compact_5 : ldpc_compact_4;
  int threads = pair ? 768 : 384;
  if (pair) CK(cudaFuncSetAttribute(D == 7 ? ldpc_compact_pair_7 : ldpc_compact_pair_8, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  printf("kernel %s\n", pair ? "pair" : w16 ? "16x2" : "bytes");
  CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  int8_t* din; unsigned *dsl, *dms, *dgp, *dhard; uint4* dst;
  int words = (c.n + 31) / 32;
  CK(cudaMalloc(&din, llr.size())); CK(cudaMalloc(&dsl, slots.size() * 4)); CK(cudaMalloc(&dms, miss.size() * 4));
  CK(cudaMalloc(&dgp, (size_t)maxB / 4 * (groups - sg) * 360 * 4 + 4)); CK(cudaMalloc(&dst, (size_t)maxB / 4 * L * 360 * 16));
  CK(cudaMalloc(&dhard, (size_t)maxB * words * 4));
  unsigned char* ddep; unsigned* drd; CK(cudaMalloc(&ddep, depth.size())); CK(cudaMalloc(&drd, rounds.size() * 4));
  CK(cudaMemcpy(ddep, depth.data(), depth.size(), cudaMemcpyHostToDevice)); CK(cudaMemcpy(drd, rounds.data(), rounds.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dsl, slots.data(), slots.size() * 4, cudaMemcpyHostToDevice)); CK(cudaMemcpy(dms, miss.data(), miss.size() * 4, cudaMemcpyHostToDevice));
  int8_t* hin; unsigned* hhard; CK(cudaMallocHost(&hin, llr.size())); CK(cudaMallocHost(&hhard, (size_t)maxB * words * 4));
  memcpy(hin, llr.data(), llr.size());
  CK(cudaMemcpy(din, hin, llr.size(), cudaMemcpyHostToDevice));
  auto launch = [&](int B, int iters, int mode, int param, cudaStream_t s) {
    if (pair) (D == 7 ? ldpc_compact_pair_7 : ldpc_compact_pair_8)<<<B / 4, threads, smem, s>>>(din, B, dsl, dms, ddep, drd, L, c.n, c.k, c.q, sg, dgp, (uint2*)dst, dhard, iters, mode, param);
    else kern<<<B / 4, threads, smem, s>>>(din, B, dsl, dms, ddep, drd, L, c.n, c.k, c.q, sg, dgp, dst, dhard, iters, mode, param); };
  // correctness
  int bad = 0;
  struct T { int B, iters, mode, param; vector<int> cws; };
  vector<T> tests = {{528, 50, 2, 1, {0, 1, 2, 3, 524, 525, 526, 527}}, {16, 20, 1, 12, {4, 5, 6, 7, 12, 13, 14, 15}}, {8, 20, 0, 0, {0, 1, 2, 3, 5}}, {8, 5, 2, 3, {0, 1, 2}}};
  if (argc > 2 && string(argv[2]) == "quick") tests.resize(1);
  for (auto& T : tests) {
    launch(T.B, T.iters, T.mode, T.param, 0); CK(cudaDeviceSynchronize());
    vector<unsigned> hh((size_t)T.B * words); CK(cudaMemcpy(hh.data(), dhard, hh.size() * 4, cudaMemcpyDeviceToHost));
    for (int cw : T.cws) {
      vector<int8_t> post(c.n);
      for (int i = 0; i < c.n; ++i) { int v = i < c.k ? i : c.k + ((i - c.k) % c.q) * 360 + (i - c.k) / c.q; post[v] = max((int)llr[(size_t)cw * c.n + i], -127); }
      ref_decode(c, post, T.iters, T.mode, T.param);
      int diff = 0, errs = 0;
      for (int i = 0; i < c.n; ++i) { int v = i < c.k ? i : c.k + ((i - c.k) % c.q) * 360 + (i - c.k) / c.q; int r = post[v] < 0; int g = hh[(size_t)cw * words + i / 32] >> (i % 32) & 1; diff += r != g; errs += r; }
      printf("test B=%d it=%d mode=%d/%d cw %d: %d differing bits (ref ones %d)\n", T.B, T.iters, T.mode, T.param, cw, diff, errs);
      bad += diff != 0;
    }
  }
  printf(bad ? "BITEXACT FAIL\n" : "BITEXACT OK\n");
  // timing
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  int Bs[] = {4, 128, 264, 528, 1056, 2112, 4224};
  for (int B : Bs) {
    if (argc > 2 && string(argv[2]) == "quick" && B != 528) continue;
    for (int tr = 0; tr < 2; ++tr) {
      vector<float> ts;
      for (int r = 0; r < 6; ++r) {
        cudaEventRecord(e0);
        if (tr) CK(cudaMemcpyAsync(din, hin, (size_t)B * c.n, cudaMemcpyHostToDevice));
        launch(B, 50, 2, 1, 0);
        if (tr) CK(cudaMemcpyAsync(hhard, dhard, (size_t)B * words * 4, cudaMemcpyDeviceToHost));
        cudaEventRecord(e1); CK(cudaEventSynchronize(e1)); float ms; cudaEventElapsedTime(&ms, e0, e1); if (r) ts.push_back(ms);
      }
      sort(ts.begin(), ts.end()); float ms = ts[ts.size() / 2];
      printf("B=%5d transfers=%d 50 it: %.3f ms/batch  %.2f Gbps coded\n", B, tr, ms, (double)B * c.n / (ms * 1e-3) / 1e9);
    }
  }
  return bad;
}
