#!/bin/bash
# One translation unit per variant: base = crates/lns/kernels/reduce.cu of main before this change
# (reduce_base.cu, kernel lns_fused_partials_narrow, 1024-entry table, degree-4 polynomial);
# new* = the crate's new reduce.cu (copied next to this script as reduce.cu): new and its
# switches i2f (RED_I2F: r by an int-to-f64 conversion), cpa2 (RED_CPA=2: cp.async staging one
# iteration ahead), narrow (the runtime-format narrow kernel instead of lns_fused_partials_lns32).
for v in base new new_narrow new_i2f new_cpa2; do
  defs=""; src=reduce.cu; k=lns_fused_partials_lns32
  [ $v = base ] && { src=reduce_base.cu; k=lns_fused_partials_narrow; }
  [ $v = new_narrow ] && k=lns_fused_partials_narrow
  [[ $v == *i2f* ]] && defs="$defs#define RED_I2F 1\n"
  [[ $v == *cpa2* ]] && defs="$defs#define RED_CPA 2\n"
  printf "$defs" > lns_$v.cu
  cat >> lns_$v.cu <<EOT
#define lns_fused_partials lns_fused_partials_$v
#define lns_fused_partials_narrow lns_fused_partials_narrow_$v
#define lns_fused_partials_lns32 lns_fused_partials_lns32_$v
#define lns_fused_partials_lns16 lns_fused_partials_lns16_$v
#define lns_fused_finish lns_fused_finish_$v
#define red_block red_block_$v
#include "$src"
#define KNAME(x) x##_$v
void run_$v(int F, int L, const double* c, const unsigned* xs, const unsigned* ys, long long n, void* parts,
            int blocks, unsigned* out) {
    LnsFmt f{F, L};
    const int rs = F - EXP_TBITS;
    ExpPoly e;
    double* ce = reinterpret_cast<double*>(&e);
    for (int k = 0; k < (int)((sizeof(ExpPoly) - 8) / 8); ++k) ce[k] = c[k];  // the coefficients, then rmask, rshift
    e.rmask = (1u << rs) - 1u;
    e.rshift = rs;
    $k<<<blocks, 256>>>(f, e, xs, ys, n, (Partial*)parts);
    lns_fused_finish_$v<<<1, 1024>>>(f, (const Partial*)parts, blocks, out);
}
EOT
done
