#!/bin/sh
# BG2 k = 1000 R = 1/3: adaptive offset min-sum with beta between the measured 0.375 / 0.5 /
# 0.625 (1/16 steps need LLR scale 16; scale 16 at beta 0.5 equals scale 8, see
# ../2026-11-29-cpu-nr-offsets), at 0.9 dB with 200 errors. Run at nice 19.
cd "$(dirname "$0")"
./sweep.sh bg2-aoms0.5625-s16 nr:k=1000,n=3000 0.9 200 60000 21 --decoder aoms:0.5625 --scale 16
./sweep.sh bg2-aoms0.4375-s16 nr:k=1000,n=3000 0.9 200 60000 21 --decoder aoms:0.4375 --scale 16
