#!/bin/sh
# Exploration, fifth round: around b1 = 2, b2 = 4, g scale 0.5.
cd "$(dirname "$0")"
C=nr:k=8448,n=25344
P=0.4,0.45,0.5
G=3,4,0.5 ./exp.sh x13-g3-4-h  $C $P 100 2000 23 ""
G=2,5,0.5 ./exp.sh x13-g2-5-h  $C $P 100 2000 23 ""
G=1,4,0.75 ./exp.sh x13-g1-4-t  $C $P 100 2000 23 ""
G=3,4,0.25 ./exp.sh x13-g3-4-q  $C $P 100 2000 23 ""
G=2,3,0.5 ./exp.sh x13-g2-3-h  $C $P 100 2000 23 ""
