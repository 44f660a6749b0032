#!/usr/bin/env python3
"""Encode, transmit (QPSK over AWGN with the DVB-T2 bit interleaver) and decode DVB-T2 LDPC
frames. With PyTorch and a GPU the LLRs are a CUDA tensor and stay on the device."""

import numpy as np

import sigpu
from sigpu import ldpc

code = ldpc.Code("dvbt2-short-1/2")
print(code)
frames, es_n0_db, mod = 64, 1.5, "qpsk"
info = np.random.default_rng(1).integers(0, 2, (frames, code.k), dtype=np.uint8)
words = code.encode(info)                                    # frames × N, systematic
cells = ldpc.modulate(ldpc.interleave(code, words, mod), mod)
received = ldpc.awgn(cells, es_n0_db, seed=2)
llr = ldpc.deinterleave(code, ldpc.demap(received, es_n0_db, mod), mod)   # float32, frames × N
print("hard-decision bit errors before decoding:", int(((llr < 0) != words).sum()))

try:
    import torch

    on_gpu = torch.cuda.is_available() and sigpu.cuda_available()
except ImportError:
    on_gpu = False
if on_gpu:
    llr_t = torch.as_tensor(llr, device="cuda")
    bits = code.decode(llr_t, decoder="minsum", iterations=50)  # a CUDA uint8 tensor
    bits = bits.cpu().numpy()
else:
    bits = code.decode(llr, decoder="nms:0.875", iterations=50)
print("frame errors after decoding:", int((bits[:, : code.k] != info).any(axis=1).sum()), "of", frames)

# A BER/FER sweep, resumable from its file (the same format as `sigpu ldpc simulate --out`).
points = ldpc.simulate(code, ebn0_db="1.5:2.5:0.5", max_frames=256, min_errors=20, iterations=20)
for p in (points.to_dict("records") if hasattr(points, "to_dict") else points):
    print(f"Eb/N0 {p['eb_n0_db']:.2f} dB: FER {p['fer']:.3g} ({p['frames']} frames)")
