"""The package as a whole: import time and no CUDA at import, info() as the CLI's info --json,
type stubs present, the GIL released during long work."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

import sigpu

PKG = Path(sigpu.__file__).parent


def test_import_is_fast_and_touches_no_gpu():
    code = (
        "import time; t0 = time.perf_counter(); import numpy; t1 = time.perf_counter();"
        "import sigpu; t2 = time.perf_counter();"
        "maps = open('/proc/self/maps').read();"
        "print(t1 - t0, t2 - t1, 'libcuda' in maps, 'libnvrtc' in maps)"
    )
    runs = []
    for _ in range(3):
        out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
        numpy_s, own_s, cuda, nvrtc = out.stdout.split()
        assert cuda == "False" and nvrtc == "False", "importing sigpu loaded a CUDA library"
        runs.append((float(numpy_s), float(own_s)))
    best = min(runs, key=lambda r: r[0] + r[1])
    # sigpu's own import, numpy already loaded: ≤ 0.3 s (0.03 s on the H100 host, whose numpy
    # alone takes 0.30 s). On a loaded machine (builds on the same cores) everything slows
    # alike, so there it is held to numpy's own import time instead.
    if os.getloadavg()[0] < (os.cpu_count() or 1):
        assert best[1] <= 0.3, runs
    else:
        assert best[1] <= max(best[0], 0.3), runs


def test_info_mirrors_the_cli(cli):
    out = subprocess.run([cli, "info", "--json"], check=True, capture_output=True, text=True).stdout
    want = json.loads(out)
    got = sigpu.info()
    assert got.keys() == want.keys()
    assert got["version"] == want["version"]
    assert got["host"]["cpu_model"] == want["host"]["cpu_model"]
    assert got["host"].keys() == want["host"].keys()
    assert got["cuda"]["available"] == want["cuda"]["available"] == sigpu.cuda_available()


def _untyped(path: Path) -> list:
    """The functions of a module's source without a return annotation or with an argument
    (other than self / cls) without one."""
    missing = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
            bare = [a.arg for a in args if a.annotation is None and a.arg not in ("self", "cls")]
            if node.returns is None or bare:
                missing.append(f"{path.name}:{node.lineno} {node.name}")
    return missing


def test_every_module_is_typed_and_documented():
    # The compiled module has its one stub; each Python module is either fully annotated
    # (no twin stub to drift from it) or has a stub.
    assert (PKG / "py.typed").exists() and (PKG / "_native.pyi").exists()
    for path in sorted(PKG.glob("*.py")):
        if not path.with_suffix(".pyi").exists():
            assert not _untyped(path), _untyped(path)
    for name in sigpu.__all__:
        obj = getattr(sigpu, name)
        assert obj.__doc__, name
    for mod in (sigpu.ldpc, sigpu.lns, sigpu.approx):
        for name in mod.__all__:
            assert getattr(mod, name).__doc__, f"{mod.__name__}.{name}"


def test_long_work_releases_the_gil():
    x = np.random.default_rng(0).standard_normal(1 << 23)
    ticks = []
    done = threading.Event()

    def counter():
        while not done.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    t = threading.Thread(target=counter)
    t.start()
    start = time.perf_counter()
    for _ in range(3):
        sigpu.lfilter([0.2, 0.3], [1.0, -0.5], x)
    end = time.perf_counter()
    done.set()
    t.join()
    during = [s for s in ticks if start < s < end]
    # With the GIL held the counter could not run during the filter calls at all.
    assert len(during) >= 5, (len(during), end - start)
