//! The GPUs the package has opened: each device once per process, on first use (importing
//! `sigpu` touches no GPU), in its primary context, shared with PyTorch and CuPy. Callers get
//! a clone of the handle (cheap: the device is shared) and hold it in what they build.

use crate::runtime_err;
use pyo3::PyResult;
use sigpu_runtime::cuda::Gpu;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// Device `ordinal`, opened (with NVRTC checked) on first use and kept for the process.
pub fn gpu(ordinal: usize) -> PyResult<Gpu> {
    static GPUS: OnceLock<Mutex<HashMap<usize, Gpu>>> = OnceLock::new();
    let mut gpus = GPUS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    if let Some(g) = gpus.get(&ordinal) {
        return Ok(g.clone());
    }
    let g = Gpu::open_with_compiler(ordinal).map_err(runtime_err)?;
    gpus.insert(ordinal, g.clone());
    Ok(g)
}
