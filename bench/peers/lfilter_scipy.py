"""sigpu.lfilter against scipy.signal.lfilter, butter(2, 0.1), f64, 2^24, same process, calls
alternating; prints one JSON line (medians and minima in ms, ratio of medians, load average).

usage: PYTHONPATH=<unpacked wheel> python3 bench/peers/lfilter_scipy.py [rounds]
"""
import sys, time, os, json
import numpy as np, scipy.signal as ss, sigpu
b, a = ss.butter(2, 0.1)
x = np.random.default_rng(1).standard_normal(1 << 24)
ss.lfilter(b, a, x); sigpu.lfilter(b, a, x, device="cpu")
ws, wg = [], []
for _ in range(int(sys.argv[1]) if len(sys.argv) > 1 else 7):
    t = time.perf_counter(); r = ss.lfilter(b, a, x); ws.append(time.perf_counter() - t)
    t = time.perf_counter(); g = sigpu.lfilter(b, a, x, device="cpu"); wg.append(time.perf_counter() - t)
m = lambda v: float(np.median(v)) * 1e3
print(json.dumps(dict(wheel=os.path.dirname(os.path.dirname(sigpu.__file__)), load=os.getloadavg(), scipy_ms=m(ws), sigpu_ms=m(wg), ratio=m(ws)/m(wg), scipy_min=min(ws)*1e3, sigpu_min=min(wg)*1e3, maxdiff=float(np.abs(r-g).max()))))
