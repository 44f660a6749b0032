#!/bin/sh
# CPU seconds per 128-codeword batch, independent of other processes' load: the difference in
# user+sys time between a 22-run and a 2-run bench (setup and frame making cancel out).
B=${SIGPU:-./target/release/sigpu}
ARGS="bench ldpc --device cpu --codes ${CODE:-dvbt2-normal-1/2} --iterations 50 --schedule layered-compact --decoder oms:0.5 --scale 2"
t() { /usr/bin/time -f "%U %S" $B $ARGS --runs $1 2>&1 >/dev/null | tail -1 | awk '{print $1+$2}'; }
a=$(t 2); b=$(t 22)
echo "load $(cut -d' ' -f1-3 /proc/loadavg) cpu_s(2 runs)=$a cpu_s(22 runs)=$b" | awk -v a=$a -v b=$b '{per=(b-a)/20; print $0, "cpu_s_per_batch=" per}'
