"""Complex signals and complex coefficients against scipy.signal and an extended-precision
reference (mpmath): lfilter / sosfilt with real and complex coefficients, zi / zf, axis on
N-D arrays, filtfilt / sosfiltfilt, lfilter_zi / sosfilt_zi, scipy's result types, torch
tensors, and the refusals."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
import scipy.signal as ss

import sigpu

RNG = np.random.default_rng(2029)
B4, A4 = ss.butter(4, 0.1)
SOS4 = ss.butter(4, 0.1, output="sos")
# A complex one-pole band-pass at 0.3 rad/sample and a complex two-pole one (poles 0.95 and
# 0.9 at ±0.4 rad): complex coefficients.
P1 = 0.9 * np.exp(0.3j)
BC, AC = np.array([0.1, 0.05 + 0.02j]), np.array([1.0, -P1])
Q = np.array([0.95 * np.exp(0.4j), 0.9 * np.exp(-0.1j)])
BC2, AC2 = np.array([0.05, 0.02j, -0.01]), np.poly(Q)
SOSC = np.array([[0.1, 0.05 + 0.02j, 0.0, 1.0, -P1, 0.0],
                 [1.0, -0.3j, 0.2, 1.0, -(Q[0] + Q[1]), Q[0] * Q[1]]])


def cx(shape, dtype=np.complex128):
    return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(dtype)


def close(got, want, tol):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    scale = max(float(np.max(np.abs(want))) if want.size else 1.0, 1.0)
    assert np.max(np.abs(got - want), initial=0.0) <= tol * scale


# --- scipy comparisons --------------------------------------------------------------------

@pytest.mark.parametrize("b,a", [(B4, A4), (BC, AC), (BC2, AC2)],
                         ids=["real coefs", "complex one-pole", "complex two-pole"])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_lfilter_matches_scipy(b, a, dtype):
    x = cx(3000, dtype)
    want = ss.lfilter(b, a, x)
    got = sigpu.lfilter(b, a, x)
    close(got, want, 1e-12)  # float64 coefficients: complex128 results (scipy's rule)


@pytest.mark.parametrize("sos", [SOS4, SOSC], ids=["real sos", "complex sos"])
def test_sosfilt_matches_scipy_with_zi(sos):
    x = cx((2, 800))
    zi = cx((sos.shape[0], 2, 2))
    y, zf = sigpu.sosfilt(sos, x, zi=zi)
    wy, wzf = ss.sosfilt(sos, x, zi=zi)
    close(y, wy, 1e-12)
    close(zf, wzf, 1e-12)


def test_result_types_follow_scipy():
    x64 = cx(50, np.complex64)
    # complex64 x with float64 coefficients: complex128, as scipy.
    assert sigpu.lfilter(B4, A4, x64).dtype == ss.lfilter(B4, A4, x64).dtype == np.complex128
    # complex64 x with float32 coefficients, and complex64 coefficients: complex64.
    b32, a32 = B4.astype(np.float32), A4.astype(np.float32)
    y = sigpu.lfilter(b32, a32, x64)
    assert y.dtype == ss.lfilter(b32, a32, x64).dtype == np.complex64
    close(y, ss.lfilter(b32, a32, x64), 1e-4)  # both float32 runs of a narrow design
    bc, ac = BC.astype(np.complex64), AC.astype(np.complex64)
    y = sigpu.lfilter(bc, ac, x64)
    assert y.dtype == ss.lfilter(bc, ac, x64).dtype == np.complex64
    close(y, ss.lfilter(bc, ac, x64), 1e-5)
    # Real x with complex coefficients, and real x and coefficients with a complex zi.
    xr = RNG.standard_normal(40)
    close(sigpu.lfilter(BC, AC, xr), ss.lfilter(BC, AC, xr), 1e-13)
    zi = np.array([0.5 + 0.5j])
    for got, want in zip(sigpu.lfilter([0.2], [1.0, -0.8], xr, zi=zi),
                         ss.lfilter([0.2], [1.0, -0.8], xr, zi=zi)):
        close(got, want, 1e-13)
    # Integer x with complex coefficients: complex128.
    assert sigpu.lfilter(BC, AC, np.arange(10)).dtype == np.complex128
    assert sigpu.sosfilt(SOS4.astype(np.float32), cx(9, np.complex64)).dtype == np.complex64


def test_zi_and_streaming_and_axis_on_nd():
    x = cx((4, 300, 3))
    k = max(len(AC2), len(BC2)) - 1
    zi = cx((4, k, 3))
    y, zf = sigpu.lfilter(BC2, AC2, x, axis=1, zi=zi)
    wy, wzf = ss.lfilter(BC2, AC2, x, axis=1, zi=zi)
    close(y, wy, 1e-12)
    close(zf, wzf, 1e-12)
    # Streaming in two pieces equals one shot.
    y1, z1 = sigpu.lfilter(BC2, AC2, x[:, :100], axis=1, zi=zi)
    y2, z2 = sigpu.lfilter(BC2, AC2, x[:, 100:], axis=1, zi=z1)
    close(np.concatenate([y1, y2], axis=1), y, 1e-13)
    close(z2, zf, 1e-13)
    # Real coefficients, axis 0 of a non-contiguous view, a broadcast zi.
    xv = cx((200, 6))[::2, ::3]
    zb = np.ones((4, 1)) * (1 - 1j)
    for got, want in zip(sigpu.lfilter(B4, A4, xv, axis=0, zi=zb),
                         ss.lfilter(B4, A4, xv, axis=0, zi=zb)):
        close(got, want, 1e-12)
    close(sigpu.sosfilt(SOSC, x, axis=0), ss.sosfilt(SOSC, x, axis=0), 1e-12)
    # Big-endian and negative-stride inputs are read as their values.
    xb = cx(300).astype(">c16")[::-1]
    close(sigpu.lfilter(BC2, AC2, xb), ss.lfilter(BC2, AC2, xb).astype(np.complex128), 1e-12)
    close(sigpu.lfilter(B4, A4, xb.astype(">c8")),
          ss.lfilter(B4, A4, xb.astype(">c8")).astype(np.complex128), 1e-12)


@pytest.mark.parametrize("padtype", ["odd", "even", "constant", None])
@pytest.mark.parametrize("b,a", [(B4, A4), (BC2, AC2)], ids=["real coefs", "complex coefs"])
def test_filtfilt_matches_scipy(b, a, padtype):
    x = cx((2, 400))
    close(sigpu.filtfilt(b, a, x, padtype=padtype), ss.filtfilt(b, a, x, padtype=padtype),
          1e-11)


@pytest.mark.parametrize("sos", [SOS4, SOSC], ids=["real sos", "complex sos"])
def test_sosfiltfilt_matches_scipy(sos):
    x = cx((300, 2))
    close(sigpu.sosfiltfilt(sos, x, axis=0), ss.sosfiltfilt(sos, x, axis=0), 1e-11)
    close(sigpu.sosfiltfilt(sos, x, axis=0, padtype="even", padlen=20),
          ss.sosfiltfilt(sos, x, axis=0, padtype="even", padlen=20), 1e-11)


def test_zi_functions_match_scipy():
    close(sigpu.lfilter_zi(BC2, AC2), ss.lfilter_zi(BC2, AC2), 1e-13)
    close(sigpu.sosfilt_zi(SOSC), ss.sosfilt_zi(SOSC), 1e-13)


# --- accuracy against an extended-precision reference ---------------------------------------

def _exact(b, a, x):
    """y of (b, a) on x in 40-digit complex arithmetic (the coefficients as given)."""
    mpmath.mp.dps = 40
    b = [mpmath.mpc(complex(v)) for v in b]
    a = [mpmath.mpc(complex(v)) for v in a]
    b = [v / a[0] for v in b]
    a = [v / a[0] for v in a]
    y = []
    for n, xn in enumerate(x):
        acc = mpmath.mpc(0)
        for j, bj in enumerate(b):
            if n - j >= 0:
                acc += bj * mpmath.mpc(complex(x[n - j]))
        for j in range(1, len(a)):
            if n - j >= 0:
                acc -= a[j] * y[n - j]
        y.append(acc)
    return np.array([complex(v) for v in y])


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("b,a", [(B4, A4), (BC2, AC2)], ids=["real coefs", "complex coefs"])
def test_within_4x_scipys_error_at_the_same_dtype(b, a, dtype):
    """The accuracy contract, extended to complex: the error against the exact output of the
    coefficients as the dtype holds them is within 4x scipy's at the same dtype."""
    part = np.float32 if dtype == np.complex64 else np.float64
    if np.iscomplexobj(b) or np.iscomplexobj(a):
        b, a = np.asarray(b, dtype), np.asarray(a, dtype)
    else:
        b, a = np.asarray(b, part), np.asarray(a, part)
    x = cx(1500, dtype)
    exact = _exact(b, a, x)
    ours = sigpu.lfilter(b, a, x)
    theirs = ss.lfilter(b, a, x)
    assert ours.dtype == theirs.dtype == dtype
    scale = np.max(np.abs(x))
    e_ours = np.max(np.abs(ours - exact)) / scale
    e_scipy = np.max(np.abs(theirs - exact)) / scale
    tiny = 4 * np.finfo(part).eps
    assert e_ours <= 4 * e_scipy + tiny, (e_ours, e_scipy)


# --- torch ----------------------------------------------------------------------------------

def test_torch_tensors_keep_their_dtype():
    torch = pytest.importorskip("torch")
    x = cx((2, 500), np.complex64)
    t = torch.from_numpy(x)
    # Real coefficients: the real filter on (re, im) pairs, complex64 kept.
    y = sigpu.lfilter(B4, A4, t)
    assert isinstance(y, torch.Tensor) and y.dtype == torch.complex64
    close(y.numpy(), ss.lfilter(B4, A4, x).astype(np.complex64), 1e-5)
    y, zf = sigpu.sosfilt(SOS4, t, zi=np.zeros((2, 2, 2)))
    assert y.dtype == zf.dtype == torch.complex64 and zf.shape == (2, 2, 2)
    # A complex128 zi beside a complex64 tensor: x's dtype.
    zi = cx((2, 4))
    y, zf = sigpu.lfilter(B4, A4, t, zi=zi)
    assert y.dtype == zf.dtype == torch.complex64
    wy, wzf = ss.lfilter(B4, A4, x.astype(np.complex128), zi=zi)
    close(y.numpy().astype(np.complex128), wy, 1e-4)
    # Complex coefficients on a CPU tensor: through numpy, complex64 kept.
    y = sigpu.lfilter(BC, AC, t)
    assert y.dtype == torch.complex64
    close(y.numpy(), ss.lfilter(BC.astype(np.complex64), AC.astype(np.complex64), x), 1e-5)
    y = sigpu.filtfilt(BC2, AC2, t.to(torch.complex128))
    close(y.numpy(), ss.filtfilt(BC2, AC2, x.astype(np.complex128)), 1e-11)
    with pytest.raises(ValueError, match="gradients"):
        sigpu.lfilter(BC, AC, t.clone().requires_grad_())


def test_torch_gradients_through_real_coefficients_on_complex_signals():
    torch = pytest.importorskip("torch")
    x = torch.from_numpy(cx(40)).requires_grad_()
    y = sigpu.lfilter(B4, A4, x)
    (y.abs() ** 2).sum().backward()
    # d/dx* of Σ|y|² is Hᵀ·y (the filter's adjoint applied to y): reversed filtering.
    want = np.flip(ss.lfilter(B4, A4, np.flip(y.detach().numpy())))
    np.testing.assert_allclose(x.grad.numpy(), 2 * want, atol=1e-10)


# --- refusals -------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "call,exc,msg",
    [
        (lambda: sigpu.lfilter([1.0], [1.0, -1.2j], cx(8)), ValueError, "allow_unstable"),
        (lambda: sigpu.lfilter(BC, AC, np.ones(4, np.clongdouble)), TypeError, "complex128"),
        (lambda: sigpu.lfilter([[1j]], [1.0], cx(4)), TypeError, "once per filter"),
        (lambda: sigpu.lfilter([1j], [0.0, 1.0], cx(4)), ValueError, r"a\[0\]"),
        (lambda: sigpu.lfilter([np.nan * 1j], [1.0], cx(4)), ValueError, "finite"),
        (lambda: sigpu.lfilter(BC, AC, np.array([1, 2, np.nan * 1j])), ValueError,
         "complex index 2"),
        (lambda: sigpu.sosfilt(np.ones(5) * 1j, cx(4)), ValueError, "n_sections, 6"),
        (lambda: sigpu.sosfilt([[1j, 0, 0, 2, 0, 0]], cx(4)), ValueError, "a0 = 1"),
        (lambda: sigpu.lfilter(BC, AC, cx(8), zi=np.ones(3)), ValueError, "zi has shape"),
        (lambda: sigpu.lfilter_zi([1.0j], [1.0, -1.0]), ValueError, "z = 1"),
    ],
)
def test_bad_input_is_refused_clearly(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call()
    # allow_unstable runs it.
    y = sigpu.lfilter([1.0], [1.0, -1.2j], np.ones(3, complex), allow_unstable=True)
    np.testing.assert_allclose(y, ss.lfilter([1.0], [1.0, -1.2j], np.ones(3, complex)))


# --- the CLI ----------------------------------------------------------------------------------

def test_cli_complex_npy_and_int16_iq_match_scipy(cli, tmp_path):
    import subprocess

    x = cx((2, 700))
    np.save(tmp_path / "x.npy", x)
    zi = cx((2, 2))
    np.save(tmp_path / "zi.npy", zi)
    b, a = "0.05,0.02j,-0.01", ",".join(str(complex(v)).strip("()") for v in AC2)
    subprocess.run([cli, "--device", "cpu", "filter", "--b", b, "--a", a,
                    "--input", str(tmp_path / "x.npy"), "--output", str(tmp_path / "y.npy"),
                    "--zi", str(tmp_path / "zi.npy"), "--zf", str(tmp_path / "zf.npy")],
                   check=True, capture_output=True)
    wy, wzf = ss.lfilter(BC2, AC2, x, zi=zi)
    close(np.load(tmp_path / "y.npy"), wy, 1e-12)
    close(np.load(tmp_path / "zf.npy"), wzf, 1e-12)
    # int16 I/Q as an SDR writes it, filtered with real sections.
    iq = RNG.integers(-32768, 32767, size=2 * 4000, dtype=np.int16)
    iq.tofile(tmp_path / "x.cs16")
    sos = tmp_path / "sos.npy"
    np.save(sos, SOS4)
    subprocess.run([cli, "--device", "cpu", "filter", "--iq", "i16", "--sos", str(sos),
                    "--input", str(tmp_path / "x.cs16"), "--output", str(tmp_path / "y2.npy")],
                   check=True, capture_output=True)
    xc = (iq[0::2] + 1j * iq[1::2]) / 32768.0
    close(np.load(tmp_path / "y2.npy"), ss.sosfilt(SOS4, xc), 1e-12)
    # An odd number of int16 values is refused, naming the file and the reason.
    iq[:3].tofile(tmp_path / "odd.cs16")
    out = subprocess.run([cli, "--device", "cpu", "filter", "--iq", "i16", "--sos", str(sos),
                          "--input", str(tmp_path / "odd.cs16"), "--output",
                          str(tmp_path / "y3.npy")], capture_output=True, text=True)
    assert out.returncode == 2 or out.returncode == 1, out
    assert "odd number" in out.stderr and "odd.cs16" in out.stderr, out.stderr


# --- CUDA arrays (run where a GPU is usable; SIGPU_REQUIRE_GPU=1 makes a missing GPU fail) ----

@pytest.mark.parametrize("lib", ["torch", "cupy"])
def test_cuda_complex_arrays(gpu, lib):
    """Real coefficients filter complex CUDA arrays on the device (the real kernels on the (re,
    im) view), the array's dtype kept; complex coefficients too (the complex kernel)."""
    try:
        mod = __import__(lib)
    except ImportError:
        if __import__("os").environ.get("SIGPU_REQUIRE_GPU") == "1":
            pytest.fail(f"SIGPU_REQUIRE_GPU=1 but {lib} is not installed")
        pytest.skip(f"{lib} is not installed")
    x = cx((3, 4096), np.complex64)
    dev = mod.as_tensor(x, device="cuda") if lib == "torch" else mod.asarray(x)
    host = (lambda t: t.cpu().numpy()) if lib == "torch" else mod.asnumpy
    want = sigpu.sosfilt(SOS4.astype(np.float32), x)
    got = sigpu.sosfilt(SOS4, dev)
    h = host(got)
    assert h.dtype == np.complex64
    close(h, want, 1e-4)
    y, zf = sigpu.lfilter([0.2], [1.0, -0.8], dev, axis=0, zi=np.ones((1, 4096)) * 1j)
    wy, wzf = ss.lfilter([0.2], [1.0, -0.8], x.astype(np.complex128), axis=0,
                         zi=np.ones((1, 4096)) * 1j)
    close(host(y).astype(np.complex128), wy, 1e-5)
    close(host(zf).astype(np.complex128), wzf, 1e-5)
    got = sigpu.lfilter(BC, AC, dev)
    close(host(got).astype(np.complex128), ss.lfilter(BC, AC, x.astype(np.complex128)), 1e-6)


def _cuda_lib(lib):
    try:
        return __import__(lib)
    except ImportError:
        if __import__("os").environ.get("SIGPU_REQUIRE_GPU") == "1":
            pytest.fail(f"SIGPU_REQUIRE_GPU=1 but {lib} is not installed")
        pytest.skip(f"{lib} is not installed")


def _to_dev(mod, lib, v):
    return mod.as_tensor(v, device="cuda") if lib == "torch" else mod.asarray(v)


def _same_bits(a, b):
    """The same values bit for bit (views along either axis compared as C-ordered copies)."""
    np.testing.assert_array_equal(np.ascontiguousarray(a).view(np.uint8), np.ascontiguousarray(b).view(np.uint8))


def _to_host(mod, lib, v):
    return v.cpu().numpy() if lib == "torch" else mod.asnumpy(v)


@pytest.mark.parametrize("lib", ["torch", "cupy"])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_cuda_complex_coefficients_match_scipy_and_the_cpu_bit_for_bit(gpu, lib, dtype):
    """Complex coefficients on CUDA arrays run the complex kernel on the device: (b, a) and
    sections, zi / zf, along either axis; the result is the CPU engine's bit for bit (the CPU
    face with the same dtype: complex64 filtered in complex128, rounded once) and scipy's
    within the contract (complex128: 1e-12; complex64: its one rounding)."""
    mod = _cuda_lib(lib)
    x = cx((3, 2000), dtype)
    tol = 1e-12 if dtype == np.complex128 else 2e-7
    x128 = x.astype(np.complex128)
    dev = _to_dev(mod, lib, x)
    cpu = sigpu._complex.lfilter_numpy
    for axis in (-1, 0):
        k = 2
        zshape = (3, k) if axis == -1 else (k, 2000)
        zi = cx(zshape)
        y, zf = sigpu.lfilter(BC2, AC2, dev, axis=axis, zi=_to_dev(mod, lib, zi))
        hy, hzf = _to_host(mod, lib, y), _to_host(mod, lib, zf)
        assert hy.dtype == dtype and hzf.dtype == dtype
        wy, wzf = ss.lfilter(BC2, AC2, x128, axis=axis, zi=zi)
        close(hy.astype(np.complex128), wy, tol)
        close(hzf.astype(np.complex128), wzf, tol)
        cy, czf = cpu(BC2, AC2, x, axis if axis >= 0 else 1, zi.astype(dtype), None, False,
                      None, rt=np.dtype(dtype))
        _same_bits(hy, cy)
        _same_bits(hzf, czf)
    zs = cx((SOSC.shape[0], 3, 2))
    y, zf = sigpu.sosfilt(SOSC, dev, zi=zs)
    wy, wzf = ss.sosfilt(SOSC, x128, zi=zs)
    close(_to_host(mod, lib, y).astype(np.complex128), wy, tol)
    close(_to_host(mod, lib, zf).astype(np.complex128), wzf, tol)
    cy = sigpu._complex.sosfilt_numpy(SOSC, x, 1, None, None, False, None, rt=np.dtype(dtype))
    _same_bits(_to_host(mod, lib, sigpu.sosfilt(SOSC, dev)), cy)


@pytest.mark.parametrize("lib", ["torch", "cupy"])
def test_cuda_complex_coefficients_zero_phase(gpu, lib):
    """filtfilt / sosfiltfilt with complex coefficients on CUDA arrays: scipy's padding and
    initial conditions on the device, scipy's result (complex128) and the array kept there."""
    mod = _cuda_lib(lib)
    x = cx((2, 1500))
    dev = _to_dev(mod, lib, x)
    for padtype, padlen in [("odd", None), ("even", 20), ("constant", 7), (None, None)]:
        got = sigpu.filtfilt(BC2, AC2, dev, padtype=padtype, padlen=padlen)
        want = ss.filtfilt(BC2, AC2, x, padtype=padtype, padlen=padlen)
        close(_to_host(mod, lib, got), want, 1e-10)
    got = sigpu.sosfiltfilt(SOSC, dev, axis=-1)
    close(_to_host(mod, lib, got), ss.sosfiltfilt(SOSC, x), 1e-10)
    got = sigpu.filtfilt(BC, AC, _to_dev(mod, lib, np.ascontiguousarray(x.T)), axis=0)
    close(_to_host(mod, lib, got), ss.filtfilt(BC, AC, x.T, axis=0), 1e-10)
    with pytest.raises(ValueError, match="padlen"):
        sigpu.filtfilt(BC2, AC2, dev[:, :5])


def test_cuda_complex_coefficients_torch_views_and_refusals(gpu):
    """A conjugated view and a float32 tensor (filtered as complex64) give scipy's result;
    gradients are refused with the reason."""
    torch = _cuda_lib("torch")
    x = cx(4000)
    t = torch.as_tensor(x, device="cuda")
    got = sigpu.lfilter(BC, AC, t.conj()).cpu().numpy()
    close(got, ss.lfilter(BC, AC, x.conj()), 1e-12)
    r = RNG.standard_normal(4000).astype(np.float32)
    got = sigpu.sosfilt(SOSC, torch.as_tensor(r, device="cuda")).cpu().numpy()
    assert got.dtype == np.complex64
    close(got.astype(np.complex128), ss.sosfilt(SOSC, r.astype(np.float64)), 2e-7)
    g = torch.as_tensor(x, device="cuda").requires_grad_(True)
    with pytest.raises(ValueError, match="gradients"):
        sigpu.lfilter(BC, AC, g)


@pytest.mark.parametrize("shape,axis", [((0,), -1), ((0, 3), 0), ((0, 3), -1), ((2, 0), -1)])
def test_empty_complex_input_has_scipys_shape(shape, axis):
    x = np.zeros(shape, complex)
    for b, a in [(BC, AC), (B4, A4)]:
        y = sigpu.lfilter(b, a, x, axis=axis)
        assert y.shape == ss.lfilter(b, a, x, axis=axis).shape and y.dtype == np.complex128
    assert sigpu.sosfilt(SOSC, x, axis=axis).shape == shape
    # zf = zi when there is nothing to filter.
    if shape == (2, 0):
        zi = np.ones((2, 2)) * 1j
        np.testing.assert_array_equal(sigpu.lfilter(BC2, AC2, x, zi=zi)[1], zi)


@pytest.mark.parametrize("lib", ["torch", "cupy"])
def test_cuda_complex64_long_channel_keeps_the_contract(gpu, lib):
    """A long complex64 channel runs the chunked scan on the device: within 4× scipy's own
    complex64 error (complex64 coefficients) against the complex128 result, zf too."""
    mod = _cuda_lib(lib)
    x = cx((2, 1 << 18), np.complex64)
    zi = cx((2, 2), np.complex64)
    y, zf = sigpu.lfilter(BC2, AC2, _to_dev(mod, lib, x), zi=_to_dev(mod, lib, zi))
    y, zf = _to_host(mod, lib, y), _to_host(mod, lib, zf)
    assert y.dtype == np.complex64
    ref, rzf = ss.lfilter(BC2, AC2, x.astype(np.complex128), zi=zi.astype(np.complex128))
    own, _ = ss.lfilter(BC2.astype(np.complex64), AC2.astype(np.complex64), x, zi=zi)
    scale = np.max(np.abs(ref))
    ours = np.max(np.abs(y - ref)) / scale
    theirs = np.max(np.abs(own - ref)) / scale
    assert ours <= 4 * theirs + 2e-7, (ours, theirs)
    assert np.max(np.abs(zf - rzf)) <= 1e-5 * max(1.0, np.max(np.abs(rzf)))
    got = _to_host(mod, lib, sigpu.sosfilt(SOSC, _to_dev(mod, lib, x)))
    ref = ss.sosfilt(SOSC, x.astype(np.complex128))
    own = ss.sosfilt(SOSC.astype(np.complex64), x)
    scale = np.max(np.abs(ref))
    assert np.max(np.abs(got - ref)) / scale <= 4 * np.max(np.abs(own - ref)) / scale + 2e-7
