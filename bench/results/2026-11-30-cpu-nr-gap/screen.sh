#!/bin/sh
# Step 2, screening: rules of the scratch decoder (crates/ldpc/examples/nr_rule_explore.rs,
# release build) on BG1 k = 8448 R = 1/3 at Eb/N0 0.4 dB (float sum-product is at FER ~1e-4
# there; a rule within 0.2 dB of it must reach ~1e-2), seed 23, 50 errors or 640 frames.
# usage: screen.sh NAME RULE [POINTS] [MIN] [MAX]   -> NAME.json, a line appended to screen.txt
cd "$(dirname "$0")"
X=${X:-/work/nrgap4-bin/nr_rule_explore}
name=$1 rule=$2 pts=${3:-0.4} min=${4:-50} max=${5:-640}
echo "# $(uptime)" >> screen.txt
nice $X 8448 25344 23 "$pts" "$min" "$max" "$name.json" "$rule" | sed "s/^/$name: /" >> screen.txt
