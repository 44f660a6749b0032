#!/bin/sh
# Calibration on BG2 k = 1000 R = 1/3 (the code the old default missed by 0.3 dB).
cd "$(dirname "$0")"
C=nr:k=1000,n=3000
P=0.5:1.1:0.1
./sweep.sh bg2-spa      $C $P 100 10000 21 --precision float --decoder spa --schedule layered
./sweep.sh bg2-oms0.5   $C $P 100 10000 21 --decoder oms:0.5 --scale 8
./sweep.sh bg2-nms0.75  $C $P 100 10000 21 --decoder nms:0.75 --scale 8
./sweep.sh bg2-minsum   $C 0.8:2.0:0.3 100 10000 21 --decoder minsum --scale 8
