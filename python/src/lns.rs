//! LNS words from and to float64, element-wise arithmetic, fused sum and dot, and the HMM
//! forward algorithm (CPU and GPU) of `sigpu-lns`.

mod tensor;

use crate::convert::Wrap;
use crate::guard::{catch, interruptible, with_threads};
use crate::{device, lns_err, value_err, In, Out};
use numpy::{Element, IntoPyArray};
use pyo3::prelude::*;
use sigpu_lns::hmm::HmmModel;
use sigpu_lns::{Format, Method};
use sigpu_runtime::{GpuTarget, Target};

/// Elements from which an element-wise call runs where Ctrl-C can stop it.
const LONG: usize = 1 << 20;

/// `f` of every element of `x`, with the GIL released.
fn map<'py, A, B>(py: Python<'py>, x: &In<'py, A>, f: impl Fn(A) -> B + Sync) -> Out<'py, B>
where
    A: Element + Copy + Sync,
    B: Element + Send,
{
    let xs = x.as_slice().map_err(value_err)?;
    let out: Vec<B> = py.detach(|| xs.iter().map(|&v| f(v)).collect());
    Ok(out.into_pyarray(py))
}

/// The two operands of an element-wise operation as slices.
fn pair<'a>(a: &'a In<'_, u32>, b: &'a In<'_, u32>) -> PyResult<(&'a [u32], &'a [u32])> {
    Ok((
        a.as_slice().map_err(value_err)?,
        b.as_slice().map_err(value_err)?,
    ))
}

/// (word bits, ulp in log2 units, integer bits, fraction bits) of a format name.
#[pyfunction]
fn lns_format(format: Wrap<Format>) -> PyResult<(u32, f64, u32, u32)> {
    catch(|| {
        let f = format.0;
        Ok((f.word_bits(), f.ulp(), f.int_bits, f.frac_bits))
    })
}

/// The words nearest to `x` (correctly rounded in the log domain).
#[pyfunction]
fn lns_from_f64<'py>(py: Python<'py>, format: Wrap<Format>, x: In<'py, f64>) -> Out<'py, u32> {
    catch(|| map(py, &x, |v| format.0.from_f64(v)))
}

/// The values of the words `w`.
#[pyfunction]
fn lns_to_f64<'py>(py: Python<'py>, format: Wrap<Format>, w: In<'py, u32>) -> Out<'py, f64> {
    catch(|| map(py, &w, |v| format.0.to_f64(v)))
}

/// a op b element-wise (op: add, sub, mul, div), equal lengths; add/sub through the CPU's
/// default method (faithful: within one ulp in the log domain).
#[pyfunction]
fn lns_binary<'py>(
    py: Python<'py>,
    format: Wrap<Format>,
    op: &str,
    a: In<'py, u32>,
    b: In<'py, u32>,
) -> Out<'py, u32> {
    catch(|| binary(py, format.0, op, &a, &b))
}

fn binary<'py>(
    py: Python<'py>,
    f: Format,
    op: &str,
    a: &In<'py, u32>,
    b: &In<'py, u32>,
) -> Out<'py, u32> {
    let (a, b) = pair(a, b)?;
    let out = interruptible(py, a.len() >= LONG, || -> PyResult<Vec<u32>> {
        let mut out = vec![0u32; a.len()];
        let add = |b: &[u32], out: &mut [u32]| -> PyResult<()> {
            let m = Method::cpu_default(f)
                .cpu(f)
                .map_err(lns_err)?
                .ok_or_else(|| value_err("no CPU add/sub method for this format"))?;
            f.add_slices(&*m, a, b, out).map_err(lns_err)
        };
        match op {
            "add" => add(b, &mut out)?,
            "sub" => add(&b.iter().map(|&w| f.neg(w)).collect::<Vec<_>>(), &mut out)?,
            "mul" => f.mul_slices(a, b, &mut out).map_err(lns_err)?,
            "div" => f.div_slices(a, b, &mut out).map_err(lns_err)?,
            other => return Err(value_err(format!("unknown LNS operation {other:?}"))),
        }
        Ok(out)
    })??;
    Ok(out.into_pyarray(py))
}

/// Σ w, fused (rounded once).
#[pyfunction]
fn lns_sum(py: Python<'_>, format: Wrap<Format>, w: In<'_, u32>) -> PyResult<u32> {
    catch(|| {
        let ws = w.as_slice().map_err(value_err)?;
        Ok(py.detach(|| format.0.sum(ws)))
    })
}

/// Σ a·b, fused (exact products, rounded once).
#[pyfunction]
fn lns_dot(py: Python<'_>, format: Wrap<Format>, a: In<'_, u32>, b: In<'_, u32>) -> PyResult<u32> {
    catch(|| {
        let (a, b) = pair(&a, &b)?;
        py.detach(|| format.0.dot(a, b)).map_err(lns_err)
    })
}

/// ln P(observations) of `batch` sequences (log_b: batch × steps × states, flattened) under
/// the model (log_pi: states, log_a: states × states flattened), in LNS `format`; on GPU
/// `device` or the CPU (`workers` threads, None: all).
#[pyfunction]
#[pyo3(signature = (format, log_pi, log_a, log_b, batch, device=None, workers=None))]
#[allow(clippy::too_many_arguments)]
fn hmm_forward<'py>(
    py: Python<'py>,
    format: Wrap<Format>,
    log_pi: Vec<f64>,
    log_a: Vec<f64>,
    log_b: In<'py, f64>,
    batch: usize,
    device: Option<usize>,
    workers: Option<usize>,
) -> Out<'py, f64> {
    catch(|| {
        let f = format.0;
        let model = HmmModel {
            states: log_pi.len(),
            log_init: log_pi,
            log_trans: log_a,
        };
        let emit = log_b.as_slice().map_err(value_err)?;
        // Transition terms: S² per step of every sequence.
        let cells = model.states as f64 * emit.len() as f64;
        let ll = interruptible(py, cells >= 1e7, || -> PyResult<Vec<f64>> {
            let target = match device {
                None => Target::cpu(),
                Some(d) => Target::Gpu(GpuTarget::new(device::gpu(d)?)),
            };
            with_threads(workers, || model.forward_on(&target, f, emit, batch)).map_err(lns_err)
        })??;
        Ok(ll.into_pyarray(py))
    })
}

/// Adds this module's functions to `_native`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(lns_format, m)?)?;
    m.add_function(wrap_pyfunction!(lns_from_f64, m)?)?;
    m.add_function(wrap_pyfunction!(lns_to_f64, m)?)?;
    m.add_function(wrap_pyfunction!(lns_binary, m)?)?;
    m.add_function(wrap_pyfunction!(lns_sum, m)?)?;
    m.add_function(wrap_pyfunction!(lns_dot, m)?)?;
    m.add_function(wrap_pyfunction!(hmm_forward, m)?)?;
    tensor::register(m)
}
