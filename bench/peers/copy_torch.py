"""Peer for `sigpu bench copy`: PyTorch device-to-device copy, timed like sigpu (CUDA events,
warm-up, median of many runs, read + write bytes counted). Prints one JSON object."""
import json
import statistics
import sys

import torch

size_mib = int(sys.argv[1]) if len(sys.argv) > 1 else 1024
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 50
n = size_mib * (1 << 20) // 4
src = torch.ones(n, dtype=torch.float32, device="cuda")
dst = torch.empty_like(src)
for _ in range(5):
    dst.copy_(src)
samples = []
for _ in range(runs):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    dst.copy_(src)
    end.record()
    end.synchronize()
    samples.append(start.elapsed_time(end))
median_ms = statistics.median(samples)
print(json.dumps({
    "peer": f"torch {torch.__version__} Tensor.copy_",
    "device": torch.cuda.get_device_name(),
    "bytes": n * 4,
    "median_ms": median_ms,
    "gb_per_s": 2 * n * 4 / (median_ms * 1e-3) / 1e9,
}))
