"""Peers for `sigpu bench lns --reduce-only`: torch.sum, torch.dot and torch.logsumexp over f32
tensors of n elements (reductions, memory-bound), timed with CUDA events after warm-up, median
of runs. Prints one JSON object per op."""
import json
import statistics
import sys

import torch

n = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 28
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 20
a = torch.randn(n, device="cuda")
b = torch.randn(n, device="cuda")
ops = {
    "sum": (lambda: torch.sum(a), 4),
    "dot": (lambda: torch.dot(a, b), 8),
    "logsumexp": (lambda: torch.logsumexp(a, 0), 4),
}
for name, (op, bytes_per_elem) in ops.items():
    for _ in range(3):
        op()
    samples = []
    for _ in range(runs):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        op()
        e.record()
        e.synchronize()
        samples.append(s.elapsed_time(e))
    ms = statistics.median(samples)
    print(json.dumps({
        "peer": f"torch {torch.__version__} {name} f32",
        "elements": n,
        "median_ms": ms,
        "g_elems_per_s": n / (ms * 1e-3) / 1e9,
        "gb_per_s": bytes_per_elem * n / (ms * 1e-3) / 1e9,
    }))
