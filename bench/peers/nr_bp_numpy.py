#!/usr/bin/env python3
"""Independent reference for sigpu's float sum-product on 5G NR codes: a flooding belief-
propagation decoder (tanh rule in the phi form, float64) written from TS 38.212 in numpy, with
its own lifting, encoder-free all-zero codewords and rate matching, sharing no code with sigpu.

Only the base-graph tables (shared/data/nr-ldpc/bg1.txt, bg2.txt) are read; everything else
follows the standard's text:
- Z: the smallest lifting size a*2^j (Table 5.3.2-1) with K_b*Z >= k; BG1 K_b = 22; BG2 K_b =
  10 / 9 / 8 / 6 for k > 640 / 560 / 192 / else (the code block has no CRC here: B = k).
- Entry (i, j) with coefficient V becomes the Z x Z identity shifted right by V mod Z: check
  i*Z + t joins bit j*Z + (t + V) mod Z.
- K = 22*Z (BG1) or 10*Z (BG2); bits k .. K-1 are filler (known zeros); the first 2*Z bits
  are never sent; rv 0 with N_cb = N takes the first E = n bits of the buffer c[2Z:], filler
  skipped (k0 = 0).
- BPSK over real AWGN: sigma^2 = 1 / (2 R Eb/N0), R = k/n; LLR = 2 y / sigma^2 (ln P(0)/P(1)).

The codeword is all zeros (BP on a linear code over a symmetric channel: its error rate does not
depend on the codeword sent), so no encoder is needed and none of sigpu's is used.

usage: nr_bp_numpy.py BG K N EBN0_DB FRAMES ITERATIONS [SEED] [BATCH]
Prints one JSON object: frames, frame errors, FER with its 95% Wilson interval, BER.
"""
import json
import math
import sys
from pathlib import Path

import numpy as np

SETS = [2, 3, 5, 7, 9, 11, 13, 15]
TABLES = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "nr-ldpc"


def lifting(kb, k):
    """Smallest Z = a*2^j <= 384 with kb*Z >= k, and its set index."""
    best = None
    for i, a in enumerate(SETS):
        z = a
        while z <= 384:
            if kb * z >= k and (best is None or z < best[0]):
                best = (z, i)
            z *= 2
    return best


def base_graph(bg):
    path = TABLES / f"bg{bg}.txt"
    if not path.exists():
        path = Path("/work/shared/data/nr-ldpc") / f"bg{bg}.txt"
    rows = [list(map(int, l.split())) for l in path.read_text().splitlines() if l and l[0] != "#"]
    return rows


def build(bg, k, n):
    if bg == 1:
        kb, kinfo = 22, 22
    else:
        kb = 10 if k > 640 else 9 if k > 560 else 8 if k > 192 else 6
        kinfo = 10
    z, ils = lifting(kb, k)
    kk = kinfo * z
    ncols = 68 if bg == 1 else 52
    total = ncols * z
    # Rate matching, rv 0, N_cb = N: buffer = codeword bits 2Z .. end, fillers skipped.
    sent = np.zeros(total, dtype=bool)
    taken = 0
    for pos in range(2 * z, total):
        if k <= pos < kk:
            continue  # filler: NULL in the buffer
        if taken == n:
            break
        sent[pos] = True
        taken += 1
    assert taken == n, "n beyond one pass of the buffer is not handled here"
    filler = np.zeros(total, dtype=bool)
    filler[k:kk] = True
    # Rows: the 4 core rows, and each extension row whose degree-1 parity block has a sent bit.
    keep = [r for r in range(ncols - kinfo) if r < 4 or sent[(kinfo + r) * z:(kinfo + r + 1) * z].any()]
    nrows = len(keep)
    ncut = (kinfo + nrows) * z
    entries = {}
    for row, col, *v in base_graph(bg):
        if row < nrows:
            entries.setdefault(row, []).append((col, v[ils] % z))
    t = np.arange(z)
    layers = [np.stack([c * z + (t + s) % z for c, s in entries[r]]) for r in range(nrows)]
    return dict(z=z, k=k, ncut=ncut, sent=sent[:ncut], filler=filler[:ncut], layers=layers)


def phi(x):
    x = np.clip(x, 1e-12, 60.0)
    return -np.log(np.tanh(x / 2.0))


def decode(code, llr, iterations):
    """Flooding BP: all checks from the previous v2c, then all bits."""
    layers = code["layers"]
    c2v = [np.zeros((llr.shape[0],) + cols.shape) for cols in layers]
    post = llr.copy()
    for _ in range(iterations):
        for i, cols in enumerate(layers):
            v2c = post[:, cols] - c2v[i]  # (B, d, Z)
            mag = phi(np.abs(v2c))
            total = mag.sum(axis=1, keepdims=True)
            neg = (v2c < 0)
            sign = np.where((neg.sum(axis=1, keepdims=True) - neg) % 2 == 1, -1.0, 1.0)
            c2v[i] = sign * phi(total - mag)
        post = llr.copy()
        for i, cols in enumerate(layers):
            for j in range(cols.shape[0]):
                post[:, cols[j]] += c2v[i][:, j, :]  # one entry: Z distinct bits
    return post < 0


def wilson(e, n, zq=1.959963984540054):
    if n == 0:
        return [0.0, 1.0]
    p = e / n
    d = 1 + zq * zq / n
    c = (p + zq * zq / (2 * n)) / d
    h = zq * math.sqrt(p * (1 - p) / n + zq * zq / (4 * n * n)) / d
    return [max(0.0, c - h), min(1.0, c + h)]


def main():
    bg, k, n = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    ebn0, frames, iterations = float(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
    seed = int(sys.argv[7]) if len(sys.argv) > 7 else 1
    batch = int(sys.argv[8]) if len(sys.argv) > 8 else 16
    code = build(bg, k, n)
    rng = np.random.default_rng(seed)
    sigma = math.sqrt(1.0 / (2.0 * (k / n) * 10 ** (ebn0 / 10)))
    done = fe = be = 0
    while done < frames:
        b = min(batch, frames - done)
        y = 1.0 + sigma * rng.standard_normal((b, code["ncut"]))
        llr = np.where(code["sent"], 2.0 * y / sigma**2, 0.0)
        llr[:, code["filler"]] = 1e4
        wrong = decode(code, llr, iterations)[:, :k]
        per = wrong.sum(axis=1)
        fe += int((per > 0).sum())
        be += int(per.sum())
        done += b
    print(json.dumps({
        "decoder": "numpy flooding BP (phi form, float64)", "bg": bg, "k": k, "n": n,
        "z": code["z"], "eb_n0_db": ebn0, "iterations": iterations, "seed": seed,
        "frames": done, "frame_errors": fe, "fer": fe / done, "fer_ci95": wilson(fe, done),
        "ber": be / (done * k),
    }))


if __name__ == "__main__":
    main()
