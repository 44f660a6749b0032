"""sigpu.ldpc.NrCode and TransportBlock: rate matching checked in numpy against TS 38.212's
formulas on codewords rebuilt from the output (H·c = 0 on the lifted code's H), Sionna's
layouts, HARQ combining, the CLI's bits for the same input, and bad input."""

import json
import subprocess

import numpy as np
import pytest

from sigpu import ldpc


def _full_codeword(code: ldpc.NrCode, bits: np.ndarray, sent: np.ndarray) -> np.ndarray:
    """The lifted codeword c from rv 0's bits when n covers the buffer once: c_0 … c_{2Z−1}
    are the punctured information bits, then d (§5.3.2) with the filler zeros put back."""
    z, k, kf = code.z, code.k, code.k_filled
    c = np.zeros(code.n_full, np.uint8)
    c[: 2 * z] = bits[: 2 * z]
    c[2 * z : k] = sent[: k - 2 * z]
    c[kf:] = sent[k - 2 * z : k - 2 * z + code.n_full - kf]
    return c


def _reference(code: ldpc.NrCode, c: np.ndarray, rv: int, e: int, qm: int) -> np.ndarray:
    """§5.4.2.1 bit selection (Table 5.4.2.1-2's k0) and §5.4.2.2 interleaving."""
    z, k, kf = code.z, code.k, code.k_filled
    n_cb = code.n_full - 2 * z
    d = c[2 * z :].astype(int)
    null = np.zeros(n_cb, bool)
    null[k - 2 * z : kf - 2 * z] = True
    num, den = {1: ((17, 33, 56), 66), 2: ((13, 25, 43), 50)}[code.bg]
    k0 = 0 if rv == 0 else (num[rv - 1] * n_cb) // (den * z) * z
    out, j = [], 0
    while len(out) < e:
        i = (k0 + j) % n_cb
        if not null[i]:
            out.append(d[i])
        j += 1
    ev = np.array(out, np.uint8)
    return ev.reshape(qm, e // qm).T.reshape(-1)


@pytest.mark.parametrize("k,n,bg", [(100, 300, None), (1000, 3000, None), (500, 6000, 2), (4000, 9000, 1)])
def test_rate_matching_follows_the_standard(k, n, bg):
    code = ldpc.NrCode(k, n, bg)
    rng = np.random.default_rng(k)
    bits = rng.integers(0, 2, k, dtype=np.uint8)
    once = code.n_full - 2 * code.z - (code.k_filled - k)
    c = _full_codeword(code, bits, ldpc.NrCode(k, once, code.bg).encode(bits))
    # n covering the buffer once reaches every row: the whole lifted code's H.
    H = ldpc.Code(f"nr:k={k},n={once},bg={code.bg}").H
    assert H.shape == (code.n_full - code.k_filled, code.n_full)
    assert not (H @ c % 2).any(), "H·c = 0 on the lifted code"
    for rv in range(4):
        for qm in (1, 2, 6):
            if n % qm:
                continue
            got = code.encode(bits, rv=rv, bits_per_symbol=qm)
            np.testing.assert_array_equal(got, _reference(code, c, rv, n, qm), err_msg=f"rv {rv} Qm {qm}")


def test_layouts_and_harq_combining():
    code = ldpc.NrCode(400, 1000)
    bits = np.random.default_rng(1).integers(0, 2, (2, 3, 400), dtype=np.uint8)
    assert code.encode(bits).shape == (2, 3, 1000)
    tx = code.encode(bits, rv=[0, 2], bits_per_symbol=4)
    assert tx.shape == (2, 3, 2, 1000)
    llr = np.where(tx == 0, 3.0, -3.0).astype(np.float32)
    np.testing.assert_array_equal(code.decode(llr, rv=[0, 2], bits_per_symbol=4), bits)
    # Noisy rate-0.9 transmissions: one fails, two combined decode.
    code = ldpc.NrCode(900, 1000)
    bits = np.random.default_rng(2).integers(0, 2, (32, 900), dtype=np.uint8)
    tx = code.encode(bits, rv=[0, 2])
    noise = np.random.default_rng(3).standard_normal(tx.shape)
    sigma2 = 10 ** (-1.5 / 10) / 2  # BPSK at Es/N0 1.5 dB
    llr = (2 * ((1 - 2.0 * tx) + np.sqrt(sigma2) * noise) / sigma2).astype(np.float32)
    one = code.decode(llr[:, 0], rv=0)
    two = code.decode(llr, rv=[0, 2])
    assert (one != bits).any(axis=1).sum() > 28
    assert (two != bits).any(axis=1).sum() == 0


def _mixed_slot():
    """Three code blocks of different base graphs, lifting sizes, rates and versions, sent
    over BPSK at Es/N0 4 dB: (blocks for decode_blocks, their information bits)."""
    rng = np.random.default_rng(5)
    sent = []
    for k, n, rv in ((400, 1000, [0]), (1200, 2400, [0, 2]), (8448, 10000, [0])):
        code = ldpc.NrCode(k, n)
        bits = rng.integers(0, 2, k, dtype=np.uint8)
        tx = code.encode(bits, rv=rv)
        sigma2 = 10 ** (-4.0 / 10) / 2
        llr = (2 * ((1 - 2.0 * tx) + np.sqrt(sigma2) * rng.standard_normal(tx.shape)) / sigma2).astype(np.float32)
        sent.append(((code, llr, rv), bits))
    return [b for b, _ in sent], [i for _, i in sent]


def test_mixed_batches_decode_each_block_as_its_own_code_would():
    blocks, info = _mixed_slot()
    bits, stats = ldpc.decode_blocks(blocks, iterations=12, early_termination=True, return_stats=True)
    for (code, llr, rv), got, want, (its, valid) in zip(blocks, bits, info, stats):
        alone = code.decode(llr, rv=rv, iterations=12, early_termination=True)
        np.testing.assert_array_equal(got, alone)
        np.testing.assert_array_equal(got, want)
        assert valid and 1 <= its <= 12
    assert ldpc.decode_blocks([]) == []


def test_mixed_batches_on_the_gpu_equal_the_cpu(gpu):
    blocks, _ = _mixed_slot()
    cpu = ldpc.decode_blocks(blocks, iterations=8, return_stats=True)
    dev = ldpc.decode_blocks(blocks, iterations=8, device=f"cuda:{gpu}", return_stats=True)
    for a, b in zip(cpu[0], dev[0]):
        np.testing.assert_array_equal(a, b)
    assert cpu[1] == dev[1]


@pytest.mark.parametrize(
    "blocks, error, text",
    [
        ([("nr", np.zeros(1000, np.float32))], TypeError, "blocks[0]: the code"),
        ([(ldpc.NrCode(400, 1000), np.zeros(999, np.float32))], ValueError, "blocks[0]: llr must have shape (1000,)"),
        ([(ldpc.NrCode(400, 1000), np.zeros((2, 1000), np.float32), [0, 7])], ValueError, "rv"),
        ([(ldpc.NrCode(400, 1000),)], TypeError, "blocks[0]: give"),
    ],
)
def test_mixed_batch_bad_input_is_named(blocks, error, text):
    with pytest.raises(error, match=None) as e:
        ldpc.decode_blocks(blocks)
    assert text in str(e.value)


def test_equals_the_cli(cli, tmp_path):
    code = ldpc.NrCode(300, 900)
    bits = np.random.default_rng(4).integers(0, 2, (4, 300), dtype=np.uint8)
    np.save(tmp_path / "b.npy", bits)
    subprocess.run([cli, "ldpc", "encode", "--code", "nr:k=300,n=900", "--rv", "1,3", "--bits-per-symbol", "2",
                    "--input", str(tmp_path / "b.npy"), "--output", str(tmp_path / "t.npy")], check=True, capture_output=True)
    np.testing.assert_array_equal(np.load(tmp_path / "t.npy"), code.encode(bits, rv=[1, 3], bits_per_symbol=2))
    llr = np.random.default_rng(5).normal(0, 2, (4, 900)).astype(np.float32) + np.where(code.encode(bits) == 0, 2, -2)
    np.save(tmp_path / "l.npy", llr.astype(np.float32))
    subprocess.run([cli, "ldpc", "decode", "--code", "nr:k=300,n=900", "--iterations", "20", "--input", str(tmp_path / "l.npy"),
                    "--output", str(tmp_path / "o.npy")], check=True, capture_output=True)
    np.testing.assert_array_equal(np.load(tmp_path / "o.npy"), code.decode(llr))


def test_transport_block_round_trip():
    tb = ldpc.TransportBlock(8456, 12000, 4)
    assert (tb.blocks, tb.k_prime, tb.z, tb.bg) == (2, 4264, 208, 1)
    bits = np.random.default_rng(6).integers(0, 2, 8456, dtype=np.uint8)
    llr = np.stack([np.where(tb.encode(bits, rv) == 0, 4.0, -4.0) for rv in (0, 1)]).astype(np.float32)
    out, blocks_ok, tb_ok = tb.decode(llr, rv=[0, 1])
    assert tb_ok and blocks_ok == [True, True]
    np.testing.assert_array_equal(out, bits)


@pytest.mark.parametrize(
    "make,text",
    [
        (lambda: ldpc.NrCode(8449, 20000), "at most 8448"),
        (lambda: ldpc.NrCode(11, 100), "at least 12"),
        (lambda: ldpc.NrCode(1000, 1040), "above 0.95"),
        (lambda: ldpc.NrCode(1000, 3001).encode(np.zeros(1000, np.uint8), bits_per_symbol=4), "multiple of Q_m = 4"),
        (lambda: ldpc.NrCode(1000, 3000).encode(np.zeros(1000, np.uint8), rv=4), "rv is 0, 1, 2 or 3"),
        (lambda: ldpc.NrCode(1000, 3000).decode(np.zeros(2999, np.float32)), "last axes must be (3000,)"),
        (lambda: ldpc.NrCode(1000, 3000).decode(np.zeros((1, 3000), np.float32), rv=[0, 1]), "(2, 3000)"),
        (lambda: ldpc.NrCode(1000, 3000, bg=3), "base graph 3"),
    ],
)
def test_bad_input_is_named(make, text):
    with pytest.raises(ValueError, match=None) as e:
        make()
    assert text in str(e.value), str(e.value)


def test_simulate_sweeps_a_code_block_as_the_cli_does(cli, tmp_path):
    """ldpc.simulate of an NrCode runs the CLI's NR sweep: the same counts for a seed, a results
    file that resumes, and one that refuses another block."""
    code = ldpc.NrCode(100, 300)
    kw = dict(ebn0_db=[-4.0, 0.0], modulation="bpsk", iterations=10, min_errors=10, max_frames=256, batch=64, seed=3)
    sweep = ldpc.simulate(code, rv=[0, 2], **kw, out=str(tmp_path / "py.json"))
    assert [round(p.eb_n0_db, 6) for p in sweep] == [-4.0, 0.0]
    assert sweep[0].frame_errors >= 10 and sweep[1].frame_errors < sweep[0].frame_errors
    again = ldpc.simulate(code, rv=[0, 2], **kw)
    assert [(p.frames, p.frame_errors, p.bit_errors) for p in again] == \
        [(p.frames, p.frame_errors, p.bit_errors) for p in sweep]
    out = subprocess.run([cli, "--json", "ldpc", "simulate", "--code", "nr:k=100,n=300", "--rv", "0,2",
                          "--eb-n0=-4,0", "--modulation", "bpsk", "--iterations", "10", "--min-errors", "10",
                          "--max-frames", "256", "--batch", "64", "--seed", "3", "--out", str(tmp_path / "cli.json")],
                         check=True, capture_output=True, text=True)
    assert out.returncode == 0
    cli_points = json.load(open(tmp_path / "cli.json"))["points"]
    assert [(p["frames"], p["frame_errors"], p["bit_errors"]) for p in cli_points] == \
        [(p.frames, p.frame_errors, p.bit_errors) for p in sweep]
    with pytest.raises(ValueError, match="resume"):
        ldpc.simulate(ldpc.NrCode(100, 330), rv=[0, 2], **kw, out=str(tmp_path / "py.json"), resume=True)
    with pytest.raises(ValueError, match="NrCode"):
        ldpc.simulate("dvbt2-short-1/2", ebn0_db=1.0, rv=1)
