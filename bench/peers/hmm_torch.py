"""Peer for `sigpu lns hmm --device cuda`: the HMM forward algorithm in PyTorch on the GPU,
timed like sigpu (CUDA events, warm-up, median). Two forms:
- logsumexp: log-space forward in f32, alpha = logsumexp(alpha[:, :, None] + log A, dim=1) + log B
  (the form the issue's target is set against);
- scaled: the classic scaled forward in f32 on probabilities, alpha = (alpha @ A) * B with a
  per-step division by the sum (batched matmul), for context.
Each form's log-likelihood error vs the f64 log-space forward is reported too.
Usage: hmm_torch.py [batch states steps runs]. Prints one JSON object."""
import json
import statistics
import sys

import torch

batch, states, steps, runs = (int(a) for a in (sys.argv[1:] + ["1024", "64", "1000", "5"][len(sys.argv) - 1:]))
gen = torch.Generator(device="cuda").manual_seed(1)
w = torch.rand(states, states, device="cuda", generator=gen, dtype=torch.float64) * 0.95 + 0.05
log_a = (w / w.sum(1, keepdim=True)).log()
w0 = torch.rand(states, device="cuda", generator=gen, dtype=torch.float64) * 0.95 + 0.05
log_pi = (w0 / w0.sum()).log()
log_b = (torch.rand(batch, steps, states, device="cuda", generator=gen, dtype=torch.float64) * (1 - 1e-3) + 1e-3).log()


def forward_log(log_pi, log_a, log_b):
    alpha = log_pi + log_b[:, 0]
    for t in range(1, log_b.shape[1]):
        alpha = torch.logsumexp(alpha[:, :, None] + log_a[None], dim=1) + log_b[:, t]
    return torch.logsumexp(alpha, dim=1)


def forward_scaled(pi, a, b):
    alpha = pi * b[:, 0]
    s = alpha.sum(1, keepdim=True)
    ll = s.log()
    alpha = alpha / s
    for t in range(1, b.shape[1]):
        alpha = (alpha @ a) * b[:, t]
        s = alpha.sum(1, keepdim=True)
        ll = ll + s.log()
        alpha = alpha / s
    return ll[:, 0]


def timed(fn, *args):
    fn(*args)
    torch.cuda.synchronize()
    samples, out = [], None
    for _ in range(runs):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        out = fn(*args)
        end.record()
        end.synchronize()
        samples.append(start.elapsed_time(end))
    return statistics.median(samples), out


with torch.no_grad():
    exact = forward_log(log_pi, log_a, log_b)
    cells = batch * steps * states * states
    result = {"peer": f"torch {torch.__version__}", "device": torch.cuda.get_device_name(),
              "batch": batch, "states": states, "steps": steps, "forms": {}}
    for name, fn, args in [
        ("logsumexp", forward_log, (log_pi.float(), log_a.float(), log_b.float())),
        ("scaled", forward_scaled, (log_pi.exp().float(), log_a.exp().float(), log_b.exp().float())),
    ]:
        ms, ll = timed(fn, *args)
        rel = ((ll.double() - exact) / exact).abs().max().item()
        result["forms"][name] = {"median_ms": ms, "g_cells_per_s": cells / (ms * 1e-3) / 1e9,
                                 "max_relative_error": rel}
print(json.dumps(result))
