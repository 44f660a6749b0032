#!/usr/bin/env python3
"""A two-layer perceptron's inference computed in a logarithmic number system (LNS) beside
float64: every matrix product a fused LNS sum rounded once, ReLU exact, the output's
log-softmax as LNS computes it. Pass torch CUDA tensors instead of numpy arrays and the same
lines run on the GPU (the words stay there), with the same words bit for bit.

The xlns library's arrays convert both ways exactly (``lns.from_xlnsnp`` / ``lns.to_xlnsnp``)
when ``xlns.xlnsF`` equals the format's F."""

import numpy as np

from sigpu import lns

rng = np.random.default_rng(7)
x = rng.normal(size=(256, 64))                       # a batch of inputs
W1, b1 = rng.normal(0, 64**-0.5, (64, 128)), rng.normal(0, 0.1, 128)
W2, b2 = rng.normal(0, 128**-0.5, (128, 10)), rng.normal(0, 0.1, 10)


def mlp_f64(x):
    h = np.maximum(x @ W1 + b1, 0.0)
    z = h @ W2 + b2
    m = z.max(axis=1, keepdims=True)
    return z - m - np.log(np.exp(z - m).sum(axis=1, keepdims=True))


def mlp_lns(x, fmt):
    T = lambda a: lns.Tensor.from_float(a, fmt)       # noqa: E731  (words, int16 for lns16)
    h = (T(x) @ T(W1) + T(b1)).relu()                 # fused dot per output, exact ReLU
    z = h @ T(W2) + T(b2)
    return lns.log_softmax(z.to_float(), axis=1, format=fmt)


want = mlp_f64(x)
for fmt in ("lns16", "lns32"):
    got = mlp_lns(x, fmt)
    agree = (got.argmax(axis=1) == want.argmax(axis=1)).mean()
    print(f"{fmt}: max |Δ log p| = {np.abs(got - want).max():.2e}, argmax agrees on {agree:.1%}")
    assert agree > 0.95
