#!/usr/bin/env python3
"""BICM capacity limits of the DVB-T2 constellations (Gray, unrotated, unit energy) on AWGN:
the Es/N0 and Eb/N0 at which the bitwise mutual information reaches a code rate's information
bits per cell. The reference point for the 16/64/256-QAM waterfalls in BENCHMARKS.md.

Usage: python3 bench/ldpc_bicm_limit.py [rate]   (default 0.5; needs numpy)
"""
import sys

import numpy as np


def gray_pam(bits):
    """Levels of one axis with their Gray labels, first bit the sign (1 = negative), as
    crates/ldpc/src/channel.rs maps them; the scale gives unit QAM energy."""
    levels = 1 << bits
    norm = {1: np.sqrt(0.5), 2: 1 / np.sqrt(10), 3: 1 / np.sqrt(42), 4: 1 / np.sqrt(170)}[bits]
    return [((2 * i - (levels - 1)) * norm, (levels - 1 - i) ^ ((levels - 1 - i) >> 1))
            for i in range(levels)]


def axis_bicm(pam, n0):
    """Σ over the axis's bits of I(b; y), y = x + N(0, N0/2), by quadrature on a fine grid."""
    s2 = n0 / 2
    y = np.linspace(-8, 8, 20001) * np.sqrt(0.5 + s2)
    dy = y[1] - y[0]
    pts = np.array([x for x, _ in pam])
    labels = [g for _, g in pam]
    nb = int(np.log2(len(pts)))
    like = np.exp(-(y[None, :] - pts[:, None]) ** 2 / (2 * s2)) / np.sqrt(2 * np.pi * s2)
    py = like.mean(0)
    total = 0.0
    for j in range(nb):
        for v in (0, 1):
            sel = [i for i, g in enumerate(labels) if (g >> (nb - 1 - j)) & 1 == v]
            pyb = like[sel].mean(0)
            total += 0.5 * np.sum(pyb * np.log2(np.maximum(pyb, 1e-300) / np.maximum(py, 1e-300))) * dy
    return total


def limit(bits_per_axis, rate):
    bits_per_cell = 2 * bits_per_axis
    pam = gray_pam(bits_per_axis)
    for es in np.arange(-3, 25, 0.01):
        if 2 * axis_bicm(pam, 10 ** (-es / 10)) >= rate * bits_per_cell:
            return es, es - 10 * np.log10(rate * bits_per_cell)
    return None


if __name__ == "__main__":
    rate = float(sys.argv[1]) if len(sys.argv) > 1 else 0.5
    for name, b in [("QPSK", 1), ("16-QAM", 2), ("64-QAM", 3), ("256-QAM", 4)]:
        es, eb = limit(b, rate)
        print(f"{name:8s} rate {rate:g}: Es/N0 {es:.2f} dB, Eb/N0 {eb:.2f} dB")
