set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 PATH=/usr/local/cuda/bin:$PATH SIGPU_KERNEL_CACHE=/tmp/sigpu-kc SIGPU_TUNING_CACHE=off
S=$PWD/.gpu/sigpu; R=/tmp/p; mkdir -p $R
rm -rf /tmp/site; python3 -m zipfile -e .gpu/sigpu-*.whl /tmp/site >/dev/null; export PYTHONPATH=/tmp/site
timeout 200 python3 .gpu/grad_prof.py > $R/grad_prof.txt 2>&1; echo "prof rc=$?"
N="ncu --clock-control none --section SpeedOfLight --section ComputeWorkloadAnalysis --section InstructionStats --section WarpStateStats --section SchedulerStats --section Occupancy"
timeout 100 $N -k regex:sos_filter -s 2 -c 1 $S --device cuda bench filter --sos --log2-n 26 --runs 2 --no-check > $R/sos-ncu.txt 2>&1; echo "sos ncu rc=$?"
timeout 100 $N --metrics smsp__inst_executed.sum,sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active -k regex:'^ldpc_nr_layered8$' -s 3 -c 1 $S --device cuda bench ldpc --codes nr:k=8448,n=25344 --schedule layered --decoder oms:0.5 --scale 8 --iterations 5 --runs 2 > $R/nr-ncu.txt 2>&1; echo "nr ncu rc=$?"
timeout 100 $N -k regex:log_rows_f32 -s 4 -c 2 python3 bench/peers/lns_tensor_bench.py --size 2048 > $R/lse-ncu.txt 2>&1; echo "lse ncu rc=$?"
tar czf $OUT/prof.tgz -C $R .
