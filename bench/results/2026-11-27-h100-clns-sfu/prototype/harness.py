# Prototype harness for the SFU CLNS add: compiles crates/clns/kernels/clns.cu (carried copy) with
# wrapper kernels (ClnsGeo in __constant__ memory), certifies over the clns16 lattice, checks the
# element-wise add against the FP64 kernel, times Table I chains in one process.
import sys, os, json, time, math, struct
import numpy as np, cupy as cp
OUT = os.environ.get('OUT', '/tmp/out')
src = open(os.path.join(os.path.dirname(__file__), 'clns.cu')).read()
wrap = r'''
__constant__ ClnsGeo c_geo;
#define H_ADD(NAME, CHAIN, INIT) extern "C" __global__ void NAME(unsigned long long tex, const float2* __restrict__ table, const INIT* __restrict__ init, int iters, unsigned* out) { run_chains(CHAIN{c_geo, tex, table}, init, iters, out); }
H_ADD(h_add_tex, ClnsAddChain<Tex>, uint4)
H_ADD(h_add_fma, ClnsAddChain<Fma>, uint4)
H_ADD(h_add_accurate, ClnsAddChain<Accurate>, uint4)
H_ADD(h_add_sfu, ClnsAddChain<Sfu>, uint4)
H_ADD(h_addf_tex, ClnsfAddChain<RadTable<TexRead>>, float4)
H_ADD(h_addf_accurate, ClnsfAddChain<RadAccurate>, float4)
H_ADD(h_addf_sfu, ClnsfAddChain<RadSfu>, float4)
extern "C" __global__ void h_cf32_add(const float4* __restrict__ init, int iters, unsigned* out) { run_chains(Cf32Add{}, init, iters, out); }
extern "C" __global__ void h_cf32_mul(const float4* __restrict__ init, int iters, unsigned* out) { run_chains(F2Mul<false>{make_float2(0.995f, 0.0998f)}, init, iters, out); }
#define H_EW(NAME, M) extern "C" __global__ void NAME(unsigned long long tex, const float2* __restrict__ table, const uint2* __restrict__ a, const uint2* __restrict__ b, uint2* __restrict__ out, unsigned long long n) { \
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n; i += (unsigned long long)gridDim.x * blockDim.x) out[i] = clns_add<M>(c_geo, tex, table, a[i], b[i]); }
H_EW(h_ew_f64, F64)
H_EW(h_ew_sfu, Sfu)
#define H_EWF(NAME, M) extern "C" __global__ void NAME(const float2* __restrict__ a, const float2* __restrict__ b, float2* __restrict__ out, unsigned long long n, int neg) { \
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n; i += (unsigned long long)gridDim.x * blockDim.x) out[i] = clnsf_add<M>(c_geo, 0, nullptr, a[i], b[i], neg != 0); }
H_EWF(h_ewf_f64, RadF64)
H_EWF(h_ewf_sfu, RadSfu)
extern "C" __global__ void h_certify(int z_lo, unsigned long long n, unsigned long long* worst, unsigned long long* wrong) { certify_sfu_body(c_geo, z_lo, n, worst, wrong); }
'''
full = src + wrap
open('/tmp/full.cu', 'w').write(full)
open('/tmp/full_cospoly.cu', 'w').write('#define SFU_MUFU_SIN 1\n' + full)
# SASS for instruction counts
os.system('cd /tmp && nvcc -arch=sm_90 -cubin -O3 -o full.cubin full.cu 2>&1 | head -20; cuobjdump -sass full.cubin > %s/sass.txt; '
          'nvcc -arch=sm_90 -cubin -O3 -o fullc.cubin full_cospoly.cu && cuobjdump -sass fullc.cubin > %s/sass_mufusin.txt' % (OUT, OUT))

mods = {v: cp.RawModule(code=('#define SFU_MUFU_SIN 1\n' if v == 'mufusin' else '') + full, options=('-std=c++17',))
        for v in ('mufu', 'mufusin')}
F, P = 11, 16
# essential zero code (sb::essential_zero_code)
LN2 = math.log(2)
rmax = min(LN2 * 2.0 ** -(F + 1), 2 * math.pi * 2.0 ** -(P + 1))
zz = math.log2(rmax) - 0.01
z_min = max(math.floor(zz * 2 ** F) - 1, (-(2 ** 15) + 1) - (2 ** 15 - 2))
xs = np.linspace(0, 1, 200); cpow = np.polynomial.polynomial.polyfit(xs, 2 ** xs, 5)
geo = struct.pack('<6i2i2f6f3f', F, P, 16, z_min, -2048, 1 << 28, 128, 128, 127.0, 127.0 / 2 ** 31,
                  *[float(c) for c in cpow], 127.0 / math.pi, -1.0, math.pi / 8)
geo = geo[:24] + struct.pack('<I', 1 << 28) + geo[28:]
geo_np = np.frombuffer(geo, dtype=np.uint8).copy()
assert len(geo_np) == 76
for m in mods.values():
    m.get_global('c_geo').copy_from_host(geo_np.ctypes.data, 76)
# S_b table (texels: theta along x (128, [0, 1/2] turns), r along y (128, [0, 1]))
def sb_polar(z, ph):
    r = 2.0 ** z; d = -np.expm1(z * LN2); s = 2 * np.sin(np.pi * ph); st = np.sin(2 * np.pi * ph)
    return 0.5 * np.log2(d * d + r * s * s), np.arctan2(r * st, d + 0.5 * r * s * s) / (2 * np.pi)
th = np.linspace(0, 0.5, 128); rr = np.linspace(0, 1, 128)
T, R = np.meshgrid(th, rr)
with np.errstate(divide='ignore', invalid='ignore'):
    re, im = sb_polar(np.log2(R), 0.5 - T)
re[R == 0] = 0; im[R == 0] = 0
texels = np.stack([re, im], -1).astype(np.float32)
from cupy.cuda import texture as ct, runtime as rt
ch = ct.ChannelFormatDescriptor(32, 32, 0, 0, rt.cudaChannelFormatKindFloat)
arr = ct.CUDAarray(ch, 128, 128); arr.copy_from(texels.reshape(128, 256))
res = ct.ResourceDescriptor(rt.cudaResourceTypeArray, cuArr=arr)
tdesc = ct.TextureDescriptor((rt.cudaAddressModeClamp, rt.cudaAddressModeClamp), rt.cudaFilterModeLinear, rt.cudaReadModeElementType)
tex = ct.TextureObject(res, tdesc)
table = cp.asarray(texels)
report = {'device': cp.cuda.runtime.getDeviceProperties(0)['name'].decode(), 'z_min': z_min}
# ---- certificate over the whole lattice
ONLY = os.environ.get('ONLY_BENCH')
for v, m in ([] if ONLY else mods.items()):
    worst = cp.zeros(4, dtype=cp.uint64); wrong = cp.zeros(2, dtype=cp.uint64)
    z_lo = -(2 ** 16 - 3); nt = 2 ** 15 + 1; n = (-z_lo + 1) * nt
    t0 = time.time()
    m.get_function('h_certify')((132 * 16,), (256,), (np.int32(z_lo), np.uint64(n), worst, wrong)); cp.cuda.Device().synchronize()
    w = worst.get(); wr = wrong.get()
    def dec(x):
        e = struct.unpack('<f', struct.pack('<I', int(x) >> 32))[0]; i = int(x) & 0xffffffff
        return {'err': e, 'z': -(i // nt), 'k': i % nt}
    report['certify_' + v] = {'points': n, 's': time.time() - t0, 're_ulp': dec(w[0]), 'im_ulp': dec(w[1]),
                              'rad_re_abs_log2': dec(w[2]), 'rad_im_abs_rad': dec(w[3]),
                              'off_correct_rounding': [int(wr[0]), int(wr[1])]}
    print(v, json.dumps(report['certify_' + v]), flush=True)
# ---- element-wise add vs the FP64 kernel (random pairs incl. specials and near-cancellations)
rng = np.random.default_rng(1)
n = 1 << 22 if not ONLY else 64
la = rng.integers(-(2 ** 15) + 1, 2 ** 15 - 1, n); lb = la + rng.integers(-3000, 3000, n)
lb = np.clip(lb, -(2 ** 15) + 1, 2 ** 15 - 2)
aa = rng.integers(0, 2 ** 16, n).astype(np.uint32) << 16
ab = np.where(rng.random(n) < 0.3, aa + np.uint32(2 ** 31) + (rng.integers(-40, 40, n).astype(np.uint32) << 16), rng.integers(0, 2 ** 16, n).astype(np.uint32) << 16).astype(np.uint32)
A = np.stack([la.astype(np.int32).view(np.uint32), aa], -1); B = np.stack([lb.astype(np.int32).view(np.uint32), ab], -1)
A[:16, 0] = np.uint32(2 ** 32 - 2 ** 15); B[16:32, 0] = np.uint32(2 ** 15 - 1); B[32:48] = A[32:48]; B[32:48, 1] += np.uint32(2 ** 31)
dA, dB = cp.asarray(A), cp.asarray(B)
outs = {}
for name in ('h_ew_f64', 'h_ew_sfu'):
    o = cp.zeros_like(dA); mods['mufu'].get_function(name)((1024,), (256,), (np.uint64(tex.ptr), table, dA, dB, o, np.uint64(n))); outs[name] = o.get()
f, s_ = outs['h_ew_f64'].view(np.int32), outs['h_ew_sfu'].view(np.int32)
dl = np.abs(f[:, 0].astype(np.int64) - s_[:, 0]); da = np.abs(((s_[:, 1].view(np.uint32) - f[:, 1].view(np.uint32)).view(np.int32) >> 16).astype(np.int64))
fin = (f[:, 0] > -(2 ** 15)) & (f[:, 0] < 2 ** 15 - 1) & (s_[:, 0] > -(2 ** 15)) & (s_[:, 0] < 2 ** 15 - 1)
report['ew_vs_f64'] = {'n': n, 'max_log_codes': int(dl.max()), 'max_angle_codes_finite': int(da[fin].max()), 'class_changes': int((~fin & (f[:, 0] != s_[:, 0])).sum()), 'n_diff': int(((dl > 0) | (da > 0)).sum()), 'specials_equal': bool((f[:48] == s_[:48]).all())}
print(report['ew_vs_f64'], flush=True)
# radian element-wise: relative complex distance vs f64
fa = np.stack([(la / 2048.0).astype(np.float32), ((aa.astype(np.float64) / 2 ** 32 - 0.5) * 2 * np.pi).astype(np.float32)], -1)
fb = np.stack([(lb / 2048.0).astype(np.float32), ((ab.astype(np.float64) / 2 ** 32 - 0.5) * 2 * np.pi).astype(np.float32)], -1)
dfa, dfb = cp.asarray(fa), cp.asarray(fb)
for neg in (0, 1):
    o1 = cp.zeros_like(dfa); o2 = cp.zeros_like(dfa)
    mods['mufu'].get_function('h_ewf_f64')((1024,), (256,), (dfa, dfb, o1, np.uint64(n), np.int32(neg)))
    mods['mufu'].get_function('h_ewf_sfu')((1024,), (256,), (dfa, dfb, o2, np.uint64(n), np.int32(neg)))
    x1, x2 = o1.get().astype(np.float64), o2.get().astype(np.float64)
    ok = np.isfinite(x1[:, 0]) & (x1[:, 0] > -100)
    rel = np.hypot((x2[ok, 0] - x1[ok, 0]) * LN2, np.angle(np.exp(1j * (x2[ok, 1] - x1[ok, 1]))))
    report['ewf_vs_f64_neg%d' % neg] = {'max_rel': float(rel.max()), 'p99999': float(np.quantile(rel, 0.99999)), 'nonfinite_mismatch': int((np.isfinite(x1[:, 0]) != np.isfinite(x2[:, 0])).sum())}
    print(report['ewf_vs_f64_neg%d' % neg], flush=True)
# ---- Table I chains
pool_l = rng.integers(-(2 ** 15) + 1, 2 ** 15 - 1, 8192); pool_a = rng.integers(0, 2 ** 16, 8192).astype(np.uint32) << 16
init = np.stack([pool_l[0::2].astype(np.int32).view(np.uint32), pool_a[0::2], pool_l[1::2].astype(np.int32).view(np.uint32), pool_a[1::2]], -1)
initf = np.stack([(pool_l[0::2] / 2048.0), (pool_a[0::2] / 2 ** 32 - 0.5) * 2 * np.pi, pool_l[1::2] / 2048.0, (pool_a[1::2] / 2 ** 32 - 0.5) * 2 * np.pi], -1).astype(np.float32)
initc = rng.uniform(-1, 1, (4096, 4)).astype(np.float32)
di, dif, dic = cp.asarray(init), cp.asarray(initf), cp.asarray(initc)
grid = 132 * 16; threads = grid * 256; iters = 4096; ops = threads * iters * 2
out = cp.zeros(threads, dtype=cp.uint32)
def timeit(fn, args):
    if ONLY:
        fn((grid,), (256,), args); cp.cuda.Device().synchronize(); return 1.0
    for _ in range(2): fn((grid,), (256,), args)
    ts = []
    for _ in range(10):
        e0, e1 = cp.cuda.Event(), cp.cuda.Event(); e0.record(); fn((grid,), (256,), args); e1.record(); e1.synchronize()
        ts.append(cp.cuda.get_elapsed_time(e0, e1))
    return float(np.median(ts))
rows = []
for v, m in mods.items():
    for name, ini in [('h_add_tex', di), ('h_add_fma', di), ('h_add_accurate', di), ('h_add_sfu', di),
                      ('h_addf_tex', dif), ('h_addf_accurate', dif), ('h_addf_sfu', dif)]:
        if v == 'mufusin' and 'sfu' not in name: continue
        if ONLY and name not in ('h_add_sfu', 'h_add_tex', 'h_addf_sfu'): continue
        ms = timeit(m.get_function(name), (np.uint64(tex.ptr), table, ini, np.int32(iters), out))
        rows.append({'variant': v, 'kernel': name, 'ms': ms, 'gops': ops / ms / 1e6}); print(rows[-1], flush=True)
for name in ('h_cf32_add', 'h_cf32_mul'):
    ms = timeit(mods['mufu'].get_function(name), (dic, np.int32(iters), out))
    rows.append({'variant': 'mufu', 'kernel': name, 'ms': ms, 'gops': ops / ms / 1e6}); print(rows[-1], flush=True)
report['table1'] = rows
json.dump(report, open(os.path.join(OUT, 'report.json'), 'w'), indent=1)
