#!/bin/sh
# One 8-bit FER sweep with a per-row rule override (SIGPU_QC_ROWB, exploration build only):
# usage: exp.sh NAME CODE POINTS MIN MAX SEED SPEC
set -e
cd "$(dirname "$0")"
name=$1 code=$2 points=$3 min=$4 max=$5 seed=$6 spec=$7
bin=../../../target/release/sigpu
echo "SIGPU_QC_G=$G SIGPU_QC_ROWB=$spec sigpu ldpc simulate --code $code --modulation bpsk --eb-n0 $points --iterations 20 --early-termination --min-errors $min --max-frames $max --seed $seed --decoder oms:0.5 --scale 8 --out $name.json" > $name.txt
env ${G:+SIGPU_QC_G=$G} SIGPU_QC_ROWB=$spec $bin ldpc simulate --code "$code" --modulation bpsk --eb-n0 "$points" --iterations 20 \
  --early-termination --min-errors "$min" --max-frames "$max" --seed "$seed" --decoder oms:0.5 --scale 8 \
  --out "$name.json" >> $name.txt 2>&1
