#!/usr/bin/env bash
# Copies Debian's Open MPI 4.1.4 (openmpi-bin, libopenmpi3, libpmix2 installed on this machine)
# into .mpi/usr with every library it loads, so that it runs on a machine without MPI: source
# .mpi/env.sh there (OPAL_PREFIX relocates Open MPI; shared-memory transport only).
set -euo pipefail
cd "$(dirname "$0")/../../.."
rm -rf .mpi; P=.mpi/usr; L=$P/lib/x86_64-linux-gnu
mkdir -p $P/bin $L $P/share
cp /usr/bin/orterun /usr/bin/orted $P/bin/; ln -s orterun $P/bin/mpirun
cp -a /usr/lib/x86_64-linux-gnu/openmpi /usr/lib/x86_64-linux-gnu/pmix2 $L/
cp -a /usr/share/openmpi $P/share/
for f in /usr/lib/x86_64-linux-gnu/lib{mpi,open-rte,open-pal,mca_common_}*.so.40*; do cp -a "$f" $L/; done
# Every library those load, glibc's own excepted.
for f in $P/bin/orterun $P/bin/orted $(find $P/lib -name '*.so*' -type f); do ldd "$f" 2>/dev/null; done |
  awk '/=> \//{print $3}' | sort -u |
  grep -v -E '/lib(c|m|dl|pthread|rt|util)\.so|/ld-linux|openmpi/|pmix2/' | xargs -I{} cp -L {} $L/
rm -rf $L/*gfortran* $L/*usempi* $L/*mpifh* $L/*java* $L/liboshmem* $L/openmpi/include
find .mpi -name '*.la' -delete
cp bench/results/2026-11-27-h200x2-mpi/env.sh .mpi/env.sh
du -sh .mpi
