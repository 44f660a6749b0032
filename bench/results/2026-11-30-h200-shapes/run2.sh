#!/bin/bash
# Second pass of the PLR shape search: shapes the first pass showed the kernel cannot build
# (256x64 f32: shared memory; 1024 threads plus the look-back warp) left out; outputs tarred.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 PATH=/usr/local/cuda/bin:$PATH
S=$PWD/.gpu/sigpu; chmod +x $S
PLR="default,128x16,128x32,256x8,256x16,256x32,384x16,384x32,512x8,512x16,512x32,768x16,768x32,256x16/4,256x32/3,512x16/3,512x32/2,256x16n,512x32n,992x16,992x32"
mkdir -p /tmp/o; i=0
for sig in "(0.2 : 0.8)|f32" "(0.9, -0.9 : 0.8)|f32" "(0.81, -1.62, 0.81 : 1.6, -0.64)|f32" "(1 : 1)|i32" "(1 : 1)|f32" "(1 : 0, 1)|i32" "(1 : 2, -1)|i32"; do
  i=$((i+1)); s=${sig%|*}; d=${sig#*|}
  timeout 120 $S --device cuda --json bench filter --signature "$s" --dtype $d --log2-n 26,28 --runs 10 --shapes "$PLR" --check-up-to 22 > /tmp/o/plr-$i.json 2> /tmp/o/plr-$i.err; echo "$s $d rc=$?"; tail -n 2 /tmp/o/plr-$i.err
done
python3 - <<'PY'
import json,glob
for f in sorted(glob.glob('/tmp/o/plr-*.json')):
    try: d=json.load(open(f))
    except Exception as e: print(f, 'unreadable', e); continue
    by={}
    for r in d.get('rows',[]): by.setdefault((r.get('signature'),r.get('dtype'),r['n']),[]).append(r)
    for k,rs in by.items():
        first=rs[0]
        rs2=sorted(rs,key=lambda r:-r['percent_of_copy'])
        print(k, 'default', first['shape'], round(first['percent_of_copy'],1), 'best:', [(r['shape'],round(r['percent_of_copy'],1)) for r in rs2[:4]])
PY
tar czf $OUT/plr.tgz -C /tmp/o .
