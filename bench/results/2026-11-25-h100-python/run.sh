#!/usr/bin/env bash
# The Python package on the H100, in one device call, from the repository root. Expects .gpu/
# with the wheel (`maturin build --release`), the stripped release CLI and, in .gpu/whl, the
# sionna-no-rt and importlib-resources wheels; writes its results into $OUT.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-} PYTHONUNBUFFERED=1
out=${OUT:-/tmp/sigpu-python}
mkdir -p "$out"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site \
  .gpu/whl/*.whl 2>&1 | tail -3
# The wheel is tagged with the build machine's glibc; unpacked directly it needs no tag match.
python3 -m zipfile -e .gpu/sigpu-*.whl /tmp/site
export PYTHONPATH=/tmp/site
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$out/nvidia-smi.txt"
python3 -c 'import sigpu, json; print(json.dumps(sigpu.info(), indent=1))' > "$out/info.json"
echo "== pytest (SIGPU_REQUIRE_GPU=1)"
SIGPU_REQUIRE_GPU=1 SIGPU_CLI=$PWD/.gpu/sigpu timeout 130 python3 -m pytest -q -rs -p no:cacheprovider \
  python/tests > "$out/pytest.txt" 2>&1
tail -25 "$out/pytest.txt"
echo "== check"
timeout 30 .gpu/sigpu --json check --device cuda --filter ldpc/minsum8_device_io --seed 1 > "$out/check-device-io.json"
grep -E '"passed"|"name"' "$out/check-device-io.json" | head -4
echo "== copy"
timeout 30 .gpu/sigpu --json bench copy --device cuda > "$out/copy.json"
echo "== gpu targets"
timeout 110 python3 python/bench/gpu_targets.py > "$out/gpu_targets.json" 2> "$out/gpu_targets.log"
tail -12 "$out/gpu_targets.log"
echo "== bench ldpc"
timeout 40 .gpu/sigpu --json bench ldpc --device cuda --codes dvbt2-normal-1/2 --iterations 50 \
  > "$out/bench-ldpc.json"
grep -E 'mbps|ms' "$out/bench-ldpc.json" | head -12
echo "== cpu lfilter, 2 cores of the host"
RAYON_NUM_THREADS=2 timeout 40 taskset -c 2,3 python3 python/bench/cpu_lfilter.py > "$out/cpu-lfilter-host2c.json"
cat "$out/cpu-lfilter-host2c.json"
