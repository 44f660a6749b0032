//! SciPy's filtering functions (`scipy.signal.lfilter`, `lfilter_zi`, `sosfilt`, `sosfilt_zi`,
//! `filtfilt`, `sosfiltfilt`) over N-dimensional C-order arrays with an `axis`, with SciPy's
//! shapes for `zi` / `zf` and SciPy's defaults; what the Python package binds.
//!
//! Arrays are a flat C-order slice plus its shape. The element type `T` (f32 or f64) is the
//! dtype everything runs in: coefficients (given in f64) are rounded to it, as SciPy does when
//! `np.result_type(b, a, x)` is that type. (SciPy promotes f32 input with f64 coefficients to
//! f64; a binding that wants SciPy's promotion casts `x` before calling.) Every call returns a
//! [`Report`]: the method the accuracy contract chose and its predicted error bound
//! (see [`crate::Lfilter`]).
//!
//! ```
//! use sigpu_recurrence::{signal, FilterOptions};
//!
//! // Two channels of 5 samples, filtered along the last axis with an initial state.
//! let x = [1.0f64, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0];
//! let zi = [0.5, 0.0]; // shape (2, 1): max(len(a), len(b)) - 1 = 1 per channel
//! let out = signal::lfilter(&[0.5], &[1.0, -0.5], &x, &[2, 5], -1, Some((&zi, &[2, 1])),
//!     &FilterOptions::default())?;
//! assert_eq!(out.shape, [2, 5]);
//! assert_eq!(&out.y[..3], &[1.0, 0.5, 0.25]);
//! assert_eq!(out.zf_shape, [2, 1]);
//! assert_eq!(out.report.method, sigpu_recurrence::Method::Plr);
//! # Ok::<(), sigpu_recurrence::FilterError>(())
//! ```

use crate::elem::Element;
use crate::engine::{Batch, Recurrence, Timing};
use crate::error::FilterError;
use crate::filter::{check_finite, FilterOptions};
use crate::planner::{plan, FilterSpec, Planned};
use crate::report::Report;
use crate::zi::{lfilter_zi as ba_zi, sosfilt_zi as sos_zi};

/// A filtered array: `y` in `x`'s shape; `zf` (only when `zi` was given, as SciPy) in
/// `zf_shape`; the method and its predicted error.
#[derive(Clone, Debug)]
pub struct Output<T> {
    pub y: Vec<T>,
    pub shape: Vec<usize>,
    pub zf: Option<Vec<T>>,
    /// The shape of zf (empty when zf is None).
    pub zf_shape: Vec<usize>,
    pub report: Report,
}

/// An array's layout around one axis: `outer × n × inner`.
#[derive(Clone, Copy, Debug)]
struct Axis {
    ax: usize,
    outer: usize,
    n: usize,
    inner: usize,
}

impl Axis {
    fn new(shape: &[usize], len: usize, axis: isize, what: &str) -> Result<Axis, FilterError> {
        let nd = shape.len();
        if nd == 0 {
            return Err(FilterError::Input(format!(
                "{what} must have at least one dimension"
            )));
        }
        let prod: usize = shape.iter().product();
        if prod != len {
            return Err(FilterError::Input(format!(
                "{what} has {len} values but its shape {shape:?} holds {prod}"
            )));
        }
        let ax = if axis < 0 { nd as isize + axis } else { axis };
        if ax < 0 || ax >= nd as isize {
            return Err(FilterError::Input(format!(
                "axis {axis} is out of range for a {nd}-D {what}"
            )));
        }
        let ax = ax as usize;
        Ok(Axis {
            ax,
            outer: shape[..ax].iter().product(),
            n: shape[ax],
            inner: shape[ax + 1..].iter().product(),
        })
    }

    fn channels(&self) -> usize {
        self.outer * self.inner
    }

    /// Channel-major copy: channel c = o·inner + i holds the n values along the axis.
    fn gather<'a, T: Copy>(&self, x: &'a [T]) -> std::borrow::Cow<'a, [T]> {
        if self.inner == 1 {
            return std::borrow::Cow::Borrowed(x);
        }
        let mut out = Vec::with_capacity(x.len());
        for o in 0..self.outer {
            for i in 0..self.inner {
                for t in 0..self.n {
                    out.push(x[(o * self.n + t) * self.inner + i]);
                }
            }
        }
        std::borrow::Cow::Owned(out)
    }

    fn scatter<T: Copy + Default>(&self, cm: Vec<T>) -> Vec<T> {
        if self.inner == 1 {
            return cm;
        }
        let mut out = vec![T::default(); cm.len()];
        for o in 0..self.outer {
            for i in 0..self.inner {
                let c = o * self.inner + i;
                for t in 0..self.n {
                    out[(o * self.n + t) * self.inner + i] = cm[c * self.n + t];
                }
            }
        }
        out
    }
}

fn check_float<T: Element>() -> Result<(), FilterError> {
    if T::DTYPE.is_float() {
        Ok(())
    } else {
        Err(FilterError::Input(format!(
            "scipy-style filtering runs in f32 or f64, not {} (integer recurrences: Filter)",
            T::DTYPE
        )))
    }
}

/// `scipy.signal.lfilter(b, a, x, axis, zi)`. `zi`, when given, has `x`'s shape with the axis
/// replaced by max(len(a), len(b)) − 1 (size-1 dimensions broadcast, as in SciPy); zf is
/// returned in that full shape.
pub fn lfilter<T: Element>(
    b: &[f64],
    a: &[f64],
    x: &[T],
    shape: &[usize],
    axis: isize,
    zi: Option<(&[T], &[usize])>,
    options: &FilterOptions,
) -> Result<Output<T>, FilterError> {
    check_float::<T>()?;
    let lay = Axis::new(shape, x.len(), axis, "x")?;
    let filter = planned::<T>(&FilterSpec::ba(b, a), options)?;
    let s = filter.state_len();
    let mut want = shape.to_vec();
    want[lay.ax] = s;
    let zi_cm = match zi {
        None => None,
        Some((z, zshape)) => {
            check_finite(z, "zi")?;
            Some(broadcast_state(z, zshape, &want, lay, s)?)
        }
    };
    let xc = lay.gather(x);
    let channels = lay.channels();
    let mut y = crate::cpu::output_vec(xc.len());
    let mut zf = zi_cm.as_ref().map(|_| vec![T::ZERO; channels * s]);
    // Non-finite inputs show in the plr method's local recurrences; only then is x searched
    // (the other methods check x first). The index named is xc's, which is x's for the last
    // axis; otherwise x itself is searched for the message.
    let fresh = filter.run(Batch {
        x: &xc,
        channels,
        y: &mut y,
        zi: zi_cm.as_deref(),
        zf: zf.as_deref_mut(),
        fresh: Some("x"),
    });
    if let Err(e) = fresh {
        check_finite(x, "x")?;
        return Err(e);
    }
    let zlay = Axis { n: s, ..lay };
    Ok(Output {
        y: lay.scatter(y),
        shape: shape.to_vec(),
        zf_shape: if zf.is_some() { want } else { Vec::new() },
        zf: zf.map(|z| zlay.scatter(z)),
        report: filter.report().clone(),
    })
}

/// The filter for the CPU through the process's planner, which keeps what it compiled: a
/// filter applied again (blocks of a stream, a loop over signals) skips the set-up.
fn planned<T: Element>(
    spec: &FilterSpec,
    options: &FilterOptions,
) -> Result<Planned<T>, FilterError> {
    plan::<T>(spec, *options, &sigpu_runtime::Target::cpu())
}

/// zi of shape `zshape` (equal to `want`, or with size-1 dimensions broadcasting) as
/// channel-major `[channel][s]`.
fn broadcast_state<T: Element>(
    z: &[T],
    zshape: &[usize],
    want: &[usize],
    lay: Axis,
    s: usize,
) -> Result<Vec<T>, FilterError> {
    let fits = zshape.len() == want.len()
        && zshape.iter().product::<usize>() == z.len()
        && zshape
            .iter()
            .zip(want)
            .enumerate()
            .all(|(d, (&g, &w))| g == w || (g == 1 && d != lay.ax));
    if !fits {
        return Err(FilterError::Input(format!(
            "zi has shape {zshape:?}; expected {want:?}: x's shape with axis {} replaced by \
             the state length max(len(a), len(b)) - 1 = {s} (size-1 dimensions broadcast)",
            lay.ax
        )));
    }
    // Strides of zi, with 0 for broadcast dimensions.
    let nd = zshape.len();
    let mut strides = vec![0usize; nd];
    let mut acc = 1;
    for d in (0..nd).rev() {
        strides[d] = if zshape[d] == 1 && want[d] != 1 {
            0
        } else {
            acc
        };
        acc *= zshape[d];
    }
    let mut out = Vec::with_capacity(lay.channels() * s);
    // Walk channels in (outer, inner) order; index each dimension.
    let mut idx = vec![0usize; nd];
    for o in 0..lay.outer {
        for i in 0..lay.inner {
            // Decompose o over dims [..ax] and i over dims [ax+1..].
            let mut rem = o;
            for d in (0..lay.ax).rev() {
                idx[d] = rem % want[d];
                rem /= want[d];
            }
            let mut rem = i;
            for d in (lay.ax + 1..nd).rev() {
                idx[d] = rem % want[d];
                rem /= want[d];
            }
            for t in 0..s {
                idx[lay.ax] = t;
                let at: usize = idx.iter().zip(&strides).map(|(i, st)| i * st).sum();
                out.push(z[at]);
            }
        }
    }
    Ok(out)
}

/// `scipy.signal.lfilter_zi(b, a)` (length max(len(a), len(b)) − 1).
pub fn lfilter_zi(b: &[f64], a: &[f64]) -> Result<Vec<f64>, FilterError> {
    ba_zi(b, a)
}

/// `scipy.signal.sosfilt_zi(sos)`: shape `(n_sections, 2)`, flattened.
pub fn sosfilt_zi(sos: &[[f64; 6]]) -> Result<Vec<f64>, FilterError> {
    sos_zi(sos)
}

/// Rows of a flat `(n_sections, 6)` array; the error names the shape expected.
pub fn sos_rows(values: &[f64], shape: &[usize]) -> Result<Vec<[f64; 6]>, FilterError> {
    match shape {
        [s, 6] if s * 6 == values.len() && *s > 0 => Ok(values
            .chunks(6)
            .map(|r| [r[0], r[1], r[2], r[3], r[4], r[5]])
            .collect()),
        _ => Err(FilterError::Coefficients(format!(
            "sos has shape {shape:?}; expected (n_sections, 6), rows [b0, b1, b2, 1, a1, a2] \
             (scipy's output='sos')"
        ))),
    }
}

/// `scipy.signal.sosfilt(sos, x, axis, zi)`. `zi`, when given, has shape
/// `(n_sections, …x.shape with the axis replaced by 2…)` exactly (no broadcasting, as SciPy);
/// zf is returned in that shape.
pub fn sosfilt<T: Element>(
    sos: &[[f64; 6]],
    x: &[T],
    shape: &[usize],
    axis: isize,
    zi: Option<(&[T], &[usize])>,
    options: &FilterOptions,
) -> Result<Output<T>, FilterError> {
    check_float::<T>()?;
    let lay = Axis::new(shape, x.len(), axis, "x")?;
    let filter = planned::<T>(&FilterSpec::Sos(sos.to_vec()), options)?;
    let ns = sos.len();
    let mut want = vec![ns];
    want.extend_from_slice(shape);
    want[lay.ax + 1] = 2;
    let channels = lay.channels();
    let zi_cm = match zi {
        None => None,
        Some((z, zshape)) => {
            let cm = sos_state(z, zshape, shape, axis, ns)?;
            check_finite(z, "zi")?;
            Some(cm)
        }
    };
    let xc = lay.gather(x);
    let mut y = crate::cpu::output_vec(xc.len());
    let mut zf = zi_cm.as_ref().map(|_| vec![T::ZERO; channels * 2 * ns]);
    // Non-finite inputs show in the filter's state (they are absorbing in the cascade); only
    // then is x searched, to name the first by its index in x.
    let batch = Batch {
        x: &xc,
        channels,
        y: &mut y,
        zi: zi_cm.as_deref(),
        zf: zf.as_deref_mut(),
        fresh: Some("x"),
    };
    if let Err(e) = filter.run(batch) {
        check_finite(x, "x")?;
        return Err(e);
    }
    let zf = zf
        .map(|cm| sos_state_out(&cm, shape, axis, ns))
        .transpose()?;
    Ok(Output {
        y: lay.scatter(y),
        shape: shape.to_vec(),
        zf_shape: if zf.is_some() { want } else { Vec::new() },
        zf,
        report: filter.report().clone(),
    })
}

/// Odd extension of each channel by `edge` samples at both ends (SciPy's `odd_ext`).
fn odd_ext<T: Element>(x: &[T], n: usize, edge: usize) -> Vec<T> {
    let channels = x.len() / n.max(1);
    let mut out = Vec::with_capacity(channels * (n + 2 * edge));
    let two = |v: T| v.add(v);
    let sub = |p: T, q: T| T::from_f64(p.to_f64() - q.to_f64());
    for c in x.chunks(n) {
        let (first, last) = (c[0], c[n - 1]);
        for k in (1..=edge).rev() {
            out.push(sub(two(first), c[k]));
        }
        out.extend_from_slice(c);
        for k in 1..=edge {
            out.push(sub(two(last), c[n - 1 - k]));
        }
    }
    out
}

/// Forward-backward filtering of channel-major `xc` (`channels` × n) with initial states
/// `zi × first sample` each way; `run(x, zi)` filters channel-major data.
fn forward_backward<T: Element>(
    xc: &[T],
    n: usize,
    edge: usize,
    zi: &[f64],
    run: impl Fn(&[T], &[T]) -> Result<Vec<T>, FilterError>,
) -> Result<Vec<T>, FilterError> {
    let ext = odd_ext(xc, n, edge);
    let m = n + 2 * edge;
    let scaled = |data: &[T]| -> Vec<T> {
        data.chunks(m)
            .flat_map(|c| zi.iter().map(move |z| T::from_f64(z * c[0].to_f64())))
            .collect()
    };
    let mut y = run(&ext, &scaled(&ext))?;
    for c in y.chunks_mut(m) {
        c.reverse();
    }
    let mut y = run(&y, &scaled(&y))?;
    let mut out = Vec::with_capacity(xc.len());
    for c in y.chunks_mut(m) {
        c.reverse();
        out.extend_from_slice(&c[edge..edge + n]);
    }
    Ok(out)
}

fn check_padlen(n: usize, edge: usize) -> Result<(), FilterError> {
    if n <= edge {
        return Err(FilterError::Input(format!(
            "the input has {n} samples along the axis; filtfilt needs more than padlen = {edge} \
             (give a shorter padlen, or a longer signal)"
        )));
    }
    Ok(())
}

/// `scipy.signal.filtfilt(b, a, x, axis, padtype='odd', padlen)`: zero-phase filtering with
/// odd padding of `padlen` samples (default 3·max(len(a), len(b))) and `lfilter_zi` initial
/// conditions each way.
pub fn filtfilt<T: Element>(
    b: &[f64],
    a: &[f64],
    x: &[T],
    shape: &[usize],
    axis: isize,
    padlen: Option<usize>,
    options: &FilterOptions,
) -> Result<Output<T>, FilterError> {
    check_float::<T>()?;
    let lay = Axis::new(shape, x.len(), axis, "x")?;
    let filter = planned::<T>(&FilterSpec::ba(b, a), options)?;
    let edge = padlen.unwrap_or(3 * a.len().max(b.len()));
    check_padlen(lay.n, edge)?;
    let zi = ba_zi(b, a)?;
    zero_phase(x, shape, &lay, edge, &zi, filter.report(), |d, c, y, z| {
        filter.apply_batch(d, c, y, Some(z), None).map(drop)
    })
}

/// `scipy.signal.sosfiltfilt(sos, x, axis, padtype='odd', padlen)`: default padlen
/// 3·(2·n_sections + 1 − min(#(b2 = 0), #(a2 = 0))), as SciPy.
pub fn sosfiltfilt<T: Element>(
    sos: &[[f64; 6]],
    x: &[T],
    shape: &[usize],
    axis: isize,
    padlen: Option<usize>,
    options: &FilterOptions,
) -> Result<Output<T>, FilterError> {
    check_float::<T>()?;
    let lay = Axis::new(shape, x.len(), axis, "x")?;
    check_finite(x, "x")?;
    let filter = planned::<T>(&FilterSpec::Sos(sos.to_vec()), options)?;
    let zeros_b = sos.iter().filter(|r| r[2] == 0.0).count();
    let zeros_a = sos.iter().filter(|r| r[5] == 0.0).count();
    let ntaps = 2 * sos.len() + 1 - zeros_b.min(zeros_a);
    let edge = padlen.unwrap_or(3 * ntaps);
    check_padlen(lay.n, edge)?;
    let zi = sos_zi(sos)?;
    zero_phase(x, shape, &lay, edge, &zi, filter.report(), |d, c, y, z| {
        filter.apply_batch(d, c, y, Some(z), None).map(drop)
    })
}

/// The forward and backward passes of `filtfilt` / `sosfiltfilt` over x's channels (gathered
/// along the axis, scattered back), `apply` being the filter's batch call with initial state.
fn zero_phase<T: Element>(
    x: &[T],
    shape: &[usize],
    lay: &Axis,
    edge: usize,
    zi: &[f64],
    report: &Report,
    apply: impl Fn(&[T], usize, &mut [T], &[T]) -> Result<(), FilterError>,
) -> Result<Output<T>, FilterError> {
    let channels = lay.channels();
    let run = |data: &[T], z: &[T]| -> Result<Vec<T>, FilterError> {
        let mut y = vec![T::ZERO; data.len()];
        apply(data, channels, &mut y, z)?;
        Ok(y)
    };
    let y = forward_backward(&lay.gather(x), lay.n, edge, zi, run)?;
    Ok(Output {
        y: lay.scatter(y),
        shape: shape.to_vec(),
        zf: None,
        zf_shape: Vec::new(),
        report: report.clone(),
    })
}

/// `x` (C order, `shape`) as channel-major rows along `axis`: returns (rows, channels, n).
/// For callers that run a compiled [`Lfilter`] / [`Sos`] themselves (the CLI, device paths).
pub fn to_channels<T: Copy>(
    x: &[T],
    shape: &[usize],
    axis: isize,
) -> Result<(Vec<T>, usize, usize), FilterError> {
    let lay = Axis::new(shape, x.len(), axis, "x")?;
    Ok((lay.gather(x).into_owned(), lay.channels(), lay.n))
}

/// Zero-phase filtering of `spec` along `axis`: [`filtfilt`] for (b, a), [`sosfiltfilt`] for
/// sections (a signature is refused: give it as (b, a)).
pub fn filtfilt_spec<T: Element>(
    spec: &FilterSpec,
    x: &[T],
    shape: &[usize],
    axis: isize,
    padlen: Option<usize>,
    options: &FilterOptions,
) -> Result<Output<T>, FilterError> {
    match spec {
        FilterSpec::Ba { b, a } => filtfilt(b, a, x, shape, axis, padlen, options),
        FilterSpec::Sos(rows) => sosfiltfilt(rows, x, shape, axis, padlen, options),
        FilterSpec::Signature(_) => Err(FilterError::Input(
            "zero-phase filtering takes (b, a) or second-order sections, not a signature".into(),
        )),
    }
}

/// `filter` (planned for any target) along `axis` of `x` (of `shape`), from zi (values and
/// shape: [`zi_shape`]'s, SciPy's) or a zero state: y in x's shape and zf in zi's (always,
/// from a zero state without zi), with the time the filtering took.
pub fn along_axis<T: Element>(
    filter: &dyn Recurrence<T>,
    x: &[T],
    shape: &[usize],
    axis: isize,
    zi: Option<(&[T], &[usize])>,
) -> Result<(Output<T>, Timing), FilterError> {
    let (sections, state) = (filter.sections(), filter.state_len());
    let (rows, channels, n) = to_channels(x, shape, axis)?;
    let zi_rows = match (zi, sections) {
        (Some((z, zs)), Some(ns)) => Some(sos_state(z, zs, shape, axis, ns)?),
        (Some((z, zs)), None) => Some(lfilter_state(z, zs, shape, axis, state)?),
        (None, _) => None,
    };
    let mut y = vec![T::ZERO; rows.len()];
    let mut zf = (zi_rows.clone()).unwrap_or_else(|| vec![T::ZERO; channels * state]);
    let mut timing = Timing::default();
    if !rows.is_empty() {
        let zi = zi_rows.as_deref();
        timing = filter.apply_batch(&rows, channels, &mut y, zi, Some(&mut zf))?;
        // Non-finite values are absorbing in the recurrences: a final state that is not finite
        // after finite input (and state) is an overflow of T, refused rather than returned.
        if zf.iter().any(|v| !v.is_finite())
            && zi.is_none_or(|z| z.iter().all(|v| v.is_finite()))
            && rows.iter().all(|v| v.is_finite())
        {
            return Err(crate::filter::nonfinite_run(&rows, "x"));
        }
    }
    let zf = match sections {
        Some(ns) => sos_state_out(&zf, shape, axis, ns)?,
        None => from_channels(&zf, shape, axis, state)?,
    };
    let output = Output {
        y: from_channels(&y, shape, axis, n)?,
        shape: shape.to_vec(),
        zf: Some(zf),
        zf_shape: zi_shape(shape, axis, sections, state)?,
        report: filter.report().clone(),
    };
    Ok((output, timing))
}

/// The inverse of [`to_channels`]: rows of `len` values back into `shape` with the axis
/// replaced by `len` (y: len = n; zf of a (b, a) filter: len = state length).
pub fn from_channels<T: Copy + Default>(
    rows: &[T],
    shape: &[usize],
    axis: isize,
    len: usize,
) -> Result<Vec<T>, FilterError> {
    let mut s = shape.to_vec();
    let lay = Axis::new(shape, shape.iter().product(), axis, "x")?;
    s[lay.ax] = len;
    Ok(Axis { n: len, ..lay }.scatter(rows.to_vec()))
}

/// A (b, a) zi of shape `zshape` for input `shape` / `axis` as channel-major `[channel][s]`,
/// with SciPy's broadcasting; the error gives the shape expected.
pub fn lfilter_state<T: Element>(
    zi: &[T],
    zshape: &[usize],
    shape: &[usize],
    axis: isize,
    state_len: usize,
) -> Result<Vec<T>, FilterError> {
    let lay = Axis::new(shape, shape.iter().product(), axis, "x")?;
    let mut want = shape.to_vec();
    want[lay.ax] = state_len;
    broadcast_state(zi, zshape, &want, lay, state_len)
}

/// The zi shape SciPy expects: (b, a) → x's shape with the axis replaced by the state length;
/// sections → `(n_sections, …x's shape with the axis replaced by 2…)`.
pub fn zi_shape(
    shape: &[usize],
    axis: isize,
    sections: Option<usize>,
    state_len: usize,
) -> Result<Vec<usize>, FilterError> {
    let lay = Axis::new(shape, shape.iter().product(), axis, "x")?;
    let mut want = shape.to_vec();
    match sections {
        Some(ns) => {
            want[lay.ax] = 2;
            want.insert(0, ns);
        }
        None => want[lay.ax] = state_len,
    }
    Ok(want)
}

/// A sections zi of shape `(n_sections, …shape with the axis → 2…)` as channel-major
/// `[channel][section][2]` (the layout of [`Sos::apply_batch`] and the GPU cascade).
pub fn sos_state<T: Element>(
    zi: &[T],
    zshape: &[usize],
    shape: &[usize],
    axis: isize,
    n_sections: usize,
) -> Result<Vec<T>, FilterError> {
    let lay = Axis::new(shape, shape.iter().product(), axis, "x")?;
    let want = zi_shape(shape, axis, Some(n_sections), 2)?;
    if zshape != want.as_slice() || zi.len() != want.iter().product::<usize>() {
        return Err(FilterError::Input(format!(
            "zi has shape {zshape:?}; expected {want:?}: (n_sections, …x's shape with axis {} \
             replaced by 2…)",
            lay.ax
        )));
    }
    let channels = lay.channels();
    let per = channels * 2;
    let zl = Axis { n: 2, ..lay };
    let mut cm = vec![T::ZERO; channels * 2 * n_sections];
    for s in 0..n_sections {
        let sec = zl.gather(&zi[s * per..(s + 1) * per]);
        for c in 0..channels {
            cm[c * 2 * n_sections + 2 * s] = sec[c * 2];
            cm[c * 2 * n_sections + 2 * s + 1] = sec[c * 2 + 1];
        }
    }
    Ok(cm)
}

/// The inverse of [`sos_state`]: channel-major states back into SciPy's zf shape.
pub fn sos_state_out<T: Element>(
    cm: &[T],
    shape: &[usize],
    axis: isize,
    n_sections: usize,
) -> Result<Vec<T>, FilterError> {
    let lay = Axis::new(shape, shape.iter().product(), axis, "x")?;
    let channels = lay.channels();
    let per = channels * 2;
    let zl = Axis { n: 2, ..lay };
    let mut out = Vec::with_capacity(n_sections * per);
    for s in 0..n_sections {
        let mut sec = vec![T::ZERO; per];
        for c in 0..channels {
            sec[c * 2] = cm[c * 2 * n_sections + 2 * s];
            sec[c * 2 + 1] = cm[c * 2 * n_sections + 2 * s + 1];
        }
        out.extend(zl.scatter(sec));
    }
    Ok(out)
}
