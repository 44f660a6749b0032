#!/bin/sh
# One FER sweep of a 5G NR code block with a release CLI: BPSK, AWGN, rv 0, 20 iterations
# (early termination on), Eb/N0 points, into NAME.json (the sweep file) and NAME.txt (the
# printed lines, with `uptime` before and after). The binary is $SIGPU (default: this
# worktree's release build).
# usage: sweep.sh NAME CODE POINTS MIN_ERRORS MAX_FRAMES SEED DECODER-FLAGS...
set -e
cd "$(dirname "$0")"
name=$1 code=$2 points=$3 min=$4 max=$5 seed=$6
shift 6
bin=${SIGPU:-../../../target/release/sigpu}
echo "${SIGPU_QC_RULE:+SIGPU_QC_RULE=$SIGPU_QC_RULE }sigpu ldpc simulate --code $code --modulation bpsk --eb-n0 $points --iterations 20 --early-termination --min-errors $min --max-frames $max --seed $seed $* --out $name.json" > $name.txt
uptime >> $name.txt
$bin ldpc simulate --code "$code" --modulation bpsk --eb-n0 "$points" --iterations 20 \
  --early-termination --min-errors "$min" --max-frames "$max" --seed "$seed" "$@" \
  --out "$name.json" --resume >> $name.txt 2>&1
uptime >> $name.txt
