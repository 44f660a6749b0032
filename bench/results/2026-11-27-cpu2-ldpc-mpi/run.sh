#!/usr/bin/env bash
# Frames/s of `sigpu ldpc simulate` on the CPU decoder: one process, and mpirun with 1, 2 and 3
# ranks (3 oversubscribes a 2-core machine), REPEATS times each, interleaved. Usage, from the
# repository root: [RANKS="1 2 3"] bench/results/2026-11-27-cpu2-ldpc-mpi/run.sh SIGPU OUTDIR
# [REPEATS] [CODE]; EXTRA="--threads 1" adds flags. Frames/s = a point's frames / its seconds (rank 0's wall time of the point,
# MPI start-up excluded).
set -euo pipefail
bin=$1 out=$2 repeats=${3:-3} code=${4:-dvbt2-short-1/2}
read -r -a ranks <<< "${RANKS:-1 2 3}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
args=(--device cpu ldpc simulate --code "$code" --schedule layered-compact --decoder oms:0.5
      --scale 2 --iterations 50 --eb-n0 1.2 --min-errors 1000000000 --max-frames 8192
      --batch 128 --seed 1 --json ${EXTRA:-})
mkdir -p "$out"
for r in $(seq 1 "$repeats"); do
  uptime | tee -a "$out/uptime.txt"
  "$bin" "${args[@]}" > "$out/plain-r$r.json"
  for n in "${ranks[@]}"; do
    mpirun -n "$n" --oversubscribe --bind-to none "$bin" "${args[@]}" > "$out/mpi$n-r$r.json"
  done
done
uptime | tee -a "$out/uptime.txt"
python3 - "$out" <<'PY'
import glob, json, os, re, statistics, sys
out = sys.argv[1]
rows = {}
for f in sorted(glob.glob(os.path.join(out, "*-r*.json"))):
    name = re.sub(r"-r\d+\.json$", "", os.path.basename(f))
    p = json.load(open(f))["points"][0]
    rows.setdefault(name, []).append((p["frames"] / p["seconds"], p))
ref = None
for name in sorted(rows, key=lambda n: (n != "plain", n)):
    rates = [r for r, _ in rows[name]]
    counts = {(p["frames"], p["frame_errors"], p["bit_errors"]) for _, p in rows[name]}
    med = statistics.median(rates)
    ref = ref or med
    print(f"{name}: frames/s median {med:.0f} (runs {', '.join(f'{r:.0f}' for r in rates)}), "
          f"{med / ref:.2f}x one process; counts {sorted(counts)}")
PY
