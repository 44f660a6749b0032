//! The fast f32 exp / log / sin / cos of `sigpu-approx`, on the CPU's best SIMD path and all
//! threads (or `workers`), and tuning a user's kernel on the GPU (`approx_tune`: the same
//! argument strings as `sigpu approx tune --args`, which `sigpu/approx.py` writes from arrays).

use crate::convert::Wrap;
use crate::guard::{catch, interruptible, with_threads};
use crate::{value_err, In, Out};
use numpy::IntoPyArray;
use pyo3::prelude::*;
use sigpu_approx::cpu::{apply, CpuFunction, SimdPath};
use sigpu_approx::user::request::{Field, TuneRequest};
use sigpu_approx::user::{self, LaunchShape, UserKernel};

/// Elements from which a call runs where Ctrl-C can stop it (a thread start is noise there).
const LONG: usize = 1 << 20;

/// `function` (exp, log, sin or cos) of every element of `x`, on `workers` threads (None: all).
#[pyfunction]
#[pyo3(signature = (function, x, workers=None))]
fn approx_f32<'py>(
    py: Python<'py>,
    function: Wrap<CpuFunction>,
    x: In<'py, f32>,
    workers: Option<usize>,
) -> Out<'py, f32> {
    catch(|| {
        let xs = x.as_slice().map_err(value_err)?;
        let out = interruptible(py, xs.len() >= LONG, || {
            let mut out = vec![0f32; xs.len()];
            let path = SimdPath::best(&sigpu_runtime::host::CpuArch::host());
            with_threads(workers, || apply(function.0, path, xs, &mut out, 1.0));
            out
        })?;
        Ok(out.into_pyarray(py))
    })
}

/// Tunes `kernel` of `source` on `args` (argument strings as the CLI takes them); returns the
/// report as JSON and the kernel's source at the chosen setting. Argument, metric and bound
/// errors are ValueError naming the argument; GPU errors RuntimeError.
#[pyfunction]
#[pyo3(signature = (source, kernel, args, grid, block, metric, qos=None, qos_ratio=0.8, per_site=true, guards=true, energy_seconds=0.5, holdout=None, shared_mem=0, device=0, file=None))]
#[allow(clippy::too_many_arguments)]
fn approx_tune(
    py: Python<'_>,
    source: String,
    kernel: String,
    args: Vec<String>,
    grid: [u32; 3],
    block: [u32; 3],
    metric: String,
    qos: Option<f64>,
    qos_ratio: f64,
    per_site: bool,
    guards: bool,
    energy_seconds: f64,
    holdout: Option<Vec<String>>,
    shared_mem: u32,
    device: usize,
    file: Option<String>,
) -> PyResult<(String, String)> {
    catch(|| {
        let request = TuneRequest {
            args: &args,
            holdout: holdout.as_deref(),
            metric: &metric,
            qos,
            qos_ratio,
            per_site,
            guards,
            energy_seconds,
        };
        let prepared = request.prepare().map_err(|e| match e.field {
            Field::Args => value_err(format!("args: {e}")),
            Field::Holdout => value_err(format!("holdout: {e}")),
            Field::Metric => value_err(e),
            Field::Qos | Field::QosRatio => value_err(format!("qos: {e}")),
        })?;
        let shape = LaunchShape {
            grid,
            block,
            shared_mem,
        };
        shape.check().map_err(value_err)?;
        if !(energy_seconds.is_finite() && energy_seconds >= 0.0) {
            return Err(value_err(format!(
                "energy_seconds must be a finite number >= 0, not {energy_seconds}"
            )));
        }
        let k = UserKernel {
            file: file.unwrap_or_else(|| format!("{kernel}.cu")),
            source,
            kernel,
        };
        let gpu = crate::device::gpu(device)?;
        let report = py
            .detach(|| {
                user::tune(
                    &gpu,
                    &k,
                    &prepared.host,
                    &shape,
                    &prepared.options,
                    prepared.holdout.as_deref(),
                    &|_| {},
                )
            })
            .map_err(crate::runtime_err)?;
        let json = serde_json::to_string(&report).map_err(crate::runtime_err)?;
        Ok((json, report.tuned_source))
    })
}

/// Adds this module's functions to `_native`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(approx_f32, m)?)?;
    m.add_function(wrap_pyfunction!(approx_tune, m)?)
}
