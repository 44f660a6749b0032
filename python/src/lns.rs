//! LNS words from and to float64, element-wise arithmetic, fused sum and dot, the HMM
//! forward algorithm (CPU and GPU), and the fast f32 functions of `sigpu-approx`.

use crate::{device, lns_err, value_err};
use numpy::ndarray::Array1;
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;
use sigpu_approx::cpu::{apply, CpuFunction, SimdPath};
use sigpu_lns::hmm::gpu::GpuHmm;
use sigpu_lns::hmm::HmmModel;
use sigpu_lns::{Format, Method};

fn format(name: &str) -> PyResult<Format> {
    name.parse::<Format>().map_err(value_err)
}

/// (word bits, ulp in log2 units, integer bits, fraction bits) of a format name.
#[pyfunction]
fn lns_format(name: &str) -> PyResult<(u32, f64, u32, u32)> {
    let f = format(name)?;
    Ok((f.word_bits(), f.ulp(), f.int_bits, f.frac_bits))
}

#[pyfunction]
fn lns_from_f64<'py>(
    py: Python<'py>,
    fmt: &str,
    x: PyReadonlyArray1<'py, f64>,
) -> PyResult<Bound<'py, PyArray1<u32>>> {
    let f = format(fmt)?;
    let xs = x.as_slice().map_err(value_err)?;
    let words: Vec<u32> = py.detach(|| xs.iter().map(|&v| f.from_f64(v)).collect());
    Ok(words.into_pyarray(py))
}

#[pyfunction]
fn lns_to_f64<'py>(
    py: Python<'py>,
    fmt: &str,
    w: PyReadonlyArray1<'py, u32>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let f = format(fmt)?;
    let ws = w.as_slice().map_err(value_err)?;
    let values: Vec<f64> = py.detach(|| ws.iter().map(|&v| f.to_f64(v)).collect());
    Ok(values.into_pyarray(py))
}

/// a op b element-wise (op: add, sub, mul, div), equal lengths; add/sub through the CPU's
/// default method (faithful: within one ulp in the log domain).
#[pyfunction]
fn lns_binary<'py>(
    py: Python<'py>,
    fmt: &str,
    op: &str,
    a: PyReadonlyArray1<'py, u32>,
    b: PyReadonlyArray1<'py, u32>,
) -> PyResult<Bound<'py, PyArray1<u32>>> {
    let f = format(fmt)?;
    let (a, b) = (
        a.as_slice().map_err(value_err)?,
        b.as_slice().map_err(value_err)?,
    );
    let out = py.detach(|| -> PyResult<Vec<u32>> {
        let mut out = vec![0u32; a.len()];
        match op {
            "add" | "sub" => {
                let m = Method::cpu_default(f)
                    .cpu(f)
                    .map_err(lns_err)?
                    .ok_or_else(|| value_err("no CPU add/sub method for this format"))?;
                if op == "add" {
                    f.add_slices(&*m, a, b, &mut out).map_err(lns_err)?;
                } else {
                    let neg: Vec<u32> = b.iter().map(|&w| f.neg(w)).collect();
                    f.add_slices(&*m, a, &neg, &mut out).map_err(lns_err)?;
                }
            }
            "mul" => f.mul_slices(a, b, &mut out).map_err(lns_err)?,
            "div" => f.div_slices(a, b, &mut out).map_err(lns_err)?,
            other => return Err(value_err(format!("unknown LNS operation {other:?}"))),
        }
        Ok(out)
    })?;
    Ok(out.into_pyarray(py))
}

/// Σ w, fused (rounded once).
#[pyfunction]
fn lns_sum(py: Python<'_>, fmt: &str, w: PyReadonlyArray1<'_, u32>) -> PyResult<u32> {
    let f = format(fmt)?;
    let ws = w.as_slice().map_err(value_err)?;
    Ok(py.detach(|| f.sum(ws)))
}

/// Σ a·b, fused (exact products, rounded once).
#[pyfunction]
fn lns_dot(
    py: Python<'_>,
    fmt: &str,
    a: PyReadonlyArray1<'_, u32>,
    b: PyReadonlyArray1<'_, u32>,
) -> PyResult<u32> {
    let f = format(fmt)?;
    let (a, b) = (
        a.as_slice().map_err(value_err)?,
        b.as_slice().map_err(value_err)?,
    );
    py.detach(|| f.dot(a, b)).map_err(lns_err)
}

/// ln P(observations) of `batch` sequences (log_b: batch × steps × states, flattened) under
/// the model (log_pi: states, log_a: states × states flattened), in LNS `fmt`; on GPU
/// `device` or the CPU.
#[pyfunction]
#[pyo3(signature = (fmt, log_pi, log_a, log_b, batch, device=None))]
fn hmm_forward<'py>(
    py: Python<'py>,
    fmt: &str,
    log_pi: Vec<f64>,
    log_a: Vec<f64>,
    log_b: PyReadonlyArray1<'py, f64>,
    batch: usize,
    device: Option<usize>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let f = format(fmt)?;
    let model = HmmModel {
        states: log_pi.len(),
        log_init: log_pi,
        log_trans: log_a,
    };
    let emit = log_b.as_slice().map_err(value_err)?;
    let ll = py.detach(|| -> PyResult<Vec<f64>> {
        match device {
            None => model.forward_lns_batch(f, emit, batch).map_err(lns_err),
            Some(d) => {
                let gpu = device::gpu(d)?;
                let hmm = GpuHmm::new(gpu, &model, f).map_err(lns_err)?;
                hmm.forward_host(gpu, emit, batch).map_err(lns_err)
            }
        }
    })?;
    Ok(Array1::from_vec(ll).into_pyarray(py))
}

/// The fast f32 exp / log / sin / cos of `sigpu-approx` (its CPU SIMD path, on all threads).
#[pyfunction]
fn approx_f32<'py>(
    py: Python<'py>,
    function: &str,
    x: PyReadonlyArray1<'py, f32>,
) -> PyResult<Bound<'py, PyArray1<f32>>> {
    let f = match function {
        "exp" => CpuFunction::Exp,
        "log" => CpuFunction::Log,
        "sin" => CpuFunction::Sin,
        "cos" => CpuFunction::Cos,
        other => return Err(value_err(format!("unknown function {other:?}"))),
    };
    let xs = x.as_slice().map_err(value_err)?;
    let out = py.detach(|| {
        let mut out = vec![0f32; xs.len()];
        let path = SimdPath::best(&sigpu_runtime::host::CpuArch::host());
        apply(f, path, xs, &mut out, 1.0);
        out
    });
    Ok(out.into_pyarray(py))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(lns_format, m)?)?;
    m.add_function(wrap_pyfunction!(lns_from_f64, m)?)?;
    m.add_function(wrap_pyfunction!(lns_to_f64, m)?)?;
    m.add_function(wrap_pyfunction!(lns_binary, m)?)?;
    m.add_function(wrap_pyfunction!(lns_sum, m)?)?;
    m.add_function(wrap_pyfunction!(lns_dot, m)?)?;
    m.add_function(wrap_pyfunction!(hmm_forward, m)?)?;
    m.add_function(wrap_pyfunction!(approx_f32, m)?)?;
    Ok(())
}
