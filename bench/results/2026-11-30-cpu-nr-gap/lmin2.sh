#!/bin/sh
# λ-min with β = 0.125 (one step at scale 8), which the β neighbours of lmin.sh found better
# than 0.25 on BG1 R = 1/3 and BG2: the three codes' crossings, seeds and flags as lmin.sh.
cd "$(dirname "$0")"
export SIGPU=${SIGPU:-/work/nrgap4-bin/sigpu-lmin}
./sweep.sh bg1-r13-lmin0.125-x nr:k=8448,n=25344 0.25,0.3,0.35 100 6000 23 --decoder lmin:0.125 --scale 8
./sweep.sh bg2-lmin0.125-x nr:k=1000,n=3000 0.6,0.7,0.8 200 30000 21 --decoder lmin:0.125 --scale 8
./sweep.sh bg1-r12-lmin0.125-x nr:k=8448,n=16896 0.85,0.9,0.95 100 6000 22 --decoder lmin:0.125 --scale 8
./sweep.sh bg1-r13-lmin0 nr:k=8448,n=25344 0.3 100 3000 23 --decoder lmin:0 --scale 8
