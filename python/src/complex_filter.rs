//! Complex signals through the recurrence crate's complex front door
//! (`sigpu_recurrence::complex::plan_complex`): rows of complex64 / complex128 host arrays,
//! passed as their interleaved float32 / float64 views, with real or complex coefficients
//! given as real and imaginary parts, and device memory of CUDA arrays with complex
//! coefficients (the complex serial kernel, on the caller's stream). The library decides how
//! they run (the real filter on both parts, or the complex serial engine); this file only
//! moves arrays and addresses.

use crate::guard::{catch, interruptible};
use crate::recurrence::Addresses;
use crate::{filter_err, value_err};
use numpy::{PyArray2, PyArrayMethods, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;
use sigpu_recurrence::complex::{self, plan_complex, ComplexSpec, C64};
use sigpu_recurrence::{DeviceBatch, Element, FilterError, FilterOptions};
use sigpu_runtime::cuda::{DeviceSlice, DeviceSliceMut};
use sigpu_runtime::{GpuTarget, Target};

/// Values from which a call runs where Ctrl-C can stop it.
const LONG: usize = 1 << 18;

type Rows<'py> = (Bound<'py, PyAny>, Option<Bound<'py, PyAny>>, String);

fn rows<'py, T: Element + numpy::Element>(
    py: Python<'py>,
    spec: &ComplexSpec,
    options: FilterOptions,
    target: &Target,
    x: PyReadonlyArray2<'py, T>,
    zi: Option<PyReadonlyArray2<'py, T>>,
) -> PyResult<Rows<'py>> {
    let (channels, width) = (x.shape()[0], x.shape()[1]);
    let xs = x.as_slice().map_err(value_err)?;
    let zs = match &zi {
        Some(z) => Some(z.as_slice().map_err(value_err)?),
        None => None,
    };
    let filter = py
        .detach(|| plan_complex::<T>(spec, options, target))
        .map_err(filter_err)?;
    let state = 2 * filter.state_len();
    let report = serde_json::to_string(filter.report()).map_err(crate::runtime_err)?;
    let y = PyArray2::<T>::zeros(py, [channels, width], false);
    let zf = zs.map(|_| PyArray2::<T>::zeros(py, [channels, state], false));
    {
        let mut yw = y.readwrite();
        let ys = yw.as_slice_mut().map_err(value_err)?;
        let mut zw = zf.as_ref().map(|z| z.readwrite());
        let zfs = match zw.as_mut() {
            Some(w) => Some(w.as_slice_mut().map_err(value_err)?),
            None => None,
        };
        if channels > 0 && width > 0 {
            interruptible(py, xs.len() >= LONG, || {
                filter.run(xs, channels, ys, zs, zfs)
            })?
            .map_err(filter_err)?;
        } else if let (Some(z), Some(out)) = (zs, zfs) {
            if let Err(e) = complex::check_finite_complex(z, "zi") {
                return Err(filter_err(e));
            }
            out.copy_from_slice(z);
        }
    }
    Ok((y.into_any(), zf.map(|z| z.into_any()), report))
}

/// lfilter (or sosfilt, with `sos`: then `b_re` / `b_im` hold the flattened sections and a is
/// empty), planned for the CPU or, with `device`, that GPU (real coefficients run there on
/// host data; complex ones on the CPU), of the rows of a C-contiguous (channels, 2·n) float32 / float64 array holding
/// complex values as (re, im) pairs: (y, zf or None, the report as JSON). zi: (channels,
/// 2·state), complex states interleaved the same way. Imaginary parts may be empty (real).
#[pyfunction]
#[pyo3(signature = (b_re, b_im, a_re, a_im, x, zi=None, sos=false, allow_unstable=false, workers=None, device=None))]
#[allow(clippy::too_many_arguments)]
fn complex_rows<'py>(
    py: Python<'py>,
    b_re: Vec<f64>,
    b_im: Vec<f64>,
    a_re: Vec<f64>,
    a_im: Vec<f64>,
    x: &Bound<'py, PyAny>,
    zi: Option<&Bound<'py, PyAny>>,
    sos: bool,
    allow_unstable: bool,
    workers: Option<usize>,
    device: Option<usize>,
) -> PyResult<Rows<'py>> {
    catch(|| {
        let spec = match sos {
            true => ComplexSpec::sos(&b_re, &b_im),
            false => ComplexSpec::ba(&b_re, &b_im, &a_re, &a_im),
        }
        .map_err(filter_err)?;
        let target = match device {
            None => Target::cpu(),
            Some(d) => Target::Gpu(GpuTarget::new(crate::device::gpu(d)?)),
        };
        let options = FilterOptions {
            allow_unstable,
            threads: workers,
            ..FilterOptions::default()
        };
        if let Ok(x) = x.extract::<PyReadonlyArray2<'py, f32>>() {
            let zi = zi
                .map(|z| z.extract::<PyReadonlyArray2<'py, f32>>())
                .transpose()?;
            rows(py, &spec, options, &target, x, zi)
        } else {
            let x = x.extract::<PyReadonlyArray2<'py, f64>>()?;
            let zi = zi
                .map(|z| z.extract::<PyReadonlyArray2<'py, f64>>())
                .transpose()?;
            rows(py, &spec, options, &target, x, zi)
        }
    })
}

/// # Safety
/// The addresses are live device memory of `target`'s GPU holding what `io` says, kept alive
/// by the caller until the work on the target's stream is done.
unsafe fn device_run<T: Element>(
    spec: &ComplexSpec,
    options: FilterOptions,
    target: &Target,
    io: &Addresses,
) -> Result<String, FilterError> {
    let filter = plan_complex::<T>(spec, options, target)?;
    let report = serde_json::to_string(filter.report())
        .map_err(|e| FilterError::Input(format!("the report: {e}")))?;
    let gpu = target.gpu().expect("a GPU target").gpu();
    let total = io
        .channels
        .checked_mul(io.n)
        .and_then(|v| v.checked_mul(2))
        .ok_or_else(|| FilterError::Input("channels × length overflows".into()))?;
    let state = 2 * io.channels * filter.state_len();
    // SAFETY: the caller's contract (above). The plan is dropped at the end of this call: its
    // coefficients were uploaded on the target's stream and are freed on it, after the kernel.
    unsafe {
        filter.run_device(DeviceBatch {
            x: DeviceSlice::from_raw(io.x, total, gpu),
            channels: io.channels,
            y: DeviceSliceMut::from_raw(io.y, total, gpu),
            zi: io.zi.map(|z| DeviceSlice::from_raw(z, state, gpu)),
            zf: io.zf.map(|z| DeviceSliceMut::from_raw(z, state, gpu)),
        })?;
    }
    Ok(report)
}

/// lfilter (or sosfilt, with `sos`: then `b_re` / `b_im` hold the flattened sections) with
/// complex coefficients of `channels` rows of `n` complex values at device address `x` (their
/// float32 / float64 parts interleaved, `dtype` naming the part type) into `y`, both owned by
/// the caller, on device `device`, enqueued on the caller's stream `stream` (0: the legacy
/// default stream). zi / zf: device addresses of `channels × state` complex values, or none.
/// `sync`: wait for the stream before returning. Returns the report as JSON.
#[pyfunction]
#[pyo3(signature = (b_re, b_im, a_re, a_im, dtype, x, y, channels, n, device, stream, zi=None, zf=None, sos=false, allow_unstable=false, sync=false))]
#[allow(clippy::too_many_arguments)]
fn complex_cuda(
    py: Python<'_>,
    b_re: Vec<f64>,
    b_im: Vec<f64>,
    a_re: Vec<f64>,
    a_im: Vec<f64>,
    dtype: &str,
    x: u64,
    y: u64,
    channels: usize,
    n: usize,
    device: usize,
    stream: u64,
    zi: Option<u64>,
    zf: Option<u64>,
    sos: bool,
    allow_unstable: bool,
    sync: bool,
) -> PyResult<String> {
    catch(|| {
        let spec = match sos {
            true => ComplexSpec::sos(&b_re, &b_im),
            false => ComplexSpec::ba(&b_re, &b_im, &a_re, &a_im),
        }
        .map_err(filter_err)?;
        let io = Addresses {
            x,
            y,
            channels,
            n,
            zi,
            zf,
            layout: None,
        };
        let options = FilterOptions {
            allow_unstable,
            ..FilterOptions::default()
        };
        py.detach(|| {
            let gpu = crate::device::gpu(device)?;
            // SAFETY: the Python half passes the stream the array's library reports as current
            // for the array's device.
            let target = Target::Gpu(unsafe { GpuTarget::on_stream(gpu, stream) });
            // SAFETY: x, y (and zi, zf) are the data pointers of live arrays on `device` of
            // the sizes in `io`, kept alive by the Python caller until the call returns, used
            // on the caller's stream, so any later use by the caller is ordered after this
            // work.
            let report = unsafe {
                match dtype {
                    "float32" => device_run::<f32>(&spec, options, &target, &io),
                    "float64" => device_run::<f64>(&spec, options, &target, &io),
                    other => {
                        return Err(value_err(format!(
                            "the complex GPU filter takes complex64 or complex128 (float32 or \
                             float64 parts), not {other} parts"
                        )))
                    }
                }
            }
            .map_err(filter_err)?;
            if sync {
                let g = target.gpu().expect("a GPU target");
                g.synchronize().map_err(crate::runtime_err)?;
            }
            Ok(report)
        })
    })
}

type Parts = (Vec<f64>, Vec<f64>);

fn parts(v: Result<Vec<C64>, FilterError>) -> PyResult<Parts> {
    let v = v.map_err(filter_err)?;
    Ok((
        v.iter().map(|c| c.re).collect(),
        v.iter().map(|c| c.im).collect(),
    ))
}

/// scipy's lfilter_zi for complex (b, a): (real parts, imaginary parts).
#[pyfunction]
fn complex_lfilter_zi(
    b_re: Vec<f64>,
    b_im: Vec<f64>,
    a_re: Vec<f64>,
    a_im: Vec<f64>,
) -> PyResult<Parts> {
    catch(|| {
        let ComplexSpec::Ba { b, a } =
            ComplexSpec::ba(&b_re, &b_im, &a_re, &a_im).map_err(filter_err)?
        else {
            unreachable!("ComplexSpec::ba gives (b, a)")
        };
        parts(complex::lfilter_zi(&b, &a))
    })
}

/// scipy's sosfilt_zi for complex sections (flattened parts): [section][2] as (re, im).
#[pyfunction]
fn complex_sosfilt_zi(re: Vec<f64>, im: Vec<f64>) -> PyResult<Parts> {
    catch(|| {
        let ComplexSpec::Sos(rows) = ComplexSpec::sos(&re, &im).map_err(filter_err)? else {
            unreachable!("ComplexSpec::sos gives sections")
        };
        parts(complex::sosfilt_zi(&rows))
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(complex_rows, m)?)?;
    m.add_function(wrap_pyfunction!(complex_cuda, m)?)?;
    m.add_function(wrap_pyfunction!(complex_lfilter_zi, m)?)?;
    m.add_function(wrap_pyfunction!(complex_sosfilt_zi, m)?)?;
    Ok(())
}
