//! FIR filters with long numerators (a = [1]) by FFT convolution, overlap-save.
//!
//! A direct FIR costs len(b) multiply-adds per output; FFT convolution in blocks of N samples
//! (N a power of two, about 8·len(b)) costs O(log N) per output, so above [`CROSSOVER`] taps it
//! is faster (511 taps on 2^22 f64 samples: 310 ms direct against SciPy's `oaconvolve` at
//! 169 ms). Each block of N inputs (the last len(b) − 1 of the previous block, then
//! L = N − len(b) + 1 new ones) is transformed (`realfft`, f64 whatever the signal's type),
//! multiplied by the numerator's spectrum (computed once per filter) and transformed back; its
//! last L values are outputs. Blocks are independent: threads take them from a counter.
//!
//! **Error.** With η ≈ 6.7·ε₆₄ per radix-2 stage (Higham, *Accuracy and Stability of
//! Numerical Algorithms*, Thm. 24.2), the forward transform of a block errs by at most
//! η·log₂N·‖X‖₂ = η·log₂N·√N·‖x_block‖₂ in 2-norm, the numerator's spectrum elementwise by
//! η·log₂N·‖b‖₁, the products by 3ε₆₄·|X||H|, and the inverse by η·log₂N·‖Y‖₂/√N; with
//! |H| ≤ ‖b‖₁ and ‖x_block‖₂ ≤ √N·max|x| every output is within
//! ε₆₄·√N·‖b‖₁·(3·6.7·log₂N + 4)·max|x| of the exact convolution ([`FftFir::bound`]), plus
//! the final rounding to the signal's type. That is a worst case (the rounding errors of
//! a transform do not all align); measured errors on white noise, tones and steps are at or
//! below those of the direct sum.

use crate::elem::Element;
use realfft::num_complex::Complex;
use realfft::{ComplexToReal, RealFftPlanner, RealToComplex};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Numerators at least this long run by FFT (measured on this machine's AVX-512 cores: the
/// direct sum and the FFT cross near 64 taps for f64; the FFT's advantage grows with the
/// taps).
pub const CROSSOVER: usize = 64;

/// A numerator compiled for FFT convolution.
pub(crate) struct FftFir {
    taps: usize,
    size: usize,
    /// The numerator's spectrum, scaled by 1/N (the inverse transform is unnormalised).
    spectrum: Vec<Complex<f64>>,
    forward: Arc<dyn RealToComplex<f64>>,
    inverse: Arc<dyn ComplexToReal<f64>>,
    bound: f64,
}

impl std::fmt::Debug for FftFir {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "FftFir {{ taps: {}, size: {} }}", self.taps, self.size)
    }
}

impl FftFir {
    /// The numerator `b` (at least one tap) ready for FFT convolution.
    pub(crate) fn new(b: &[f64]) -> FftFir {
        let taps = b.len().max(1);
        let size = (8 * taps).next_power_of_two().clamp(64, 1 << 16);
        let mut planner = RealFftPlanner::<f64>::new();
        let forward = planner.plan_fft_forward(size);
        let inverse = planner.plan_fft_inverse(size);
        let mut padded = vec![0.0; size];
        padded[..b.len()].copy_from_slice(b);
        let mut spectrum = forward.make_output_vec();
        forward
            .process(&mut padded, &mut spectrum)
            .expect("buffers of the planned sizes");
        let scale = 1.0 / size as f64;
        for v in &mut spectrum {
            *v *= scale;
        }
        let l1: f64 = b.iter().map(|v| v.abs()).sum();
        let lg = (size as f64).log2();
        let bound = f64::EPSILON * (size as f64).sqrt() * l1 * (3.0 * 6.7 * lg + 4.0);
        FftFir {
            taps,
            size,
            spectrum,
            forward,
            inverse,
            bound,
        }
    }

    /// The bound on |y − y_exact| / max|x| of the convolution in f64 (before the output is
    /// rounded to the signal's type); see the module docs.
    pub(crate) fn bound(&self) -> f64 {
        self.bound
    }

    /// One channel: y[n] = Σ_j b_j·x[n−j] (+ zi[n] for n < len(zi): SciPy's FIR state),
    /// blocks spread over `threads` threads.
    pub(crate) fn run<T: Element>(&self, x: &[T], zi: Option<&[T]>, y: &mut [T], threads: usize) {
        let n = x.len();
        let keep = self.size - (self.taps - 1);
        let blocks: Vec<Mutex<&mut [T]>> = y.chunks_mut(keep).map(Mutex::new).collect();
        let next = AtomicUsize::new(0);
        let work = || {
            let mut input = self.forward.make_input_vec();
            let mut spec = self.forward.make_output_vec();
            let mut scratch_f = self.forward.make_scratch_vec();
            let mut scratch_i = self.inverse.make_scratch_vec();
            loop {
                let b = next.fetch_add(1, Ordering::Relaxed);
                let Some(block) = blocks.get(b) else { break };
                let mut out = block.lock().unwrap_or_else(|p| p.into_inner());
                let start = b * keep;
                // input[i] = x[start − (taps − 1) + i], zero outside x.
                let first = start as isize - (self.taps as isize - 1);
                for (i, v) in input.iter_mut().enumerate() {
                    let at = first + i as isize;
                    *v = if at >= 0 && (at as usize) < n {
                        x[at as usize].to_f64()
                    } else {
                        0.0
                    };
                }
                self.forward
                    .process_with_scratch(&mut input, &mut spec, &mut scratch_f)
                    .expect("buffers of the planned sizes");
                for (s, h) in spec.iter_mut().zip(&self.spectrum) {
                    *s *= h;
                }
                // The real transform's first and last bins must be real for the inverse.
                spec[0].im = 0.0;
                if let Some(last) = spec.last_mut() {
                    last.im = 0.0;
                }
                self.inverse
                    .process_with_scratch(&mut spec, &mut input, &mut scratch_i)
                    .expect("buffers of the planned sizes");
                let valid = &input[self.taps - 1..];
                for (i, (o, v)) in out.iter_mut().zip(valid).enumerate() {
                    let mut v = *v;
                    if let Some(z) = zi.and_then(|z| z.get(start + i)) {
                        v += z.to_f64();
                    }
                    *o = T::from_f64(v);
                }
            }
        };
        let threads = threads.clamp(1, blocks.len().max(1));
        if threads == 1 {
            work();
        } else {
            std::thread::scope(|scope| {
                for _ in 0..threads {
                    scope.spawn(work);
                }
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dd::Dd;

    /// The exact convolution (double-double sums, rounded once), with zi.
    fn reference(b: &[f64], x: &[f64], zi: &[f64]) -> Vec<f64> {
        (0..x.len())
            .map(|n| {
                let mut acc = Dd::new(zi.get(n).copied().unwrap_or(0.0));
                for (j, &c) in b.iter().enumerate().take(n + 1) {
                    acc = acc.add(Dd::new(x[n - j]).mul_f64(c));
                }
                acc.to_f64()
            })
            .collect()
    }

    #[test]
    fn overlap_save_equals_the_convolution_within_its_bound() {
        let mut s = 0x9e3779b97f4a7c15u64;
        let mut rand = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        };
        for (taps, n) in [(1, 100), (64, 5000), (511, 9000), (100, 37)] {
            // A windowed-sinc low-pass, and white noise plus a DC offset.
            let b: Vec<f64> = (0..taps)
                .map(|i| {
                    let t = i as f64 - (taps as f64 - 1.0) / 2.0;
                    let sinc = if t == 0.0 {
                        0.2
                    } else {
                        (0.2 * std::f64::consts::PI * t).sin() / (std::f64::consts::PI * t)
                    };
                    sinc * (0.54
                        - 0.46 * (2.0 * std::f64::consts::PI * i as f64 / taps.max(2) as f64).cos())
                })
                .collect();
            let x: Vec<f64> = (0..n).map(|_| 0.7 + rand()).collect();
            let zi: Vec<f64> = (0..taps - 1).map(|i| 0.01 * i as f64).collect();
            let f = FftFir::new(&b);
            let want = reference(&b, &x, &zi);
            for threads in [1, 3] {
                let mut y = vec![0.0; n];
                f.run(&x, Some(&zi), &mut y, threads);
                let peak = x.iter().fold(0.0f64, |m, v| m.max(v.abs()));
                let err = y
                    .iter()
                    .zip(&want)
                    .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
                let allowed =
                    (f.bound() + f64::EPSILON * b.iter().map(|v| v.abs()).sum::<f64>()) * peak;
                assert!(err <= allowed, "{taps} taps: {err:e} > {allowed:e}");
                // In practice far below the worst case.
                assert!(err <= allowed / 16.0, "{taps} taps: {err:e} vs {allowed:e}");
            }
        }
    }
}
