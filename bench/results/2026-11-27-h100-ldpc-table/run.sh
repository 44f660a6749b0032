#!/bin/bash
# The LDPC throughput table and the compact layered GPU decoder, with Sionna
# in the same call. Usage on the GPU machine, repository root:
#   S=.gpu/sigpu R=$OUT/ldpc W=.whl bash bench/results/2026-11-27-h100-ldpc-table/run.sh
# W holds the wheels sionna-no-rt==2.2.0 and importlib_resources==6.5.2 (pip download --no-deps).
# PARTS (default "table compact fer sionna") picks the steps to run.
set -u
PARTS=${PARTS:-table compact fer sionna}
part() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
mkdir -p "$R"; SECONDS=0
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$R/gpu.txt"
# 1. The seed's table: 6 codes x 20/30/50 iterations, flooding 8-bit min-sum, 128 codewords.
if part table; then
  $S --json bench ldpc --device cuda --out "$R/gpu-table.json" > /dev/null 2> "$R/gpu-table.err"
  echo "table rc $? ${SECONDS}s"
fi
# 2. Compact layered (offset min-sum 0.5, scale 2) next to flooding, batch sizes, and the
#    iteration counts of equal FER (compact 28 ~ flooding NMS 50).
if part compact; then
  $S --json bench ldpc --device cuda --codes dvbt2-normal-1/2,dvbt2-short-1/2 --iterations 25,28,50 \
    --schedule flooding,layered-compact --decoder oms:0.5 --scale 2 --compact-batch 4,132,528,1056 \
    --runs 10 --out "$R/compact.json" > /dev/null 2> "$R/compact.err"
  echo "compact rc $? ${SECONDS}s"
fi
# 3. FER of the compact GPU decoder (QPSK, normal 1/2, 50 iterations).
if part fer; then
  $S --json ldpc simulate --device cuda --code dvbt2-normal-1/2 --schedule layered-compact \
    --decoder oms:0.5 --scale 2 --eb-n0 0.85:1.05:0.05 --seed 3 --min-errors 200 --max-frames 2112 \
    --out "$R/fer-compact.json" > /dev/null 2> "$R/fer-compact.err"
  echo "fer compact rc $? ${SECONDS}s"
fi
# 4. Sionna LDPCBPDecoder (min-sum, flooding, 128 codewords) on the same six codes.
if part sionna; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site "$W"/*.whl
  for c in dvbt2-normal-1/2 dvbt2-normal-3/4 dvbt2-normal-5/6 dvbt2-short-1/2 dvbt2-short-3/4 dvbt2-short-5/6; do
    $S ldpc export --code "$c" --output /tmp/H.alist > /dev/null
    PYTHONPATH=/tmp/site timeout 120 python3 bench/peers/ldpc_sionna.py /tmp/H.alist 20,30,50 minsum 5 128 \
      2>> "$R/sionna.err" | sed "s|^{|{\"code\": \"$c\", |" >> "$R/sionna.jsonl"
  done
  echo "sionna: $(wc -l < "$R/sionna.jsonl") rows ${SECONDS}s"
fi
