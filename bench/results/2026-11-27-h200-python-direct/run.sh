#!/usr/bin/env bash
# The direct call path on the H100, in one device call, from the repository root: the GPU
# filter tests and the call-path tests, then python/bench/gpu_targets.py without its LDPC part
# and the cupyx peers (about 30-45 s in all). Expects .gpu/ holding the release wheel
# (`cd python && maturin build --release`, then copy python/target/wheels/sigpu-*.whl there);
# writes its results into $OUT.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-} PYTHONUNBUFFERED=1
out=${OUT:-/tmp/sigpu-python}
mkdir -p "$out"
t0=$(date +%s)
# The wheel is tagged with the build machine's glibc; unpacked directly it needs no tag match.
python3 -m zipfile -e .gpu/sigpu-*.whl /tmp/site
export PYTHONPATH=/tmp/site
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$out/nvidia-smi.txt"
echo "== pytest: GPU filters and the call path (SIGPU_REQUIRE_GPU=1)"
SIGPU_REQUIRE_GPU=1 SIGPU_REQUIRE_CLI=0 timeout 60 python3 -m pytest -q -rs -p no:cacheprovider \
  python/tests/test_gpu.py python/tests/test_call_path.py -k "not decode and not hmm" \
  > "$out/pytest.txt" 2>&1
tail -4 "$out/pytest.txt"
echo "== gpu targets"
timeout 90 python3 python/bench/gpu_targets.py --skip ldpc,cupyx > "$out/gpu_targets.json" \
  2> "$out/gpu_targets.log"
tail -3 "$out/gpu_targets.log" | cut -c1-300
python3 - "$out/gpu_targets.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(d["device"], "torch", d["torch"], "total_s %.1f" % d["total_s"])
for lib in ("torch", "cupy"):
    c = d.get(f"{lib}_copy")
    if not c:
        continue
    print(f"{lib} copy: wall {c['median_ms']:.3f} ms, host {c['host_ms']*1e3:.1f} us"
          + (f", events {c['events_ms']:.3f} ms" if "events_ms" in c else ""))
    for name, r in d.get(f"sigpu_lfilter_{lib}", {}).items():
        g = r["general_path"]
        print(f"  lfilter {name}: wall {r['median_ms']:.3f} ms = {100*r['of_copy']:.1f}% of copy;"
              f" host {r['host_ms']*1e3:.1f} us"
              + (f"; events {r['events_ms']:.3f}" if "events_ms" in r else "")
              + (f"; kernel alone {r['kernel_events_ms']:.3f}; pipelined {r['pipelined_ms']:.3f} ms"
                 if "kernel_events_ms" in r else "")
              + f"; general path wall {g['median_ms']:.3f} ms, host {g['host_ms']*1e3:.1f} us")
        print("    parts (us):", {k: round(v, 2) for k, v in r["parts_us"].items()})
for key in ("sigpu_sosfilt_torch_butter8", "sigpu_sosfilt_cupy_butter8"):
    if key in d:
        r = d[key]
        print(f"{key}: wall {r['median_ms']:.3f} ms" + (f", {100*r['of_copy']:.1f}% of copy, host {r['host_ms']*1e3:.1f} us" if "of_copy" in r else ""))
PY
echo "elapsed $(( $(date +%s) - t0 )) s"
