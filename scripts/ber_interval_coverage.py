#!/usr/bin/env python3
"""Coverage of 95% BER intervals when bit errors cluster in frames (numpy + scipy).

Frames fail with probability q; a failed frame carries a geometric number of bit errors.
Compares the interval `sigpu_ldpc::sim::ber_interval` computes (Wilson on the effective sample
size from the frame-level variance, Student-t quantile with (failed frames) degrees of
freedom) with the same using the normal quantile and with bits taken as independent trials.
Usage: python3 scripts/ber_interval_coverage.py [replications]
"""
import sys

import numpy as np
from scipy import stats

Z = stats.norm.ppf(0.975)


def wilson(k, n, z):
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(c - h, 0.0), min(c + h, 1.0)


def clustered(e, k, student):
    f = len(e)
    n = f * k
    errors = e.sum()
    failed = int((e > 0).sum())
    if errors == 0:
        return 0.0, wilson(0, f, Z)[1]
    p = errors / n
    s2 = max(np.sum(e * e) - errors * errors / f, 0) / (k * k * (f - 1))
    deff = min(max((s2 / f) / (p * (1 - p) / n), 1), k)
    z = stats.t.ppf(0.975, max(failed, 1)) if student else Z
    return wilson(p * n / deff, n / deff, z)


def main():
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
    rng = np.random.default_rng(7)
    k, frames = 1000, 2000
    for q, mean_bits in [(0.05, 5), (0.02, 1), (0.01, 20), (0.003, 50), (0.001, 30), (0.0005, 100)]:
        true = q * mean_bits / k
        hits = {"t": 0, "normal": 0, "bits": 0}
        for _ in range(reps):
            fail = rng.random(frames) < q
            e = np.where(fail, np.minimum(rng.geometric(1 / mean_bits, frames), k), 0).astype(float)
            for name, (lo, hi) in [
                ("t", clustered(e, k, True)),
                ("normal", clustered(e, k, False)),
                ("bits", wilson(e.sum(), frames * k, Z)),
            ]:
                hits[name] += lo <= true <= hi
        row = ", ".join(f"{name} {h / reps:.3f}" for name, h in hits.items())
        print(f"FER {q}, {mean_bits} bit errors per failed frame ({q * frames:g} failed expected): {row}")


if __name__ == "__main__":
    main()
