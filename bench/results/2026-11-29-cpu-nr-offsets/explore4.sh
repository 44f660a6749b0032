#!/bin/sh
# Exploration, fourth round: min1 corrected by b1 + g(min2 − min1) (g = 8·ln(1 + e^(−x)) scaled), min2 by b2.
cd "$(dirname "$0")"
while pgrep -f explore3.sh > /dev/null; do sleep 5; done
C=nr:k=8448,n=25344
P=0.4,0.45,0.5
G=2,4,1 ./exp.sh x13-g2-4-1  $C $P 100 2000 23 ""
G=0,4,1 ./exp.sh x13-g0-4-1  $C $P 100 2000 23 ""
G=2,4,0.5 ./exp.sh x13-g2-4-h  $C $P 100 2000 23 ""
G=1,5,1 ./exp.sh x13-g1-5-1  $C $P 100 2000 23 ""
