#!/usr/bin/env bash
# MPI on a two-GPU host, one device call: (1) ldpc simulate with one rank per GPU (each rank sees
# one GPU through CUDA_VISIBLE_DEVICES), the points of ../2026-11-27-h200x2-multigpu/ whose counts
# it must equal; (2) CPU decoding with one rank per 4 cores, 1/2/4/8 ranks.
# Expects .gpu-mpi/sigpu (built with --features mpi) and .mpi/ (Open MPI 4.1.4 from Debian 12,
# relocated: .mpi/env.sh sets OPAL_PREFIX and the library path; the image has no MPI).
set -u
source .mpi/env.sh
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$LD_LIBRARY_PATH SIGPU_KERNEL_CACHE=/tmp/sigpu-kc
S=$PWD/.gpu-mpi/sigpu; R=${R:-/tmp/r-mpi}; mkdir -p $R; cd $R
step() { echo; echo "=== $* ($(date +%T))"; }
nvidia-smi --query-gpu=index,name --format=csv,noheader; nproc; mpirun --version | head -1
gpu_sim() {  # name modulation ebn0 frames
  timeout 100 mpirun -n 2 --bind-to none sh -c 'CUDA_VISIBLE_DEVICES=$OMPI_COMM_WORLD_LOCAL_RANK exec "$0" "$@"' \
    $S --device cuda --json ldpc simulate --code dvbt2-normal-1/2 --modulation $2 --eb-n0 $3 \
    --min-errors 1000000000 --max-frames $4 --seed 7 > gpu-$1.json 2> gpu-$1.err; echo "rc=$?"; tail -2 gpu-$1.err
  python3 -c "
import json; p=json.load(open('gpu-$1.json'))['points'][0]
print({k: p[k] for k in ('frames','frame_errors','bit_errors')}, '%.0f frames/s' % (p['frames']/p['seconds']), '%.2f s' % p['seconds'])"
}
step "2 ranks, one GPU each, qpsk"; gpu_sim qpsk qpsk 1.5 29184
step "2 ranks, one GPU each, 16qam"; gpu_sim 16qam 16qam 3.9 19456
for n in 1 2 4 8; do
  step "CPU: $n ranks x 4 cores"
  timeout 80 mpirun -n $n --map-by slot:PE=4 --bind-to core $S --device cpu --json ldpc simulate \
    --code dvbt2-short-1/2 --schedule layered-compact --decoder oms:0.5 --scale 2 --iterations 50 \
    --eb-n0 1.2 --min-errors 1000000000 --max-frames 32768 --batch 512 --seed 1 > cpu-$n.json 2> cpu-$n.err
  echo "rc=$?"; tail -1 cpu-$n.err
  python3 -c "
import json; p=json.load(open('cpu-$n.json'))['points'][0]
print({k: p[k] for k in ('frames','frame_errors','bit_errors')}, '%.0f frames/s' % (p['frames']/p['seconds']), '%.2f s' % p['seconds'])"
done
step "CPU: one process, every core, no MPI"
timeout 60 $S --device cpu --json ldpc simulate --code dvbt2-short-1/2 --schedule layered-compact \
  --decoder oms:0.5 --scale 2 --iterations 50 --eb-n0 1.2 --min-errors 1000000000 --max-frames 32768 \
  --batch 512 --seed 1 > cpu-plain.json 2> cpu-plain.err; echo "rc=$?"
python3 -c "
import json; p=json.load(open('cpu-plain.json'))['points'][0]
print({k: p[k] for k in ('frames','frame_errors','bit_errors')}, '%.0f frames/s' % (p['frames']/p['seconds']), '%.2f s' % p['seconds'])"
step end
