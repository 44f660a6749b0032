#!/usr/bin/env python3
"""The host time of one differentiable filter step, measured without a GPU: forward + backward
of ``sigpu.lfilter`` (butter(2, 0.05)) and ``sosfilt`` (butter(8, 0.05), 4 sections) on a tiny
float32 CPU tensor (1 x 64: the filtering itself is negligible), so what is timed is the
Python, torch autograd and binding work a step costs on any device. Cases: only x requires
grad with the coefficients as tensors or numpy arrays; x and the coefficients ("x+coefs").
One torch thread; each entry the smallest of --blocks medians of --runs steps (the machine
may be shared).

usage: grad_host_time.py [--runs 300] [--blocks 5] > results.json"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import scipy.signal as ss
import torch

import sigpu

ap = argparse.ArgumentParser()
ap.add_argument("--runs", type=int, default=300)
ap.add_argument("--blocks", type=int, default=5)
args = ap.parse_args()
torch.set_num_threads(1)
sos = ss.butter(8, 0.05, output="sos")
b, a = ss.butter(2, 0.05)


def make(filt, coefs_grad, tensor_coefs):
    x = torch.randn(1, 64, requires_grad=True)
    g = torch.randn(1, 64)
    cs = [sos, b, a]
    if tensor_coefs:
        cs = [torch.tensor(c, dtype=torch.float32).requires_grad_(coefs_grad) for c in cs]

    def step():
        x.grad = None
        y = sigpu.sosfilt(cs[0], x) if filt == "sosfilt" else sigpu.lfilter(cs[1], cs[2], x)
        y.backward(g)

    return step


def host_us(step):
    for _ in range(20):
        step()
    best = float("inf")
    for _ in range(args.blocks):
        ts = []
        for _ in range(args.runs):
            t = time.perf_counter()
            step()
            ts.append(time.perf_counter() - t)
        best = min(best, statistics.median(ts))
    return best * 1e6


out = []
for filt in ("lfilter", "sosfilt"):
    for grad, coefs_grad, tensor_coefs in (("x", False, True), ("x", False, False),
                                           ("x+coefs", True, True)):
        us = host_us(make(filt, coefs_grad, tensor_coefs))
        out.append({"filter": filt, "grad": grad,
                    "coefs": "tensor" if tensor_coefs else "numpy", "host_us": us})
print(json.dumps(out, indent=1))
