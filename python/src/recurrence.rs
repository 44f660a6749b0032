//! The recurrence crate's functions: scipy.signal's filters over N-d arrays
//! (`sigpu_recurrence::signal`), and rows of host arrays or a caller's device memory through
//! the crate's planner, which keeps the accuracy contract and picks the engine (and refuses,
//! with the way out, where the chosen method has none for the data). No engine choice and no
//! cache here: the planner keeps what it compiled, per device and stream.

use crate::guard::{catch, interruptible};
use crate::{device, filter_err, value_err};
use numpy::ndarray::{ArrayD, IxDyn};
use numpy::{IntoPyArray, PyReadonlyArrayDyn};
use numpy::{PyArray2, PyArrayMethods, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;
use sigpu_recurrence::{
    check_finite, plan, signal, Batch, ChannelLayout, DeviceBatch, Element, FilterError,
    FilterOptions, FilterSpec, Planned,
};
use sigpu_runtime::cuda::{DeviceSlice, DeviceSliceMut};
use sigpu_runtime::{GpuTarget, Target};
use std::sync::Mutex;

/// Samples from which a host call runs where Ctrl-C can stop it (a thread start is noise
/// there).
const LONG: usize = 1 << 18;

type Result3<'py> = (Bound<'py, PyAny>, Option<Bound<'py, PyAny>>, String);

fn array<'py, T: numpy::Element>(
    py: Python<'py>,
    v: Vec<T>,
    shape: &[usize],
) -> PyResult<Bound<'py, PyAny>> {
    Ok(ArrayD::from_shape_vec(IxDyn(shape), v)
        .map_err(value_err)?
        .into_pyarray(py)
        .into_any())
}

fn options(allow_unstable: bool, workers: Option<usize>) -> FilterOptions {
    FilterOptions {
        allow_unstable,
        threads: workers,
        ..FilterOptions::default()
    }
}

/// The filter as the Python half passes it: (b, a), or sections flattened with their shape.
fn spec(b: &[f64], a: &[f64], sos_shape: Option<&[usize]>) -> Result<FilterSpec, FilterError> {
    Ok(match sos_shape {
        None => FilterSpec::ba(b, a),
        Some(shape) => FilterSpec::Sos(signal::sos_rows(b, shape)?),
    })
}

/// What one N-d call runs: the function and its coefficients.
struct Call {
    kind: String,
    b: Vec<f64>,
    a: Vec<f64>,
    sos_shape: Vec<usize>,
    axis: isize,
    padlen: Option<usize>,
    allow_unstable: bool,
    workers: Option<usize>,
}

fn run<'py, T: Element + numpy::Element>(
    py: Python<'py>,
    call: &Call,
    x: PyReadonlyArrayDyn<'py, T>,
    zi: Option<PyReadonlyArrayDyn<'py, T>>,
) -> PyResult<Result3<'py>> {
    let shape = x.as_array().shape().to_vec();
    let xs = x.as_slice().map_err(value_err)?;
    let zs = match &zi {
        Some(z) => Some((
            z.as_slice().map_err(value_err)?,
            z.as_array().shape().to_vec(),
        )),
        None => None,
    };
    let options = options(call.allow_unstable, call.workers);
    let out = interruptible(
        py,
        xs.len() >= LONG,
        || -> Result<signal::Output<T>, FilterError> {
            let zi = zs.as_ref().map(|(s, sh)| (*s, sh.as_slice()));
            let (b, a, axis, padlen) = (&call.b, &call.a, call.axis, call.padlen);
            match call.kind.as_str() {
                "lfilter" => signal::lfilter(b, a, xs, &shape, axis, zi, &options),
                "filtfilt" => signal::filtfilt(b, a, xs, &shape, axis, padlen, &options),
                "sosfilt" => {
                    let rows = signal::sos_rows(b, &call.sos_shape)?;
                    signal::sosfilt(&rows, xs, &shape, axis, zi, &options)
                }
                "sosfiltfilt" => {
                    let rows = signal::sos_rows(b, &call.sos_shape)?;
                    signal::sosfiltfilt(&rows, xs, &shape, axis, padlen, &options)
                }
                other => Err(FilterError::Input(format!(
                    "unknown filter function {other}"
                ))),
            }
        },
    )?
    .map_err(filter_err)?;
    let report = serde_json::to_string(&out.report).map_err(crate::runtime_err)?;
    let y = array(py, out.y, &out.shape)?;
    let zf = match out.zf {
        Some(zf) => Some(array(py, zf, &out.zf_shape)?),
        None => None,
    };
    Ok((y, zf, report))
}

/// scipy.signal's lfilter / sosfilt / filtfilt / sosfiltfilt on a C-contiguous float32 or
/// float64 array of any shape: (y, zf or None, the method report as JSON). For the sos
/// functions `b` holds the sos array flattened and `sos_shape` its shape.
#[pyfunction]
#[pyo3(signature = (kind, b, a, x, axis, zi=None, padlen=None, sos_shape=None, allow_unstable=false, workers=None))]
#[allow(clippy::too_many_arguments)]
fn signal_run<'py>(
    py: Python<'py>,
    kind: String,
    b: Vec<f64>,
    a: Vec<f64>,
    x: &Bound<'py, PyAny>,
    axis: isize,
    zi: Option<&Bound<'py, PyAny>>,
    padlen: Option<usize>,
    sos_shape: Option<Vec<usize>>,
    allow_unstable: bool,
    workers: Option<usize>,
) -> PyResult<Result3<'py>> {
    catch(|| {
        let call = Call {
            kind,
            b,
            a,
            sos_shape: sos_shape.unwrap_or_default(),
            axis,
            padlen,
            allow_unstable,
            workers,
        };
        if let Ok(x) = x.extract::<PyReadonlyArrayDyn<'py, f32>>() {
            let zi = zi
                .map(|z| z.extract::<PyReadonlyArrayDyn<'py, f32>>())
                .transpose()?;
            run(py, &call, x, zi)
        } else {
            let x = x.extract::<PyReadonlyArrayDyn<'py, f64>>()?;
            let zi = zi
                .map(|z| z.extract::<PyReadonlyArrayDyn<'py, f64>>())
                .transpose()?;
            run(py, &call, x, zi)
        }
    })
}

#[pyfunction]
fn signal_lfilter_zi(b: Vec<f64>, a: Vec<f64>) -> PyResult<Vec<f64>> {
    catch(|| signal::lfilter_zi(&b, &a).map_err(filter_err))
}

#[pyfunction]
fn signal_sosfilt_zi(sos: Vec<f64>, shape: Vec<usize>) -> PyResult<Vec<f64>> {
    catch(|| {
        let rows = signal::sos_rows(&sos, &shape).map_err(filter_err)?;
        signal::sosfilt_zi(&rows).map_err(filter_err)
    })
}

/// Rows of host arrays through a planned filter (`planned` gives it, without the GIL), into
/// fresh numpy arrays.
fn rows_run<'py, T: Element + numpy::Element>(
    py: Python<'py>,
    planned: impl FnOnce() -> Result<Planned<T>, FilterError> + Send,
    x: PyReadonlyArray2<'py, T>,
    zi: Option<PyReadonlyArray2<'py, T>>,
) -> PyResult<(Bound<'py, PyAny>, Option<Bound<'py, PyAny>>)> {
    let (channels, n) = (x.shape()[0], x.shape()[1]);
    let xs = x.as_slice().map_err(value_err)?;
    let zs = match &zi {
        Some(z) => Some(z.as_slice().map_err(value_err)?),
        None => None,
    };
    let filter: Planned<T> = py
        .detach(|| -> Result<Planned<T>, FilterError> {
            let f = planned()?;
            // Non-finite x is refused while filtering (a fresh batch, below).
            if let Some(z) = zs {
                check_finite(z, "zi")?;
            }
            Ok(f)
        })
        .map_err(filter_err)?;
    let state = filter.state_len();
    // Outputs from numpy's allocator (which asks the kernel for huge pages on large arrays):
    // page faults on a fresh 4 KiB-paged buffer cost as much as the filter itself.
    // SAFETY: every element is written by the filter before the arrays are returned.
    let y = unsafe { PyArray2::<T>::new(py, [channels, n], false) };
    let zf = zs.map(|_| unsafe { PyArray2::<T>::new(py, [channels, state], false) });
    {
        let mut yw = y.readwrite();
        let ys = yw.as_slice_mut().map_err(value_err)?;
        let mut zw = zf.as_ref().map(|z| z.readwrite());
        let zfs = match zw.as_mut() {
            Some(w) => Some(w.as_slice_mut().map_err(value_err)?),
            None => None,
        };
        if channels > 0 && n > 0 {
            let batch = Batch {
                x: xs,
                channels,
                y: ys,
                zi: zs,
                zf: zfs,
                fresh: Some("x"),
            };
            // Interrupted, the arrays are dropped with the error: no partial output.
            interruptible(py, xs.len() >= LONG, || filter.run(batch))?.map_err(filter_err)?;
        } else if let (Some(z), Some(out)) = (zs, zfs) {
            out.copy_from_slice(z);
        }
    }
    Ok((y.into_any(), zf.map(|z| z.into_any())))
}

/// lfilter (or sosfilt, with `sos_shape`) of the rows of a C-contiguous float32 / float64
/// (channels, n) host array, planned for the CPU or, with `device`, that GPU (uploaded,
/// filtered, downloaded): (y, zf or None). zi: (channels, state) — for sos,
/// [channel][section][2].
#[pyfunction]
#[pyo3(signature = (b, a, x, zi=None, sos_shape=None, allow_unstable=false, device=None, workers=None))]
#[allow(clippy::too_many_arguments)]
fn filter_rows<'py>(
    py: Python<'py>,
    b: Vec<f64>,
    a: Vec<f64>,
    x: &Bound<'py, PyAny>,
    zi: Option<&Bound<'py, PyAny>>,
    sos_shape: Option<Vec<usize>>,
    allow_unstable: bool,
    device: Option<usize>,
    workers: Option<usize>,
) -> PyResult<(Bound<'py, PyAny>, Option<Bound<'py, PyAny>>)> {
    catch(|| {
        let spec = spec(&b, &a, sos_shape.as_deref()).map_err(filter_err)?;
        let target = match device {
            None => Target::cpu(),
            Some(d) => Target::Gpu(GpuTarget::new(device::gpu(d)?)),
        };
        let options = options(allow_unstable, workers);
        if let Ok(x) = x.extract::<PyReadonlyArray2<'py, f32>>() {
            let zi = zi
                .map(|z| z.extract::<PyReadonlyArray2<'py, f32>>())
                .transpose()?;
            rows_run(py, || plan::<f32>(&spec, options, &target), x, zi)
        } else {
            let x = x.extract::<PyReadonlyArray2<'py, f64>>()?;
            let zi = zi
                .map(|z| z.extract::<PyReadonlyArray2<'py, f64>>())
                .transpose()?;
            rows_run(py, || plan::<f64>(&spec, options, &target), x, zi)
        }
    })
}

/// Device addresses of one call: `channels` rows of `n` values at `x` into `y`, and
/// `channels × state` values at `zi` / `zf` (or none). (Complex calls: `n` complex values,
/// 2·n parts, a row.)
pub(crate) struct Addresses {
    pub(crate) x: u64,
    pub(crate) y: u64,
    pub(crate) channels: usize,
    pub(crate) n: usize,
    pub(crate) zi: Option<u64>,
    pub(crate) zf: Option<u64>,
    /// Where the channels lie: rows one after another, or interleaved pairs, backwards, with
    /// a channel stride ([`ChannelLayout`]).
    pub(crate) layout: Option<ChannelLayout>,
}

/// # Safety
/// The addresses are live device memory of `target`'s GPU holding what `io` says, kept alive
/// by the caller until the work on the target's stream is done.
/// Whether it ran: false where `io.layout` is not rows one after another and the planned
/// engine reads only those (nothing was enqueued; the caller copies to rows).
unsafe fn device_run<T: Element>(
    spec: &FilterSpec,
    options: FilterOptions,
    target: &Target,
    io: &Addresses,
) -> Result<bool, FilterError> {
    let filter = plan::<T>(spec, options, target)?;
    let gpu = target.gpu().expect("a GPU target").gpu();
    let layout = io.layout.unwrap_or(ChannelLayout::contiguous(io.n));
    let plain = layout.is_contiguous(io.channels, io.n);
    if !plain && !filter.reads_layout(&layout, io.channels, io.n) {
        return Ok(false);
    }
    let total = match plain {
        true => io.channels.checked_mul(io.n),
        false => layout.span(io.channels, io.n).ok(),
    }
    .ok_or_else(|| FilterError::Input("channels × length overflows".into()))?;
    let state = io.channels * filter.state_len();
    // SAFETY: the caller's contract (above).
    let batch = unsafe {
        DeviceBatch {
            x: DeviceSlice::from_raw(io.x, total, gpu),
            channels: io.channels,
            y: DeviceSliceMut::from_raw(io.y, total, gpu),
            zi: io.zi.map(|z| DeviceSlice::from_raw(z, state, gpu)),
            zf: io.zf.map(|z| DeviceSliceMut::from_raw(z, state, gpu)),
        }
    };
    match plain {
        true => filter.apply_device(batch)?,
        false => filter.apply_device_laid_out(batch, io.n, layout)?,
    }
    Ok(true)
}

/// lfilter (or sosfilt, with `sos_shape`) of `channels` rows of `n` elements at device address
/// `x` into `y` (both owned by the caller), on device `device`, enqueued on the caller's stream
/// `stream` (0: the legacy default stream). zi / zf: device addresses of `channels × state`
/// values, or none. `sync`: wait for the stream before returning. `sample_stride` /
/// `channel_stride` (elements): channels laid out otherwise than rows one after another — 2 for
/// the (re, im) parts of complex rows (2 channels a row), negative for channels read backwards
/// (`ChannelLayout`); the layout is checked before any launch. Returns whether it ran: false
/// (nothing enqueued) where such a layout meets an engine that reads rows only.
#[pyfunction]
#[pyo3(signature = (b, a, dtype, x, y, channels, n, device, stream, zi=None, zf=None, sos_shape=None, allow_unstable=false, sync=false, sample_stride=1, channel_stride=None))]
#[allow(clippy::too_many_arguments)]
fn filter_cuda(
    py: Python<'_>,
    b: Vec<f64>,
    a: Vec<f64>,
    dtype: &str,
    x: u64,
    y: u64,
    channels: usize,
    n: usize,
    device: usize,
    stream: u64,
    zi: Option<u64>,
    zf: Option<u64>,
    sos_shape: Option<Vec<usize>>,
    allow_unstable: bool,
    sync: bool,
    sample_stride: isize,
    channel_stride: Option<usize>,
) -> PyResult<bool> {
    catch(|| {
        let spec = spec(&b, &a, sos_shape.as_deref()).map_err(filter_err)?;
        let group = sample_stride.unsigned_abs().max(1);
        let layout = ChannelLayout {
            sample_stride,
            channel_stride: channel_stride.unwrap_or(group * n),
        };
        let io = Addresses {
            x,
            y,
            channels,
            n,
            zi,
            zf,
            layout: Some(layout),
        };
        let options = options(allow_unstable, None);
        cuda_call(py, &spec, options, dtype, device, stream, &io, sync)
    })
}

/// [`filter_cuda`]'s work once its arguments are read.
#[allow(clippy::too_many_arguments)]
fn cuda_call(
    py: Python<'_>,
    spec: &FilterSpec,
    options: FilterOptions,
    dtype: &str,
    device: usize,
    stream: u64,
    io: &Addresses,
    sync: bool,
) -> PyResult<bool> {
    py.detach(|| {
        let gpu = device::gpu(device)?;
        // SAFETY: the Python half passes the stream the array's library reports as current
        // for the array's device (or the one the caller named).
        let target = Target::Gpu(unsafe { GpuTarget::on_stream(gpu, stream) });
        // SAFETY: x, y (and zi, zf) are the data pointers of live arrays on `device` of the
        // sizes in `io`, kept alive by the Python caller until the call returns; with
        // `sync = false` they are the caller's arrays, used on the caller's stream, so any
        // later use by the caller is ordered after this work.
        let ran = unsafe {
            match dtype {
                "float32" => device_run::<f32>(spec, options, &target, io),
                "float64" => device_run::<f64>(spec, options, &target, io),
                other => {
                    return Err(value_err(format!(
                        "the GPU filter takes float32 or float64, not {other}"
                    )))
                }
            }
        }
        .map_err(filter_err)?;
        if sync {
            let g = target.gpu().expect("a GPU target");
            g.synchronize().map_err(crate::runtime_err)?;
        }
        Ok(ran)
    })
}

/// A filter planned once for the CPU: (b, a), or second-order sections (`sos_shape`), with
/// the filters the planner built for it kept per element type and thread count, so a stream of
/// calls skips the planner's look-up and the coefficients' conversions.
#[pyclass(name = "PlannedFilter", module = "sigpu._native", frozen)]
pub struct PlannedFilter {
    spec: FilterSpec,
    allow_unstable: bool,
    f32s: Mutex<Vec<(Option<usize>, Planned<f32>)>>,
    f64s: Mutex<Vec<(Option<usize>, Planned<f64>)>>,
}

/// The filter kept in `cache` for `workers` threads, planned on first use.
fn kept<T: Element>(
    cache: &Mutex<Vec<(Option<usize>, Planned<T>)>>,
    spec: &FilterSpec,
    options: FilterOptions,
) -> Result<Planned<T>, FilterError> {
    let mut kept = cache.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, f)) = kept.iter().find(|(w, _)| *w == options.threads) {
        return Ok(f.clone());
    }
    let f = plan::<T>(spec, options, &Target::cpu())?;
    kept.push((options.threads, f.clone()));
    Ok(f)
}

#[pymethods]
impl PlannedFilter {
    /// Checks and keeps the coefficients; planning waits for the first call of each dtype.
    #[new]
    #[pyo3(signature = (b, a, sos_shape=None, allow_unstable=false))]
    fn new(
        b: Vec<f64>,
        a: Vec<f64>,
        sos_shape: Option<Vec<usize>>,
        allow_unstable: bool,
    ) -> PyResult<Self> {
        catch(|| {
            Ok(PlannedFilter {
                spec: spec(&b, &a, sos_shape.as_deref()).map_err(filter_err)?,
                allow_unstable,
                f32s: Mutex::new(Vec::new()),
                f64s: Mutex::new(Vec::new()),
            })
        })
    }

    /// The state values per channel (max(len(a), len(b)) − 1, or 2 per section).
    fn state_len(&self) -> PyResult<usize> {
        catch(|| {
            let options = options(self.allow_unstable, None);
            Ok(kept(&self.f64s, &self.spec, options)
                .map_err(filter_err)?
                .state_len())
        })
    }

    /// The rows of a C-contiguous float32 / float64 (channels, n) array, with zi
    /// (channels, state) or none: (y, zf or None), as `filter_rows`.
    #[pyo3(signature = (x, zi=None, workers=None))]
    fn rows<'py>(
        &self,
        py: Python<'py>,
        x: &Bound<'py, PyAny>,
        zi: Option<&Bound<'py, PyAny>>,
        workers: Option<usize>,
    ) -> PyResult<(Bound<'py, PyAny>, Option<Bound<'py, PyAny>>)> {
        catch(|| {
            let options = options(self.allow_unstable, workers);
            if let Ok(x) = x.extract::<PyReadonlyArray2<'py, f32>>() {
                let zi = zi
                    .map(|z| z.extract::<PyReadonlyArray2<'py, f32>>())
                    .transpose()?;
                rows_run(py, || kept(&self.f32s, &self.spec, options), x, zi)
            } else {
                let x = x.extract::<PyReadonlyArray2<'py, f64>>()?;
                let zi = zi
                    .map(|z| z.extract::<PyReadonlyArray2<'py, f64>>())
                    .transpose()?;
                rows_run(py, || kept(&self.f64s, &self.spec, options), x, zi)
            }
        })
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PlannedFilter>()?;
    m.add_function(wrap_pyfunction!(signal_run, m)?)?;
    m.add_function(wrap_pyfunction!(filter_rows, m)?)?;
    m.add_function(wrap_pyfunction!(filter_cuda, m)?)?;
    m.add_function(wrap_pyfunction!(signal_lfilter_zi, m)?)?;
    m.add_function(wrap_pyfunction!(signal_sosfilt_zi, m)?)?;
    Ok(())
}
