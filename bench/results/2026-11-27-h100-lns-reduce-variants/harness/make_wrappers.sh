#!/bin/bash
# One translation unit per variant name: base = crates/lns/kernels/reduce.cu of f60aebe (copied
# as reduce_base.cu); the others include reduce_var.cu with the switches the name spells:
# pf1 / pf2 RED_PF (L2 bulk prefetch 1 / 2 grid iterations ahead), f2s RED_F2S, u4 RED_U4,
# v4 RED_V4, m3 / m5 / m6 RED_MINB. Usage: make_wrappers.sh NAME...
for v in "$@"; do
  defs=""; src=reduce_var.cu
  [ "$v" = base ] && src=reduce_base.cu
  [[ $v == *pf1* ]] && defs="$defs#define RED_PF 1\n"
  [[ $v == *pf2* ]] && defs="$defs#define RED_PF 2\n"
  [[ $v == *f2s* ]] && defs="$defs#define RED_F2S 1\n"
  [[ $v == *u4* ]] && defs="$defs#define RED_U4 1\n"
  [[ $v == *v4* ]] && defs="$defs#define RED_V4 1\n"
  [[ $v == *m3* ]] && defs="$defs#define RED_MINB 3\n"
  [[ $v == *m5* ]] && defs="$defs#define RED_MINB 5\n"
  [[ $v == *m6* ]] && defs="$defs#define RED_MINB 6\n"
  printf "$defs" > lns_$v.cu
  cat >> lns_$v.cu <<EOT
#define lns_fused_partials lns_fused_partials_$v
#define lns_fused_partials_narrow lns_fused_partials_narrow_$v
#define lns_fused_finish lns_fused_finish_$v
#define red_block red_block_$v
#include "$src"
void run_$v(int F, int L, const double* c, unsigned rmask, int rshift, const unsigned* xs, const unsigned* ys,
            long long n, void* parts, int blocks, unsigned* out) {
    LnsFmt f{F, L};
    ExpPoly e{c[0], c[1], c[2], c[3], rmask, rshift};
    lns_fused_partials_narrow_$v<<<blocks, 256>>>(f, e, xs, ys, n, (Partial*)parts);
    lns_fused_finish_$v<<<1, 1024>>>(f, (const Partial*)parts, blocks, out);
}
EOT
done
