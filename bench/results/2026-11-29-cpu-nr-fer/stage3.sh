#!/bin/sh
# Float layered sum-product on BG1 turned out far ahead of the flooding peer's points (0 of 1500
# frames failed at R = 1/2, 1.0 dB): lower points, fewer frames (the time left), then plain
# min-sum on BG1 and BG2's last points.
cd "$(dirname "$0")"
./sweep.sh bg1-r12-spa-lo nr:k=8448,n=16896 0.85,0.9 60 600 22 --precision float --decoder spa --schedule layered
# (bg1-r13-spa: 0.3,0.35 60 400, started by hand alongside)
./sweep.sh bg1-r12-minsum nr:k=8448,n=16896 1.3:2.5:0.4 100 1500 22 --decoder minsum --scale 8
./sweep.sh bg1-r13-minsum nr:k=8448,n=25344 0.7:1.9:0.4 100 1500 23 --decoder minsum --scale 8
./sweep.sh bg2-minsum     nr:k=1000,n=3000 0.9:2.7:0.3 100 10000 21 --decoder minsum --scale 8
./sweep.sh bg1-r13-spa-lo nr:k=8448,n=25344 0.2,0.25 40 300 23 --precision float --decoder spa --schedule layered   # started by hand alongside
