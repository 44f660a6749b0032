# CLNS SFU add diet: Table I chains (kernel-parameter geometry, as sigpu launches them), the lattice
# certificate and (mode ncu) one launch per variant for Nsight Compute; base = main's clns.cu.
import sys, os, json, time, math, struct
import numpy as np, cupy as cp
D = os.path.dirname(os.path.abspath(__file__)); OUT = os.environ.get('OUT', '/tmp/out')
MODE = sys.argv[1] if len(sys.argv) > 1 else 'all'
GEO_ARGS = 'int F, int P, int lb, int zmin, int nz, unsigned nphi, int pcl, int pth, float rs, float ts, float c0, float c1, float c2, float c3, float c4, float c5, float tsr, float nzr, float npr'
GEO = 'ClnsGeo g{F, P, lb, zmin, nz, nphi, pcl, pth, rs, ts, {c0, c1, c2, c3, c4, c5}, tsr, nzr, npr};'
wrap = r'''
#define W_ADD(NAME, M) extern "C" __global__ void NAME(%s, unsigned long long tex, const float2* __restrict__ table, const uint4* __restrict__ init, int iters, unsigned* out) { %s run_chains(ClnsAddChain<M>{g, tex, table}, init, iters, out); }
W_ADD(w_add_sfu, Sfu)
W_ADD(w_add_tex, Tex)
W_ADD(w_add_accurate, Accurate)
extern "C" __global__ void w_certify(%s, int z_lo, unsigned long long n, unsigned long long* worst, unsigned long long* wrong) { %s certify_sfu_body(g, z_lo, n, worst, wrong); }
''' % (GEO_ARGS, GEO, GEO_ARGS, GEO)
VARIANTS = [('base', 'base.cu', ''), ('new', 'new.cu', ''), ('new_lean', 'new.cu', '#define SFU_LEAN_POLY 1\n')]
if len(sys.argv) > 2: VARIANTS = [v for v in VARIANTS if v[0] in sys.argv[2].split(',')]
mods = {}
for name, f, pre in VARIANTS:
    t0 = time.time()
    mods[name] = cp.RawModule(code=pre + open(os.path.join(D, f)).read() + wrap, options=('-std=c++17',))
    mods[name].get_function('w_add_sfu'); print('compiled', name, '%.1fs' % (time.time() - t0), flush=True)
F, P = 11, 16
LN2 = math.log(2)
rmax = min(LN2 * 2.0 ** -(F + 1), 2 * math.pi * 2.0 ** -(P + 1))
z_min = max(math.floor((math.log2(rmax) - 0.01) * 2 ** F) - 1, (-(2 ** 15) + 1) - (2 ** 15 - 2))
xs = np.linspace(0, 1, 200); cpow = np.polynomial.polynomial.polyfit(xs, 2 ** xs, 5)
geo = [np.int32(F), np.int32(P), np.int32(16), np.int32(z_min), np.int32(-2048), np.uint32(1 << 28), np.int32(128), np.int32(128),
       np.float32(127.0), np.float32(127.0 / 2 ** 31)] + [np.float32(c) for c in cpow] + [np.float32(127.0 / math.pi), np.float32(-1.0), np.float32(math.pi / 8)]
def sb_polar(z, ph):
    r = 2.0 ** z; d = -np.expm1(z * LN2); s = 2 * np.sin(np.pi * ph); st = np.sin(2 * np.pi * ph)
    return 0.5 * np.log2(d * d + r * s * s), np.arctan2(r * st, d + 0.5 * r * s * s) / (2 * np.pi)
th = np.linspace(0, 0.5, 128); rr = np.linspace(0, 1, 128); T, R = np.meshgrid(th, rr)
with np.errstate(divide='ignore', invalid='ignore'):
    re, im = sb_polar(np.log2(R), 0.5 - T)
re[R == 0] = 0; im[R == 0] = 0
texels = np.stack([re, im], -1).astype(np.float32)
from cupy.cuda import texture as ct, runtime as rt
ch = ct.ChannelFormatDescriptor(32, 32, 0, 0, rt.cudaChannelFormatKindFloat)
arr = ct.CUDAarray(ch, 128, 128); arr.copy_from(texels.reshape(128, 256))
res = ct.ResourceDescriptor(rt.cudaResourceTypeArray, cuArr=arr)
tdesc = ct.TextureDescriptor((rt.cudaAddressModeClamp, rt.cudaAddressModeClamp), rt.cudaFilterModeLinear, rt.cudaReadModeElementType)
tex = ct.TextureObject(res, tdesc); table = cp.asarray(texels)
rng = np.random.default_rng(1)
pool_l = rng.integers(-(2 ** 15) + 1, 2 ** 15 - 1, 8192); pool_a = rng.integers(0, 2 ** 16, 8192).astype(np.uint32) << 16
init = cp.asarray(np.stack([pool_l[0::2].astype(np.int32).view(np.uint32), pool_a[0::2], pool_l[1::2].astype(np.int32).view(np.uint32), pool_a[1::2]], -1))
grid = 132 * 16; threads = grid * 256; iters = 4096; ops = threads * iters * 2
out = cp.zeros(threads, dtype=cp.uint32)
report = {'device': cp.cuda.runtime.getDeviceProperties(0)['name'].decode(), 'z_min': z_min, 'adds_per_launch': ops}
def run(fn): fn((grid,), (256,), tuple(geo) + (np.uint64(tex.ptr), table, init, np.int32(iters), out))
if MODE == 'ncu':
    for name, m in mods.items():
        for k in ('w_add_sfu', 'w_add_tex'):
            run(m.get_function(k)); cp.cuda.Device().synchronize()
    sys.exit(0)
# ---- certificate: every clns16 (z, theta in [0, pi]) (new: the add at +-theta)
for name, m in mods.items():
    worst = cp.zeros(4, dtype=cp.uint64); wrong = cp.zeros(2, dtype=cp.uint64)
    z_lo = -(2 ** 16 - 3); nt = 2 ** 15 + 1; n = (-z_lo + 1) * nt
    t0 = time.time()
    m.get_function('w_certify')((132 * 16,), (256,), tuple(geo) + (np.int32(z_lo), np.uint64(n), worst, wrong)); cp.cuda.Device().synchronize()
    w = worst.get(); wr = wrong.get()
    def dec(x):
        e = struct.unpack('<f', struct.pack('<I', int(x) >> 32))[0]; i = int(x) & 0xffffffff
        return {'err': e, 'z': -(i // nt), 'k': i % nt}
    report['certify_' + name] = {'points': n, 's': time.time() - t0, 're_ulp': dec(w[0]), 'im_ulp': dec(w[1]),
                                 'rad_re_abs_log2': dec(w[2]), 'rad_im_abs_rad': dec(w[3]), 'off_correct_rounding': [int(wr[0]), int(wr[1])]}
    print(name, json.dumps(report['certify_' + name]), flush=True)
# ---- Table I chains, interleaved rounds, median
def once(fn):
    e0, e1 = cp.cuda.Event(), cp.cuda.Event(); e0.record(); run(fn); e1.record(); e1.synchronize()
    return cp.cuda.get_elapsed_time(e0, e1)
fns = [(name, k, m.get_function(k)) for name, m in mods.items() for k in ('w_add_sfu', 'w_add_tex', 'w_add_accurate')]
for _, _, fn in fns: run(fn); run(fn)
ts = {(a, b): [] for a, b, _ in fns}
for rep in range(10):
    for a, b, fn in fns: ts[(a, b)].append(once(fn))
rows = []
for (a, b), v in ts.items():
    ms = float(np.median(v)); rows.append({'variant': a, 'kernel': b, 'ms': ms, 'gops': ops / ms / 1e6}); print(rows[-1], flush=True)
report['table1'] = rows
json.dump(report, open(os.path.join(OUT, 'report.json'), 'w'), indent=1)
