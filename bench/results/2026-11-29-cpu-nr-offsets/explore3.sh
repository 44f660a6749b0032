#!/bin/sh
# Exploration, third round: the core-row offset on BG1 R = 1/2 and BG2 R = 1/3.
cd "$(dirname "$0")"
while pgrep -f explore2.sh > /dev/null; do sleep 5; done
./exp.sh x12-h6l4  nr:k=8448,n=16896 1.0,1.05,1.1 100 3000 22 "12:o6,0:o4"
./exp.sh b2-h6l4   nr:k=1000,n=3000 0.8,0.9,1.0 100 10000 21 "8:o6,0:o4"
./exp.sh b2-h5l4   nr:k=1000,n=3000 0.8,0.9,1.0 100 10000 21 "8:o5,0:o4"
./exp.sh x12-h5l4  nr:k=8448,n=16896 1.0,1.05,1.1 100 3000 22 "12:o5,0:o4"
