#!/usr/bin/env python3
"""Peer for `sigpu bench ldpc`: Sionna's LDPCBPDecoder (PyTorch) on the same parity-check
matrix (an alist file written by `sigpu ldpc export`), flooding, batch of 128 codewords.

Timed like sigpu's GPU decoder: CUDA events around the LLR upload (from pinned host memory),
the decoder call and the hard-decision download; median of RUNS after WARMUP.

usage: ldpc_sionna.py H.alist ITERATIONS CN_UPDATE [RUNS] [BATCH]
       (ITERATIONS: a count or a comma list, e.g. 20,30,50, timed in one process;
        CN_UPDATE: minsum | boxplus-phi | offset-minsum)
Prints one JSON object per iteration count, one per line. Needs torch, scipy and sionna-no-rt on PYTHONPATH; h5py and
matplotlib, which Sionna imports but the decoder does not use, are stubbed when absent.
"""
import json
import statistics
import sys
from unittest import mock

for optional in ("h5py", "matplotlib", "matplotlib.pyplot", "matplotlib.colors", "matplotlib.cm"):
    try:
        __import__(optional)
    except ImportError:
        sys.modules[optional] = mock.MagicMock()

import numpy as np
import scipy.sparse as sp
import torch


def read_alist(path):
    with open(path) as f:
        lines = [l.split() for l in f if l.strip()]
    n, m = int(lines[0][0]), int(lines[0][1])
    rows, cols = [], []
    for r, line in enumerate(lines[4 + n:4 + n + m]):
        for c in line:
            if int(c):
                rows.append(r)
                cols.append(int(c) - 1)
    return sp.csr_matrix((np.ones(len(rows), dtype=np.float32), (rows, cols)), shape=(m, n))


def main():
    path, iteration_list, cn_update = sys.argv[1], sys.argv[2], sys.argv[3]
    runs = int(sys.argv[4]) if len(sys.argv) > 4 else 5
    batch = int(sys.argv[5]) if len(sys.argv) > 5 else 128
    pcm = read_alist(path)
    for iterations in (int(x) for x in iteration_list.split(",")):
        print(json.dumps(time_decoder(pcm, iterations, cn_update, runs, batch)), flush=True)


def time_decoder(pcm, iterations, cn_update, runs, batch):
    import sionna
    from sionna.phy.fec.ldpc import LDPCBPDecoder

    m, n = pcm.shape
    dec = LDPCBPDecoder(pcm, cn_update=cn_update, num_iter=iterations, hard_out=True, device="cuda:0")
    # All-zero codeword, BPSK at Eb/N0 = 2 dB; Sionna's LLRs are ln P(1)/P(0).
    rate = (n - m) / n
    sigma2 = 1.0 / (2 * rate * 10 ** 0.2)
    y = 1.0 + np.sqrt(sigma2) * np.random.default_rng(1).standard_normal((batch, n))
    llr_host = torch.from_numpy((-2.0 * y / sigma2).astype(np.float32)).pin_memory()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    out = None
    for i in range(2 + runs):
        start.record()
        llr = llr_host.to("cuda:0", non_blocking=True)
        out = dec(llr).to("cpu")
        stop.record()
        torch.cuda.synchronize()
        if i >= 2:
            times.append(start.elapsed_time(stop))
    ms = statistics.median(times)
    errors = int(out.sum().item())
    return {
        "peer": f"sionna {sionna.__version__} LDPCBPDecoder cn_update={cn_update}, flooding",
        "torch": torch.__version__, "n": n, "k": n - m, "iterations": iterations, "batch": batch,
        "runs": runs, "median_ms": ms, "min_ms": min(times), "max_ms": max(times),
        "coded_mbps": n * batch / (ms * 1e-3) / 1e6, "info_mbps": (n - m) * batch / (ms * 1e-3) / 1e6,
        "bit_errors_at_2dB": errors,
    }


if __name__ == "__main__":
    main()
