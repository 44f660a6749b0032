//! The fast f32 exp / log / sin / cos of `sigpu-approx`, on the CPU's best SIMD path and all
//! threads.

use crate::convert::Wrap;
use crate::{value_err, In, Out};
use numpy::IntoPyArray;
use pyo3::prelude::*;
use sigpu_approx::cpu::{apply, CpuFunction, SimdPath};

/// `function` (exp, log, sin or cos) of every element of `x`.
#[pyfunction]
fn approx_f32<'py>(py: Python<'py>, function: Wrap<CpuFunction>, x: In<'py, f32>) -> Out<'py, f32> {
    let xs = x.as_slice().map_err(value_err)?;
    let out = py.detach(|| {
        let mut out = vec![0f32; xs.len()];
        let path = SimdPath::best(&sigpu_runtime::host::CpuArch::host());
        apply(function.0, path, xs, &mut out, 1.0);
        out
    });
    Ok(out.into_pyarray(py))
}

/// Adds this module's functions to `_native`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(approx_f32, m)?)
}
