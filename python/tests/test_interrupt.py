"""Ctrl-C stops a long call: SIGINT sent to a process in the middle of one raises
KeyboardInterrupt within a second, and the call returns nothing. Each case runs in a fresh
interpreter that runs the call in a loop (on a fast machine one call may end before the
signal comes; the next is then in flight) and reports when KeyboardInterrupt came out and
whether it came out of a call."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

# The child restores Python's own SIGINT handler: a runner that starts the tests as a
# background job without job control hands them SIGINT ignored, and an interpreter that starts
# with SIGINT ignored keeps it so.
PRELUDE = """
import signal, sys, time
signal.signal(signal.SIGINT, signal.default_int_handler)
import numpy as np
import sigpu
"""

LOOP = """
done, in_call = 0, False
print("ready", flush=True)
try:
    while True:
        in_call = True
        result = call()
        in_call = False
        done += 1
except KeyboardInterrupt:
    print("interrupted", time.monotonic(), done, int(in_call), flush=True)
"""

CASES = {
    "hmm_forward": """
rng = np.random.default_rng(1)
S, T = 64, 100000
pi = np.log(np.full(S, 1.0 / S)); A = np.log(np.full((S, S), 1.0 / S))
B = np.log(rng.uniform(1e-3, 1.0, (2, T, S)))
call = lambda: sigpu.lns.hmm_forward(pi, A, B)
""",
    "ldpc_simulate": """
call = lambda: sigpu.ldpc.simulate("dvbt2-short-1/2", 8.0, min_errors=10**9,
                                   max_frames=10**9)
""",
    "sosfilt": """
sos = np.tile([0.02, 0.04, 0.02, 1.0, -1.6, 0.7], (32, 1))
x = np.random.default_rng(1).standard_normal(1 << 25)
f = sigpu.Sos(sos)
call = lambda: f(x)
""",
    # One worker: on a 16-core host all cores finished a call in about 0.1 s, short enough
    # that a call could end between the signal and the runner's next look at it.
    "approx_sin": """
x = np.linspace(1e6, 1e9, 1 << 25, dtype=np.float32)
call = lambda: sigpu.approx.sin(x, workers=1)
""",
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_sigint_stops_a_long_call_within_a_second(case):
    code = PRELUDE + CASES[case] + LOOP
    child = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout.readline().strip() == "ready", child.stderr.read()
        time.sleep(1.0)
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
    words = out.split()
    assert words and words[0] == "interrupted", (out, err)
    latency, done, in_call = float(words[1]) - sent, int(words[2]), words[3] == "1"
    assert in_call, f"{case}: the signal came between calls ({done} finished), not during one"
    assert latency < 1.0, f"{case}: KeyboardInterrupt {latency:.2f} s after SIGINT"
    assert child.returncode == 0
