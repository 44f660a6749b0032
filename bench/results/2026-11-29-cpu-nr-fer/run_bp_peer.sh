#!/bin/sh
# The independent numpy flooding BP at one point per code (20 iterations, BPSK, AWGN, rv 0).
cd "$(dirname "$0")/../../.."
P=bench/peers/nr_bp_numpy.py
OUT=bench/results/2026-11-29-cpu-nr-fer/bp_peer.jsonl
: > $OUT
python3 $P 2 1000 3000 0.5 1000 20 11 32 >> $OUT
python3 $P 1 8448 16896 1.0 500 20 12 16 >> $OUT
python3 $P 1 8448 25344 0.4 500 20 13 16 >> $OUT
