#!/usr/bin/env python3
"""CPU throughput of `sigpu filter` (sections and (b, a)) against scipy.signal.sosfilt /
lfilter f64 on the same data, interleaved in one run: median of RUNS runs each.
sigpu's figure is its reported compute_seconds (filter set-up included, file I/O excluded).

usage: filter_cpu.py --sigpu target/release/sigpu [--log2-n 22,24] [--runs 5] [--json OUT]
"""
import argparse, json, os, subprocess, tempfile, time
import numpy as np
import scipy, scipy.signal as ss

CASES = [
    ("butter(8, 0.1) sos", "sos", ss.butter(8, 0.1, output="sos")),
    ("butter(8, 0.02) sos", "sos", ss.butter(8, 0.02, output="sos")),
    ("butter(4, 0.2) sos", "sos", ss.butter(4, 0.2, output="sos")),
    ("(0.2 : 0.8) (b, a)", "ba", ([0.2], [1.0, -0.8])),
    ("(0.04 : 1.6, -0.64) (b, a)", "ba", ([0.04], [1.0, -1.6, 0.64])),
    ("butter(8, 0.02) (b, a)", "ba", ss.butter(8, 0.02)),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sigpu", default="target/release/sigpu")
    ap.add_argument("--log2-n", default="22,24")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--json")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for log2 in [int(v) for v in args.log2_n.split(",")]:
            n = 1 << log2
            x = np.random.default_rng(1).uniform(-1, 1, n)
            xp, yp = os.path.join(tmp, "x.npy"), os.path.join(tmp, "y.npy")
            np.save(xp, x)
            for name, form, filt in CASES:
                if form == "sos":
                    sp = os.path.join(tmp, "sos.npy")
                    np.save(sp, filt)
                    flags = ["--sos", sp]
                    peer = lambda: ss.sosfilt(filt, x)
                    peer_name = "scipy.signal.sosfilt"
                else:
                    b, a = filt
                    flags = ["--b", ",".join(repr(float(v)) for v in b), "--a", ",".join(repr(float(v)) for v in a)]
                    peer = lambda: ss.lfilter(b, a, x)
                    peer_name = "scipy.signal.lfilter"
                ours, theirs, method = [], [], None
                for _ in range(args.runs):
                    t0 = time.perf_counter()
                    ref = peer()
                    theirs.append(time.perf_counter() - t0)
                    p = subprocess.run([args.sigpu, "--device", "cpu", "--json", "filter", *flags, "--input", xp, "--output", yp],
                                       capture_output=True, text=True, check=True)
                    s = json.loads(p.stdout)
                    ours.append(s["compute_seconds"])
                    method = s["method"]
                y = np.load(yp)
                peak = float(np.max(np.abs(ref)))
                rows.append(dict(case=name, n=n, method=method, device=s["device"],
                                 sigpu_msps=n / np.median(ours) / 1e6, peer=peer_name, scipy=scipy.__version__,
                                 peer_msps=n / np.median(theirs) / 1e6,
                                 ratio=float(np.median(theirs) / np.median(ours)),
                                 max_diff_vs_scipy=float(np.max(np.abs(y - ref)) / peak),
                                 sigpu_s=ours, peer_s=theirs))
                r = rows[-1]
                print(f"{name:28s} 2^{log2} {method:12s} sigpu {r['sigpu_msps']:8.1f} M/s  {peer_name} {r['peer_msps']:7.1f} M/s  "
                      f"ratio {r['ratio']:5.2f}  diff {r['max_diff_vs_scipy']:.1e}", flush=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(dict(rows=rows, load=os.getloadavg()), fh, indent=1)


if __name__ == "__main__":
    main()
