#!/bin/bash
# Third pass of the PLR shape search: one invocation per shape (a shape the kernel cannot
# build or launch fails alone), outputs tarred.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 PATH=/usr/local/cuda/bin:$PATH
S=$PWD/.gpu/sigpu; chmod +x $S
BA="default 128x16 128x32 128x64 256x8 256x16 256x32 512x8 512x16 256x16/4 256x32/3 512x16/3 256x16n 256x32n 256x16d"
PS="default 256x16 256x32 512x8 512x16 512x32 512x32/2 512x16/3 512x32n 128x64 1024x8 768x16"
mkdir -p /tmp/o; i=0
for sig in "(0.2 : 0.8)|f32" "(0.9, -0.9 : 0.8)|f32" "(0.81, -1.62, 0.81 : 1.6, -0.64)|f32" "(1 : 1)|i32" "(1 : 1)|f32" "(1 : 0, 1)|i32" "(1 : 2, -1)|i32"; do
  i=$((i+1)); s=${sig%|*}; d=${sig#*|}; L=$BA; [ $i -ge 4 ] && L=$PS
  for sh in $L; do
    f=/tmp/o/plr-$i-${sh//\//_}
    timeout 60 $S --device cuda --json bench filter --signature "$s" --dtype $d --log2-n 26,28 --runs 10 --shapes "$sh" --check-up-to 22 > $f.json 2> $f.err || echo "$s $d $sh failed: $(tail -n 1 $f.err | cut -c1-150)"
  done
done
python3 - <<'PY'
import json,glob
by={}
for f in sorted(glob.glob('/tmp/o/plr-*.json')):
    try: d=json.load(open(f))
    except Exception: continue
    req=f.split('-',2)[2][:-5]
    for r in d.get('rows',[]): by.setdefault((r.get('signature'),r.get('dtype'),r['n']),[]).append((req,r['shape'],r['percent_of_copy']))
for k,rs in by.items():
    dflt=[x for x in rs if x[0]=='default']
    rs2=sorted(rs,key=lambda x:-x[2])
    print(k, 'default', [(x[1],round(x[2],1)) for x in dflt], 'best:', [(x[0],round(x[2],1)) for x in rs2[:4]])
PY
tar czf $OUT/plr.tgz -C /tmp/o .
