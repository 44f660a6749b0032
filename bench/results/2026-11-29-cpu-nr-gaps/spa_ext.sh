#!/bin/sh
# More float layered sum-product frames for the BG1 R = 1/3 reference at 0.2 and 0.25 dB (the
# decoder, seed and flags of ../2026-11-29-cpu-nr-fer/bg1-r13-spa-lo; --resume extends that
# run's 300 frames per point, frame f being the same frame). Run at nice 19.
cd "$(dirname "$0")"
./sweep.sh bg1-r13-spa-ext nr:k=8448,n=25344 0.2,0.25 40 1500 23 --precision float --decoder spa --schedule layered
