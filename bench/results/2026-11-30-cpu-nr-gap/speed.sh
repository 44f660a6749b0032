#!/bin/sh
# Indicative only (shared machine under load; `uptime` in the file): the 8-bit layered
# quasi-cyclic decoder's speed with OMS 0.5, AOMS 0.5 and λ-min 0.125, run alternately, one
# thread, 10 iterations, scale 8, BG1 k = 8448 at R = 1/3 and at the high rate n = 9126.
cd "$(dirname "$0")"
bin=${SIGPU:-/work/nrgap4-bin/sigpu-lmin}
for round in 1 2; do
  for code in nr:k=8448,n=25344 nr:k=8448,n=9126; do
    for rule in oms:0.5 aoms:0.5 lmin:0.125; do
      uptime
      $bin bench ldpc --codes $code --iterations 10 --decoder $rule --schedule layered --scale 8 --threads 1 --runs 5 2>&1
    done
  done
done
