import numpy as np, scipy.signal as ss, sigpu, time, os, sys
n = 1 << int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 22
x = np.random.default_rng(1).standard_normal(n)
b, a = ss.butter(2, 0.1)
bp = np.append(b, 0.0)  # unfused path: len(b) != len(a)
r = ss.lfilter(b, a, x)
print("maxdiff fused", np.max(np.abs(sigpu.lfilter(b, a, x) - r)), "padded", np.max(np.abs(sigpu.lfilter(bp, a, x) - r)))
def t(f):
    f(); v = []
    for _ in range(15):
        s = time.perf_counter(); f(); v.append(time.perf_counter() - s)
    return np.median(v) * 1e3, min(v) * 1e3
for _ in range(2):
    print("load", os.getloadavg()[0], "scipy %.2f/%.2f" % t(lambda: ss.lfilter(b, a, x)), "fused %.2f/%.2f" % t(lambda: sigpu.lfilter(b, a, x)), "unfused %.2f/%.2f" % t(lambda: sigpu.lfilter(bp, a, x)))
