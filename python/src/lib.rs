//! `sigpu._native`: the compiled half of the `sigpu` Python package. Functions here take
//! arrays already checked and laid out by the Python half (`python/sigpu/`): C-contiguous,
//! of the element type the library computes in, or raw device addresses of GPU arrays with
//! the caller's stream. Long work runs with the GIL released (`py.detach`), on a worker
//! thread that Ctrl-C cancels where it can take long (`guard::interruptible`); errors carry
//! the library's message, in the package's words (`guard::pythonic`), as `ValueError` (bad
//! input), `OSError` (files) or `RuntimeError` (the device). Every entry point runs inside
//! `guard::catch`, so a panic is a `RuntimeError`, never pyo3's `PanicException`.

mod allpole;
mod approx;
mod complex_filter;
mod convert;
mod device;
mod guard;
mod ldpc;
mod lns;
mod recurrence;

use guard::catch;
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;

/// A 1-D numpy array argument, read-only.
pub(crate) type In<'py, T> = numpy::PyReadonlyArray1<'py, T>;

/// A new 1-D numpy array returned to Python.
pub(crate) type Out<'py, T> = PyResult<Bound<'py, numpy::PyArray1<T>>>;

/// A bad-input error with the library's message.
pub(crate) fn value_err(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(guard::pythonic(&e.to_string()))
}

/// A device (driver, launch, NVRTC) error with the library's message.
pub(crate) fn runtime_err(e: impl std::fmt::Display) -> PyErr {
    PyRuntimeError::new_err(guard::pythonic(&e.to_string()))
}

/// What a cancelled call raises when no signal handler's exception is at hand (the token was
/// set by other means): the libraries stop with their `Cancelled` error only then.
fn cancelled_err() -> PyErr {
    pyo3::exceptions::PyKeyboardInterrupt::new_err("cancelled")
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
        sigpu_ldpc::LdpcError::Cancelled(_) => cancelled_err(),
        e @ sigpu_ldpc::LdpcError::Io { .. } => PyOSError::new_err(e.to_string()),
        other => value_err(other),
    }
}

pub(crate) fn lns_err(e: sigpu_lns::LnsError) -> PyErr {
    match e {
        sigpu_lns::LnsError::Gpu(g) => runtime_err(g),
        sigpu_lns::LnsError::Cancelled(_) => cancelled_err(),
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
    catch(|| {
        let info = py.detach(|| Info {
            version: env!("CARGO_PKG_VERSION"),
            host: sigpu_runtime::host::HostInfo::detect(),
            cuda: sigpu_runtime::cuda::probe(),
        });
        serde_json::to_string(&info).map_err(runtime_err)
    })
}

/// Whether a CUDA driver, a device and NVRTC are all usable (initialises the driver).
#[pyfunction]
fn cuda_status(py: Python<'_>) -> PyResult<(bool, Option<String>)> {
    catch(|| {
        let status = py.detach(sigpu_runtime::cuda::probe);
        Ok((status.available, status.reason))
    })
}

/// Worker threads available to this process (what "all cores" means for `workers`).
#[pyfunction]
fn host_threads() -> PyResult<usize> {
    catch(|| Ok(sigpu_runtime::host::threads()))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(info_json, m)?)?;
    m.add_function(wrap_pyfunction!(cuda_status, m)?)?;
    m.add_function(wrap_pyfunction!(host_threads, m)?)?;
    guard::register(m)?;
    allpole::register(m)?;
    approx::register(m)?;
    ldpc::register(m)?;
    lns::register(m)?;
    recurrence::register(m)?;
    complex_filter::register(m)?;
    Ok(())
}
