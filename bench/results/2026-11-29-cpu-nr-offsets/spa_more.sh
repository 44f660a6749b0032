#!/bin/sh
# More float layered sum-product frames for the reference (the same decoder, seeds and flags
# as ../2026-11-29-cpu-nr-fer; frame f of a point is the same frame there, so these extend
# those runs): BG1 R = 1/2 at 0.85 / 0.9 dB, then BG1 R = 1/3 below 0.2 dB. Run at nice 19.
cd "$(dirname "$0")"
./sweep.sh bg1-r12-spa-more nr:k=8448,n=16896 0.85,0.9 60 1800 22 --precision float --decoder spa --schedule layered
./sweep.sh bg1-r13-spa-more nr:k=8448,n=25344 0.1,0.15 60 600 23 --precision float --decoder spa --schedule layered
