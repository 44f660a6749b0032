"""sigpu's scipy.signal functions against scipy's own, same process, calls alternating, f64:
lfilter of (b, a) designs (the plr path, and the sections the CPU planner converts designs the
contract keeps off plr to) beside sosfilt of the same design,
FIR with 511 taps against scipy.signal.oaconvolve (and lfilter), and the set-up cost (first and
second lfilter call of butter(32, 0.3) on 1,024 samples; butter(64) sections streamed with zi
in 1,024-sample blocks). Prints one JSON line per case (medians and minima in ms, ratio of
medians = scipy / sigpu, load average) and a table.

usage: PYTHONPATH=<unpacked wheel> python3 bench/peers/lfilter_scipy.py [rounds] [log2 n,...]
"""
import json
import os
import sys
import time

import numpy as np
import scipy.signal as ss
import sigpu

ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 7
SIZES = [int(v) for v in sys.argv[2].split(",")] if len(sys.argv) > 2 else [22, 24]


def timed(f, *args):
    t = time.perf_counter()
    r = f(*args)
    return time.perf_counter() - t, r


def race(name, theirs, ours, rounds=ROUNDS, extra=None):
    """Alternate the two calls; medians, minima and the largest difference."""
    theirs()
    ours()
    ws, wg = [], []
    for _ in range(rounds):
        t, r = timed(theirs)
        ws.append(t)
        t, g = timed(ours)
        wg.append(t)
    m = lambda v: float(np.median(v)) * 1e3
    row = dict(case=name, scipy_ms=m(ws), sigpu_ms=m(wg), ratio=m(ws) / m(wg),
               scipy_min=min(ws) * 1e3, sigpu_min=min(wg) * 1e3,
               maxdiff=float(np.max(np.abs(np.asarray(r) - np.asarray(g)))),
               load=os.getloadavg()[0])
    if extra:
        row.update(extra)
    print(json.dumps(row), flush=True)
    return row


def main():
    rows = []
    rng = np.random.default_rng(1)
    for log2 in SIZES:
        x = rng.standard_normal(1 << log2)
        for order, wn in [(4, 0.1), (8, 0.02), (2, 0.1), (8, 0.1)]:
            b, a = ss.butter(order, wn)
            sos = ss.butter(order, wn, output="sos")
            rows.append(race(f"lfilter butter({order}, {wn}) 2^{log2}",
                             lambda: ss.lfilter(b, a, x), lambda: sigpu.lfilter(b, a, x)))
            rows.append(race(f"sosfilt butter({order}, {wn}) 2^{log2}",
                             lambda: ss.sosfilt(sos, x), lambda: sigpu.sosfilt(sos, x)))
    x = rng.standard_normal(1 << 22)
    h = ss.firwin(511, 0.1)
    rows.append(race("FIR 511 taps 2^22 vs oaconvolve",
                     lambda: ss.oaconvolve(x, h)[: len(x)], lambda: sigpu.lfilter(h, [1.0], x)))
    rows.append(race("FIR 511 taps 2^22 vs lfilter",
                     lambda: ss.lfilter(h, [1.0], x), lambda: sigpu.lfilter(h, [1.0], x), rounds=3))
    # Set-up: a high-order (b, a) design on a short signal, first call then later calls.
    b, a = ss.butter(32, 0.3)
    short = np.ones(1024)
    first, _ = timed(sigpu.lfilter, b, a, short)
    rows.append(race("lfilter butter(32, 0.3) 1024 samples, cached", lambda: ss.lfilter(b, a, short),
                     lambda: sigpu.lfilter(b, a, short), rounds=50,
                     extra=dict(sigpu_first_ms=first * 1e3)))
    # Streaming butter(64) sections with zi, 1,024-sample blocks: per block.
    sos = ss.butter(64, 0.3, output="sos")
    sig = rng.standard_normal(64 * 1024)
    zi0 = np.zeros((sos.shape[0], 2))

    def stream(f):
        zi = zi0
        out = []
        for blk in sig.reshape(-1, 1024):
            y, zi = f(sos, blk, zi=zi)
            out.append(y)
        return np.concatenate(out)

    first, _ = timed(sigpu.sosfilt, sos, sig[:1024], -1, zi0)
    row = race("sosfilt butter(64) sections, zi, 64 blocks of 1024", lambda: stream(ss.sosfilt),
               lambda: stream(sigpu.sosfilt), rounds=5, extra=dict(sigpu_first_block_ms=first * 1e3))
    row["scipy_ms_per_block"] = row["scipy_ms"] / 64
    row["sigpu_ms_per_block"] = row["sigpu_ms"] / 64
    rows.append(row)
    print("\n| case | scipy ms | sigpu ms | scipy / sigpu |\n|---|---|---|---|")
    for r in rows:
        print(f"| {r['case']} | {r['scipy_ms']:.3g} | {r['sigpu_ms']:.3g} | {r['ratio']:.2f} |")


if __name__ == "__main__":
    main()
