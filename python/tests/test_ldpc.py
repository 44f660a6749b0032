"""sigpu.ldpc against the CLI (decode bit for bit, simulate counts for a fixed seed), the code's
own parity checks, and bad input."""

from __future__ import annotations

import dataclasses
import json
import subprocess

import numpy as np
import pytest

import sigpu
from sigpu import ldpc

CODE = "dvbt2-short-1/2"
RNG = np.random.default_rng(11)


@pytest.fixture(scope="module")
def code() -> ldpc.Code:
    return ldpc.Code(CODE)


def noisy_llrs(code: ldpc.Code, frames: int, es_n0_db: float, seed: int = 5):
    info = RNG.integers(0, 2, (frames, code.k), dtype=np.uint8)
    words = code.encode(info)
    cells = ldpc.modulate(words, "qpsk")
    y = ldpc.awgn(cells, es_n0_db, seed=seed)
    return info, words, ldpc.demap(y, es_n0_db, "qpsk")


def test_code_properties_and_H(code):
    assert (code.n, code.k, code.m) == (16200, 7200, 9000)
    assert abs(code.rate - 7200 / 16200) < 1e-12
    H = code.H
    assert H.shape == (code.m, code.n)
    assert "dvbt2-short-1/2" in repr(code)


def test_encode_gives_codewords_of_H(code):
    info = RNG.integers(0, 2, (2, 3, code.k), dtype=np.uint8)
    words = code.encode(info)
    assert words.shape == (2, 3, code.n) and words.dtype == np.uint8
    np.testing.assert_array_equal(words[..., : code.k], info)
    syndromes = (code.H @ words.reshape(-1, code.n).T.astype(np.int64)) % 2
    assert not syndromes.any()


@pytest.mark.parametrize("modulation", ["bpsk", "qpsk", "16qam", "64qam", "256qam"])
def test_noiseless_channel_decodes_to_the_codeword(code, modulation):
    info = RNG.integers(0, 2, (2, code.k), dtype=np.uint8)
    words = code.encode(info)
    stream = ldpc.interleave(code, words, modulation)
    llr = ldpc.deinterleave(code, ldpc.demap(ldpc.modulate(stream, modulation), 30.0, modulation), modulation)
    assert ((llr < 0) == words.astype(bool)).all()
    np.testing.assert_array_equal(code.decode(llr, iterations=5), words)


def test_decoding_corrects_noise_and_reports_stats(code):
    info, words, llr = noisy_llrs(code, 4, 3.0)
    hard_errors = int(((llr < 0) != words.astype(bool)).sum())
    bits, stats = code.decode(llr, return_stats=True, early_termination=True)
    assert hard_errors > 0
    np.testing.assert_array_equal(bits, words)
    assert stats["codewords"] == 4 and stats["valid"] == 4


@pytest.mark.parametrize(
    "options,flags",
    [
        ({}, []),
        ({"decoder": "nms:0.75", "schedule": "layered", "iterations": 8}, ["--decoder", "nms:0.75", "--schedule", "layered", "--iterations", "8"]),
        ({"decoder": "spa", "precision": "float", "iterations": 6}, ["--decoder", "spa", "--precision", "float", "--iterations", "6"]),
        ({"decoder": "oms:1", "precision": "float", "schedule": "layered", "iterations": 6}, ["--decoder", "oms:1", "--precision", "float", "--schedule", "layered", "--iterations", "6"]),
    ],
)
def test_decode_equals_the_cli_bit_for_bit(code, cli, tmp_path, options, flags):
    _, _, llr = noisy_llrs(code, 6, 1.2)
    np.save(tmp_path / "llr.npy", llr.astype(np.float32))
    subprocess.run(
        [cli, "ldpc", "decode", "--code", CODE, "--input", str(tmp_path / "llr.npy"),
         "--output", str(tmp_path / "bits.npy"), "--device", "cpu", *flags],
        check=True, capture_output=True,
    )
    want = np.load(tmp_path / "bits.npy")
    got = code.decode(llr, device="cpu", **options)
    assert got.dtype == np.uint8
    np.testing.assert_array_equal(got, want)


def test_simulate_counts_equal_the_cli(code, cli, tmp_path):
    args = ["--snr", "1.0,2.0", "--max-frames", "32", "--min-errors", "6", "--iterations", "5",
            "--seed", "3", "--threads", "2", "--batch", "8"]
    out = subprocess.run([cli, "ldpc", "simulate", "--code", CODE, "--json", *args],
                         check=True, capture_output=True, text=True).stdout
    want = json.loads(out)["points"]
    got = ldpc.simulate(code, snr_db=[1.0, 2.0], max_frames=32, min_errors=6, iterations=5,
                        seed=3, threads=2, batch=8, out=str(tmp_path / "sweep.json"))
    assert isinstance(got, ldpc.Sweep) and all(isinstance(p, ldpc.SweepPoint) for p in got)
    keys = ("es_n0_db", "frames", "frame_errors", "bit_errors", "info_bits")
    assert [tuple(getattr(p, k) for k in keys) for p in got] == [tuple(p[k] for k in keys) for p in want]
    # Every field of the file's points, in their order, and nothing else.
    assert [f.name for f in dataclasses.fields(ldpc.SweepPoint)] == list(want[0])
    rows = got
    # The file is the CLI's format: the CLI resumes it without running a point again.
    again = subprocess.run([cli, "ldpc", "simulate", "--code", CODE, "--json", *args, "--out",
                            str(tmp_path / "sweep.json"), "--resume"],
                           check=True, capture_output=True, text=True).stdout
    assert [p["seconds"] for p in json.loads(again)["points"]] == [p.seconds for p in rows]


def test_simulate_returns_one_type_with_a_pandas_conversion(code):
    got = ldpc.simulate(code, ebn0_db="2:3:1", max_frames=8, min_errors=2, iterations=3)
    assert isinstance(got, list) and len(got) == 2 and got[0].eb_n0_db == 2.0
    assert got[0].ber_ci_method == "frames-t" and len(got[0].ber_ci) == 2
    pandas = pytest.importorskip("pandas")
    frame = got.to_pandas()
    assert isinstance(frame, pandas.DataFrame) and list(frame["eb_n0_db"]) == [2.0, 3.0]


def test_options_accept_the_command_lines_spellings(code, cli, tmp_path):
    # Non-canonical spellings, parsed by the library on both faces: the same decoder.
    _, _, llr = noisy_llrs(code, 2, 1.5)
    np.save(tmp_path / "llr.npy", llr.astype(np.float32))
    subprocess.run(
        [cli, "ldpc", "decode", "--code", CODE, "--input", str(tmp_path / "llr.npy"),
         "--output", str(tmp_path / "bits.npy"), "--device", "cpu", "--precision", "fixed8",
         "--decoder", "normalised=0.75", "--schedule", "flood", "--iterations", "4"],
        check=True, capture_output=True,
    )
    want = np.load(tmp_path / "bits.npy")
    got = code.decode(llr, device="cpu", precision="int8", decoder="NMS:0.75", schedule="Flooding",
                      iterations=4)
    np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError, match="unknown precision"):
        code.decode(llr, precision="16bit")


def test_simulate_resume_refuses_another_run(code, tmp_path):
    out = str(tmp_path / "s.json")
    ldpc.simulate(code, ebn0_db="2:3:1", max_frames=8, min_errors=2, iterations=3, seed=1, out=out)
    with pytest.raises(ValueError, match="cannot resume"):
        ldpc.simulate(code, ebn0_db=2.0, max_frames=8, min_errors=2, iterations=3, seed=2, out=out,
                      resume=True)


@pytest.mark.parametrize(
    "call,exc,msg",
    [
        (lambda c: ldpc.Code("dvbt2-normal-7/8"), ValueError, "dvbt2-normal-7/8"),
        (lambda c: ldpc.Code("missing.alist"), OSError, "missing.alist"),
        (lambda c: c.decode(np.zeros((2, 100), np.float32)), ValueError, "N = 16200"),
        (lambda c: c.decode(np.zeros((1, 16200), complex)), TypeError, "complex"),
        (lambda c: c.decode(np.full((1, 16200), np.nan, np.float32)), ValueError, "not finite"),
        (lambda c: c.decode(np.zeros((1, 16200), np.float32), decoder="bp2"), ValueError, "unknown decoder"),
        (lambda c: c.decode(np.zeros((1, 16200), np.float32), decoder="spa"), ValueError, "precision='float'"),
        (lambda c: c.decode(np.zeros((1, 16200), np.float32), schedule="random"), ValueError, "unknown schedule"),
        (lambda c: c.decode(np.zeros((1, 16200), np.float32), iterations=0), ValueError, "iterations"),
        (lambda c: c.encode(np.zeros((1, 7199), np.uint8)), ValueError, "K = 7200"),
        (lambda c: c.encode(np.full((1, 7200), 2, np.uint8)), ValueError, "0 or 1"),
        (lambda c: ldpc.modulate(np.zeros(4, np.uint8), "8psk"), ValueError, "unknown modulation"),
        (lambda c: ldpc.demap(np.zeros(4, complex), 3.0, "qpsk", "soft"), ValueError, "unknown demapper"),
        (lambda c: ldpc.simulate(c, snr_db=1.0, bit_interleaver="dvbs2"), ValueError, "unknown bit interleaver"),
        (lambda c: ldpc.simulate(c, snr_db=[1.0, float("nan")]), ValueError, "finite"),
        (lambda c: ldpc.simulate(c, max_frames=1), ValueError, "exactly one"),
        (lambda c: ldpc.simulate(c, snr_db="3:1:0.5"), ValueError, "START"),
    ],
)
def test_bad_input_raises_with_the_library_message(code, call, exc, msg):
    with pytest.raises(exc, match=msg):
        call(code)
