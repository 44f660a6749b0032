#!/bin/sh
# BG1 k = 8448 at R = 1/2 and 1/3: float layered sum-product, the 8-bit default, plain min-sum.
cd "$(dirname "$0")"
DEF=${DEF:---decoder oms:0.5 --scale 8}
./sweep.sh bg1-r12-spa    nr:k=8448,n=16896 0.95:1.2:0.05 100 3000 22 --precision float --decoder spa --schedule layered
./sweep.sh bg1-r12-8bit   nr:k=8448,n=16896 1.0:1.35:0.05 100 3000 22 $DEF
./sweep.sh bg1-r13-spa    nr:k=8448,n=25344 0.35:0.6:0.05 100 3000 23 --precision float --decoder spa --schedule layered
./sweep.sh bg1-r13-8bit   nr:k=8448,n=25344 0.4:0.75:0.05 100 3000 23 $DEF
./sweep.sh bg1-r12-minsum nr:k=8448,n=16896 1.2:2.4:0.3 100 3000 22 --decoder minsum --scale 8
./sweep.sh bg1-r13-minsum nr:k=8448,n=25344 0.6:1.8:0.3 100 3000 23 --decoder minsum --scale 8
