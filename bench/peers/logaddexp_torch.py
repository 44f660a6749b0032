"""Peer for `sigpu bench lns`: torch.logaddexp on f32 tensors (streaming, memory-bound), timed
with CUDA events after warm-up, median of runs. Prints one JSON object."""
import json
import statistics
import sys

import torch

n = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 28
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 20
a = torch.randn(n, device="cuda")
b = torch.randn(n, device="cuda")
out = torch.empty_like(a)
for _ in range(3):
    torch.logaddexp(a, b, out=out)
samples = []
for _ in range(runs):
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    torch.logaddexp(a, b, out=out)
    e.record()
    e.synchronize()
    samples.append(s.elapsed_time(e))
ms = statistics.median(samples)
print(json.dumps({
    "peer": f"torch {torch.__version__} logaddexp f32",
    "elements": n,
    "median_ms": ms,
    "g_elems_per_s": n / (ms * 1e-3) / 1e9,
    "gb_per_s": 12 * n / (ms * 1e-3) / 1e9,
}))
