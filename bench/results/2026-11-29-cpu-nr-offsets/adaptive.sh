#!/bin/sh
# Adaptive offset min-sum (aoms:0.5, 8-bit layered, scale 8) on the three codes of
# ../2026-11-29-cpu-nr-fer, same seeds and flags as its sweeps; then more float layered
# sum-product frames at BG1 R = 1/3 (the reference the earlier gap was measured against).
cd "$(dirname "$0")"
./sweep.sh bg1-r12-aoms nr:k=8448,n=16896 1.0:1.15:0.05 100 6000 22 --decoder aoms:0.5 --scale 8
./sweep.sh bg1-r13-aoms nr:k=8448,n=25344 0.4:0.6:0.05 100 6000 23 --decoder aoms:0.5 --scale 8
./sweep.sh bg2-aoms     nr:k=1000,n=3000 0.6:1.0:0.1 100 20000 21 --decoder aoms:0.5 --scale 8
