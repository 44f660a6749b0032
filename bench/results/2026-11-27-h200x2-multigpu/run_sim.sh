#!/usr/bin/env bash
# Multi-GPU acceptance (ldpc simulate --device all on a host with several GPUs), one
# device call: every GPU's self-checks, then the same simulation points with --device cuda:0
# and --device all. Each point is sized from a calibration run on cuda:0 so that it takes
# about $SECS seconds on one GPU; --min-errors is out of reach, so every point runs exactly
# --max-frames frames and the counts of the two runs must be equal.
# Expects $S (the stripped release sigpu); writes JSON and logs to $R (packed into $OUT by the caller).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-} SIGPU_KERNEL_CACHE=/tmp/sigpu-kc
S=${S:-.gpu/sigpu}; R=${R:-/tmp/r-multigpu}; SECS=${SECS:-22}; mkdir -p "$R"
step() { echo; echo "=== $* ($(date +%T))"; }
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm --format=csv,noheader
nproc
n=$(nvidia-smi -L | wc -l)
for ((g = 0; g < n; g++)); do
  step "check cuda:$g"
  timeout 200 $S --json check --device cuda:$g --seed $((50 + g)) > $R/check-cuda$g.json; echo "rc=$?"
  python3 -c "
import json,sys; d=json.load(open('$R/check-cuda$g.json'))
print(d['device'],'passed',d['passed'],'failed',d['failed'])
[print('FAIL',c['name'],c.get('error')) for c in d['checks'] if not c['passed']]"
done
sim() {  # name device modulation ebn0 frames
  timeout 120 $S --device $2 --json ldpc simulate --code dvbt2-normal-1/2 --modulation $3 \
    --eb-n0 $4 --min-errors 1000000000 --max-frames $5 --seed 7 > $R/sim-$1-${2/:/}.json 2> $R/sim-$1-${2/:/}.err
  echo "rc=$?"
}
for m in "qpsk 1.5" "16qam 3.9"; do
  set -- $m; mod=$1; eb=$2
  step "calibrate $mod"
  sim cal-$mod cuda:0 $mod $eb 4096
  rate=$(python3 -c "import json; p=json.load(open('$R/sim-cal-$mod-cuda0.json'))['points'][0]; print(p['frames']/p['seconds'])")
  frames=$(python3 -c "print(max(4096, int($rate * $SECS) // 512 * 512))")
  echo "one GPU: $rate frames/s -> $frames frames per point"
  for dev in cuda:0 all; do step "simulate $mod $dev"; sim $mod $dev $mod $eb $frames; done
  python3 - "$R/sim-$mod-cuda0.json" "$R/sim-$mod-all.json" <<'PY'
import json, sys
a, b = (json.load(open(f))["points"][0] for f in sys.argv[1:3])
keys = ("frames", "frame_errors", "bit_errors")
same = all(a[k] == b[k] for k in keys)
print({k: a[k] for k in keys}, "identical" if same else f"DIFFERENT: {[b[k] for k in keys]}")
ra, rb = a["frames"] / a["seconds"], b["frames"] / b["seconds"]
print(f"cuda:0 {ra:.0f} frames/s ({ra * 64800 / 1e6:.0f} Mbps coded), all {rb:.0f} frames/s, speed-up {rb / ra:.2f}x")
PY
done
step end
