#!/usr/bin/env python3
"""5G NR LDPC against Sionna (an independent implementation of TS 38.212, PyTorch):

1. encoder: sigpu's `NrCode(k, n).encode(bits, bits_per_symbol=…)` equal bit for bit to
   Sionna's `LDPC5GEncoder(k, n, num_bits_per_symbol=…)` (redundancy version 0, the only one
   Sionna sends) over a list of (k, n, Q_m) covering both base graphs, small and large Z,
   filler bits, repetition (n beyond the mother code) and the bit interleaver;
2. error rates: sigpu's float sum-product (flooding, equal iterations) and Sionna's
   `LDPC5GDecoder` (boxplus-phi) on the same LLRs of BPSK over AWGN, frame errors of each
   with Wilson 95% intervals;
3. speed: Sionna's encoder and decoder on the GPU (CUDA events around upload, call and
   download; median of runs after warm-up), as the peer of sigpu's CPU figures.

usage: nr_ldpc_sionna.py [--frames N] [--runs R] [--batch B]
Needs torch, sionna-no-rt and sigpu on PYTHONPATH; h5py and matplotlib are stubbed if absent.
Prints one JSON object per line."""
import argparse
import json
import math
import statistics
import sys
from unittest import mock

for optional in ("h5py", "matplotlib", "matplotlib.pyplot", "matplotlib.colors", "matplotlib.cm"):
    try:
        __import__(optional)
    except ImportError:
        sys.modules[optional] = mock.MagicMock()

import numpy as np
import torch

DEV = "cuda:0"

ENCODER_CASES = [
    # (k, n, bits per symbol or None)
    (8448, 25344, None), (8448, 9126, None), (8448, 10560, 8), (3840, 11520, 2),
    (3824, 7648, 4), (1000, 3000, 2), (1000, 1500, 6), (292, 876, 2), (293, 600, None),
    (100, 300, None), (40, 240, 2), (24, 96, None), (500, 4000, 2), (2000, 2106, 2),
    (6000, 18000, 4), (640, 1280, 8),
]


def wilson(k, n, z=1.96):
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, c - h), min(1.0, c + h))


def encoders(sigpu, sionna_ldpc, rng):
    for k, n, qm in ENCODER_CASES:
        row = dict(test="encoder", k=k, n=n, bits_per_symbol=qm)
        try:
            enc = sionna_ldpc.LDPC5GEncoder(k, n, num_bits_per_symbol=qm, device=DEV)
            u = rng.integers(0, 2, (8, k)).astype(np.float32)
            c_s = enc(torch.from_numpy(u).to(DEV)).cpu().numpy().astype(np.uint8)
            code = sigpu.ldpc.NrCode(k, n)
            c_g = np.asarray(code.encode(u.astype(np.uint8), bits_per_symbol=qm))
            row.update(bg=code.bg, z=code.z, sionna_bg=getattr(enc, "_bg", None),
                       equal=bool(np.array_equal(c_s, c_g)),
                       differing_bits=int(np.sum(c_s != c_g)))
        except Exception as ex:  # a case one side refuses: reported, not hidden
            row.update(error=f"{type(ex).__name__}: {ex}"[:200])
        print(json.dumps(row), flush=True)


def error_rates(sigpu, sionna_ldpc, rng, frames, points):
    for k, n, ebno_db, iters in points:
        code = sigpu.ldpc.NrCode(k, n)
        enc = sionna_ldpc.LDPC5GEncoder(k, n, device=DEV)
        dec = sionna_ldpc.LDPC5GDecoder(enc, cn_update="boxplus-phi", num_iter=iters,
                                        hard_out=True, return_infobits=True, device=DEV)
        rate = k / n
        sigma2 = 1.0 / (2 * rate * 10 ** (ebno_db / 10))
        fe_s = fe_g = 0
        done = 0
        while done < frames:
            b = min(500, frames - done)
            u = rng.integers(0, 2, (b, k)).astype(np.uint8)
            c = np.asarray(code.encode(u))
            y = (1.0 - 2.0 * c) + math.sqrt(sigma2) * rng.standard_normal((b, n))
            llr = (2.0 * y / sigma2).astype(np.float32)  # ln P(0)/P(1)
            u_s = dec(torch.from_numpy(-llr).to(DEV)).cpu().numpy().astype(np.uint8)
            u_g = np.asarray(code.decode(llr, iterations=iters, decoder="spa", precision="float",
                                         schedule="flooding"))
            fe_s += int(np.sum(np.any(u_s != u, axis=1)))
            fe_g += int(np.sum(np.any(u_g != u, axis=1)))
            done += b
        print(json.dumps(dict(test="fer", k=k, n=n, bg=code.bg, ebno_db=ebno_db, iterations=iters,
                              frames=frames, sigpu_float_spa_flooding=fe_g,
                              sigpu_ci=wilson(fe_g, frames), sionna_boxplus_phi=fe_s,
                              sionna_ci=wilson(fe_s, frames))), flush=True)


def speed(sionna_ldpc, rng, runs, batch):
    import sionna
    for k, n, iters in [(8448, 25344, 20), (8448, 9126, 20), (8448, 25344, 10), (8448, 9126, 10)]:
        enc = sionna_ldpc.LDPC5GEncoder(k, n, device=DEV)
        dec = sionna_ldpc.LDPC5GDecoder(enc, cn_update="minsum", num_iter=iters, hard_out=True,
                                        return_infobits=True, device=DEV)
        u = torch.from_numpy(rng.integers(0, 2, (batch, k)).astype(np.float32)).pin_memory()
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        enc_ms, dec_ms = [], []
        c = enc(u.to(DEV))
        llr_host = (-(2.0 * (1.0 - 2.0 * c) / 0.5)).float().cpu().pin_memory()
        for i in range(2 + runs):
            start.record()
            c = enc(u.to(DEV, non_blocking=True)).to("cpu")
            stop.record()
            torch.cuda.synchronize()
            if i >= 2:
                enc_ms.append(start.elapsed_time(stop))
            start.record()
            out = dec(llr_host.to(DEV, non_blocking=True)).to("cpu")
            stop.record()
            torch.cuda.synchronize()
            if i >= 2:
                dec_ms.append(start.elapsed_time(stop))
        e, d = statistics.median(enc_ms), statistics.median(dec_ms)
        print(json.dumps(dict(test="speed", peer=f"sionna {sionna.__version__} LDPC5GEncoder / "
                              "LDPC5GDecoder minsum (flooding), GPU", torch=torch.__version__,
                              k=k, n=n, iterations=iters, batch=batch, runs=runs,
                              encoder_us_per_block=e * 1e3 / batch,
                              decoder_median_ms=d, info_mbps=k * batch / (d * 1e-3) / 1e6,
                              coded_mbps=n * batch / (d * 1e-3) / 1e6,
                              decoded_ok=bool(out.shape[-1] == k))), flush=True)


def import_sionna_ldpc():
    """Sionna's LDPC module; plotting submodules it imports at package load are stubbed
    where matplotlib is absent (the codes never draw)."""
    for _ in range(50):
        try:
            from sionna.phy.fec import ldpc
            return ldpc
        except ModuleNotFoundError as ex:
            name = ex.name or ""
            if not name.startswith(("matplotlib", "mpl_toolkits", "h5py")):
                raise
            for mod in list(sys.modules):
                if mod.startswith("sionna"):
                    del sys.modules[mod]
            sys.modules[name] = mock.MagicMock()
    raise ImportError("sionna: too many missing optional modules")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--encoder-only", action="store_true", help="only the encoder comparison")
    ap.add_argument("--device", default="cuda:0", help="Sionna's device (cpu for the encoder check)")
    args = ap.parse_args()
    global DEV
    DEV = args.device
    import sigpu
    import sigpu.ldpc  # noqa: F401
    sionna_ldpc = import_sionna_ldpc()
    rng = np.random.default_rng(5)
    encoders(sigpu, sionna_ldpc, rng)
    if args.encoder_only:
        return
    error_rates(sigpu, sionna_ldpc, rng, args.frames,
                [(1000, 3000, 1.0, 20), (1000, 3000, 1.4, 20), (8448, 16896, 1.4, 20)])
    speed(sionna_ldpc, rng, args.runs, args.batch)


if __name__ == "__main__":
    main()
