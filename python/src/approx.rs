//! The fast f32 exp / log / sin / cos of `sigpu-approx`, on the CPU's best SIMD path and all
//! threads (or `workers`).

use crate::convert::Wrap;
use crate::guard::{catch, interruptible, with_threads};
use crate::{value_err, In, Out};
use numpy::IntoPyArray;
use pyo3::prelude::*;
use sigpu_approx::cpu::{apply, CpuFunction, SimdPath};

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

/// Adds this module's functions to `_native`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(approx_f32, m)?)
}
