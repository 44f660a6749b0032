"""sigpu.allpole: time-varying all-pole filters against a float64 serial loop, gradients by
torch.autograd.gradcheck (float64, CPU tensors), the torchlpc layout, and refusals naming the
argument. CUDA cases skip without a device."""

import numpy as np
import pytest

import sigpu


def serial(x, A, zi=None):
    """The textbook loop in float64 (torchlpc's definition and order of terms)."""
    x = np.asarray(x, dtype=np.float64)
    A = np.asarray(A, dtype=np.float64)
    B, T, p = A.shape
    y = np.zeros((B, T))
    for b in range(B):
        hist = np.zeros(p) if zi is None else np.asarray(zi, dtype=np.float64)[b].copy()
        for t in range(T):
            v = float(x[b, t])
            for k in range(p):
                v -= float(A[b, t, k]) * float(hist[k])
            hist = np.concatenate([[v], hist[:-1]])
            y[b, t] = v
    return y


def lpc(rng, B, T, p, radius=(0.5, 0.95), frame=16):
    """Stable polynomials held for a frame: A (B, T, p)."""
    A = np.zeros((B, T, p))
    for b in range(B):
        for start in range(0, T, frame):
            poly = np.array([1.0])
            left = p
            while left > 0:
                r = rng.uniform(*radius)
                if left == 1:
                    poly = np.convolve(poly, [1.0, -r])
                    left -= 1
                else:
                    th = rng.uniform(0, np.pi)
                    poly = np.convolve(poly, [1.0, -2 * r * np.cos(th), r * r])
                    left -= 2
            A[b, start:start + frame] = poly[1:]
    return A


def test_numpy_matches_the_serial_loop():
    rng = np.random.default_rng(0)
    B, T, p = 3, 200, 16
    x = rng.standard_normal((B, T))
    A = lpc(rng, B, T, p, frame=50)
    zi = rng.standard_normal((B, p))
    want = serial(x, A, zi)
    got = sigpu.allpole(x, A, zi)
    assert got.dtype == np.float64 and got.shape == (B, T)
    np.testing.assert_array_equal(got, want)  # float64: the serial loop's own bits
    got32 = sigpu.allpole(x.astype(np.float32), A.astype(np.float32), zi.astype(np.float32))
    assert got32.dtype == np.float32
    want32 = serial(x.astype(np.float32), A.astype(np.float32), zi.astype(np.float32))
    assert np.abs(got32 - want32).max() <= 4e-7 * np.abs(want32).max()
    assert sigpu.sample_wise_lpc(x, A) .shape == (B, T)


def test_bad_input_names_the_argument():
    x = np.zeros((2, 5))
    A = np.zeros((2, 5, 3))
    with pytest.raises(ValueError, match="A has shape"):
        sigpu.allpole(x, np.zeros((2, 4, 3)))
    with pytest.raises(ValueError, match=r"x must have shape \(B, T\)"):
        sigpu.allpole(np.zeros(5), A)
    with pytest.raises(ValueError, match="zi has shape"):
        sigpu.allpole(x, A, np.zeros((2, 2)))
    with pytest.raises(ValueError, match="order 0"):
        sigpu.allpole(x, np.zeros((2, 5, 0)))
    bad = x.copy()
    bad[1, 2] = np.nan
    with pytest.raises(ValueError, match=r"x\[7\]"):
        sigpu.allpole(bad, A)


def test_gradcheck_float64_cpu():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    B, T, p = 2, 24, 3
    x = torch.tensor(rng.standard_normal((B, T)), requires_grad=True)
    A = torch.tensor(lpc(rng, B, T, p, frame=5), requires_grad=True)
    zi = torch.tensor(rng.standard_normal((B, p)), requires_grad=True)
    assert torch.autograd.gradcheck(sigpu.allpole, (x, A, zi))
    assert torch.autograd.gradcheck(lambda x, A: sigpu.allpole(x, A), (x, A))


def test_torch_matches_numpy_and_keeps_dtype():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 50)).astype(np.float32)
    A = lpc(rng, 2, 50, 4).astype(np.float32)
    y = sigpu.allpole(torch.from_numpy(x), torch.from_numpy(A))
    assert isinstance(y, torch.Tensor) and y.dtype == torch.float32
    np.testing.assert_array_equal(y.numpy(), sigpu.allpole(x, A))


@pytest.mark.skipif(not sigpu.cuda_available(), reason="no CUDA device")
def test_cuda_forward_and_backward_match_the_cpu():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    B, T, p = 4, 3 * 256 + 77, 16
    x = rng.standard_normal((B, T)).astype(np.float32)
    # Poles to 0.95 held for 256 steps: the outputs stay near 1e5. Switching between poles at
    # 0.999 every 100 steps took them to 1e16, where the GPU's chunked sums and the CPU's serial
    # ones (both f64, rounded once) differ by 1e-5 of the largest gradient: conditioning, not
    # an error of either path.
    A = lpc(rng, B, T, p, radius=(0.5, 0.95), frame=256).astype(np.float32)
    zi = rng.standard_normal((B, p)).astype(np.float32)
    g = rng.standard_normal((B, T)).astype(np.float32)
    out = {}
    for dev in ("cpu", "cuda"):
        ts = [torch.tensor(v, device=dev, requires_grad=True) for v in (x, A, zi)]
        y = sigpu.allpole(*ts)
        y.backward(torch.tensor(g, device=dev))
        out[dev] = [y.detach().cpu().numpy()] + [t.grad.cpu().numpy() for t in ts]
    for name, c, d in zip(("y", "grad_x", "grad_A", "grad_zi"), out["cpu"], out["cuda"]):
        assert np.abs(c - d).max() <= 1e-5 * np.abs(c).max(), name
