#!/bin/bash
set -x
rm -rf /tmp/site && mkdir -p /tmp/site && python3 -m zipfile -e .gpu/sigpu-*.whl /tmp/site
cp .gpu/plr_gpu_calibration.py bench/peers/
export PYTHONPATH=/tmp/site LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi --query-gpu=name --format=csv
(timeout 400 python3 bench/peers/plr_gpu_calibration.py --seed 1 > $OUT/gpu-1.jsonl 2>$OUT/gpu-1.err) &
(timeout 400 python3 bench/peers/plr_gpu_calibration.py --seed 1 --cpu > $OUT/cpu-1.jsonl 2>$OUT/cpu-1.err) &
(timeout 400 python3 bench/peers/plr_gpu_calibration.py --seed 2 > $OUT/gpu-2.jsonl 2>$OUT/gpu-2.err) &
wait
wc -l $OUT/*.jsonl; tail -3 $OUT/*.err
