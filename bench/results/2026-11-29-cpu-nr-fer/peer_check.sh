#!/bin/sh
# sigpu's float flooding sum-product at the numpy BP peer's points (20 iterations, no early
# termination, as the peer runs).
cd "$(dirname "$0")"
bin=../../../target/release/sigpu
run() { # NAME CODE EBN0 FRAMES
  echo "sigpu ldpc simulate --code $2 --modulation bpsk --eb-n0 $3 --iterations 20 --precision float --decoder spa --schedule flooding --min-errors 100000 --max-frames $4 --seed 31 --json" > $1.txt
  $bin --json ldpc simulate --code $2 --modulation bpsk --eb-n0 $3 --iterations 20 --precision float \
    --decoder spa --schedule flooding --min-errors 100000 --max-frames $4 --seed 31 > $1.json 2>> $1.txt
}
run peer-bg2-k1000-r13 nr:k=1000,n=3000 0.5 1500
run peer-bg1-k8448-r12 nr:k=8448,n=16896 1.0 300
run peer-bg1-k8448-r13 nr:k=8448,n=25344 0.4 300
