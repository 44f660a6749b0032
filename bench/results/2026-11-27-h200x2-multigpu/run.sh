#!/usr/bin/env bash
# One device call on a two-GPU H100 host: the multi-GPU acceptance (run_sim.sh: self-checks on
# every GPU, ldpc simulate --device all vs cuda:0), the fused LNS reduction's checks and
# benchmark (../2026-11-27-h200-lns-reduce/run.sh) and the Python direct-path measurement
# (../2026-11-27-h200-python-direct/run.sh). Each part writes into its own folder under /tmp;
# they come back packed, one archive per part, under $OUT.
#   .gpu/: the stripped release sigpu and the Python package (sigpu/ with _native.abi3.so).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-} PYTHONUNBUFFERED=1 SIGPU_KERNEL_CACHE=/tmp/sigpu-kc
B=bench/results
SECONDS=0
S=.gpu/sigpu R=/tmp/r-multigpu timeout 330 bash $B/2026-11-27-h200x2-multigpu/run_sim.sh 2>&1 | tee /tmp/r-multigpu.log
tar -czf $OUT/multigpu.tgz -C /tmp r-multigpu r-multigpu.log
echo "== multigpu part done after $SECONDS s"
OUT=/tmp/r-reduce timeout 100 bash $B/2026-11-27-h200-lns-reduce/run.sh > /dev/null 2>&1
tail -25 /tmp/r-reduce/log.txt; tar -czf $OUT/reduce.tgz -C /tmp r-reduce
echo "== reduce part done after $SECONDS s"
OUT=/tmp/r-python timeout 150 bash $B/2026-11-27-h200-python-direct/run.sh 2>&1 | tee /tmp/r-python.log
tar -czf $OUT/python.tgz -C /tmp r-python r-python.log
echo "== all done after $SECONDS s"
