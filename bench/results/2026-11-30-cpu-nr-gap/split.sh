#!/bin/sh
# Step 1: the same check-node rules in f32 (unquantised channel LLRs and messages, the same
# layered schedule, 20 iterations) as the 8-bit runs of ../2026-11-29-cpu-nr-offsets, BG1
# k = 8448 R = 1/3, seed 23. Binary: the release CLI of main at dbce486.
cd "$(dirname "$0")"
export SIGPU=${SIGPU:-/work/nrgap4-bin/sigpu}
./sweep.sh f13-oms0.5  nr:k=8448,n=25344 0.3,0.35,0.4,0.45,0.5,0.55 100 3000 23 --precision float --schedule layered --decoder oms:0.5
./sweep.sh f13-aoms0.5 nr:k=8448,n=25344 0.3,0.35,0.4,0.45,0.5,0.55 100 3000 23 --precision float --schedule layered --decoder aoms:0.5
: ./sweep.sh f13-nms0.75 nr:k=8448,n=25344 0.3,0.35,0.4,0.45,0.5 100 3000 23 --precision float --schedule layered --decoder nms:0.75
