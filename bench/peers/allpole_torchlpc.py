"""Forward + backward of a time-varying all-pole filter, sigpu.allpole against torchlpc's
sample_wise_lpc, on the same CUDA tensors: CUDA events, warm-up, median. Prints JSON.

Usage: python3 bench/peers/allpole_torchlpc.py [B] [T] [ORDER] [RUNS]
       (defaults 64 65536 16 20; float32; torchlpc skipped when it is not installed)
"""

import json
import statistics
import sys

import numpy as np
import torch

import sigpu


def coefficients(B, T, p, frame=256, seed=0):
    """Stable polynomials (poles at radius 0.5–0.95) held for a frame, as LPC synthesis does.
    (At 0.99 the sixteenth-order gain takes unit noise to ~1e15 and f32 peers to inf.)"""
    rng = np.random.default_rng(seed)
    frames = -(-T // frame)
    A = np.zeros((B, frames, p))
    for b in range(B):
        for f in range(frames):
            poly = np.array([1.0])
            for _ in range(p // 2):
                r, th = rng.uniform(0.5, 0.95), rng.uniform(0, np.pi)
                poly = np.convolve(poly, [1.0, -2 * r * np.cos(th), r * r])
            if p % 2:
                poly = np.convolve(poly, [1.0, -rng.uniform(0.5, 0.95)])
            A[b, f] = poly[1:]
    return np.repeat(A, frame, axis=1)[:, :T]


def time_ms(fn, runs):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def main():
    args = [int(a) for a in sys.argv[1:]]
    B, T, p, runs = (args + [64, 65536, 16, 20][len(args):])[:4]
    dev = "cuda"
    x = torch.randn(B, T, device=dev, requires_grad=True)
    A = torch.tensor(coefficients(B, T, p), dtype=torch.float32, device=dev, requires_grad=True)
    g = torch.randn(B, T, device=dev)

    def step(f):
        def run():
            x.grad = A.grad = None
            f(x, A).backward(g)
        return run

    out = {"B": B, "T": T, "order": p, "dtype": "float32", "runs": runs,
           "device": torch.cuda.get_device_name()}
    out["sigpu_ms"] = time_ms(step(sigpu.allpole), runs)
    ys = sigpu.allpole(x, A).detach()
    try:
        from torchlpc import sample_wise_lpc
    except ImportError:
        out["torchlpc_ms"] = None
        out["note"] = "torchlpc not installed"
    else:
        out["torchlpc_ms"] = time_ms(step(sample_wise_lpc), max(3, runs // 4))
        yt = sample_wise_lpc(x, A).detach()
        out["max_abs_diff_y"] = float((ys - yt).abs().max())
        out["max_rel_diff_y"] = out["max_abs_diff_y"] / float(ys.abs().max())
        out["finite"] = {"sigpu": bool(ys.isfinite().all()), "torchlpc": bool(yt.isfinite().all())}
        out["speedup"] = out["torchlpc_ms"] / out["sigpu_ms"]
    samples = B * T
    out["sigpu_gsamples_per_s"] = samples / out["sigpu_ms"] / 1e6
    print(json.dumps(out))


if __name__ == "__main__":
    main()
