#!/bin/sh
# Adaptive offset min-sum's β on BG2 k = 1000 R = 1/3 (0.5 misses the 0.2 dB target by 0.01 dB).
cd "$(dirname "$0")"
./sweep.sh bg2-aoms0.625 nr:k=1000,n=3000 0.8,0.9 100 20000 21 --decoder aoms:0.625 --scale 8
./sweep.sh bg2-aoms0.375 nr:k=1000,n=3000 0.8,0.9 100 20000 21 --decoder aoms:0.375 --scale 8
# The LLR scale: 16 steps per unit (a finer table).
./sweep.sh bg2-aoms-s16 nr:k=1000,n=3000 0.8,0.9 100 20000 21 --decoder aoms:0.5 --scale 16
./sweep.sh bg1-r13-aoms-s16 nr:k=8448,n=25344 0.45,0.5 100 6000 23 --decoder aoms:0.5 --scale 16
