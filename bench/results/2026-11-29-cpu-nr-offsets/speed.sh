#!/bin/sh
# One worker thread on core 0, BG1 Z = 384 k = 8448, 10 iterations, 128 codewords per call,
# 8-bit LLRs at scale 8; `uptime` before every run (the machine is shared).
cd "$(dirname "$0")"
bin=../../../target/release/sigpu
for i in 1 2 3 4 5; do
  for rule in oms:0.5 aoms:0.5 nms:0.75; do
    echo "== run $i $rule: $(uptime | sed 's/.*load/load/')"
    taskset -c 0 $bin bench ldpc --device cpu --codes nr:k=8448,n=9126,nr:k=8448,n=25344 \
      --schedule layered --decoder $rule --scale 8 --iterations 10 --codewords 128 --threads 1 --runs 10
  done
done
