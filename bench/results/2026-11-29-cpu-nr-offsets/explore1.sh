#!/bin/sh
# Exploration: per-degree offsets on BG1 k=8448 R=1/3 (the worst gap), 8-bit layered, scale 8.
cd "$(dirname "$0")"
C=nr:k=8448,n=25344
P=0.4,0.45,0.5
./exp.sh x13-base  $C $P 100 2000 23 ""
./exp.sh x13-h4l3  $C $P 100 2000 23 "12:o4,0:o3"
./exp.sh x13-h4l5  $C $P 100 2000 23 "12:o4,0:o5"
./exp.sh x13-h5l4  $C $P 100 2000 23 "12:o5,0:o4"
./exp.sh x13-h6l4  $C $P 100 2000 23 "12:o6,0:o4"
./exp.sh x13-h3l4  $C $P 100 2000 23 "12:o3,0:o4"
