#!/bin/sh
# One FER sweep of a 5G NR code block with the release CLI: BPSK, AWGN, rv 0, 20 iterations
# (early termination on: a batch stops once every word checks), Eb/N0 points, into NAME.json
# (the sweep file) and NAME.txt (the printed lines).
# usage: sweep.sh NAME CODE POINTS MIN_ERRORS MAX_FRAMES SEED DECODER-FLAGS...
set -e
cd "$(dirname "$0")"
name=$1 code=$2 points=$3 min=$4 max=$5 seed=$6
shift 6
bin=../../../target/release/sigpu
echo "sigpu ldpc simulate --code $code --modulation bpsk --eb-n0 $points --iterations 20 --early-termination --min-errors $min --max-frames $max --seed $seed $* --out $name.json" > $name.txt
$bin ldpc simulate --code "$code" --modulation bpsk --eb-n0 "$points" --iterations 20 \
  --early-termination --min-errors "$min" --max-frames "$max" --seed "$seed" "$@" \
  --out "$name.json" --resume >> $name.txt 2>&1
