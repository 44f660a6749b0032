import time, json, numpy as np, scipy.signal as ss, sigpu, os
res = {}
rng = np.random.default_rng(1)
x = rng.standard_normal(1 << 22)
for name, sos in {"butter(8,0.1)": ss.butter(8, 0.1, output="sos"), "butter(8,0.02)": ss.butter(8, 0.02, output="sos")}.items():
    def best(f, k=7):
        t = []
        for _ in range(k):
            t0 = time.perf_counter(); f(); t.append(time.perf_counter() - t0)
        return float(np.median(t))
    ts = best(lambda: ss.sosfilt(sos, x))
    tg = best(lambda: sigpu.sosfilt(sos, x, device="cpu"))
    err = float(np.abs(sigpu.sosfilt(sos, x, device="cpu") - ss.sosfilt(sos, x)).max())
    b, a = ss.butter(2, 0.1)
    res[name] = dict(scipy_ms=ts*1e3, sigpu_ms=tg*1e3, ratio=ts/tg, scipy_Msps=len(x)/ts/1e6, sigpu_Msps=len(x)/tg/1e6, maxdiff=err)
b, a = ss.butter(2, 0.1)
xl = rng.standard_normal(1 << 24)
t = lambda f: float(np.median([(lambda t0: (f(), time.perf_counter() - t0)[1])(time.perf_counter()) for _ in range(5)]))
tl = t(lambda: ss.lfilter(b, a, xl)); tg = t(lambda: sigpu.lfilter(b, a, xl, device="cpu"))
res["lfilter order 2, 2^24"] = dict(scipy_ms=tl*1e3, sigpu_ms=tg*1e3, ratio=tl/tg)
print(json.dumps(res, indent=1)); print("load", os.getloadavg())
