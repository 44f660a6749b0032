"""sigpu.lns.Tensor on numpy words against mpmath: every operation within the bound its
docstring states, on random and edge inputs (specials, cancellations, empty axes, range ends).
The GPU twins are checked bit for bit against these CPU paths by ``sigpu check`` (lns/axis_*,
lns/add_*_f32split) and bench/peers/lns_tensor_gpu.py."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from sigpu import lns

mp.mp.dps = 80
RNG = np.random.default_rng(11)
FORMATS = {"lns16": (16, 10), "lns32": (32, 23), "i6f13": (20, 13)}


def decode(words: np.ndarray, fmt: str):
    """(kind, sign, code) per word: kind 0 zero, 1 NaN, 2 inf, 3 finite."""
    bits, _f = FORMATS[fmt]
    lb = bits - 1
    w = np.asarray(words).astype(np.int64) & ((1 << bits) - 1)
    sign = (w >> lb) & 1
    field = w & ((1 << lb) - 1)
    code = field - ((field >> (lb - 1)) & 1) * (1 << lb)
    special = code == -(1 << (lb - 1))
    inf = code == (1 << (lb - 1)) - 1
    kind = np.where(special, np.where(sign == 1, 1, 0), np.where(inf, 2, 3))
    return kind, sign, code


def exact_value(kind: int, sign: int, code: int, f: int):
    if kind == 0:
        return mp.mpf(0)
    if kind == 2:
        return mp.inf * (-1 if sign else 1)
    v = mp.power(2, mp.mpf(int(code)) / 2**f)
    return -v if sign else v


def exact_code(x, f: int):
    """log2|x|·2^F of an mpmath value (a real number)."""
    return mp.log(abs(x), 2) * 2**f


def words_of(t: lns.Tensor) -> np.ndarray:
    return t._host_u32()


def random_floats(n: int, spread: float = 12.0) -> np.ndarray:
    x = np.exp2(RNG.uniform(-spread, spread, n))
    return x * RNG.choice([-1.0, 1.0], n)


def log_err_codes(word: int, exact, fmt: str) -> float:
    _bits, f = FORMATS[fmt]
    kind, sign, code = (int(v[0]) for v in decode(np.array([word]), fmt))
    assert kind == 3, f"word {word:#x} is not finite"
    assert (sign == 1) == (exact < 0), "sign"
    return float(abs(code - exact_code(exact, f)))


# ---- conversions


@pytest.mark.parametrize("fmt", ["lns16", "lns32"])
def test_from_float_rounds_every_float32_significand_correctly(fmt):
    _bits, f = FORMATS[fmt]
    m = (np.arange(1 << 23, dtype=np.int64) | (127 << 23)).astype(np.int32).view(np.float32)
    t = lns.Tensor.from_float(m, fmt, storage="int32")
    _k, _s, code = decode(words_of(t), fmt)
    ref = np.log2(m.astype(np.float64)) * 2.0**f
    frac = ref - np.floor(ref)
    near = np.abs(frac - 0.5) < 1e-6
    assert (code[~near] == np.round(ref[~near])).all()
    for i in np.flatnonzero(near)[:200]:
        want = mp.nint(exact_code(mp.mpf(float(m[i])), f))
        assert code[i] == int(want), (float(m[i]), code[i], want)
    # The exponent adds exactly: 2^e·m has e·2^F more.
    for e in (-20, -1, 5, 60):
        scaled = lns.Tensor.from_float((m[::4097].astype(np.float64) * 2.0**e).astype(np.float32), fmt, "int32")
        _k2, _s2, c2 = decode(words_of(scaled), fmt)
        lb = FORMATS[fmt][0] - 1
        fine = (c2 > -(1 << (lb - 1))) & (c2 < (1 << (lb - 1)) - 1)
        assert (c2[fine] == code[::4097][fine] + (e << f)).all()


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_from_float64_and_back_within_their_bounds(fmt):
    bits, f = FORMATS[fmt]
    x = np.concatenate([random_floats(300, 10.0), [1.0, -2.0, 0.75, 3.0, 2.0**-5, 1e-310, 5e-324]])
    t = lns.Tensor.from_float(x, fmt)
    assert t.words.dtype == (np.int16 if bits <= 16 else np.int32)
    kind, sign, code = decode(words_of(t), fmt)
    lb = bits - 1
    for xi, k, s, c in zip(x, kind, sign, code):
        e = exact_code(mp.mpf(float(xi)), f)
        if e > (1 << (lb - 1)) - 1.5:
            assert k == 2 and s == (xi < 0)
        elif e < -(1 << (lb - 1)) + 0.5:
            assert k == 0
        else:
            assert k == 3 and s == (xi < 0)
            assert abs(c - e) <= 0.5 + 2.0 ** (f - 50), (xi, c, e)
    back = t.to_float()
    for k, s, c, v in zip(kind, sign, code, back):
        want = exact_value(int(k), int(s), int(c), f)
        if k == 3:
            assert abs(mp.mpf(float(v)) - want) <= 2 * 2.0**-52 * abs(want)
    specials = lns.Tensor.from_float(np.array([0.0, -0.0, np.inf, -np.inf, np.nan]), fmt)
    sv = specials.to_float()
    assert sv[0] == 0 and sv[1] == 0 and sv[2] == np.inf and sv[3] == -np.inf and np.isnan(sv[4])
    f32 = t.to_float("float32")
    assert f32.dtype == np.float32
    np.testing.assert_array_equal(f32, back.astype(np.float32))


def test_bad_inputs_are_refused_with_the_way_out():
    with pytest.raises(ValueError, match="int32"):
        lns.Tensor.from_float([1.0], "lns32", storage="int16")
    with pytest.raises(TypeError, match="complex"):
        lns.Tensor.from_float(np.array([1j]), "lns32")
    with pytest.raises(ValueError, match="invalid LNS format"):
        lns.Tensor.from_float([1.0], "lns8")
    a, b = lns.Tensor.from_float([1.0, 2.0], "lns32"), lns.Tensor.from_float([1.0, 2.0], "lns16")
    with pytest.raises(ValueError, match="formats differ"):
        a + b
    with pytest.raises(ValueError, match="out of bounds"):
        a.sum(axis=3)
    with pytest.raises(ValueError, match="inner dimensions"):
        lns.Tensor.from_float(np.ones((2, 3))) @ lns.Tensor.from_float(np.ones((2, 3)))
    with pytest.raises(TypeError, match="int32 or int16"):
        lns.Tensor(np.zeros(3, dtype=np.int64))


# ---- element-wise


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_elementwise_ops_keep_their_bounds(fmt):
    bits, f = FORMATS[fmt]
    n = 600
    xa, xb = random_floats(n, 6.0), random_floats(n, 6.0)
    xb[:50] = -xa[:50]  # exact cancellation
    xb[50:60] = 0.0
    a, b = lns.Tensor.from_float(xa, fmt), lns.Tensor.from_float(xb, fmt)
    ka, sa, ca = decode(words_of(a), fmt)
    kb, sb, cb = decode(words_of(b), fmt)
    va = [exact_value(int(k), int(s), int(c), f) for k, s, c in zip(ka, sa, ca)]
    vb = [exact_value(int(k), int(s), int(c), f) for k, s, c in zip(kb, sb, cb)]
    certified = 0.5405 if f == 23 else 0.51  # f32split: lns32 d_b, lns16 0.5038
    method, same = lns._native.lns_tensor_method(fmt)
    for op, fn in (("add", lambda p, q: p + q), ("sub", lambda p, q: p - q)):
        got = words_of(a + b if op == "add" else a - b)
        for i in range(n):
            want = fn(va[i], vb[i])
            if want == 0:
                assert decode(got[i : i + 1], fmt)[0][0] == 0, "x + (−x) is exactly zero"
                continue
            err = log_err_codes(int(got[i]), want, fmt)
            assert err < (certified if method == "f32split" else 1.0), (op, i, err)
    assert method == ("f32split" if 5 <= f <= 23 else method) and same == (5 <= f <= 23)
    _k, sm, cm = decode(words_of(a * b), fmt)
    _k, sd, cd = decode(words_of(a / b), fmt)
    fin = (ka == 3) & (kb == 3)
    lb = bits - 1
    inr = fin & (np.abs(ca + cb) < (1 << (lb - 1)) - 2) & (np.abs(ca - cb) < (1 << (lb - 1)) - 2)
    assert (cm[inr] == (ca + cb)[inr]).all() and (sm[inr] == (sa ^ sb)[inr]).all()
    assert (cd[inr] == (ca - cb)[inr]).all()
    neg = words_of(-a)
    assert (decode(neg, fmt)[1][ka == 3] == 1 - sa[ka == 3]).all()
    assert (decode(words_of(abs(a)), fmt)[1] == 0).all()
    fa, fb = a.numpy(), b.numpy()
    for op in ("__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__"):
        np.testing.assert_array_equal(getattr(a, op)(b), getattr(fa, op)(fb), err_msg=op)


def test_specials_and_comparisons_follow_ieee():
    t = lns.Tensor.from_float(np.array([np.nan, np.inf, -np.inf, 0.0, 1.0, -1.0]), "lns32")
    one = lns.Tensor.from_float(1.0, "lns32")
    np.testing.assert_array_equal(t < one, [False, False, True, True, False, True])
    np.testing.assert_array_equal(t != t, [True, False, False, False, False, False])
    np.testing.assert_array_equal(t.isnan(), [True, False, False, False, False, False])
    s = (t + t).numpy()
    assert np.isnan(s[0]) and s[1] == np.inf and s[2] == -np.inf and s[3] == 0 and s[4] == 2
    assert np.isnan((t[1:2] - t[1:2]).numpy()[0])
    assert np.isnan((t[3:4] * t[1:2]).numpy()[0])


def test_broadcasting_and_int16_storage_agree_with_int32():
    x = random_floats(24).reshape(2, 3, 4)
    y = random_floats(4)
    a16, b16 = lns.Tensor.from_float(x, "lns16"), lns.Tensor.from_float(y, "lns16")
    a32, b32 = (lns.Tensor.from_float(v, "lns16", storage="int32") for v in (x, y))
    for op in ("__add__", "__sub__", "__mul__", "__truediv__"):
        r16, r32 = getattr(a16, op)(b16), getattr(a32, op)(b32)
        assert r16.shape == (2, 3, 4) and r16.words.dtype == np.int16
        np.testing.assert_array_equal(words_of(r16), words_of(r32), err_msg=op)
    np.testing.assert_array_equal(words_of(a16 * 2.0), words_of(a32 * 2.0))
    np.testing.assert_array_equal(words_of(2.0 - a16), words_of(2.0 - a32))


def test_exp2_and_log2_are_exact_shifts():
    y = np.array([-3.0, 0.0, 0.5, 1.0 + 2.0**-10, 7.25, -np.inf, np.inf, np.nan])
    t = lns.Tensor.exp2(y, "lns16")
    np.testing.assert_array_equal(t.log2()[:5], y[:5])
    v = t.numpy()
    assert v[5] == 0 and v[6] == np.inf and np.isnan(v[7])
    np.testing.assert_array_equal(v[:5], np.exp2(y[:5]))
    odd = lns.Tensor.exp2(np.array([2.0**-12]), "lns16").log2()
    assert odd[0] == 0.0  # 2^-12 rounds to the nearest code, 0
    lg = lns.Tensor.from_float(np.array([0.0, -2.0, 8.0]), "lns32").log2()
    assert lg[0] == -np.inf and np.isnan(lg[1]) and lg[2] == 3.0


# ---- reductions


def kappa_bound(values, f: int) -> float:
    """0.5 + δ in codes for a sum of exact mp values (δ of the module's notes)."""
    total = mp.fsum(values)
    if total == 0:
        return math.inf
    kappa = float(mp.fsum(abs(v) for v in values) / abs(total))
    return 0.5 + 2.0 ** (f - 50) * (kappa + 1) / math.log(2) + 1e-12


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_reductions_along_every_axis(fmt):
    _bits, f = FORMATS[fmt]
    x = random_floats(6 * 7 * 5, 8.0).reshape(6, 7, 5)
    t = lns.Tensor.from_float(x, fmt)
    k, s, c = decode(words_of(t), fmt)
    vals = np.empty(x.shape, dtype=object)
    for idx in np.ndindex(x.shape):
        vals[idx] = exact_value(int(k[idx]), int(s[idx]), int(c[idx]), f)
    for axis in (0, 1, 2, -1, (0, 2), None):
        for keepdims in (False, True):
            got = t.sum(axis=axis, keepdims=keepdims)
            want_shape = np.sum(x, axis=axis, keepdims=keepdims).shape
            assert got.shape == want_shape, (axis, keepdims)
        got = words_of(t.sum(axis=axis)).reshape(-1)
        moved = np.moveaxis(vals, axis if axis is not None else tuple(range(3)), -1 if isinstance(axis, int) else tuple(range(-(3 if axis is None else len(axis)), 0)))
        rows = moved.reshape(got.size, -1)
        for g, row in zip(got, rows):
            total = mp.fsum(row)
            assert log_err_codes(int(g), total, fmt) <= kappa_bound(list(row), f)
        p = words_of(t.prod(axis=axis)).reshape(-1)
        kp, sp, cp = decode(p, fmt)
        kk = np.moveaxis(c, axis if axis is not None else (0, 1, 2), -1 if isinstance(axis, int) else tuple(range(-(3 if axis is None else len(axis)), 0))).reshape(got.size, -1)
        lb = FORMATS[fmt][0] - 1
        fine = np.abs(kk.sum(axis=1)) < (1 << (lb - 1)) - 2
        assert (cp[fine] == kk.sum(axis=1)[fine]).all()
        np.testing.assert_array_equal(t.max(axis=axis).numpy(), np.max(t.numpy(), axis=axis))
        np.testing.assert_array_equal(t.min(axis=axis).numpy(), np.min(t.numpy(), axis=axis))


def test_sums_cancel_exactly_wherever_the_terms_sit_and_empty_axes():
    x = random_floats(501, 20.0)
    both = np.concatenate([x, -x])
    RNG.shuffle(both)
    t = lns.Tensor.from_float(both, "lns32")
    assert t.sum().numpy() == 0.0
    e = lns.Tensor.from_float(np.zeros((3, 0)), "lns16")
    np.testing.assert_array_equal(e.sum(axis=1).numpy(), [0, 0, 0])
    np.testing.assert_array_equal(e.prod(axis=1).numpy(), [1, 1, 1])
    assert np.isnan(e.max(axis=1).numpy()).all()
    assert e.sum(axis=0).shape == (0,)


@pytest.mark.parametrize("fmt", ["lns16", "lns32"])
def test_matmul_and_dot_round_once(fmt):
    _bits, f = FORMATS[fmt]
    a = lns.Tensor.from_float(random_floats(2 * 1 * 3 * 17, 5.0).reshape(2, 1, 3, 17), fmt)
    b = lns.Tensor.from_float(random_floats(4 * 17 * 5, 5.0).reshape(4, 17, 5), fmt)
    c = a @ b
    assert c.shape == (2, 4, 3, 5)
    av, bv = a.numpy().astype(object), b.numpy().astype(object)
    cw = words_of(c)
    for p in range(2):
        for q in range(4):
            for i in range(3):
                for j in range(5):
                    terms = [mp.mpf(av[p, 0, i, t]) * mp.mpf(bv[q, t, j]) for t in range(17)]
                    assert log_err_codes(int(cw[p, q, i, j]), mp.fsum(terms), fmt) <= kappa_bound(terms, f)
    v = lns.Tensor.from_float(random_floats(17, 5.0), fmt)
    assert (a[0, 0] @ v).shape == (3,)
    assert (v @ b[0]).shape == (5,)
    d = v.dot(v)
    assert d.shape == ()
    terms = [mp.mpf(float(z)) ** 2 for z in v.numpy()]
    assert log_err_codes(int(words_of(d)), mp.fsum(terms), fmt) <= kappa_bound(terms, f)


# ---- log domain


@pytest.mark.parametrize("fmt", ["lns16", "lns32"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_logsumexp_and_log_softmax_against_mpmath(fmt, dtype):
    _bits, f = FORMATS[fmt]
    x = RNG.normal(0, 8, (5, 40)).astype(dtype)
    x[1, :10] = -np.inf
    x[2, 3] = 700.0 if dtype == np.float64 else 80.0
    got = lns.logsumexp(x, axis=1)
    assert got.dtype == dtype and got.shape == (5,)
    bound = math.log(2) * 2.0**-f * (1 + 1e-6)
    for r in range(5):
        want = mp.log(mp.fsum(mp.exp(mp.mpf(float(v))) for v in x[r]))
        slack = 0 if dtype == np.float64 else abs(float(want)) * 2.0**-24
        assert abs(float(got[r]) - want) <= bound + slack + 1e-13, (r, got[r], want)
    ls = lns.log_softmax(x, axis=1)
    assert ls.shape == x.shape
    for r in range(5):
        lse = mp.log(mp.fsum(mp.exp(mp.mpf(float(v))) for v in x[r]))
        for cidx in range(40):
            if x[r, cidx] == -np.inf:
                assert ls[r, cidx] == -np.inf
                continue
            want = mp.mpf(float(x[r, cidx])) - lse
            slack = 0 if dtype == np.float64 else abs(float(want)) * 2.0**-24
            assert abs(float(ls[r, cidx]) - want) <= bound + slack + 1e-13
    kd = lns.logsumexp(x, axis=0, keepdims=True)
    assert kd.shape == (1, 40)
    special = lns.logsumexp(np.array([[-np.inf, -np.inf], [0.0, np.nan], [np.inf, 0.0]]))
    assert special[0] == -np.inf and np.isnan(special[1]) and special[2] == np.inf



def test_log_rows_and_sums_along_the_last_axis_by_any_name_agree_with_a_moved_axis():
    # The last axis is taken without a moved view; every name of it (−1, nd − 1) and every
    # output shape must match the same rows reached through another axis.
    x = RNG.normal(0, 4, (3, 4, 6))
    xt = np.ascontiguousarray(np.moveaxis(x, -1, 0))
    for axis in (-1, 2):
        np.testing.assert_array_equal(lns.logsumexp(x, axis=axis), lns.logsumexp(xt, axis=0))
        kd = lns.logsumexp(x, axis=axis, keepdims=True)
        assert kd.shape == (3, 4, 1)
        np.testing.assert_array_equal(kd[..., 0], lns.logsumexp(xt, axis=0))
        ls = lns.log_softmax(x, axis=axis)
        assert ls.shape == x.shape
        np.testing.assert_array_equal(np.moveaxis(ls, -1, 0), lns.log_softmax(xt, axis=0))
        t, tt = lns.Tensor.from_float(x, "lns32"), lns.Tensor.from_float(xt, "lns32")
        got = t.sum(axis=axis, keepdims=True)
        assert got.shape == (3, 4, 1)
        np.testing.assert_array_equal(got.words[..., 0], tt.sum(axis=0).words)
    np.testing.assert_array_equal(lns.logsumexp(x[0, 0]), lns.logsumexp(x[0, 0], axis=0))

# ---- xlns


def test_xlns_round_trip_and_agreement():
    xlns = pytest.importorskip("xlns")
    xlns.xlnssetF(23)
    x = random_floats(200, 10.0)
    x[7] = 0.0
    xa = xlns.xlnsnp(x)
    t = lns.from_xlnsnp(xa, "lns32")
    # Same codes: xlns's conversion and ours agree but within a float64 hair of a tie.
    ours = lns.Tensor.from_float(x, "lns32")
    _k, _s, c1 = decode(words_of(t), "lns32")
    _k, _s, c2 = decode(words_of(ours), "lns32")
    assert np.abs(c1 - c2).max() <= 1
    back = lns.to_xlnsnp(t)
    np.testing.assert_array_equal(back.nd, xa.nd)
    # Products are exact in both; sums agree within a code (each faithful).
    np.testing.assert_array_equal(lns.from_xlnsnp(xa * xa, "lns32").words, (t * t).words)
    s_x = words_of(lns.from_xlnsnp(xa + xa[::-1], "lns32"))
    s_o = words_of(t + t[::-1])
    assert np.abs(decode(s_x, "lns32")[2] - decode(s_o, "lns32")[2]).max() <= 1
    with pytest.raises(ValueError, match="xlnssetF"):
        lns.from_xlnsnp(xa, "lns16")
    with pytest.raises(ValueError, match="no ∞ or NaN"):
        lns.to_xlnsnp(lns.Tensor.from_float([np.inf], "lns32"))


# ---- straight-through training (PyTorch, host tensors; the GPU runs the same code)


def test_ste_matmul_forward_is_lns_and_gradients_pass_straight_through():
    torch = pytest.importorskip("torch")
    a = torch.tensor(random_floats(4 * 6, 3.0).reshape(4, 6), requires_grad=True)
    b = torch.tensor(random_floats(6 * 3, 3.0).reshape(6, 3), requires_grad=True)
    y = lns.ste_matmul(a, b, "lns16")
    want = lns.Tensor.from_float(a.detach().numpy(), "lns16") @ lns.Tensor.from_float(b.detach().numpy(), "lns16")
    np.testing.assert_array_equal(y.detach().numpy(), want.numpy())
    y.sum().backward()
    qa = lns.Tensor.from_float(a.detach().numpy(), "lns16").numpy()
    qb = lns.Tensor.from_float(b.detach().numpy(), "lns16").numpy()
    np.testing.assert_allclose(a.grad.numpy(), np.ones((4, 3)) @ qb.T, rtol=1e-12)
    np.testing.assert_allclose(b.grad.numpy(), qa.T @ np.ones((4, 3)), rtol=1e-12)
    x = torch.tensor([0.3, -7.0], requires_grad=True)
    lns.ste_quantize(x, "lns16").sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0])
