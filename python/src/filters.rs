//! `lfilter` on a GPU: device addresses of a PyTorch tensor or a CuPy array, launched on the
//! caller's stream, or host rows uploaded and downloaded.

use crate::{device, filter_err, value_err};
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyReadonlyArray2};
use pyo3::prelude::*;
use sigpu_recurrence::gpu::RawIo;
use sigpu_recurrence::{
    check_finite, Element, Filter, FilterOptions, GpuConfig, GpuFilter, Signature,
};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

enum AnyGpuFilter {
    F32(GpuFilter<f32>),
    F64(GpuFilter<f64>),
}

/// Compiled GPU filters by coefficients, element type, device and stream: one per stream, as
/// launches of one filter share its look-back state and must be ordered.
type Key = (Vec<u64>, Vec<u64>, &'static str, usize, u64);

fn gpu_filter(key: Key, b: &[f64], a: &[f64]) -> PyResult<Arc<AnyGpuFilter>> {
    static CACHE: OnceLock<Mutex<HashMap<Key, Arc<AnyGpuFilter>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(f) = cache.lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
        return Ok(f.clone());
    }
    let gpu = &device::gpu(key.3)?;
    let signature = Signature::from_lfilter(b, a).map_err(filter_err)?;
    let options = FilterOptions::default();
    let built = match key.2 {
        "float32" => AnyGpuFilter::F32(
            GpuFilter::new(
                gpu,
                &Filter::new(&signature, options).map_err(filter_err)?,
                GpuConfig::default(),
            )
            .map_err(filter_err)?,
        ),
        "float64" => AnyGpuFilter::F64(
            GpuFilter::new(
                gpu,
                &Filter::new(&signature, options).map_err(filter_err)?,
                GpuConfig::default(),
            )
            .map_err(filter_err)?,
        ),
        other => {
            return Err(value_err(format!(
                "the GPU filter takes float32 or float64, not {other}"
            )))
        }
    };
    // The constants were uploaded on the device's own stream; launches go on the caller's.
    gpu.synchronize().map_err(crate::runtime_err)?;
    let built = Arc::new(built);
    let mut map = cache.lock().unwrap_or_else(|p| p.into_inner());
    // A long-running process that filters on many short-lived streams keeps a bounded cache.
    if map.len() >= 64 {
        map.clear();
    }
    map.insert(key, built.clone());
    Ok(built)
}

/// lfilter of `channels` rows of `n` elements at device address `x` into `y` (both owned by
/// the caller), on device `device`, enqueued on the caller's stream `stream` (0: the legacy
/// default stream). zi / zf: device addresses of `channels × state` values, or none.
#[pyfunction]
#[pyo3(signature = (b, a, dtype, x, y, channels, n, device, stream, zi=None, zf=None, sync=false))]
#[allow(clippy::too_many_arguments)]
fn lfilter_cuda(
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
    sync: bool,
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
    let bits = |v: &[f64]| v.iter().map(|c| c.to_bits()).collect::<Vec<_>>();
    let key = (bits(&b), bits(&a), dtype, device, stream);
    py.detach(|| {
        let filter = gpu_filter(key, &b, &a)?;
        let gpu = &device::gpu(device)?;
        // SAFETY: the Python half passes the stream the array's library reports as current
        // for the array's device (or the one the caller named).
        let s = unsafe { gpu.borrowed_stream(stream) };
        let io = RawIo {
            x,
            y,
            channels,
            n,
            zi,
            zf,
        };
        // SAFETY: x, y (and zi, zf) are the data pointers of live arrays on `device`, of the
        // sizes in `io`, kept alive by the Python caller until the call returns; with
        // `sync = false` they are the caller's arrays, used on the caller's stream, so any
        // later use by the caller is ordered after this work.
        unsafe {
            match &*filter {
                AnyGpuFilter::F32(f) => f.run_raw(gpu, &s, io),
                AnyGpuFilter::F64(f) => f.run_raw(gpu, &s, io),
            }
        }
        .map_err(filter_err)?;
        if sync {
            gpu.synchronize_stream(&s).map_err(crate::runtime_err)?;
        }
        Ok(())
    })
}

/// lfilter of host rows on GPU `device` (upload, filter, download): float32 or float64.
#[pyfunction]
#[pyo3(signature = (b, a, x, device, zi=None))]
fn lfilter_cuda_host<'py>(
    py: Python<'py>,
    b: Vec<f64>,
    a: Vec<f64>,
    x: &Bound<'py, PyAny>,
    device: usize,
    zi: Option<&Bound<'py, PyAny>>,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
    fn run<'py, T: Element + numpy::Element>(
        py: Python<'py>,
        b: &[f64],
        a: &[f64],
        x: PyReadonlyArray2<'py, T>,
        zi: Option<PyReadonlyArray2<'py, T>>,
        device: usize,
        dtype: &'static str,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        let (channels, n) = x.as_array().dim();
        let xs = x.as_slice().map_err(value_err)?;
        let zs = match &zi {
            Some(z) => Some(z.as_slice().map_err(value_err)?),
            None => None,
        };
        let bits = |v: &[f64]| v.iter().map(|c| c.to_bits()).collect::<Vec<_>>();
        let key = (bits(b), bits(a), dtype, device, u64::MAX);
        let (y, zf) = py.detach(|| -> PyResult<(Vec<T>, Vec<T>)> {
            check_finite(xs, "x").map_err(filter_err)?;
            let f = gpu_filter(key, b, a)?;
            let gpu = &device::gpu(device)?;
            let any: &dyn std::any::Any = match &*f {
                AnyGpuFilter::F32(f) => f,
                AnyGpuFilter::F64(f) => f,
            };
            let f = any
                .downcast_ref::<GpuFilter<T>>()
                .ok_or_else(|| value_err("element type mismatch"))?;
            if channels == 0 || n == 0 {
                return Ok((Vec::new(), zs.map(<[T]>::to_vec).unwrap_or_default()));
            }
            f.apply(gpu, xs, channels, zs).map_err(filter_err)
        })?;
        let state = zf.len() / channels.max(1);
        let y = Array2::from_shape_vec((channels, n), y).map_err(value_err)?;
        let zf = Array2::from_shape_vec((channels, state), zf).map_err(value_err)?;
        Ok((
            y.into_pyarray(py).into_any(),
            zf.into_pyarray(py).into_any(),
        ))
    }
    if let Ok(x) = x.extract::<PyReadonlyArray2<'py, f32>>() {
        let zi = zi
            .map(|z| z.extract::<PyReadonlyArray2<'py, f32>>())
            .transpose()?;
        run(py, &b, &a, x, zi, device, "float32")
    } else {
        let x = x.extract::<PyReadonlyArray2<'py, f64>>()?;
        let zi = zi
            .map(|z| z.extract::<PyReadonlyArray2<'py, f64>>())
            .transpose()?;
        run(py, &b, &a, x, zi, device, "float64")
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(lfilter_cuda, m)?)?;
    m.add_function(wrap_pyfunction!(lfilter_cuda_host, m)?)?;
    Ok(())
}
