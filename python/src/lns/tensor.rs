//! The LNS tensor's native half: element-wise add/sub through the tensor method, reductions
//! along the last axis, the batched matrix product, logsumexp / log_softmax and the float
//! conversions — on numpy words (CPU) and, through `lns_cuda`, on the device addresses of
//! torch / CuPy tensors, enqueued on the caller's stream. CPU and GPU run twins that agree bit
//! for bit: f32split for add/sub where it takes the format (5 ≤ F ≤ 23), `sigpu_lns::axis`
//! and its kernels for the rest.

use crate::convert::Wrap;
use crate::guard::{catch, interruptible};
use crate::{device, lns_err, value_err, In, Out};
use numpy::IntoPyArray;
use pyo3::prelude::*;
use sigpu_lns::axis::{log_softmax_rows, logsumexp_rows, MatShape, Reduce};
use sigpu_lns::gpu::axis::GpuAxis;
use sigpu_lns::gpu::{mul_div_on, GpuMethod};
use sigpu_lns::{Format, Method};
use sigpu_runtime::cuda::{DeviceSlice, DeviceSliceMut};
use sigpu_runtime::GpuTarget;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// Elements from which a call runs where Ctrl-C can stop it.
const LONG: usize = 1 << 20;

/// The add/sub method of LNS tensors on `format`: the library's bit-exact one where there is
/// one, else the CPU's and the GPU's defaults (faithful both, not bit-equal).
pub fn tensor_method(format: Format, gpu: bool) -> Method {
    match Method::bit_exact(format) {
        Some(m) => m,
        None if gpu => Method::gpu_default(format),
        None => Method::cpu_default(format),
    }
}

/// The add/sub method's name and whether its CPU and GPU words agree bit for bit.
#[pyfunction]
fn lns_tensor_method(format: Wrap<Format>) -> PyResult<(String, bool)> {
    catch(|| {
        let f = format.0;
        Ok((
            tensor_method(f, false).to_string(),
            tensor_method(f, false) == tensor_method(f, true),
        ))
    })
}

/// a + b or a − b (op "add" / "sub") element-wise on equal-length words, by the tensor
/// method.
#[pyfunction]
fn lns_tensor_add<'py>(
    py: Python<'py>,
    format: Wrap<Format>,
    op: &str,
    a: In<'py, u32>,
    b: In<'py, u32>,
) -> Out<'py, u32> {
    catch(|| {
        let f = format.0;
        let negate = match op {
            "add" => false,
            "sub" => true,
            other => return Err(value_err(format!("unknown LNS add operation {other:?}"))),
        };
        let (a, b) = (
            a.as_slice().map_err(value_err)?,
            b.as_slice().map_err(value_err)?,
        );
        let out = interruptible(py, a.len() >= LONG, || -> PyResult<Vec<u32>> {
            let m = tensor_method(f, false)
                .cpu(f)
                .map_err(lns_err)?
                .ok_or_else(|| value_err("no CPU add/sub method for this format"))?;
            let mut out = vec![0u32; a.len()];
            if negate {
                let nb: Vec<u32> = b.iter().map(|&w| f.neg(w)).collect();
                f.add_slices(&*m, a, &nb, &mut out).map_err(lns_err)?;
            } else {
                f.add_slices(&*m, a, b, &mut out).map_err(lns_err)?;
            }
            Ok(out)
        })??;
        Ok(out.into_pyarray(py))
    })
}

/// `op` (sum, prod, max, min) of each row of `len` words.
#[pyfunction]
fn lns_reduce<'py>(
    py: Python<'py>,
    format: Wrap<Format>,
    op: &str,
    w: In<'py, u32>,
    len: usize,
) -> Out<'py, u32> {
    catch(|| {
        let op: Reduce = op.parse().map_err(lns_err)?;
        let ws = w.as_slice().map_err(value_err)?;
        let out = interruptible(py, ws.len() >= LONG, || {
            format.0.reduce_rows(op, ws, len).map_err(lns_err)
        })??;
        Ok(out.into_pyarray(py))
    })
}

/// The word of `op` over an empty axis (zero, one, NaN).
#[pyfunction]
fn lns_reduce_empty(format: Wrap<Format>, op: &str) -> PyResult<u32> {
    catch(|| Ok(op.parse::<Reduce>().map_err(lns_err)?.empty(format.0)))
}

/// The batched matrix product of (batch, m, k) by (batch, k, n) words.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn lns_matmul<'py>(
    py: Python<'py>,
    format: Wrap<Format>,
    a: In<'py, u32>,
    b: In<'py, u32>,
    batch: usize,
    m: usize,
    k: usize,
    n: usize,
) -> Out<'py, u32> {
    catch(|| {
        let shape = MatShape { batch, m, k, n };
        let (a, b) = (
            a.as_slice().map_err(value_err)?,
            b.as_slice().map_err(value_err)?,
        );
        let work = (batch * m * n) as f64 * k as f64;
        let out = interruptible(py, work >= 1e7, || {
            format.0.matmul(a, b, shape).map_err(lns_err)
        })??;
        Ok(out.into_pyarray(py))
    })
}

/// logsumexp (one per row) or, with `softmax`, log_softmax of rows of `len` natural logs.
#[pyfunction]
fn lns_log_rows<'py>(
    py: Python<'py>,
    format: Wrap<Format>,
    x: In<'py, f64>,
    len: usize,
    softmax: bool,
) -> Out<'py, f64> {
    catch(|| {
        let xs = x.as_slice().map_err(value_err)?;
        let f = format.0;
        let out = interruptible(py, xs.len() >= LONG, || {
            if softmax {
                log_softmax_rows(f, xs, len)
            } else {
                logsumexp_rows(f, xs, len)
            }
            .map_err(lns_err)
        })??;
        Ok(out.into_pyarray(py))
    })
}

/// The words of floats (the device's conversion, bit for bit).
#[pyfunction]
fn lns_words_of<'py>(py: Python<'py>, format: Wrap<Format>, x: In<'py, f64>) -> Out<'py, u32> {
    catch(|| {
        let xs = x.as_slice().map_err(value_err)?;
        Ok(py.detach(|| format.0.words_of(xs)).into_pyarray(py))
    })
}

/// The values of words as float64 (the device's conversion, bit for bit).
#[pyfunction]
fn lns_values_of<'py>(py: Python<'py>, format: Wrap<Format>, w: In<'py, u32>) -> Out<'py, f64> {
    catch(|| {
        let ws = w.as_slice().map_err(value_err)?;
        Ok(py.detach(|| format.0.values_of(ws)).into_pyarray(py))
    })
}

/// The device objects of one (device, format), built once per process.
struct OnDevice {
    axis: GpuAxis,
    method: GpuMethod,
}

/// The device objects by (device ordinal, format).
type OnDevices = Mutex<HashMap<(usize, Format), Arc<OnDevice>>>;

fn on_device(ordinal: usize, format: Format) -> PyResult<Arc<OnDevice>> {
    static CACHE: OnceLock<OnDevices> = OnceLock::new();
    let mut cache = CACHE
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    if let Some(d) = cache.get(&(ordinal, format)) {
        return Ok(d.clone());
    }
    let gpu = device::gpu(ordinal)?;
    let made = Arc::new(OnDevice {
        axis: GpuAxis::new(&gpu, format).map_err(lns_err)?,
        method: GpuMethod::new(&gpu, tensor_method(format, true), format).map_err(lns_err)?,
    });
    // The tables went up on sigpu's own stream; launches go on the caller's.
    gpu.synchronize().map_err(crate::runtime_err)?;
    cache.insert((ordinal, format), made.clone());
    Ok(made)
}

/// One operation on device memory of torch / CuPy tensors, enqueued on the caller's `stream`
/// of `device` without waiting. `ptrs` are the operands' and the output's addresses, `dims`
/// the sizes; words are u16 when `word16`, else u32; `float` names the float type ("f32",
/// "f64") of the float side of conversions and log-domain reductions:
///
/// - add, sub, mul, div: ptrs [a, b, out], dims [n] (mul/div: u32 words only);
/// - sum, prod, max, min: ptrs [x, out], dims [elements, len];
/// - matmul: ptrs [a, b, out], dims [batch, m, k, n];
/// - logsumexp, log_softmax: ptrs [x, out], dims [elements, len];
/// - from_float, to_float: ptrs [x, out], dims [n].
#[pyfunction]
#[pyo3(signature = (format, op, ptrs, dims, word16, device, stream, float=None))]
#[allow(clippy::too_many_arguments)]
fn lns_cuda(
    py: Python<'_>,
    format: Wrap<Format>,
    op: &str,
    ptrs: Vec<u64>,
    dims: Vec<usize>,
    word16: bool,
    device: usize,
    stream: u64,
    float: Option<&str>,
) -> PyResult<()> {
    catch(|| {
        let f = format.0;
        let want = |p: usize, d: usize| -> PyResult<()> {
            if ptrs.len() != p || dims.len() != d {
                return Err(value_err(format!(
                    "{op}: {p} addresses and {d} sizes expected, {} and {} given",
                    ptrs.len(),
                    dims.len()
                )));
            }
            Ok(())
        };
        let wide = float == Some("f64");
        if !matches!(float, None | Some("f32") | Some("f64")) {
            return Err(value_err(format!("float type {float:?}: f32 or f64")));
        }
        match op {
            "add" | "sub" | "mul" | "div" | "from_float" | "to_float" => {
                want(if op.ends_with("float") { 2 } else { 3 }, 1)?
            }
            "sum" | "prod" | "max" | "min" | "logsumexp" | "log_softmax" => want(2, 2)?,
            "matmul" => want(3, 4)?,
            other => return Err(value_err(format!("unknown LNS device operation {other:?}"))),
        }
        py.detach(|| -> PyResult<()> {
            let d = on_device(device, f)?;
            let gpu = d.axis.gpu().clone();
            // SAFETY: the Python half passes the data pointers of live C-contiguous arrays of
            // the sizes stated (checked there) on `device`, and `stream` is the caller's
            // current stream there; the arrays stay referenced until this call returns, and
            // their library orders later uses of them after the work enqueued here.
            let target = unsafe { GpuTarget::on_stream(gpu.clone(), stream) };
            macro_rules! view {
                ($t:ty, $i:expr, $n:expr) => {
                    unsafe { DeviceSlice::<$t>::from_raw(ptrs[$i], $n, &gpu) }
                };
            }
            macro_rules! view_mut {
                ($t:ty, $i:expr, $n:expr) => {
                    unsafe { DeviceSliceMut::<$t>::from_raw(ptrs[$i], $n, &gpu) }
                };
            }
            let r = match op {
                "add" | "sub" => {
                    let n = dims[0];
                    let negate = op == "sub";
                    if word16 {
                        d.method.add_sub_on(
                            &target,
                            &view!(u16, 0, n),
                            &view!(u16, 1, n),
                            &mut view_mut!(u16, 2, n),
                            negate,
                        )
                    } else {
                        d.method.add_sub_on(
                            &target,
                            &view!(u32, 0, n),
                            &view!(u32, 1, n),
                            &mut view_mut!(u32, 2, n),
                            negate,
                        )
                    }
                }
                "mul" | "div" => {
                    if word16 {
                        return Err(value_err("mul/div on the device take u32 words"));
                    }
                    let n = dims[0];
                    mul_div_on(
                        &target,
                        f,
                        &view!(u32, 0, n),
                        &view!(u32, 1, n),
                        &mut view_mut!(u32, 2, n),
                        op == "div",
                    )
                }
                "sum" | "prod" | "max" | "min" => {
                    let (total, len) = (dims[0], dims[1]);
                    let rows = sigpu_lns::axis::rows(total, len).map_err(lns_err)?;
                    let r: Reduce = op.parse().map_err(lns_err)?;
                    if word16 {
                        d.axis.reduce(
                            &target,
                            r,
                            &view!(u16, 0, total),
                            len,
                            &mut view_mut!(u16, 1, rows),
                        )
                    } else {
                        d.axis.reduce(
                            &target,
                            r,
                            &view!(u32, 0, total),
                            len,
                            &mut view_mut!(u32, 1, rows),
                        )
                    }
                }
                "matmul" => {
                    let shape = MatShape {
                        batch: dims[0],
                        m: dims[1],
                        k: dims[2],
                        n: dims[3],
                    };
                    let (na, nb, no) = (
                        shape.batch * shape.m * shape.k,
                        shape.batch * shape.k * shape.n,
                        shape.batch * shape.m * shape.n,
                    );
                    if word16 {
                        d.axis.matmul(
                            &target,
                            &view!(u16, 0, na),
                            &view!(u16, 1, nb),
                            shape,
                            &mut view_mut!(u16, 2, no),
                        )
                    } else {
                        d.axis.matmul(
                            &target,
                            &view!(u32, 0, na),
                            &view!(u32, 1, nb),
                            shape,
                            &mut view_mut!(u32, 2, no),
                        )
                    }
                }
                "logsumexp" | "log_softmax" => {
                    let (total, len) = (dims[0], dims[1]);
                    let softmax = op == "log_softmax";
                    let outs = if softmax {
                        total
                    } else {
                        sigpu_lns::axis::rows(total, len).map_err(lns_err)?
                    };
                    if wide {
                        d.axis.log_rows(
                            &target,
                            &view!(f64, 0, total),
                            len,
                            softmax,
                            &mut view_mut!(f64, 1, outs),
                        )
                    } else {
                        d.axis.log_rows(
                            &target,
                            &view!(f32, 0, total),
                            len,
                            softmax,
                            &mut view_mut!(f32, 1, outs),
                        )
                    }
                }
                "from_float" => {
                    let n = dims[0];
                    match (wide, word16) {
                        (true, true) => d.axis.from_floats(
                            &target,
                            &view!(f64, 0, n),
                            &mut view_mut!(u16, 1, n),
                        ),
                        (true, false) => d.axis.from_floats(
                            &target,
                            &view!(f64, 0, n),
                            &mut view_mut!(u32, 1, n),
                        ),
                        (false, true) => d.axis.from_floats(
                            &target,
                            &view!(f32, 0, n),
                            &mut view_mut!(u16, 1, n),
                        ),
                        (false, false) => d.axis.from_floats(
                            &target,
                            &view!(f32, 0, n),
                            &mut view_mut!(u32, 1, n),
                        ),
                    }
                }
                _ => {
                    let n = dims[0];
                    match (wide, word16) {
                        (true, true) => {
                            d.axis
                                .to_floats(&target, &view!(u16, 0, n), &mut view_mut!(f64, 1, n))
                        }
                        (true, false) => {
                            d.axis
                                .to_floats(&target, &view!(u32, 0, n), &mut view_mut!(f64, 1, n))
                        }
                        (false, true) => {
                            d.axis
                                .to_floats(&target, &view!(u16, 0, n), &mut view_mut!(f32, 1, n))
                        }
                        (false, false) => {
                            d.axis
                                .to_floats(&target, &view!(u32, 0, n), &mut view_mut!(f32, 1, n))
                        }
                    }
                }
            };
            r.map_err(lns_err)
        })
    })
}

/// Adds the tensor functions to `_native`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(lns_tensor_method, m)?)?;
    m.add_function(wrap_pyfunction!(lns_tensor_add, m)?)?;
    m.add_function(wrap_pyfunction!(lns_reduce, m)?)?;
    m.add_function(wrap_pyfunction!(lns_reduce_empty, m)?)?;
    m.add_function(wrap_pyfunction!(lns_matmul, m)?)?;
    m.add_function(wrap_pyfunction!(lns_log_rows, m)?)?;
    m.add_function(wrap_pyfunction!(lns_words_of, m)?)?;
    m.add_function(wrap_pyfunction!(lns_values_of, m)?)?;
    m.add_function(wrap_pyfunction!(lns_cuda, m)?)
}
