#!/bin/sh
# Interleaved before/after rounds on the 2-core build machine; see COMMAND.md.
# usage: run.sh TAG OLD_WHEEL_DIR NEW_WHEEL_DIR
set -e
tag=$1; old=$2; new=$3
P=${PYTHON:-/tmp/ciclone/.cache/python/bin/python}
here=$(dirname "$0")
for r in 1 2 3; do
  uptime
  PYTHONPATH=$old $P "$here/lfq.py" 7
  PYTHONPATH=$new $P "$here/lfq.py" 7
done > "$here/$tag-python.txt" 2>&1
cat "$here/$tag-python.txt"
