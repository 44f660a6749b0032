#!/usr/bin/env python3
"""The forward algorithm of a hidden Markov model in a logarithmic number system (LNS), against
a float64 log-sum-exp reference, and a few LNS array operations."""

import numpy as np

from sigpu import lns

rng = np.random.default_rng(3)
states, steps, batch = 16, 2_000, 8
log_pi = np.log(rng.dirichlet(np.ones(states)))
log_A = np.log(rng.dirichlet(np.ones(states), size=states))      # rows: from-state
log_B = np.log(rng.uniform(0.01, 1.0, (batch, steps, states)))    # emission log-likelihoods

ll = lns.hmm_forward(log_pi, log_A, log_B, format="lns32")        # one per sequence


def reference(log_b):
    alpha = log_pi + log_b[0]
    for t in range(1, len(log_b)):
        m = alpha[:, None] + log_A
        alpha = np.logaddexp.reduce(m, axis=0) + log_b[t]
    return np.logaddexp.reduce(alpha)


ref = np.array([reference(b) for b in log_B])
print("log-likelihoods:", np.round(ll[:3], 4), "...")
print("max relative error vs float64:", np.max(np.abs(ll - ref) / np.abs(ref)))

x = lns.Array([0.5, 2.0, 1e-30, 3.0], format="lns32")
y = lns.Array([0.25, 4.0, 1e-30, -3.0], format="lns32")
print("x * y =", (x * y).to_numpy(), " x + y =", (x + y).to_numpy())
print("fused dot:", x.dot(y).to_numpy(), " raw words:", x.words)
