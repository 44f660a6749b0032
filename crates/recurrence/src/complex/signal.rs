//! SciPy's N-D calls on complex arrays (interleaved `re, im` values in C order of `shape`):
//! a planned [`ComplexFilter`] along an axis with SciPy's zi / zf shapes, and zero-phase
//! filtering. A complex array of shape S is read as the real array of shape S + [2], so the
//! real module [`crate::signal`]'s gathering, zi broadcasting and scattering serve unchanged:
//! along the axis its channels come in pairs, the real and the imaginary parts of one complex
//! channel.

use super::c64::C64;
use super::{plan_complex, ComplexFilter, ComplexSpec};
use crate::elem::Element;
use crate::engine::Timing;
use crate::error::FilterError;
use crate::filter::FilterOptions;
use crate::signal;
use sigpu_runtime::Target;

/// A complex call's result: y in x's shape, zf in SciPy's shape (both interleaved).
pub struct ComplexOutput<T> {
    /// The output, interleaved, x's shape.
    pub y: Vec<T>,
    /// The final state, interleaved, of shape `zf_shape`.
    pub zf: Vec<T>,
    /// SciPy's zi / zf shape for this call.
    pub zf_shape: Vec<usize>,
}

/// The shape with the (re, im) axis added, and the axis as a non-negative index.
fn real_view(shape: &[usize], axis: isize) -> Result<(Vec<usize>, isize), FilterError> {
    let nd = shape.len() as isize;
    if nd == 0 || axis >= nd || axis < -nd {
        return Err(FilterError::Input(format!(
            "axis {axis} is out of bounds for an array of {nd} dimension(s)"
        )));
    }
    let mut s = shape.to_vec();
    s.push(2);
    Ok((s, axis.rem_euclid(nd)))
}

/// Split rows (channel 2c real parts, 2c + 1 imaginary) as interleaved channels, and back.
pub(super) fn interleave<T: Element>(split: &[T], len: usize) -> Vec<T> {
    let mut out = vec![T::ZERO; split.len()];
    for (c, pair) in out.chunks_mut(2 * len.max(1)).enumerate() {
        let (re, im) = split[2 * c * len..2 * (c + 1) * len].split_at(len);
        for (i, p) in pair.chunks_exact_mut(2).enumerate() {
            p[0] = re[i];
            p[1] = im[i];
        }
    }
    out
}

pub(super) fn split<T: Element>(inter: &[T], len: usize) -> Vec<T> {
    let mut out = vec![T::ZERO; inter.len()];
    for (c, pairs) in inter.chunks(2 * len.max(1)).enumerate() {
        let (re, im) = out[2 * c * len..2 * (c + 1) * len].split_at_mut(len);
        for (i, p) in pairs.chunks_exact(2).enumerate() {
            re[i] = p[0];
            im[i] = p[1];
        }
    }
    out
}

/// `filter` along `axis` of the complex array `x` (of `shape`), from zi (interleaved values
/// and their shape, SciPy's: x's shape with the axis replaced by the state length, size-1
/// dimensions broadcast; sections `(n_sections, …, 2 at the axis, …)`) or a zero state.
pub fn along_axis<T: Element>(
    filter: &ComplexFilter<T>,
    x: &[T],
    shape: &[usize],
    axis: isize,
    zi: Option<(&[T], &[usize])>,
) -> Result<(ComplexOutput<T>, Timing), FilterError> {
    let (rs, ax) = real_view(shape, axis)?;
    if x.len() != 2 * shape.iter().product::<usize>() {
        return Err(FilterError::Input(format!(
            "x holds {} values; a complex array of shape {shape:?} needs {}",
            x.len(),
            2 * shape.iter().product::<usize>()
        )));
    }
    let (sections, k) = (filter.sections(), filter.state_len());
    let (rows, channels2, n) = signal::to_channels(x, &rs, ax)?;
    let zi_rows = match (zi, sections) {
        (Some((z, zs)), Some(ns)) => {
            let zs: Vec<usize> = zs.iter().copied().chain([2]).collect();
            Some(signal::sos_state(z, &zs, &rs, ax, ns)?)
        }
        (Some((z, zs)), None) => {
            let zs: Vec<usize> = zs.iter().copied().chain([2]).collect();
            Some(signal::lfilter_state(z, &zs, &rs, ax, k)?)
        }
        (None, _) => None,
    };
    let channels = channels2 / 2;
    let mut y = vec![T::ZERO; rows.len()];
    let mut zf = zi_rows
        .as_deref()
        .map_or_else(|| vec![T::ZERO; channels * 2 * k], |z| interleave(z, k));
    let mut timing = Timing::default();
    if !rows.is_empty() {
        let zi = zi_rows.as_deref().map(|z| interleave(z, k));
        let mut yi = vec![T::ZERO; rows.len()];
        timing = filter.run(
            &interleave(&rows, n),
            channels,
            &mut yi,
            zi.as_deref(),
            Some(&mut zf),
        )?;
        y = split(&yi, n);
    }
    let zf = split(&zf, k);
    let zf = match sections {
        Some(ns) => signal::sos_state_out(&zf, &rs, ax, ns)?,
        None => signal::from_channels(&zf, &rs, ax, k)?,
    };
    Ok((
        ComplexOutput {
            y: signal::from_channels(&y, &rs, ax, n)?,
            zf,
            zf_shape: signal::zi_shape(shape, ax, sections, k)?,
        },
        timing,
    ))
}

/// SciPy's `filtfilt` / `sosfiltfilt` (odd padding of `padlen` samples, SciPy's default
/// without it; `lfilter_zi` / `sosfilt_zi` times the first sample each way) of the complex
/// array `x` along `axis`, on the CPU. Real coefficients run the real zero-phase filter on
/// the real view (the same contract and engines as real data); complex ones run the complex
/// serial engine.
pub fn filtfilt<T: Element>(
    spec: &ComplexSpec,
    x: &[T],
    shape: &[usize],
    axis: isize,
    padlen: Option<usize>,
    options: &FilterOptions,
) -> Result<Vec<T>, FilterError> {
    let (rs, ax) = real_view(shape, axis)?;
    if let Some(real) = spec.as_real() {
        return Ok(signal::filtfilt_spec(&real, x, &rs, ax, padlen, options)?.y);
    }
    let filter = plan_complex::<T>(spec, *options, &Target::cpu())?;
    let (zi, default) = match spec {
        ComplexSpec::Ba { b, a } => (super::lfilter_zi(b, a)?, 3 * a.len().max(b.len())),
        ComplexSpec::Sos(rows) => {
            let zeros = |j: usize| rows.iter().filter(|r| r[j] == C64::ZERO).count();
            let taps = 2 * rows.len() + 1 - zeros(2).min(zeros(5));
            (super::sosfilt_zi(rows)?, 3 * taps)
        }
    };
    let edge = padlen.unwrap_or(default);
    let (rows, channels2, n) = signal::to_channels(x, &rs, ax)?;
    if n <= edge {
        return Err(FilterError::Input(format!(
            "the input has {n} samples along the axis; filtfilt needs more than padlen = {edge} \
             (give a shorter padlen, or a longer signal)"
        )));
    }
    let rows = interleave(&rows, n);
    let m = n + 2 * edge;
    let at = |c: &[T], i: usize| C64::new(c[2 * i].to_f64(), c[2 * i + 1].to_f64());
    let put = |v: C64| [T::from_f64(v.re), T::from_f64(v.im)];
    let state = |first: C64| -> Vec<T> { zi.iter().flat_map(|&z| put(z * first)).collect() };
    let mut out = Vec::with_capacity(rows.len());
    for c in rows.chunks(2 * n) {
        // Odd extension: 2·x[0] − x[edge..=1], x, 2·x[n−1] − x[n−2..=n−1−edge].
        let mut ext = Vec::with_capacity(2 * m);
        let (x0, xn) = (at(c, 0), at(c, n - 1));
        for i in (1..=edge).rev() {
            ext.extend(put(x0 * 2.0 - at(c, i)));
        }
        ext.extend_from_slice(c);
        for i in 1..=edge {
            ext.extend(put(xn * 2.0 - at(c, n - 1 - i)));
        }
        let (y, _) = filter.apply(&ext, Some(&state(at(&ext, 0))))?;
        let rev = reversed(&y);
        let (y, _) = filter.apply(&rev, Some(&state(at(&rev, 0))))?;
        let y = reversed(&y);
        out.extend_from_slice(&y[2 * edge..2 * (edge + n)]);
    }
    let channels = channels2 / 2;
    debug_assert_eq!(out.len(), channels * 2 * n);
    signal::from_channels(&split(&out, n), &rs, ax, n)
}

fn reversed<T: Copy>(v: &[T]) -> Vec<T> {
    v.chunks_exact(2).rev().flatten().copied().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn along_an_axis_equals_row_by_row() {
        let spec = ComplexSpec::ba(&[0.3, 0.1], &[0.0, 0.2], &[1.0, -0.5], &[0.0, 0.4]).unwrap();
        let f = plan_complex::<f64>(&spec, FilterOptions::default(), &Target::cpu()).unwrap();
        // Shape (3, 2) complex, filtered along axis 0 from zi of shape (1, 2).
        let x: Vec<f64> = (0..12).map(|i| (i as f64 * 0.7).sin()).collect();
        let zi = [0.1, -0.2, 0.3, 0.4];
        let (out, _) = along_axis(&f, &x, &[3, 2], 0, Some((&zi, &[1, 2]))).unwrap();
        assert_eq!(out.zf_shape, [1, 2]);
        for col in 0..2 {
            let xc: Vec<f64> = (0..3)
                .flat_map(|r| [x[4 * r + 2 * col], x[4 * r + 2 * col + 1]])
                .collect();
            let (yc, zc) = f.apply(&xc, Some(&zi[2 * col..2 * col + 2])).unwrap();
            for r in 0..3 {
                assert_eq!(
                    out.y[4 * r + 2 * col..4 * r + 2 * col + 2],
                    yc[2 * r..2 * r + 2]
                );
            }
            assert_eq!(out.zf[2 * col..2 * col + 2], zc[..]);
        }
        // Zero-phase filtering of a constant starts both passes in their steady state: the
        // output is the constant times the DC gain squared.
        let ones: Vec<f64> = (0..40).flat_map(|_| [1.0, 0.0]).collect();
        let y = filtfilt(&spec, &ones, &[40], -1, None, &FilterOptions::default()).unwrap();
        let g = C64::new(0.4, 0.2) / C64::new(0.5, 0.4);
        let want = g * g;
        for p in y.chunks_exact(2) {
            assert!(
                (C64::new(p[0], p[1]) - want).abs() < 1e-12,
                "{p:?} {want:?}"
            );
        }
        let short = filtfilt(&spec, &ones[..8], &[4], 0, None, &FilterOptions::default());
        assert!(short.err().unwrap().to_string().contains("padlen"));
    }
}
