//! Radix-2 FFTs at a given word size, against an f64 FFT (rustfft): CLNS (twiddles exact in
//! log-polar: a root of unity is angle k·2^32/N, log 0), fixed point (B-bit two's complement
//! per component, scaled by 1/2 per stage so nothing overflows), and floats with every
//! operation rounded to f16, bf16 or f32. Accuracy is the SNR of the output in dB.
//!
//! All are the same decimation-in-time algorithm: bit-reversed input, then log2 N stages of
//! butterflies (u, v) → (u + w·v, u − w·v), w = e^(−2πik/len). The CLNS version is the CPU twin
//! of the GPU kernel `clns_fft` (same order of operations).

use crate::format::{Clns, ClnsFormat};
use crate::radian::{angle_from_f64, ClnsF32, SbRadian};
use crate::sb::Sb;
use num_complex::Complex;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;
use serde::Serialize;

/// Why a transform cannot run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FftError {
    /// The size is not a power of two in 2..=2^20.
    #[error("FFT size {0}: must be a power of two from 2 to 2^20")]
    Size(usize),
    /// The format's angles are too coarse for the size's twiddle factors.
    #[error("FFT size {n} needs twiddle angles of {need} bits, the format has {have}")]
    AngleBits {
        /// Transform length.
        n: usize,
        /// Angle bits the twiddles need: log2 n.
        need: u32,
        /// The format's angle bits P.
        have: u32,
    },
    /// The data is not a whole number of transforms.
    #[error("{len} values do not divide into transforms of {n}")]
    Length {
        /// Values given.
        len: usize,
        /// Transform length.
        n: usize,
    },
    /// A fixed-point word size outside 4..=32 bits per component.
    #[error("{0} bits per component: expected 4..=32")]
    Bits(u32),
}

fn check_size(n: usize, len: usize) -> Result<u32, FftError> {
    if !n.is_power_of_two() || !(2..=1 << 20).contains(&n) {
        return Err(FftError::Size(n));
    }
    if !len.is_multiple_of(n) {
        return Err(FftError::Length { len, n });
    }
    Ok(n.trailing_zeros())
}

fn bit_reverse<T>(x: &mut [T], log2n: u32) {
    let n = x.len();
    for i in 0..n {
        let j = i.reverse_bits() >> (usize::BITS - log2n);
        if i < j {
            x.swap(i, j);
        }
    }
}

/// The decimation-in-time skeleton: `butterfly(u, v, k, len)` for each pair after the
/// bit-reversal, k the twiddle index of a span of `len`.
fn radix2<T: Copy>(
    x: &mut [T],
    log2n: u32,
    mut butterfly: impl FnMut(T, T, usize, usize) -> (T, T),
) {
    bit_reverse(x, log2n);
    let n = x.len();
    let mut len = 2;
    while len <= n {
        let half = len / 2;
        for start in (0..n).step_by(len) {
            for k in 0..half {
                let (u, v) = (x[start + k], x[start + k + half]);
                let (a, b) = butterfly(u, v, k, len);
                x[start + k] = a;
                x[start + k + half] = b;
            }
        }
        len *= 2;
    }
}

/// The twiddle e^(−2πik/len) in CLNS: exact.
pub fn clns_twiddle(k: usize, len: usize) -> Clns {
    Clns {
        log: 0,
        angle: ((k as u64) << 32).div_euclid(len as u64).wrapping_neg() as u32,
    }
}

/// In-place forward FFTs of length `n` over `data` (batch = len / n), S_b by `m`.
pub fn clns_fft(
    format: ClnsFormat,
    m: &(impl Sb + ?Sized),
    data: &mut [Clns],
    n: usize,
) -> Result<(), FftError> {
    let log2n = check_size(n, data.len())?;
    if log2n > format.angle_bits {
        return Err(FftError::AngleBits {
            n,
            need: log2n,
            have: format.angle_bits,
        });
    }
    data.par_chunks_mut(n).for_each(|x| {
        radix2(x, log2n, |u, v, k, len| {
            let t = format.mul(v, clns_twiddle(k, len));
            (format.add(m, u, t), format.sub(m, u, t))
        })
    });
    Ok(())
}

/// The twiddle e^(−2πik/len) in the f32-radian variant: the angle rounded to f32.
pub fn clns_f32_twiddle(k: usize, len: usize) -> ClnsF32 {
    ClnsF32 {
        log: 0.0,
        angle: angle_from_f64(-std::f64::consts::TAU * k as f64 / len as f64),
    }
}

/// In-place forward FFTs in the f32-radian variant (the paper's representation), S_b by `m`;
/// the same radix-2 skeleton as [`clns_fft`].
pub fn clns_f32_fft(
    m: &(impl SbRadian + ?Sized),
    data: &mut [ClnsF32],
    n: usize,
) -> Result<(), FftError> {
    let log2n = check_size(n, data.len())?;
    data.par_chunks_mut(n).for_each(|x| {
        radix2(x, log2n, |u, v, k, len| {
            let t = v * clns_f32_twiddle(k, len);
            (u.add(m, t), u.sub(m, t))
        })
    });
    Ok(())
}

/// The f32-radian variant's FFT of `x` (converted in), as f64.
pub fn clns_f32_fft_of(
    m: &(impl SbRadian + ?Sized),
    x: &[Complex<f64>],
    n: usize,
) -> Result<Vec<Complex<f64>>, FftError> {
    let mut d: Vec<ClnsF32> = x.iter().map(|&c| ClnsF32::from_complex(c)).collect();
    clns_f32_fft(m, &mut d, n)?;
    Ok(d.into_iter().map(|c| c.to_complex()).collect())
}

/// The f32-radian variant at its own word size: a 64-bit word (f32 log + f32 angle), against
/// the other 64-bit-word FFTs (32-bit fixed point per component, complex f32).
#[derive(Clone, Debug, Serialize)]
pub struct F32Row {
    /// Transform length.
    pub n: usize,
    /// Transforms, each over its own `n` inputs.
    pub batch: usize,
    /// S_b method of the variant's FFT.
    pub method: String,
    /// Bits per complex value in every FFT of the row (64).
    pub word_bits: u32,
    /// SNR of the f32-radian CLNS FFT, dB (as every `_db` field: 10·log10 of signal over error
    /// energy, against the f64 FFT, scaled by 1/n for fixed point).
    pub clns_f32_db: f64,
    /// Fixed point with 32 bits per part, scaled by 1/2 per stage, dB.
    pub fixed32_db: f64,
    /// Fixed point with 32 bits per part, the input divided by n, dB.
    pub fixed32_input_scaled_db: f64,
    /// Complex f32, dB.
    pub complex_f32_db: f64,
}

/// The [`F32Row`] of `x` in transforms of `n`, the f32-radian FFT's S_b by `m` (named
/// `method` in the row).
pub fn f32_row(
    m: &(impl SbRadian + ?Sized),
    method: &str,
    x: &[Complex<f64>],
    n: usize,
) -> Result<F32Row, FftError> {
    let want = reference_fft(x, n)?;
    let scaled: Vec<Complex<f64>> = want.iter().map(|w| w / n as f64).collect();
    Ok(F32Row {
        n,
        batch: x.len() / n,
        method: method.to_owned(),
        word_bits: 64,
        clns_f32_db: snr_db(&clns_f32_fft_of(m, x, n)?, &want),
        fixed32_db: snr_db(&fixed_fft(x, n, 32, Scaling::PerStage)?, &scaled),
        fixed32_input_scaled_db: snr_db(&fixed_fft(x, n, 32, Scaling::Input)?, &scaled),
        complex_f32_db: snr_db(&float_fft(x, n, Float::F32)?, &want),
    })
}

/// Where a fixed-point FFT makes room for the growth of the sums (up to N×).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Scaling {
    /// Each stage halves its outputs (with rounding): the output is DFT/N. What a DSP does.
    PerStage,
    /// The input is divided by N, stages do not shift: log2 N bits of headroom up front, the
    /// fixed-point FFT Arnold et al. (2003) compare CLNS against.
    Input,
}

/// Forward FFTs in B-bit fixed point of inputs in [−1, 1); the output is the DFT divided by N,
/// as f64.
pub fn fixed_fft(
    x: &[Complex<f64>],
    n: usize,
    bits: u32,
    scaling: Scaling,
) -> Result<Vec<Complex<f64>>, FftError> {
    let log2n = check_size(n, x.len())?;
    if !(4..=32).contains(&bits) {
        return Err(FftError::Bits(bits));
    }
    let one = (1i64 << (bits - 1)) as f64;
    let (lo, hi) = (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1);
    let q = |v: f64| ((v * one).round() as i64).clamp(lo, hi);
    // Round-to-nearest right shift (ties up), as a DSP's rounding shifter does.
    let shr = |v: i64, s: u32| (v + (1i64 << (s - 1))) >> s;
    let mut out = Vec::with_capacity(x.len());
    for chunk in x.chunks(n) {
        let pre = if scaling == Scaling::Input {
            1.0 / n as f64
        } else {
            1.0
        };
        let mut d: Vec<(i64, i64)> = chunk
            .iter()
            .map(|c| (q(c.re * pre), q(c.im * pre)))
            .collect();
        radix2(&mut d, log2n, |(ur, ui), (vr, vi), k, len| {
            let ang = -std::f64::consts::TAU * k as f64 / len as f64;
            let (wr, wi) = (q(ang.cos()), q(ang.sin()));
            let tr = shr(vr * wr - vi * wi, bits - 1);
            let ti = shr(vr * wi + vi * wr, bits - 1);
            let half = |s: i64| match scaling {
                Scaling::PerStage => shr(s, 1).clamp(lo, hi),
                Scaling::Input => s.clamp(lo, hi),
            };
            (
                (half(ur + tr), half(ui + ti)),
                (half(ur - tr), half(ui - ti)),
            )
        });
        out.extend(
            d.into_iter()
                .map(|(r, i)| Complex::new(r as f64 / one, i as f64 / one)),
        );
    }
    Ok(out)
}

/// A floating-point type emulated by rounding every f32 result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Float {
    /// IEEE binary16.
    F16,
    /// bfloat16.
    Bf16,
    /// IEEE binary32 (no extra rounding).
    F32,
}

impl Float {
    fn round(self, v: f32) -> f32 {
        match self {
            Float::F16 => half::f16::from_f32(v).to_f32(),
            Float::Bf16 => half::bf16::from_f32(v).to_f32(),
            Float::F32 => v,
        }
    }
}

/// Forward FFTs with every add, subtract and multiply rounded to `t` (no fused operations,
/// twiddles rounded to `t`).
pub fn float_fft(x: &[Complex<f64>], n: usize, t: Float) -> Result<Vec<Complex<f64>>, FftError> {
    let log2n = check_size(n, x.len())?;
    let r = |v: f32| t.round(v);
    let mut out = Vec::with_capacity(x.len());
    for chunk in x.chunks(n) {
        let mut d: Vec<(f32, f32)> = chunk
            .iter()
            .map(|c| (r(c.re as f32), r(c.im as f32)))
            .collect();
        radix2(&mut d, log2n, |(ur, ui), (vr, vi), k, len| {
            let ang = -std::f64::consts::TAU * k as f64 / len as f64;
            let (wr, wi) = (r(ang.cos() as f32), r(ang.sin() as f32));
            let tr = r(r(vr * wr) - r(vi * wi));
            let ti = r(r(vr * wi) + r(vi * wr));
            ((r(ur + tr), r(ui + ti)), (r(ur - tr), r(ui - ti)))
        });
        out.extend(d.into_iter().map(|(a, b)| Complex::new(a as f64, b as f64)));
    }
    Ok(out)
}

/// The f64 reference (rustfft), batch over `x`.
pub fn reference_fft(x: &[Complex<f64>], n: usize) -> Result<Vec<Complex<f64>>, FftError> {
    check_size(n, x.len())?;
    let plan = rustfft::FftPlanner::<f64>::new().plan_fft_forward(n);
    let mut y = x.to_vec();
    plan.process(&mut y);
    Ok(y)
}

/// 10·log10(signal energy / error energy) of `got` against `want`.
pub fn snr_db(got: &[Complex<f64>], want: &[Complex<f64>]) -> f64 {
    let signal: f64 = want.iter().map(|w| w.norm_sqr()).sum();
    let noise: f64 = got.iter().zip(want).map(|(g, w)| (g - w).norm_sqr()).sum();
    10.0 * (signal / noise).log10()
}

/// `batch × n` random complex inputs, parts uniform in [−1, 1).
pub fn random_input(n: usize, batch: usize, seed: u64) -> Vec<Complex<f64>> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    (0..n * batch)
        .map(|_| Complex::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0)))
        .collect()
}

/// SNR of each FFT at one word size: CLNS (S_b by `m`), fixed point, and the floats whose
/// width matches (f16 and bf16 at 16 bits, f32 at 32).
#[derive(Clone, Debug, Serialize)]
pub struct SnrRow {
    /// Bits per component: the word size every FFT of the row is compared at.
    pub bits: u32,
    /// Transform length.
    pub n: usize,
    /// Transforms, each over its own `n` inputs.
    pub batch: usize,
    /// The CLNS format's name.
    pub clns_format: String,
    /// SNR of the CLNS FFT against the f64 FFT, dB (as every `_db` field: 10·log10 of signal
    /// over error energy; fixed point against the f64 FFT scaled by 1/n).
    pub clns_db: f64,
    /// Fixed point scaled by 1/2 per stage.
    pub fixed_db: f64,
    /// Fixed point with the input divided by N (Arnold et al. 2003's baseline).
    pub fixed_input_scaled_db: f64,
    /// The f16 FFT, dB; at 16 bits only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub f16_db: Option<f64>,
    /// The bf16 FFT, dB; at 16 bits only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bf16_db: Option<f64>,
    /// The f32 FFT, dB; at 32 bits only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub f32_db: Option<f64>,
}

/// CLNS FFT of `x` (converted in), returned as f64.
pub fn clns_fft_of(
    format: ClnsFormat,
    m: &(impl Sb + ?Sized),
    x: &[Complex<f64>],
    n: usize,
) -> Result<Vec<Complex<f64>>, FftError> {
    let mut d: Vec<Clns> = x.iter().map(|&c| format.from_complex(c)).collect();
    clns_fft(format, m, &mut d, n)?;
    Ok(d.into_iter().map(|c| format.to_complex(c)).collect())
}

/// One row of the accuracy comparison.
pub fn snr_row(
    format: ClnsFormat,
    m: &(impl Sb + ?Sized),
    bits: u32,
    x: &[Complex<f64>],
    n: usize,
) -> Result<SnrRow, FftError> {
    let want = reference_fft(x, n)?;
    let clns = clns_fft_of(format, m, x, n)?;
    // Fixed point computes DFT/N.
    let scaled: Vec<Complex<f64>> = want.iter().map(|w| w / n as f64).collect();
    let fixed = fixed_fft(x, n, bits, Scaling::PerStage)?;
    let fixed_input = fixed_fft(x, n, bits, Scaling::Input)?;
    let float = |t: Float| -> Result<f64, FftError> { Ok(snr_db(&float_fft(x, n, t)?, &want)) };
    Ok(SnrRow {
        bits,
        n,
        batch: x.len() / n,
        clns_format: format.to_string(),
        clns_db: snr_db(&clns, &want),
        fixed_db: snr_db(&fixed, &scaled),
        fixed_input_scaled_db: snr_db(&fixed_input, &scaled),
        f16_db: (bits == 16).then(|| float(Float::F16)).transpose()?,
        bf16_db: (bits == 16).then(|| float(Float::Bf16)).transpose()?,
        f32_db: (bits == 32).then(|| float(Float::F32)).transpose()?,
    })
}

/// Word size fixed point needs to reach `target_db` (from `fixed_snr`, ascending bits).
pub fn fixed_bits_for(fixed_snr: &[(u32, f64)], target_db: f64) -> Option<u32> {
    fixed_snr
        .iter()
        .find(|(_, s)| *s >= target_db)
        .map(|&(b, _)| b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sb::SbF64;

    #[test]
    fn every_fft_tracks_the_reference() {
        let n = 64;
        let x = random_input(n, 2, 3);
        let want = reference_fft(&x, n).unwrap();
        let f = ClnsFormat::with_bits(20).unwrap();
        assert!(snr_db(&clns_fft_of(f, &SbF64(f), &x, n).unwrap(), &want) > 80.0);
        let scaled: Vec<_> = want.iter().map(|w| w / n as f64).collect();
        assert!(snr_db(&fixed_fft(&x, n, 20, Scaling::PerStage).unwrap(), &scaled) > 80.0);
        // 6 bits of headroom (log2 64) leave the input ~14 significant bits: ~84 dB.
        let input = snr_db(&fixed_fft(&x, n, 20, Scaling::Input).unwrap(), &scaled);
        assert!(input > 75.0 && input < 95.0, "{input}");
        assert!(snr_db(&float_fft(&x, n, Float::F32).unwrap(), &want) > 120.0);
        assert!(snr_db(&float_fft(&x, n, Float::F16).unwrap(), &want) > 50.0);
    }

    #[test]
    fn the_f32_radian_fft_tracks_the_reference() {
        let n = 256;
        let x = random_input(n, 2, 4);
        let row = f32_row(&crate::radian::SbRadianF64, "f64", &x, n).unwrap();
        // f32 logs and angles: ~2^-24 per op, a little worse than complex f32 (~140 dB).
        assert!(
            row.clns_f32_db > 110.0 && row.clns_f32_db < row.complex_f32_db,
            "{row:?}"
        );
        assert!(row.fixed32_db > 150.0, "{row:?}");
        let w = clns_f32_twiddle(1, 4);
        assert!((w.angle + std::f32::consts::FRAC_PI_2).abs() < 1e-7);
    }

    #[test]
    fn twiddles_are_exact_roots_of_unity() {
        let f = ClnsFormat::CLNS16;
        // w^len = 1 exactly, and w_len^(len/4) = −i.
        let w = clns_twiddle(1, 1024);
        assert_eq!(f.powi(w, 1024), f.one());
        assert_eq!(
            f.powi(w, 256),
            Clns {
                log: 0,
                angle: 3 << 30
            }
        );
    }

    /// Why `bench::fft_throughput` gives every timed run fresh input: the unscaled transform
    /// grows random input by ~√N a pass, so clns16 (|X| < 2^16) overflows within four passes
    /// and later passes would time the special-value shortcut instead of S_b.
    #[test]
    fn repeated_in_place_transforms_overflow_clns16() {
        let f = ClnsFormat::CLNS16;
        let n = 1024;
        let mut data: Vec<Clns> = random_input(n, 2, 3)
            .iter()
            .map(|&c| f.from_complex(c))
            .collect();
        for _ in 0..4 {
            clns_fft(f, &SbF64(f), &mut data, n).unwrap();
        }
        let special = data
            .iter()
            .filter(|&&x| !matches!(f.class(x), crate::Class::Finite { .. }))
            .count();
        assert!(special > data.len() / 2, "{special} of {}", data.len());
    }

    #[test]
    fn bad_sizes_are_errors() {
        let f = ClnsFormat::CLNS16;
        let mut d = vec![f.one(); 12];
        assert_eq!(clns_fft(f, &SbF64(f), &mut d, 12), Err(FftError::Size(12)));
        assert_eq!(
            clns_fft(f, &SbF64(f), &mut d, 8),
            Err(FftError::Length { len: 12, n: 8 })
        );
        let x = vec![Complex::new(0.0, 0.0); 1 << 17];
        assert!(matches!(
            clns_fft_of(f, &SbF64(f), &x, 1 << 17),
            Err(FftError::AngleBits { .. })
        ));
        assert_eq!(
            fixed_fft(&x[..8], 8, 40, Scaling::Input),
            Err(FftError::Bits(40))
        );
    }
}
