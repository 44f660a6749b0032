#!/bin/sh
# Exploration, second round: the core rows (degree 19) want a larger correction.
cd "$(dirname "$0")"
C=nr:k=8448,n=25344
P=0.4,0.45,0.5
./exp.sh x13-h8l4  $C $P 100 2000 23 "12:o8,0:o4"
./exp.sh x13-hn12l4  $C $P 100 2000 23 "12:n12,0:o4"
./exp.sh x13-h10l4  $C $P 100 2000 23 "12:o10,0:o4"
./exp.sh x13-hn10l4  $C $P 100 2000 23 "12:n10,0:o4"
./exp.sh x13-h7l4  $C $P 100 2000 23 "12:o7,0:o4"
