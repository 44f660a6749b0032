"""Where the CUDA and CPU gradients of sigpu.allpole differ (the test's data)."""
import numpy as np, torch, sigpu, sys
sys.path.insert(0, "python/tests")
from test_allpole import lpc
rng = np.random.default_rng(3)
B, T, p = 4, 3 * 256 + 77, 16
x = rng.standard_normal((B, T)).astype(np.float32)
A = lpc(rng, B, T, p, radius=(0.9, 0.999), frame=100).astype(np.float32)
zi = rng.standard_normal((B, p)).astype(np.float32)
g = rng.standard_normal((B, T)).astype(np.float32)
out = {}
for dev in ("cpu", "cuda"):
    ts = [torch.tensor(v, device=dev, requires_grad=True) for v in (x, A, zi)]
    y = sigpu.allpole(*ts)
    y.backward(torch.tensor(g, device=dev))
    out[dev] = [y.detach().cpu().numpy()] + [t.grad.cpu().numpy() for t in ts]
for name, c, d in zip(("y", "grad_x", "grad_A", "grad_zi"), out["cpu"], out["cuda"]):
    diff = np.abs(c - d)
    i = np.unravel_index(np.argmax(diff), diff.shape)
    print(name, "max|c|", float(np.abs(c).max()), "max diff", float(diff.max()), "rel", float(diff.max() / np.abs(c).max()), "at", i, "cpu", float(c[i]), "cuda", float(d[i]))
    if name == "grad_A":
        bad = np.argwhere(diff > 1e-5 * np.abs(c).max())
        print("  bad count", len(bad), "first", bad[:10].tolist(), "t range", bad[:, 1].min() if len(bad) else None, bad[:, 1].max() if len(bad) else None)
# without zi
ts = [torch.tensor(v, device="cuda", requires_grad=True) for v in (x, A)]
y = sigpu.allpole(*ts); y.backward(torch.tensor(g, device="cuda"))
tc = [torch.tensor(v, requires_grad=True) for v in (x, A)]
yc = sigpu.allpole(*tc); yc.backward(torch.tensor(g))
print("no zi grad_A rel", float((tc[1].grad - ts[1].grad.cpu()).abs().max() / tc[1].grad.abs().max()))
