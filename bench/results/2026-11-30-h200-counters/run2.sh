#!/bin/bash
# Second pass: the LNS streaming adds (lns16 SFU in u32 and u16 words, lns32 f32split) and the
# CLNS add blends (the SFU method among them), which the first pass's filters did not reach.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 PATH=/usr/local/cuda/bin:$PATH
S=$PWD/.gpu/sigpu; chmod +x $S
SEC="--section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis --section InstructionStats"
N="ncu --clock-control none $SEC"
mkdir -p /tmp/c2
for f in lns16 lns32; do
  timeout 60 $N -k regex:"lns_add_" -c 10 $S --device cuda bench lns --format $f > /tmp/c2/lns-add-$f.txt 2>&1; echo "lns $f rc=$?"
done
timeout 80 $N -k regex:"add_blend" -c 14 $S --device cuda bench clns > /tmp/c2/clns-blend.txt 2>&1; echo "clns rc=$?"
for f in /tmp/c2/*.txt; do
  echo "== $f"
  grep -E "^  [a-z_0-9]+ \(|Duration|DRAM Throughput|Registers Per|Achieved Occ|Issue Slots|Executed Ipc A|Executed Instructions  |highest-utilized" $f | head -70
done
tar czf $OUT/counters2.tgz -C /tmp/c2 .
