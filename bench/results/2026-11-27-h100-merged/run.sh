#!/bin/bash
# Merged main on the H100: all self-checks, fused-sum checks over 30 seeds, certificates of the
# new lns methods, LNS/prefix-sum benches with torch peers, then the LDPC table with Sionna.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 SIGPU_KERNEL_CACHE=/tmp/sigpu-kc
S=.gpu/sigpu; R=$OUT/a; mkdir -p $R/fused; SECONDS=0
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
timeout 150 $S --json check --device cuda --seed 62 > $R/check.json 2> $R/check.err; echo "check rc $? ${SECONDS}s"
python3 - $R/check.json <<'PY'
import json,sys
d=json.load(open(sys.argv[1]))
rows=d if isinstance(d,list) else next((v for v in d.values() if isinstance(v,list)),[])
bad=[r for r in rows if not (r.get('passed') or r.get('ok') or r.get('status') in ('pass','passed'))]
print('checks', len(rows), 'failed', len(bad)); [print(json.dumps(r)[:600]) for r in bad]
PY
seq 1 30 | timeout 60 xargs -P 8 -I{} sh -c '"$0" --json check --device cuda --filter lns/fused --seed {} > "$1/fused/s{}.json" 2>&1' "$S" "$R"
python3 - $R/fused <<'PY'
import json,sys,glob
n=0;bad=0
for f in glob.glob(sys.argv[1]+'/*.json'):
    try:
        d=json.load(open(f)); rows=d if isinstance(d,list) else next((v for v in d.values() if isinstance(v,list)),[])
    except Exception as e: print('unreadable',f,open(f).read()[-300:]); bad+=1; continue
    for r in rows:
        n+=1
        if not (r.get('passed') or r.get('ok') or r.get('status') in ('pass','passed')): bad+=1; print(f, json.dumps(r)[:400])
print('fused checks', n, 'failed', bad)
PY
echo "fused seeds ${SECONDS}s"
timeout 30 $S lns certify --device cuda --format lns16 --method all > $R/certify-lns16.txt 2>&1; echo "certify16 rc $?"; tail -14 $R/certify-lns16.txt
timeout 60 $S --json bench lns --device cuda --format lns32 > $R/bench-lns32.json 2> $R/bench-lns32.err; echo "bench lns32 rc $? ${SECONDS}s"
timeout 60 $S --json bench lns --device cuda --format lns16 > $R/bench-lns16.json 2> $R/bench-lns16.err; echo "bench lns16 rc $? ${SECONDS}s"
timeout 60 python3 bench/peers/reduce_torch.py > $R/torch-reduce.jsonl 2>&1; echo "torch rc $?"
for t in i32 f32; do timeout 40 $S --json bench filter --device cuda --signature "(1 : 1)" --dtype $t --log2-n 28,30,28 --no-check > $R/scan-$t.json 2> $R/scan-$t.err; echo "scan $t rc $? ${SECONDS}s"; done
S=$S R=$OUT/ldpc W=.whl timeout 330 bash bench/results/2026-11-27-h100-ldpc-table/run.sh
echo "all ${SECONDS}s"
cd $OUT && tar czf a.tgz a ldpc
