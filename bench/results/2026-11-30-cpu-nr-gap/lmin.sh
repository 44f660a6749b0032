#!/bin/sh
# Step 3: λ-min offset min-sum (lmin:0.25, 8-bit layered at scale 8: the quasi-cyclic
# decoder) with the release CLI of this branch, on the three codes of the earlier sweeps with
# their seeds and flags (BG1 R = 1/3 seed 23, BG1 R = 1/2 seed 22, BG2 seed 21); then β
# beside 0.25 on BG1 R = 1/3 and BG2.
cd "$(dirname "$0")"
export SIGPU=${SIGPU:-/work/nrgap4-bin/sigpu-lmin}
./sweep.sh bg1-r13-lmin nr:k=8448,n=25344 0.25,0.3,0.35,0.4 100 6000 23 --decoder lmin:0.25 --scale 8
./sweep.sh bg2-lmin nr:k=1000,n=3000 0.6,0.7,0.8 200 30000 21 --decoder lmin:0.25 --scale 8
./sweep.sh bg1-r12-lmin nr:k=8448,n=16896 0.9,0.95,1.0,1.05 100 6000 22 --decoder lmin:0.25 --scale 8
./sweep.sh bg1-r13-lmin0.125 nr:k=8448,n=25344 0.3,0.35 100 3000 23 --decoder lmin:0.125 --scale 8
./sweep.sh bg1-r13-lmin0.375 nr:k=8448,n=25344 0.3,0.35 100 3000 23 --decoder lmin:0.375 --scale 8
./sweep.sh bg2-lmin0.125 nr:k=1000,n=3000 0.7,0.8 200 30000 21 --decoder lmin:0.125 --scale 8
./sweep.sh bg2-lmin0.375 nr:k=1000,n=3000 0.7,0.8 200 30000 21 --decoder lmin:0.375 --scale 8
