"""sigpu.sosfilt / sigpu.lfilter (CPU, all threads) against scipy.signal in the same process.

Calls alternate (scipy, sigpu, scipy, sigpu, ...) so both see the same machine load; each
call's wall time and process CPU time (time.process_time: user + system of every thread) are
kept. Prints JSON: per case the median and min wall ms of each, the ratios of medians and of
mins, max |difference|, and the load average before and after.

usage: PYTHONPATH=<wheel> python3 bench/peers/sosfilt_scipy.py [--rounds R] [--log2-n 22,24]
"""
import argparse, json, os, time
import numpy as np
import scipy.signal as ss
import sigpu

ap = argparse.ArgumentParser()
ap.add_argument("--rounds", type=int, default=15)
ap.add_argument("--log2-n", default="22,24")
ap.add_argument("--lfilter", action="store_true", help="also butter(2, 0.1) (b, a) at 2^24")
args = ap.parse_args()


def timed(f):
    w0, c0 = time.perf_counter(), time.process_time()
    r = f()
    return r, time.perf_counter() - w0, time.process_time() - c0


def compare(name, ref, ours, rounds):
    ref(); ours()  # warm-up: first-call set-up, page cache, factor tables
    ws, cs, wg, cg = [], [], [], []
    for _ in range(rounds):
        a, w, c = timed(ref); ws.append(w); cs.append(c)
        b, w, c = timed(ours); wg.append(w); cg.append(c)
    med = lambda v: float(np.median(v)) * 1e3
    mn = lambda v: float(np.min(v)) * 1e3
    return dict(
        case=name,
        scipy_ms_median=med(ws), scipy_ms_min=mn(ws), scipy_cpu_ms_median=med(cs),
        sigpu_ms_median=med(wg), sigpu_ms_min=mn(wg), sigpu_cpu_ms_median=med(cg),
        ratio_median=med(ws) / med(wg), ratio_min=mn(ws) / mn(wg),
        maxdiff=float(np.abs(a - b).max()),
    )


rng = np.random.default_rng(1)
out = dict(load_before=os.getloadavg(), threads=os.cpu_count(), rows=[])
designs = {"butter(8,0.1)": ss.butter(8, 0.1, output="sos"),
           "butter(8,0.02)": ss.butter(8, 0.02, output="sos")}
for l in [int(v) for v in args.log2_n.split(",")]:
    x = rng.standard_normal(1 << l)
    for name, sos in designs.items():
        r = compare(f"sosfilt {name} f64 2^{l}", lambda: ss.sosfilt(sos, x),
                    lambda: sigpu.sosfilt(sos, x, device="cpu"), args.rounds)
        r["n"] = 1 << l
        r["scipy_Msps_median"] = (1 << l) / r["scipy_ms_median"] / 1e3
        r["sigpu_Msps_median"] = (1 << l) / r["sigpu_ms_median"] / 1e3
        out["rows"].append(r)
        print(json.dumps(r), flush=True)
if args.lfilter:
    b, a = ss.butter(2, 0.1)
    x = rng.standard_normal(1 << 24)
    r = compare("lfilter butter(2,0.1) f64 2^24", lambda: ss.lfilter(b, a, x),
                lambda: sigpu.lfilter(b, a, x, device="cpu"), max(5, args.rounds // 3))
    out["rows"].append(r)
    print(json.dumps(r), flush=True)
out["load_after"] = os.getloadavg()
print(json.dumps(out, indent=1))
