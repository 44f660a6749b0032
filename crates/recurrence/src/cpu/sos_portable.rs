//! The section engine's portable kernels (scalar, or compiled with FMA where the CPU has it):
//! whole segments through the cascade from a zero state, and the factor-table correction.

use super::sos_shape::{GROUP, SEG};
use crate::elem::{madd, Element};
use sigpu_runtime::host::Isa;

pub(crate) fn local_dispatch<T: Element>(
    simd: Isa,
    rows: &[[T; 5]],
    y: &mut [T],
    ends: &mut [f64],
) {
    match simd {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2Fma => {
            // SAFETY: Isa::Avx2Fma is only chosen when the CPU has AVX2 and FMA.
            unsafe { local_fma(rows, y, ends) }
        }
        _ => local_segments::<T, false>(rows, y, ends),
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn local_fma<T: Element>(rows: &[[T; 5]], y: &mut [T], ends: &mut [f64]) {
    local_segments::<T, true>(rows, y, ends)
}

/// Whole segments of `y` (holding x on entry) through the cascade from a zero state;
/// `ends[w]` receives segment w's final state.
#[inline(always)]
fn local_segments<T: Element, const FMA: bool>(rows: &[[T; 5]], y: &mut [T], ends: &mut [f64]) {
    let segs = y.len() / SEG;
    if segs == GROUP {
        local_group::<T, FMA, GROUP>(rows, y, ends);
    } else {
        for (w, seg) in y.chunks_mut(SEG).enumerate() {
            local_group::<T, FMA, 1>(rows, seg, &mut ends[w * 2 * rows.len()..]);
        }
    }
}

#[inline(always)]
fn local_group<T: Element, const FMA: bool, const G: usize>(
    rows: &[[T; 5]],
    y: &mut [T],
    ends: &mut [f64],
) {
    let s2 = 2 * rows.len();
    for (s, r) in rows.iter().enumerate() {
        let (b0, b1, b2, na1, na2) = (r[0], r[1], r[2], r[3], r[4]);
        let mut z0 = [T::ZERO; G];
        let mut z1 = [T::ZERO; G];
        for i in 0..SEG {
            for w in 0..G {
                let idx = w * SEG + i;
                let v = y[idx];
                let out = madd::<T, FMA>(b0, v, z0[w]);
                z0[w] = madd::<T, FMA>(b1, v, madd::<T, FMA>(na1, out, z1[w]));
                z1[w] = madd::<T, FMA>(b2, v, na2.mul(out));
                y[idx] = out;
            }
        }
        for w in 0..G {
            ends[w * s2 + 2 * s] = z0[w].to_f64();
            ends[w * s2 + 2 * s + 1] = z1[w].to_f64();
        }
    }
}

pub(crate) fn correct_dispatch<T: Element>(
    simd: Isa,
    factors: &[Vec<f64>],
    state: &[f64],
    y: &mut [T],
    acc: &mut [f64],
) {
    match simd {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2Fma => {
            // SAFETY: Isa::Avx2Fma is only chosen when the CPU has AVX2 and FMA.
            unsafe { correct_fma(factors, state, y, acc) }
        }
        _ => correct::<T>(factors, state, y, acc),
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn correct_fma<T: Element>(
    factors: &[Vec<f64>],
    state: &[f64],
    y: &mut [T],
    acc: &mut [f64],
) {
    correct::<T>(factors, state, y, acc)
}

/// y[i] += Σ_j state_j · F_j[i], summed in f64.
#[inline(always)]
fn correct<T: Element>(factors: &[Vec<f64>], state: &[f64], y: &mut [T], acc: &mut [f64]) {
    let len = factors.first().map_or(0, Vec::len).min(y.len());
    if len == 0 || state.iter().all(|&s| s == 0.0) {
        return;
    }
    let acc = &mut acc[..len];
    acc.fill(0.0);
    for (f, &s) in factors.iter().zip(state) {
        if s != 0.0 {
            for (a, &v) in acc.iter_mut().zip(&f[..len]) {
                *a = v.mul_add(s, *a);
            }
        }
    }
    for (v, &a) in y[..len].iter_mut().zip(acc.iter()) {
        *v = T::from_f64(v.to_f64() + a);
    }
}
