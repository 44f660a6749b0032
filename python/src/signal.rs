//! scipy.signal's filters from `sigpu_recurrence::signal` (CPU, all cores; the method chosen by
//! the accuracy contract) and `GpuSos` on the caller's device memory and stream.

use crate::{device, filter_err, value_err};
use numpy::ndarray::{ArrayD, IxDyn};
use numpy::{IntoPyArray, PyReadonlyArrayDyn};
use numpy::{PyArray2, PyArrayMethods, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;
use sigpu_recurrence::{
    check_finite, signal, Element, FilterError, FilterOptions, GpuSos, Lfilter, RawSosCall, Sos,
};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

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

/// What one call runs: the function and its coefficients.
struct Call {
    kind: String,
    b: Vec<f64>,
    a: Vec<f64>,
    sos_shape: Vec<usize>,
    axis: isize,
    padlen: Option<usize>,
    allow_unstable: bool,
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
    let options = FilterOptions {
        allow_unstable: call.allow_unstable,
        ..FilterOptions::default()
    };
    let out = py
        .detach(|| -> Result<signal::Output<T>, FilterError> {
            let zi = zs.as_ref().map(|(s, sh)| (*s, sh.as_slice()));
            match call.kind.as_str() {
                "lfilter" => signal::lfilter(&call.b, &call.a, xs, &shape, call.axis, zi, &options),
                "filtfilt" => signal::filtfilt(
                    &call.b,
                    &call.a,
                    xs,
                    &shape,
                    call.axis,
                    call.padlen,
                    &options,
                ),
                "sosfilt" => {
                    let rows = signal::sos_rows(&call.b, &call.sos_shape)?;
                    signal::sosfilt(&rows, xs, &shape, call.axis, zi, &options)
                }
                "sosfiltfilt" => {
                    let rows = signal::sos_rows(&call.b, &call.sos_shape)?;
                    signal::sosfiltfilt(&rows, xs, &shape, call.axis, call.padlen, &options)
                }
                other => Err(FilterError::Input(format!(
                    "unknown filter function {other}"
                ))),
            }
        })
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
#[pyo3(signature = (kind, b, a, x, axis, zi=None, padlen=None, sos_shape=None, allow_unstable=false))]
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
) -> PyResult<Result3<'py>> {
    let call = Call {
        kind,
        b,
        a,
        sos_shape: sos_shape.unwrap_or_default(),
        axis,
        padlen,
        allow_unstable,
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
}

#[pyfunction]
fn signal_lfilter_zi(b: Vec<f64>, a: Vec<f64>) -> PyResult<Vec<f64>> {
    signal::lfilter_zi(&b, &a).map_err(filter_err)
}

#[pyfunction]
fn signal_sosfilt_zi(sos: Vec<f64>, shape: Vec<usize>) -> PyResult<Vec<f64>> {
    let rows = signal::sos_rows(&sos, &shape).map_err(filter_err)?;
    signal::sosfilt_zi(&rows).map_err(filter_err)
}

enum AnySos {
    F32(GpuSos<f32>),
    F64(GpuSos<f64>),
}

type SosKey = (Vec<u64>, &'static str, usize);

/// GpuSos objects by coefficients, element type and device (one object serialises its own
/// launches across streams).
fn gpu_sos(key: SosKey, rows: &[[f64; 6]]) -> PyResult<Arc<AnySos>> {
    static CACHE: OnceLock<Mutex<HashMap<SosKey, Arc<AnySos>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(f) = cache.lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
        return Ok(f.clone());
    }
    let gpu = &device::gpu(key.2)?;
    let built = Arc::new(match key.1 {
        "float32" => AnySos::F32(GpuSos::new(gpu, rows).map_err(filter_err)?),
        _ => AnySos::F64(GpuSos::new(gpu, rows).map_err(filter_err)?),
    });
    gpu.synchronize().map_err(crate::runtime_err)?;
    let mut map = cache.lock().unwrap_or_else(|p| p.into_inner());
    if map.len() >= 64 {
        map.clear();
    }
    map.insert(key, built.clone());
    Ok(built)
}

/// sosfilt of `channels` rows of `n` samples at device address `x` into `y` on the caller's
/// stream; zi / zf: `channels × sections × 2` values at device addresses, or 0.
#[pyfunction]
#[pyo3(signature = (sos, sos_shape, dtype, x, y, channels, n, device, stream, zi=0, zf=0))]
#[allow(clippy::too_many_arguments)]
fn sosfilt_cuda(
    py: Python<'_>,
    sos: Vec<f64>,
    sos_shape: Vec<usize>,
    dtype: &str,
    x: u64,
    y: u64,
    channels: usize,
    n: usize,
    device: usize,
    stream: u64,
    zi: u64,
    zf: u64,
) -> PyResult<()> {
    let dtype: &'static str = match dtype {
        "float32" => "float32",
        "float64" => "float64",
        other => {
            return Err(value_err(format!(
                "the GPU filter takes float32 or float64, not {other}"
            )))
        }
    };
    let rows = signal::sos_rows(&sos, &sos_shape).map_err(filter_err)?;
    let key = (sos.iter().map(|c| c.to_bits()).collect(), dtype, device);
    py.detach(|| {
        let f = gpu_sos(key, &rows)?;
        let gpu = &device::gpu(device)?;
        let call = RawSosCall {
            x,
            y,
            n,
            channels,
            zi,
            zf,
            stream: stream as usize,
        };
        // SAFETY: x, y, zi, zf are the data pointers of live arrays on `device` of the sizes
        // given (checked by the Python half), kept alive by the caller; `stream` is the
        // caller's current stream there.
        unsafe {
            match &*f {
                AnySos::F32(s) => s.run_raw(gpu, call),
                AnySos::F64(s) => s.run_raw(gpu, call),
            }
        }
        .map_err(filter_err)
    })
}

enum Rows<T: Element> {
    Ba(Lfilter<T>),
    Sos(Sos<T>),
}

impl<T: Element> Rows<T> {
    fn state_len(&self) -> usize {
        match self {
            Rows::Ba(f) => f.state_len(),
            Rows::Sos(f) => f.state_len(),
        }
    }
    fn run(
        &self,
        x: &[T],
        channels: usize,
        y: &mut [T],
        zi: Option<&[T]>,
        zf: Option<&mut [T]>,
    ) -> Result<(), FilterError> {
        match self {
            // y is numpy's fresh array; non-finite x is found through the local recurrences
            // (plr) or the cascade's state (sections), other methods check x first.
            Rows::Ba(f) => f.apply_batch_new_output(x, channels, y, zi, zf, "x"),
            Rows::Sos(f) => f.apply_batch_new_output(x, channels, y, zi, zf, "x"),
        }
    }
}

fn rows_run<'py, T: Element + numpy::Element>(
    py: Python<'py>,
    b: &[f64],
    a: &[f64],
    sos_shape: Option<&[usize]>,
    x: PyReadonlyArray2<'py, T>,
    zi: Option<PyReadonlyArray2<'py, T>>,
    allow_unstable: bool,
) -> PyResult<(Bound<'py, PyAny>, Option<Bound<'py, PyAny>>)> {
    let (channels, n) = (x.shape()[0], x.shape()[1]);
    let xs = x.as_slice().map_err(value_err)?;
    let zs = match &zi {
        Some(z) => Some(z.as_slice().map_err(value_err)?),
        None => None,
    };
    let options = FilterOptions {
        allow_unstable,
        ..FilterOptions::default()
    };
    let filter = py
        .detach(|| -> Result<Rows<T>, FilterError> {
            let f = match sos_shape {
                None => Rows::Ba(Lfilter::<T>::new(b, a, options)?),
                Some(shape) => Rows::Sos(Sos::<T>::new(&signal::sos_rows(b, shape)?, options)?),
            };
            // Non-finite x is refused while filtering (Rows::run below).
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
            py.detach(|| filter.run(xs, channels, ys, zs, zfs))
                .map_err(filter_err)?;
        } else if let (Some(z), Some(out)) = (zs, zfs) {
            out.copy_from_slice(z);
        }
    }
    Ok((y.into_any(), zf.map(|z| z.into_any())))
}

/// lfilter (or sosfilt, with `sos_shape`) of the rows of a C-contiguous float32 / float64
/// (channels, n) array, the method chosen by the accuracy contract: (y, zf or None). zi:
/// (channels, state) — for sos, [channel][section][2].
#[pyfunction]
#[pyo3(signature = (b, a, x, zi=None, sos_shape=None, allow_unstable=false))]
fn filter_rows<'py>(
    py: Python<'py>,
    b: Vec<f64>,
    a: Vec<f64>,
    x: &Bound<'py, PyAny>,
    zi: Option<&Bound<'py, PyAny>>,
    sos_shape: Option<Vec<usize>>,
    allow_unstable: bool,
) -> PyResult<(Bound<'py, PyAny>, Option<Bound<'py, PyAny>>)> {
    let shape = sos_shape.as_deref();
    if let Ok(x) = x.extract::<PyReadonlyArray2<'py, f32>>() {
        let zi = zi
            .map(|z| z.extract::<PyReadonlyArray2<'py, f32>>())
            .transpose()?;
        rows_run(py, &b, &a, shape, x, zi, allow_unstable)
    } else {
        let x = x.extract::<PyReadonlyArray2<'py, f64>>()?;
        let zi = zi
            .map(|z| z.extract::<PyReadonlyArray2<'py, f64>>())
            .transpose()?;
        rows_run(py, &b, &a, shape, x, zi, allow_unstable)
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(signal_run, m)?)?;
    m.add_function(wrap_pyfunction!(filter_rows, m)?)?;
    m.add_function(wrap_pyfunction!(signal_lfilter_zi, m)?)?;
    m.add_function(wrap_pyfunction!(signal_sosfilt_zi, m)?)?;
    m.add_function(wrap_pyfunction!(sosfilt_cuda, m)?)?;
    Ok(())
}
