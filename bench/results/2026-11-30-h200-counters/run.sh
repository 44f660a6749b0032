#!/bin/bash
# Counters (ncu, clocks left alone) for every kernel row of the H200 limits table: the PLR
# (b, a) and prefix-sum kernels, the fused sosfilt cascade, the LNS streaming adds and fused
# sum / dot, the CLNS add through the SFUs. One launch per row at 2^26 (2^28 words for LNS).
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 PATH=/usr/local/cuda/bin:$PATH
S=$PWD/.gpu/sigpu; chmod +x $S
SEC="--section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section InstructionStats"
N="ncu --clock-control none $SEC"
mkdir -p /tmp/c; i=0
for sig in "(0.2 : 0.8)|f32" "(0.9, -0.9 : 0.8)|f32" "(0.81, -1.62, 0.81 : 1.6, -0.64)|f32" "(1 : 1)|i32" "(1 : 0, 1)|i32" "(1 : 2, -1)|i32"; do
  i=$((i+1)); s=${sig%|*}; d=${sig#*|}
  timeout 40 $N -k regex:plr_filter -s 2 -c 1 $S --device cuda bench filter --signature "$s" --dtype $d --log2-n 26 --runs 2 --no-check > /tmp/c/plr-$i.txt 2>&1; echo "plr $s $d rc=$?"
done
timeout 40 $N -k regex:sos_filter -s 2 -c 1 $S --device cuda bench filter --sos --log2-n 26 --runs 2 --no-check > /tmp/c/sos.txt 2>&1; echo "sos rc=$?"
for f in lns16 lns32; do
  timeout 60 $N -k regex:"stream|fused_partials|add" -c 6 $S --device cuda bench lns --format $f > /tmp/c/lns-$f.txt 2>&1; echo "lns $f rc=$?"
done
timeout 45 $N -k regex:"add_blend" -c 2 $S --device cuda bench clns > /tmp/c/clns.txt 2>&1; echo "clns rc=$?"
for f in /tmp/c/*.txt; do
  echo "== $f"
  grep -E "^  [a-z_0-9]+ |Duration|DRAM Throughput|Registers Per|Achieved Occ|Issue Slots|Executed Ipc A|Executed Instructions  |highest-utilized|Local Memory Spilling Requests  " $f | head -80
done
tar czf $OUT/counters.tgz -C /tmp/c .
