//! Time-varying all-pole filters (`sigpu.allpole`): rows of host arrays through the crate's
//! CPU engine, or a caller's device memory through its GPU kernel, forward and backward. The
//! plan (engine choice, refusals) is `sigpu_recurrence::time_varying::plan_allpole`'s; GPU
//! plans are kept per device, stream, type, order, channels and zi (compiled once).

use crate::guard::{catch, interruptible};
use crate::{device, filter_err, value_err};
use numpy::PyArray1;
use numpy::PyReadonlyArray1;
use pyo3::prelude::*;
use sigpu_recurrence::time_varying::{DeviceBackward, DeviceForward};
use sigpu_recurrence::{plan_allpole, AllPole, AllPoleOptions, AllPoleSpec, Element, FilterError};
use sigpu_runtime::cuda::{DeviceSlice, DeviceSliceMut};
use sigpu_runtime::{GpuTarget, Target};
use std::sync::{Arc, Mutex};

/// Samples from which a host call runs where Ctrl-C can stop it.
const LONG: usize = 1 << 18;

type Key = (usize, u64, &'static str, usize, usize, bool);

/// Plans kept per key.
type Plans<T> = Mutex<Vec<(Key, Arc<AllPole<T>>)>>;

/// GPU plans kept for the process (a few: each holds compiled kernels and scratch).
fn kept<T: Element>(
    cache: &'static Plans<T>,
    key: Key,
    target: &Target,
) -> Result<Arc<AllPole<T>>, FilterError> {
    let mut kept = cache.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, f)) = kept.iter().find(|(k, _)| *k == key) {
        return Ok(f.clone());
    }
    let spec = AllPoleSpec {
        order: key.3,
        channels: key.4,
        zi: key.5,
    };
    let f = Arc::new(plan_allpole::<T>(&spec, AllPoleOptions::default(), target)?);
    if kept.len() >= 16 {
        kept.remove(0);
    }
    kept.push((key, f.clone()));
    Ok(f)
}

fn spec(channels: usize, order: usize, zi: bool) -> AllPoleSpec {
    AllPoleSpec {
        order,
        channels,
        zi,
    }
}

/// zi's values, where given.
fn optional_slice<'a, T: numpy::Element>(
    zi: &'a Option<PyReadonlyArray1<'_, T>>,
) -> PyResult<Option<&'a [T]>> {
    zi.as_ref()
        .map(|z| z.as_slice().map_err(value_err))
        .transpose()
}

/// The CPU plan both host entries run.
fn host_plan<T: Element>(
    channels: usize,
    order: usize,
    zi: bool,
    workers: Option<usize>,
) -> PyResult<AllPole<T>> {
    let options = AllPoleOptions {
        threads: workers,
        chunk: None,
    };
    plan_allpole::<T>(&spec(channels, order, zi), options, &Target::cpu()).map_err(filter_err)
}

fn host_forward<'py, T: Element + numpy::Element>(
    py: Python<'py>,
    x: PyReadonlyArray1<'py, T>,
    a: PyReadonlyArray1<'py, T>,
    zi: Option<PyReadonlyArray1<'py, T>>,
    channels: usize,
    order: usize,
    workers: Option<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    let (xs, as_) = (
        x.as_slice().map_err(value_err)?,
        a.as_slice().map_err(value_err)?,
    );
    let zs = optional_slice(&zi)?;
    let f = host_plan::<T>(channels, order, zs.is_some(), workers)?;
    let mut y = vec![T::ZERO; xs.len()];
    interruptible(py, xs.len() >= LONG, || {
        f.forward(xs, as_, zs, &mut y, None)
    })?
    .map_err(filter_err)?;
    Ok(PyArray1::from_vec(py, y).into_any())
}

/// Forward on host rows: x (channels·n), a (channels·n·order), zi (channels·order) or None,
/// flattened C-contiguous float32 / float64: y (channels·n).
#[pyfunction]
#[pyo3(signature = (x, a, channels, order, zi=None, workers=None))]
fn allpole_rows<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    a: &Bound<'py, PyAny>,
    channels: usize,
    order: usize,
    zi: Option<&Bound<'py, PyAny>>,
    workers: Option<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    catch(|| {
        if let Ok(x) = x.extract::<PyReadonlyArray1<'py, f32>>() {
            let zi = zi.map(|z| z.extract()).transpose()?;
            host_forward::<f32>(py, x, a.extract()?, zi, channels, order, workers)
        } else {
            let zi = zi.map(|z| z.extract()).transpose()?;
            host_forward::<f64>(py, x.extract()?, a.extract()?, zi, channels, order, workers)
        }
    })
}

type Grads<'py> = (
    Bound<'py, PyAny>,
    Bound<'py, PyAny>,
    Option<Bound<'py, PyAny>>,
);

#[allow(clippy::too_many_arguments)]
fn host_backward<'py, T: Element + numpy::Element>(
    py: Python<'py>,
    a: PyReadonlyArray1<'py, T>,
    y: PyReadonlyArray1<'py, T>,
    zi: Option<PyReadonlyArray1<'py, T>>,
    g: PyReadonlyArray1<'py, T>,
    channels: usize,
    order: usize,
    workers: Option<usize>,
) -> PyResult<Grads<'py>> {
    let (as_, ys, gs) = (
        a.as_slice().map_err(value_err)?,
        y.as_slice().map_err(value_err)?,
        g.as_slice().map_err(value_err)?,
    );
    let zs = optional_slice(&zi)?;
    let f = host_plan::<T>(channels, order, zs.is_some(), workers)?;
    let mut gx = vec![T::ZERO; gs.len()];
    let mut ga = vec![T::ZERO; as_.len()];
    let mut gzi = vec![T::ZERO; channels * order];
    interruptible(py, gs.len() >= LONG, || {
        f.backward(as_, ys, zs, gs, &mut gx, &mut ga, Some(&mut gzi))
    })?
    .map_err(filter_err)?;
    let gzi = zs.map(|_| PyArray1::from_vec(py, gzi).into_any());
    Ok((
        PyArray1::from_vec(py, gx).into_any(),
        PyArray1::from_vec(py, ga).into_any(),
        gzi,
    ))
}

/// Backward on host rows (the forward call's a, y, zi and the output gradient g): (grad_x,
/// grad_a, grad_zi or None), flattened.
#[pyfunction]
#[pyo3(signature = (a, y, g, channels, order, zi=None, workers=None))]
#[allow(clippy::too_many_arguments)]
fn allpole_rows_backward<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    y: &Bound<'py, PyAny>,
    g: &Bound<'py, PyAny>,
    channels: usize,
    order: usize,
    zi: Option<&Bound<'py, PyAny>>,
    workers: Option<usize>,
) -> PyResult<Grads<'py>> {
    catch(|| {
        if let Ok(a) = a.extract::<PyReadonlyArray1<'py, f32>>() {
            let zi = zi.map(|z| z.extract()).transpose()?;
            host_backward::<f32>(
                py,
                a,
                y.extract()?,
                zi,
                g.extract()?,
                channels,
                order,
                workers,
            )
        } else {
            let zi = zi.map(|z| z.extract()).transpose()?;
            let a = a.extract()?;
            host_backward::<f64>(
                py,
                a,
                y.extract()?,
                zi,
                g.extract()?,
                channels,
                order,
                workers,
            )
        }
    })
}

static F32_PLANS: Plans<f32> = Mutex::new(Vec::new());

/// The kept float32 plan for a device call.
fn cuda_plan(
    device: usize,
    stream: u64,
    order: usize,
    channels: usize,
    zi: bool,
) -> PyResult<Arc<AllPole<f32>>> {
    let gpu = device::gpu(device)?;
    // SAFETY: the Python half passes torch's current stream of the tensors' device.
    let target = Target::Gpu(unsafe { GpuTarget::on_stream(gpu, stream) });
    kept(
        &F32_PLANS,
        (device, stream, "f32", order, channels, zi),
        &target,
    )
    .map_err(filter_err)
}

/// Forward on device memory (float32; f64 runs on the host, the Python half moves it):
/// `channels × n` values at x into y, a `channels × n × order`, zi `channels × order` or 0,
/// on `stream` of `device`.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn allpole_cuda(
    py: Python<'_>,
    x: u64,
    a: u64,
    zi: Option<u64>,
    y: u64,
    channels: usize,
    n: usize,
    order: usize,
    device: usize,
    stream: u64,
) -> PyResult<()> {
    catch(|| {
        py.detach(|| {
            let f = cuda_plan(device, stream, order, channels, zi.is_some())?;
            let gpu = device::gpu(device)?;
            let total = channels * n;
            // SAFETY: the addresses are the data pointers of live contiguous float32 tensors
            // of these sizes on `device`, kept alive by the caller, used on its stream.
            let io = unsafe {
                DeviceForward {
                    x: DeviceSlice::from_raw(x, total, &gpu),
                    a: DeviceSlice::from_raw(a, total * order, &gpu),
                    zi: zi.map(|z| DeviceSlice::from_raw(z, channels * order, &gpu)),
                    y: DeviceSliceMut::from_raw(y, total, &gpu),
                    zf: None,
                    channels,
                }
            };
            f.forward_device(io).map_err(filter_err)
        })
    })
}

/// Backward on device memory (float32): from a, y, zi (or none) and g, into gx, ga and gzi
/// (or none), sizes as [`allpole_cuda`].
#[pyfunction]
#[pyo3(signature = (a, y, zi, g, gx, ga, gzi, channels, n, order, device, stream))]
#[allow(clippy::too_many_arguments)]
fn allpole_cuda_backward(
    py: Python<'_>,
    a: u64,
    y: u64,
    zi: Option<u64>,
    g: u64,
    gx: u64,
    ga: u64,
    gzi: Option<u64>,
    channels: usize,
    n: usize,
    order: usize,
    device: usize,
    stream: u64,
) -> PyResult<()> {
    catch(|| {
        py.detach(|| {
            let f = cuda_plan(device, stream, order, channels, zi.is_some())?;
            let gpu = device::gpu(device)?;
            let total = channels * n;
            let state = channels * order;
            // SAFETY: as in `allpole_cuda`.
            let io = unsafe {
                DeviceBackward {
                    a: DeviceSlice::from_raw(a, total * order, &gpu),
                    y: DeviceSlice::from_raw(y, total, &gpu),
                    zi: zi.map(|z| DeviceSlice::from_raw(z, state, &gpu)),
                    grad_y: DeviceSlice::from_raw(g, total, &gpu),
                    grad_x: DeviceSliceMut::from_raw(gx, total, &gpu),
                    grad_a: DeviceSliceMut::from_raw(ga, total * order, &gpu),
                    grad_zi: gzi.map(|z| DeviceSliceMut::from_raw(z, state, &gpu)),
                    channels,
                }
            };
            f.backward_device(io).map_err(filter_err)
        })
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(allpole_rows, m)?)?;
    m.add_function(wrap_pyfunction!(allpole_rows_backward, m)?)?;
    m.add_function(wrap_pyfunction!(allpole_cuda, m)?)?;
    m.add_function(wrap_pyfunction!(allpole_cuda_backward, m)?)?;
    Ok(())
}
