//! `sigpu._native`: the compiled half of the `sigpu` Python package. Functions here take
//! arrays already checked and laid out by the Python half (`python/sigpu/`): C-contiguous,
//! of the element type the library computes in, or raw device addresses of GPU arrays with
//! the caller's stream. Long work runs with the GIL released (`py.detach`); errors carry the
//! library's message as `ValueError` (bad input), `OSError` (files) or `RuntimeError` (the
//! device).

mod approx;
mod convert;
mod device;
mod ldpc;
mod lns;
mod recurrence;

use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;

/// A 1-D numpy array argument, read-only.
pub(crate) type In<'py, T> = numpy::PyReadonlyArray1<'py, T>;

/// A new 1-D numpy array returned to Python.
pub(crate) type Out<'py, T> = PyResult<Bound<'py, numpy::PyArray1<T>>>;

/// A bad-input error with the library's message.
pub(crate) fn value_err(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// A device (driver, launch, NVRTC) error with the library's message.
pub(crate) fn runtime_err(e: impl std::fmt::Display) -> PyErr {
    PyRuntimeError::new_err(e.to_string())
}

pub(crate) fn filter_err(e: sigpu_recurrence::FilterError) -> PyErr {
    match e {
        sigpu_recurrence::FilterError::Gpu(g) => runtime_err(g),
        other => value_err(other),
    }
}

pub(crate) fn ldpc_err(e: sigpu_ldpc::LdpcError) -> PyErr {
    match e {
        sigpu_ldpc::LdpcError::Gpu(g) => runtime_err(g),
        e @ sigpu_ldpc::LdpcError::Io { .. } => PyOSError::new_err(e.to_string()),
        other => value_err(other),
    }
}

pub(crate) fn lns_err(e: sigpu_lns::LnsError) -> PyErr {
    match e {
        sigpu_lns::LnsError::Gpu(g) => runtime_err(g),
        other => value_err(other),
    }
}

#[derive(serde::Serialize)]
struct Info {
    version: &'static str,
    host: sigpu_runtime::host::HostInfo,
    cuda: sigpu_runtime::cuda::CudaStatus,
}

/// `sigpu info --json`'s document, as JSON text (the CLI and the package share the crates, so
/// the same fields and values).
#[pyfunction]
fn info_json(py: Python<'_>) -> PyResult<String> {
    let info = py.detach(|| Info {
        version: env!("CARGO_PKG_VERSION"),
        host: sigpu_runtime::host::HostInfo::detect(),
        cuda: sigpu_runtime::cuda::probe(),
    });
    serde_json::to_string(&info).map_err(runtime_err)
}

/// Whether a CUDA driver, a device and NVRTC are all usable (initialises the driver).
#[pyfunction]
fn cuda_status(py: Python<'_>) -> (bool, Option<String>) {
    let status = py.detach(sigpu_runtime::cuda::probe);
    (status.available, status.reason)
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(info_json, m)?)?;
    m.add_function(wrap_pyfunction!(cuda_status, m)?)?;
    approx::register(m)?;
    ldpc::register(m)?;
    lns::register(m)?;
    recurrence::register(m)?;
    Ok(())
}
