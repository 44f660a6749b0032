//! The fast functions' loops compiled for 8-wide AVX2 + FMA: the same operations in the same
//! order as the scalar loop, so the same bits.

use super::{exp_fast, log_fast, sin_cos_fast, CpuFunction};

#[target_feature(enable = "avx2,fma")]
pub(super) fn fast(f: CpuFunction, x: &[f32], out: &mut [f32]) {
    // The same loop, compiled for 8-wide AVX2: one loop per function so each vectorises.
    match f {
        CpuFunction::Exp => out.iter_mut().zip(x).for_each(|(o, &v)| *o = exp_fast(v)),
        CpuFunction::Log => out.iter_mut().zip(x).for_each(|(o, &v)| *o = log_fast(v)),
        CpuFunction::Sin => out
            .iter_mut()
            .zip(x)
            .for_each(|(o, &v)| *o = sin_cos_fast(v, 0)),
        CpuFunction::Cos => out
            .iter_mut()
            .zip(x)
            .for_each(|(o, &v)| *o = sin_cos_fast(v, 1)),
    }
}
