#!/usr/bin/env bash
# One measurement round (see COMMAND.md): machine load, CPU copy, the section engine, the
# Python package against scipy in one process, and `sigpu filter` end to end against scipy.
# usage: bench/results/2026-11-27-cpu2-sosfilt/run.sh TAG WHEEL_DIR
set -euo pipefail
cd "$(dirname "$0")/../../.."
tag=$1 wheel=$2 out=bench/results/2026-11-27-cpu2-sosfilt
py=.cache/python/bin/python
{ date -u; uptime; } > "$out/$tag-load.txt"
target/release/sigpu --json bench copy --device cpu --size-mib 32 --runs 20 > "$out/$tag-copy.json"
for f in butter8 butter8-0.02; do
  target/release/sigpu --json bench filter --sos "$f" --device cpu --log2-n 22,24 --runs 9 \
    --warmup 2 --check-up-to 22 > "$out/$tag-engine-$f.json"
done
PYTHONPATH=$wheel "$py" "$out/sosbench.py" --rounds 9 --log2-n 22,24 --lfilter > "$out/$tag-python.txt"
"$py" bench/peers/filter_cpu.py --sigpu target/release/sigpu --log2-n 22 --runs 5 \
  --json "$out/$tag-cli-2e22.json" > "$out/$tag-cli-2e22.txt"
{ date -u; uptime; } >> "$out/$tag-load.txt"
