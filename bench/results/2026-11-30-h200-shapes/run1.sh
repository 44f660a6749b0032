#!/bin/bash
# Launch-shape search on the H200 for the PLR (b, a) / prefix-sum kernel and the fused sosfilt
# cascade (the library's defaults were measured on an H100), then ncu on the Python LNS tensors'
# logsumexp rows and tiled matmul at full size.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 PATH=/usr/local/cuda/bin:$PATH
S=$PWD/.gpu/sigpu; chmod +x $S
rm -rf /tmp/site; python3 -m zipfile -e .gpu/sigpu-*.whl /tmp/site >/dev/null; export PYTHONPATH=/tmp/site
step() { echo; echo "== $1 ($(date +%T))"; }
PLR="default,128x16,128x32,256x8,256x16,256x32,256x64,384x16,384x32,512x8,512x16,512x32,512x64,768x16,768x32,1024x8,1024x16,1024x32,256x16/4,256x32/3,512x16/3,512x32/2,256x16n,512x32n"
SOS="default,128x32,128x64,192x32,256x16,256x24,256x32,320x32,384x16,384x24,512x16,640x16,256x32c2,256x32c4,128x64c2,256x32/3,256x32/4,384x16/3,512x16/2,256x16/4,384x24/2,128x32/8"
i=0
for sig in "(0.2 : 0.8)|f32" "(0.9, -0.9 : 0.8)|f32" "(0.81, -1.62, 0.81 : 1.6, -0.64)|f32" "(1 : 1)|i32" "(1 : 1)|f32" "(1 : 0, 1)|i32" "(1 : 2, -1)|i32"; do
  i=$((i+1)); s=${sig%|*}; d=${sig#*|}
  step "PLR $s $d"
  timeout 150 $S --device cuda --json bench filter --signature "$s" --dtype $d --log2-n 26,28 --runs 10 --shapes "$PLR" --check-up-to 22 > $OUT/plr-$i.json 2> $OUT/plr-$i.err; echo rc=$?; tail -n 2 $OUT/plr-$i.err
done
step "sosfilt butter8"
timeout 200 $S --device cuda --json bench filter --sos --log2-n 26,28 --runs 10 --sos-shapes "$SOS" --check-up-to 22 > $OUT/sos.json 2> $OUT/sos.err; echo rc=$?; tail -n 2 $OUT/sos.err
python3 - <<'PY'
import json,glob,os
out=os.environ['OUT']
for f in sorted(glob.glob(out+'/plr-*.json'))+[out+'/sos.json']:
    try: d=json.load(open(f))
    except Exception as e: print(f, 'unreadable', e); continue
    rows=d.get('rows',[])
    by={}
    for r in rows: by.setdefault((r.get('signature'),r.get('dtype'),r['n']),[]).append(r)
    for k,rs in by.items():
        rs.sort(key=lambda r:-r['percent_of_copy'])
        dflt=[r for r in rs if r.get('default') or r.get('shape_requested')=='default']
        print(k, 'best:', [(r['shape'],round(r['percent_of_copy'],1)) for r in rs[:5]], '| all:', len(rs))
PY
step "ncu: logsumexp (2^20, 64) f32 lns32 and lns16, matmul 2048^3"
cat > /tmp/lse.py <<'PY'
import torch, sys
from sigpu import lns
x = torch.randn(1 << 20, 64, device="cuda")
for fmt in ("lns32", "lns16"):
    for _ in range(2): lns.logsumexp(x, -1, format=fmt)
a = lns.Tensor.from_float(torch.randn(2048, 2048, device="cuda"), "lns16", torch.int16)
b = lns.Tensor.from_float(torch.randn(2048, 2048, device="cuda"), "lns16", torch.int16)
c = a @ b
torch.cuda.synchronize()
PY
SEC="--section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section InstructionStats"
timeout 200 ncu --clock-control none $SEC -k regex:"log_rows|log_block|matmul" python3 /tmp/lse.py > $OUT/lns-ncu.txt 2>&1; echo rc=$?
grep -E "^  [a-z_0-9]+|Duration|DRAM Throughput|Registers|Achieved Occ|Theoretical Occ|Issue Slots|Executed Ipc A|Executed Instructions  |highest-utilized|Stall|Local Memory Spilling Requests  " $OUT/lns-ncu.txt | head -80
