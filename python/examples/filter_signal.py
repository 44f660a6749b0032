#!/usr/bin/env python3
"""Low-pass filter a noisy signal with sigpu's scipy-compatible filters, and check the result
against scipy.signal. On a PyTorch or CuPy CUDA array the same calls run on the GPU."""

import numpy as np
import scipy.signal as ss

import sigpu

fs = 48_000
t = np.arange(1 << 20) / fs
x = np.sin(2 * np.pi * 440 * t) + 0.5 * np.random.default_rng(0).standard_normal(t.size)

b, a = ss.butter(4, 1_000, fs=fs)               # 4th-order low-pass at 1 kHz
y = sigpu.lfilter(b, a, x)                       # same call as scipy.signal.lfilter
print("lfilter vs scipy, max |diff|:", np.max(np.abs(y - ss.lfilter(b, a, x))))

sos = ss.butter(8, 1_000, fs=fs, output="sos")   # second-order sections for higher orders
y_zero_phase = sigpu.sosfiltfilt(sos, x)
print("sosfiltfilt vs scipy, max |diff|:", np.max(np.abs(y_zero_phase - ss.sosfiltfilt(sos, x))))

# Streaming: carry the state from block to block.
zi = sigpu.lfilter_zi(b, a) * x[0]
blocks = []
for block in np.array_split(x, 8):
    out, zi = sigpu.lfilter(b, a, block, zi=zi)
    blocks.append(out)
print("blockwise == one call:", np.allclose(np.concatenate(blocks), sigpu.lfilter(b, a, x, zi=sigpu.lfilter_zi(b, a) * x[0])[0]))

try:
    import torch

    if torch.cuda.is_available() and sigpu.cuda_available():
        xt = torch.as_tensor(x, dtype=torch.float32, device="cuda")
        yt = sigpu.lfilter(b, a, xt)             # a CUDA tensor in, a CUDA tensor out
        print("GPU (torch) vs CPU, max |diff|:", (yt.double().cpu().numpy() - y).__abs__().max())
except ImportError:
    pass
