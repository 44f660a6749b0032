//! The complex-coefficient engine: SciPy's serial loops — transposed direct form II for
//! `(b, a)`, the per-section pair for `sosfilt` — in complex f64 arithmetic with SciPy's
//! operation order, one channel per thread. For complex128 signals it rounds as SciPy's own
//! loop does; complex64 signals are read into f64, filtered there and rounded once (SciPy
//! runs them in complex64), so the engine keeps the accuracy contract by construction.

use super::c64::C64;
use crate::elem::Element;

/// The coefficients as the serial loop takes them.
#[derive(Clone, Debug)]
pub(super) enum Serial {
    /// b and a divided by a[0] (in f64, as SciPy divides in the dtype) and padded to one
    /// length, state_len + 1.
    Ba { b: Vec<C64>, a: Vec<C64> },
    /// Sections, a0 = 1.
    Sos(Vec<[C64; 6]>),
}

impl Serial {
    /// Complex state values per channel.
    pub(super) fn state_len(&self) -> usize {
        match self {
            Serial::Ba { b, .. } => b.len() - 1,
            Serial::Sos(rows) => 2 * rows.len(),
        }
    }

    /// One channel: `x` and `y` interleaved (re, im), `z` the state in and out.
    pub(super) fn run<T: Element>(&self, x: &[T], y: &mut [T], z: &mut [C64]) {
        for (xi, yi) in x.chunks_exact(2).zip(y.chunks_exact_mut(2)) {
            let yn = self.step(z, C64::new(xi[0].to_f64(), xi[1].to_f64()));
            yi[0] = T::from_f64(yn.re);
            yi[1] = T::from_f64(yn.im);
        }
    }

    /// One sample: the state `z` advances and the output is returned, in SciPy's operation
    /// order (the GPU kernel's `filter_step` is this, operation for operation).
    #[inline]
    pub(super) fn step(&self, z: &mut [C64], xn: C64) -> C64 {
        match self {
            Serial::Ba { b, a } => {
                let k = b.len() - 1;
                if k == 0 {
                    return xn * b[0];
                }
                let yn = z[0] + b[0] * xn;
                for j in 0..k - 1 {
                    z[j] = z[j + 1] + xn * b[j + 1] - yn * a[j + 1];
                }
                z[k - 1] = xn * b[k] - yn * a[k];
                yn
            }
            Serial::Sos(rows) => {
                let mut cur = xn;
                for (s, r) in rows.iter().enumerate() {
                    let new = r[0] * cur + z[2 * s];
                    z[2 * s] = r[1] * cur - r[4] * new + z[2 * s + 1];
                    z[2 * s + 1] = r[2] * cur - r[5] * new;
                    cur = new;
                }
                cur
            }
        }
    }
}

/// (b, a) normalised by a[0] and padded to one length (SciPy's `lfilter` does both).
pub(super) fn normalised(b: &[C64], a: &[C64]) -> (Vec<C64>, Vec<C64>) {
    let n = a.len().max(b.len());
    let a0 = a[0];
    let norm = |v: &[C64]| -> Vec<C64> {
        (0..n)
            .map(|i| v.get(i).map_or(C64::ZERO, |&c| c / a0))
            .collect()
    };
    (norm(b), norm(a))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_loops_are_scipys() {
        // y[n] = x[n] + (0.5 + 0.5j)·y[n-1] from a unit impulse: powers of the pole.
        let (b, a) = normalised(&[C64::ONE], &[C64::ONE, C64::new(-0.5, -0.5)]);
        let f = Serial::Ba { b, a };
        let x = [1.0f64, 0.0, 0.0, 0.0, 0.0, 0.0];
        let mut y = [0.0; 6];
        let mut z = vec![C64::ZERO; f.state_len()];
        f.run(&x, &mut y, &mut z);
        assert_eq!(y, [1.0, 0.0, 0.5, 0.5, 0.0, 0.5]);
        // The same pole as one section: the same output.
        let s = Serial::Sos(vec![[
            C64::ONE,
            C64::ZERO,
            C64::ZERO,
            C64::ONE,
            C64::new(-0.5, -0.5),
            C64::ZERO,
        ]]);
        let mut y2 = [0.0; 6];
        let mut z2 = vec![C64::ZERO; 2];
        s.run(&x, &mut y2, &mut z2);
        assert_eq!(y, y2);
        assert_eq!(z[0], z2[0]);
    }
}
