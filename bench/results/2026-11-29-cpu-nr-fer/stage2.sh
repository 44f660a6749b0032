#!/bin/sh
# What ran after the BG2 calibration (the time left on the shared 2-core machine decided the
# frame counts): the BG1 8-bit default, plain min-sum, float sum-product, the peer check.
cd "$(dirname "$0")"
./sweep.sh bg1-r12-8bit   nr:k=8448,n=16896 1.0:1.35:0.05 100 3000 22 --decoder oms:0.5 --scale 8
./sweep.sh bg1-r13-8bit   nr:k=8448,n=25344 0.4:0.75:0.05 100 3000 23 --decoder oms:0.5 --scale 8
./sweep.sh bg2-minsum     nr:k=1000,n=3000 0.9:2.1:0.3 100 10000 21 --decoder minsum --scale 8
./peer_check.sh
./sweep.sh bg1-r12-spa    nr:k=8448,n=16896 1.0,1.1 100 1500 22 --precision float --decoder spa --schedule layered
./sweep.sh bg1-r13-spa    nr:k=8448,n=25344 0.4,0.5 100 1500 23 --precision float --decoder spa --schedule layered
./sweep.sh bg1-r12-minsum nr:k=8448,n=16896 1.3:2.5:0.4 100 1500 22 --decoder minsum --scale 8
./sweep.sh bg1-r13-minsum nr:k=8448,n=25344 0.7:1.9:0.4 100 1500 23 --decoder minsum --scale 8
