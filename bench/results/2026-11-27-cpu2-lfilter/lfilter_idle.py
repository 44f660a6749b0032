import time, numpy as np, scipy.signal as ss, sigpu, json, os
b, a = ss.butter(2, 0.1)
x = np.random.default_rng(1).standard_normal(1 << 24)
sigpu.lfilter(b, a, x, device="cpu"); ss.lfilter(b, a, x)
s, c = [], []
for _ in range(9):
    t = time.perf_counter(); ss.lfilter(b, a, x); c.append(time.perf_counter() - t)
    t = time.perf_counter(); sigpu.lfilter(b, a, x, device="cpu"); s.append(time.perf_counter() - t)
print(json.dumps(dict(wheel=os.environ["PYTHONPATH"], sigpu_ms=1e3*np.median(s), sigpu_min_ms=1e3*min(s), scipy_ms=1e3*np.median(c), ratio=np.median(c)/np.median(s), load=os.getloadavg())))
