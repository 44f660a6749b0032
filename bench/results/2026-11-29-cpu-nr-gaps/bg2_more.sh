#!/bin/sh
# BG2 k = 1000 R = 1/3 around FER 1e-2 with more frames: adaptive offset min-sum (8-bit
# layered, the flags and seed of ../2026-11-29-cpu-nr-offsets/bg2-aoms) at 0.8 / 0.9 dB with
# 300 errors, and the float layered sum-product reference (the decoder, seed and flags of
# ../2026-11-29-cpu-nr-fer/bg2-spa; frame f of a point is the same frame there, so this
# extends that run) at 0.6 / 0.7 dB with 200 errors. Run at nice 19.
cd "$(dirname "$0")"
./sweep.sh bg2-aoms-more nr:k=1000,n=3000 0.8,0.9 300 60000 21 --decoder aoms:0.5 --scale 8
./sweep.sh bg2-spa-more nr:k=1000,n=3000 0.6,0.7 200 16000 21 --precision float --decoder spa --schedule layered
