#!/usr/bin/env python3
"""Eb/N0 at a target FER (default 1e-2) of `sigpu ldpc simulate --out` sweep files: log10(FER)
interpolated linearly in dB between the two points that bracket the target, with the same
interpolation through the ends of each point's 95% Wilson interval as the range it allows.

usage: fer_at.py FILE.json [FILE.json ...] [--target 1e-2]
"""
import json
import math
import sys


def crossing(points, key, target):
    pts = sorted(points, key=lambda p: p["eb_n0_db"])
    for a, b in zip(pts, pts[1:]):
        fa, fb = key(a), key(b)
        if fa >= target > fb and fa > 0:
            if fb <= 0:
                return None
            t = (math.log10(fa) - math.log10(target)) / (math.log10(fa) - math.log10(fb))
            return a["eb_n0_db"] + t * (b["eb_n0_db"] - a["eb_n0_db"])
    return None


def main():
    args = sys.argv[1:]
    target = 1e-2
    if "--target" in args:
        i = args.index("--target")
        target = float(args[i + 1])
        del args[i:i + 2]
    for path in args:
        s = json.load(open(path))
        pts = s["points"]
        mid = crossing(pts, lambda p: p["fer"], target)
        lo = crossing(pts, lambda p: p["fer_ci"][0], target)
        hi = crossing(pts, lambda p: p["fer_ci"][1], target)
        rows = " ".join(f"{p['eb_n0_db']:.3f}:{p['frame_errors']}/{p['frames']}" for p in sorted(pts, key=lambda p: p["eb_n0_db"]))
        fmt = lambda x: "n/a" if x is None else f"{x:.3f}"
        print(f"{path}: Eb/N0 at FER {target:g} = {fmt(mid)} dB (CI {fmt(lo)} .. {fmt(hi)}); {s['decoder']['description'] if isinstance(s['decoder'], dict) else s['decoder']}; points {rows}")


if __name__ == "__main__":
    main()
