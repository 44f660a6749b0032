"""torch peers of the prefix sums and the fused LNS reductions, run in the same device call:
cumsum (i32 with dtype=int32, f32) at 2^28 and 2^30, logsumexp, sum and dot over 2^28 f32, and
tensor copy of 2^30 bytes. CUDA events, 3 warm-ups, median of 30; one JSON line per case.

usage: python3 bench/peers/scan_torch.py > peers.jsonl
"""
import json, statistics, torch
def timed(f, runs=30):
    for _ in range(3): f()
    t = []
    for _ in range(runs):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); f(); e.record(); e.synchronize(); t.append(s.elapsed_time(e))
    return statistics.median(t)
def row(name, n, ms, bytes_per):
    print(json.dumps({"peer": f"torch {torch.__version__} {name}", "elements": n, "ms": ms,
                      "gelem": n / ms / 1e6, "gbps": bytes_per * n / ms / 1e6}), flush=True)
for lg in (28, 30):
    n = 1 << lg
    for dt, name in ((torch.int32, "cumsum_i32"), (torch.float32, "cumsum_f32")):
        x = torch.randint(-100, 100, (n,), device="cuda").to(dt)
        row(f"{name} 2^{lg}", n, timed(lambda: torch.cumsum(x, 0, dtype=dt)), 8)
        del x; torch.cuda.empty_cache()
n = 1 << 28
a = torch.randn(n, device="cuda"); b = torch.randn(n, device="cuda"); c = torch.empty_like(a)
row("logsumexp f32 2^28", n, timed(lambda: torch.logsumexp(a, 0)), 4)
row("sum f32 2^28", n, timed(lambda: torch.sum(a)), 4)
row("dot f32 2^28", n, timed(lambda: torch.dot(a, b)), 8)
row("copy_ f32 2^28 (read+write)", n, timed(lambda: c.copy_(a)), 8)
