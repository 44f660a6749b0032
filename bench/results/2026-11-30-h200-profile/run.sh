#!/bin/bash
# Counters for the kernels whose H200 targets are missed: the 5G NR layered decoder, sosfilt's
# fused sections, the LNS streaming add (u16 words) and fused sum, and the Python LNS tensors'
# logsumexp rows and tiled matmul. ncu with the clocks left alone.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 PATH=/usr/local/cuda/bin:$PATH
S=$PWD/.gpu/sigpu; chmod +x $S
rm -rf /tmp/site; python3 -m zipfile -e .gpu/sigpu-*.whl /tmp/site >/dev/null; export PYTHONPATH=/tmp/site
SEC="--section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section InstructionStats"
N="ncu --clock-control none $SEC"
step() { echo; echo "== $1 ($(date +%T))"; }
step "ncu version"; ncu --version | tail -1
step "NR bench (timing)"
timeout 100 $S --device cuda bench ldpc --codes nr:k=8448,n=25344 --schedule layered --decoder oms:0.5 --scale 8 --iterations 5 --runs 10 > $OUT/nr-bench.txt 2>&1; echo rc=$?; tail -n 25 $OUT/nr-bench.txt
step "NR ncu"
timeout 200 $N -k regex:ldpc_nr -s 3 -c 1 $S --device cuda bench ldpc --codes nr:k=8448,n=25344 --schedule layered --decoder oms:0.5 --scale 8 --iterations 5 --runs 2 > $OUT/nr-ncu.txt 2>&1; echo rc=$?; grep -E "Duration|Throughput|Registers|Achieved Occ|Theoretical Occ|Block Limit|Issue Slots|Stall|Grid Size|Shared Memory Config|Executed Ipc|Warp Cycles" $OUT/nr-ncu.txt | head -40
step "sosfilt ncu"
timeout 150 $N -k regex:sos_filter -s 2 -c 1 $S --device cuda bench filter --sos --log2-n 26 --runs 2 > $OUT/sos-ncu.txt 2>&1; echo rc=$?; grep -E "Duration|Throughput|Registers|Achieved Occ|Theoretical Occ|Block Limit|Issue Slots|Grid Size|Executed Ipc|Warp Cycles|Executed Instructions " $OUT/sos-ncu.txt | head -30
step "lns16 bench ncu (stream + fused)"
timeout 150 $N -k regex:"stream|fused_partials" -s 0 -c 8 $S --device cuda bench lns --format lns16 > $OUT/lns16-ncu.txt 2>&1; echo rc=$?; grep -E "^  [a-z_0-9]+|Duration|DRAM Throughput|Registers|Achieved Occ|Issue Slots|Executed Ipc" $OUT/lns16-ncu.txt | head -60
step "LNS tensor bench (timing, then ncu on logsumexp rows and matmul)"
timeout 150 python3 bench/peers/lns_tensor_bench.py > $OUT/lns-tensor.txt 2>&1; echo rc=$?; tail -n 20 $OUT/lns-tensor.txt
timeout 200 $N -k regex:"log_rows|log_block|matmul" -c 4 python3 bench/peers/lns_tensor_bench.py --size 2048 > $OUT/lns-tensor-ncu.txt 2>&1; echo rc=$?; grep -E "^  [a-z_0-9]+|Duration|DRAM Throughput|Registers|Achieved Occ|Issue Slots|Executed Ipc|Pipe" $OUT/lns-tensor-ncu.txt | head -60
