#!/usr/bin/env python3
"""The filter's accuracy contract on every face, on the same hard cases.

Faces: the CLI (`sigpu filter`, CPU and GPU), the Python package on numpy arrays, and on
PyTorch and CuPy CUDA arrays. Cases: scipy.signal.butter(8 | 6 | 4, 0.02) as (b, a), in float32
and float64, on 2 channels of white noise (2^20 samples each by default).

Reference: scipy's lfilter run in np.longdouble (x87 80-bit, 64-bit significand) on the f64
coefficients and the f64 input. Error = max|y - ref| / max|ref|. The contract: every face's
error is within 4x scipy's own error at the same dtype (errors within 8 eps of the dtype count
as meeting it), or the face refuses the filter with a message; NaN or a larger error is a
failure. Prints one line per case and face, and a JSON summary with --json; exits 1 on any
failure.

usage: filter_faces.py [--sigpu PATH] [--log2-n 20] [--faces cli-cpu,cli-cuda,numpy,torch,cupy]
                       [--json OUT]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import scipy.signal as ss

LD = np.longdouble
EPS = {"float32": float(np.finfo(np.float32).eps), "float64": float(np.finfo(np.float64).eps)}


def rel_err(y, ref) -> float:
    y = np.asarray(y, dtype=LD)
    if not np.all(np.isfinite(y)):
        return float("inf")
    peak = np.max(np.abs(ref)) or 1
    return float(np.max(np.abs(y - ref)) / peak)


def cli(sigpu, device, b, a, x, tmp):
    xin, yout = os.path.join(tmp, "x.npy"), os.path.join(tmp, "y.npy")
    np.save(xin, x)
    coef = lambda v: ",".join(repr(float(c)) for c in v)  # noqa: E731
    p = subprocess.run([sigpu, "--json", "filter", "--device", device, "--b", coef(b), "--a", coef(a),
                        "--input", xin, "--output", yout], capture_output=True, text=True)
    if p.returncode:
        return None, p.stderr.strip().splitlines()[-1] if p.stderr.strip() else f"exit {p.returncode}"
    return np.load(yout), json.loads(p.stdout).get("method")


def python_face(face, b, a, x):
    import sigpu

    if face == "numpy":
        arr, back = x, lambda y: np.asarray(y)
    elif face == "torch":
        import torch

        arr, back = torch.from_numpy(x).cuda(), lambda y: y.cpu().numpy()
    else:
        import cupy

        arr, back = cupy.asarray(x), lambda y: cupy.asnumpy(y)
    try:
        y = sigpu.lfilter(b, a, arr)
    except (ValueError, RuntimeError) as e:
        return None, str(e).splitlines()[0]
    if type(y) is not type(arr):
        return None, f"returned {type(y).__name__} for {type(arr).__name__}"
    return back(y), None


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sigpu", default=os.environ.get("SIGPU_CLI", "target/debug/sigpu"))
    ap.add_argument("--log2-n", type=int, default=20)
    ap.add_argument("--faces", default="cli-cpu,cli-cuda,numpy,torch,cupy")
    ap.add_argument("--json")
    args = ap.parse_args()
    faces = args.faces.split(",")
    rng = np.random.default_rng(24)
    x64 = rng.standard_normal((2, 1 << args.log2_n))
    rows, failed = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for order in (8, 6, 4):
            b, a = ss.butter(order, 0.02)
            ref = ss.lfilter(b.astype(LD), a.astype(LD), x64.astype(LD), axis=-1)
            for dtype in ("float32", "float64"):
                x = x64.astype(dtype)
                scipy_y = ss.lfilter(b.astype(dtype), a.astype(dtype), x, axis=-1)
                scipy_err = rel_err(scipy_y, ref)
                allowed = max(4 * scipy_err, 8 * EPS[dtype])
                for face in faces:
                    if face.startswith("cli-"):
                        y, note = cli(args.sigpu, face[4:], b, a, x, tmp)
                    else:
                        y, note = python_face(face, b, a, x)
                    if y is None:
                        verdict, err = "refused", None
                    else:
                        err = rel_err(y, ref)
                        verdict = "ok" if err <= allowed else "FAIL"
                    failed += verdict == "FAIL"
                    rows.append(dict(filter=f"butter({order}, 0.02)", dtype=dtype, face=face, error=err,
                                     scipy_error=scipy_err, allowed=allowed, verdict=verdict, note=note))
                    shown = "-" if err is None else f"{err:.3g}"
                    print(f"butter({order}, 0.02) {dtype:7s} {face:8s} error {shown:>9s}  scipy {scipy_err:.3g}"
                          f"  {verdict}{'  (' + str(note) + ')' if note else ''}", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(log2_n=args.log2_n, failed=failed, rows=rows), f, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
