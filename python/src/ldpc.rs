//! LDPC codes: the code, encoder, channel pieces, decoders (CPU and GPU, host arrays or the
//! device addresses of a CUDA tensor) and resumable simulations.

use crate::{device, ldpc_err, runtime_err, value_err};
use numpy::ndarray::{Array1, Array2};
use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use sigpu_ldpc::channel::{Channel, Demapper, Modulation};
use sigpu_ldpc::gpu::GpuDecoder;
use sigpu_ldpc::interleave::{BitInterleaver, Interleaving};
use sigpu_ldpc::sim::sweep::{self, SnrAxis, SweepSpec};
use sigpu_ldpc::sim::Link;
use sigpu_ldpc::{Algorithm, Code, Decoder, DecoderConfig, Encoder, Llrs, Precision, Schedule};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// A decoder built once per configuration and device and reused by later calls (building one
/// for a DVB-T2 code lays out its edges).
type Decoders = HashMap<String, Box<dyn Decoder + 'static>>;

#[pyclass(name = "Code", module = "sigpu._native", frozen)]
pub struct PyCode {
    code: Code,
    decoders: Mutex<Decoders>,
    /// Flooding GPU decoders for LLRs already on the device, by configuration and device.
    device_decoders: Mutex<HashMap<String, GpuDecoder<'static>>>,
}

/// Everything that picks a decoder except the device, from the Python keywords.
fn config(
    decoder: &str,
    precision: &str,
    schedule: &str,
    iterations: usize,
    early_termination: bool,
    scale: f32,
    threads: usize,
) -> PyResult<DecoderConfig> {
    let precision = match precision.trim().to_ascii_lowercase().as_str() {
        "8bit" | "fixed8" | "int8" => Precision::Fixed8 { scale },
        "float" | "f32" | "float32" => Precision::Float,
        other => {
            return Err(value_err(format!(
                "unknown precision {other:?}: expected \"8bit\" or \"float\""
            )))
        }
    };
    let config = DecoderConfig {
        algorithm: Algorithm::parse(decoder).map_err(ldpc_err)?,
        schedule: schedule.parse::<Schedule>().map_err(ldpc_err)?,
        precision,
        iterations,
        early_termination,
        threads,
    };
    config.validate().map_err(ldpc_err)?;
    Ok(config)
}

/// (codewords, valid codewords — None where not counted —, iterations, batches).
type Stats = (usize, Option<usize>, usize, usize);

fn stats_tuple(s: &sigpu_ldpc::DecodeStats) -> Stats {
    (s.codewords, Some(s.valid), s.iterations, s.batches)
}

impl PyCode {
    /// Runs `f` with the cached decoder for `config` on `device` (None: the CPU).
    fn with_decoder<R>(
        &self,
        config: DecoderConfig,
        device: Option<usize>,
        f: impl FnOnce(&mut dyn Decoder) -> PyResult<R>,
    ) -> PyResult<R> {
        let key = format!("{config:?}/{device:?}");
        let mut decoders = self.decoders.lock().unwrap_or_else(|p| p.into_inner());
        if !decoders.contains_key(&key) {
            let built: Box<dyn Decoder> = match device {
                None => sigpu_ldpc::decoder::cpu_decoder(&self.code, config).map_err(ldpc_err)?,
                // The decoder borrows its device for the process's life (until it holds a Gpu).
                Some(d) => sigpu_ldpc::gpu::decoder(
                    Box::leak(Box::new(device::gpu(d)?)),
                    &self.code,
                    config,
                )
                .map_err(ldpc_err)?,
            };
            decoders.insert(key.clone(), built);
        }
        f(decoders.get_mut(&key).expect("inserted above").as_mut())
    }
}

#[pymethods]
impl PyCode {
    /// A standard code by name (`dvbt2-normal-1/2`, …) or an alist file.
    #[new]
    fn new(py: Python<'_>, spec: &str) -> PyResult<Self> {
        let code = py.detach(|| {
            let path = Path::new(spec);
            if spec.ends_with(".alist") || (path.exists() && !spec.starts_with("dvb")) {
                sigpu_ldpc::read_alist(path)
            } else {
                Code::standard(spec)
            }
        });
        Ok(PyCode {
            code: code.map_err(ldpc_err)?,
            decoders: Mutex::new(HashMap::new()),
            device_decoders: Mutex::new(HashMap::new()),
        })
    }

    #[staticmethod]
    fn standard_names() -> Vec<&'static str> {
        Code::standard_names()
    }

    #[getter]
    fn name(&self) -> String {
        self.code.name().to_owned()
    }
    #[getter]
    fn n(&self) -> usize {
        self.code.n()
    }
    #[getter]
    fn k(&self) -> usize {
        self.code.k()
    }
    #[getter]
    fn m(&self) -> usize {
        self.code.m()
    }
    #[getter]
    fn rate(&self) -> f64 {
        self.code.rate()
    }

    /// H in CSR form: (indptr, indices), rows are checks, columns bits.
    fn h_csr<'py>(
        &self,
        py: Python<'py>,
    ) -> (Bound<'py, PyArray1<u32>>, Bound<'py, PyArray1<u32>>) {
        (
            self.code.row_start().to_vec().into_pyarray(py),
            self.code.edge_col().to_vec().into_pyarray(py),
        )
    }

    /// Codewords (frames × N) of information words (frames × K), 0/1 per byte.
    fn encode<'py>(
        &self,
        py: Python<'py>,
        info: PyReadonlyArray2<'py, u8>,
    ) -> PyResult<Bound<'py, PyArray2<u8>>> {
        let (frames, k) = info.as_array().dim();
        if k != self.code.k() {
            return Err(value_err(format!(
                "{}: information words have K = {} bits, the input's last axis has {k}",
                self.code.name(),
                self.code.k()
            )));
        }
        let bits = info.as_slice().map_err(value_err)?;
        if let Some(i) = bits.iter().position(|&b| b > 1) {
            return Err(value_err(format!(
                "bits must be 0 or 1; element {i} is {}",
                bits[i]
            )));
        }
        let n = self.code.n();
        let words = py.detach(|| -> sigpu_ldpc::Result<Vec<u8>> {
            let encoder = Encoder::new(&self.code)?;
            let mut out = vec![0u8; frames * n];
            for (i, w) in bits.chunks(k.max(1)).zip(out.chunks_mut(n)) {
                encoder.encode(i, w)?;
            }
            Ok(out)
        });
        let words = words.map_err(ldpc_err)?;
        Ok(Array2::from_shape_vec((frames, n), words)
            .map_err(value_err)?
            .into_pyarray(py))
    }

    /// Hard decisions (frames × N) of channel LLRs (frames × N, ln P(0)/P(1)), and the
    /// statistics (codewords, valid, iterations, batches).
    #[pyo3(signature = (llr, decoder, precision, schedule, iterations, early_termination, scale, device, threads))]
    #[allow(clippy::too_many_arguments)]
    fn decode<'py>(
        &self,
        py: Python<'py>,
        llr: PyReadonlyArray2<'py, f32>,
        decoder: &str,
        precision: &str,
        schedule: &str,
        iterations: usize,
        early_termination: bool,
        scale: f32,
        device: Option<usize>,
        threads: usize,
    ) -> PyResult<(Bound<'py, PyArray2<u8>>, Stats)> {
        let cfg = config(
            decoder,
            precision,
            schedule,
            iterations,
            early_termination,
            scale,
            threads,
        )?;
        let (frames, n) = llr.as_array().dim();
        self.check_n(n)?;
        let values = llr.as_slice().map_err(value_err)?;
        let (bits, stats) = py.detach(|| {
            self.with_decoder(cfg, device, |d| {
                let mut bits = vec![0u8; values.len()];
                let stats = d.decode(Llrs::F32(values), &mut bits).map_err(ldpc_err)?;
                Ok((bits, stats))
            })
        })?;
        let bits = Array2::from_shape_vec((frames, n), bits).map_err(value_err)?;
        Ok((bits.into_pyarray(py), stats_tuple(&stats)))
    }

    /// [`decode`] of `frames` codewords of float32 LLRs at device address `llr` into `frames × N`
    /// bytes at device address `out`, both the caller's, ordered on the caller's `stream`.
    #[pyo3(signature = (llr, out, frames, decoder, precision, schedule, iterations, early_termination, scale, device, stream, threads))]
    #[allow(clippy::too_many_arguments)]
    fn decode_cuda(
        &self,
        py: Python<'_>,
        llr: u64,
        out: u64,
        frames: usize,
        decoder: &str,
        precision: &str,
        schedule: &str,
        iterations: usize,
        early_termination: bool,
        scale: f32,
        device: usize,
        stream: u64,
        threads: usize,
    ) -> PyResult<Stats> {
        let cfg = config(
            decoder,
            precision,
            schedule,
            iterations,
            early_termination,
            scale,
            threads,
        )?;
        let n = self.code.n();
        py.detach(|| {
            let gpu = &device::gpu(device)?;
            // SAFETY: the stream is the caller's current stream on `device`.
            let s = unsafe { gpu.borrowed_stream(stream) };
            // The flooding 8-bit decoder reads and writes device memory directly; the others
            // take the LLRs through the host.
            if cfg.schedule == Schedule::Flooding
                && matches!(cfg.precision, Precision::Fixed8 { .. })
            {
                let key = format!("{cfg:?}/{device}");
                let mut map = self
                    .device_decoders
                    .lock()
                    .unwrap_or_else(|p| p.into_inner());
                if !map.contains_key(&key) {
                    // The decoder borrows its device for the process's life (once per
                    // configuration, until decoders hold a Gpu).
                    let gpu = Box::leak(Box::new(gpu.clone()));
                    let d = GpuDecoder::new(gpu, self.code.clone(), cfg).map_err(ldpc_err)?;
                    map.insert(key.clone(), d);
                }
                let d = map.get_mut(&key).expect("inserted above");
                // SAFETY: as for the copies below; the caller's stream orders later uses.
                let iterations =
                    unsafe { d.decode_device(&s, llr, out, frames) }.map_err(ldpc_err)?;
                return Ok((
                    frames,
                    None,
                    iterations,
                    frames.div_ceil(sigpu_ldpc::gpu::BATCH),
                ));
            }
            let mut host = vec![0f32; frames * n];
            // SAFETY: `llr` is the data pointer of a live C-contiguous float32 array of
            // frames × N elements on `device` (checked by the Python half).
            unsafe { sigpu_runtime::cuda::foreign::copy_to_host(&s, llr, &mut host) }
                .map_err(runtime_err)?;
            // The 8-bit GPU decoders; float decoders run on the CPU.
            let on = matches!(cfg.precision, Precision::Fixed8 { .. }).then_some(device);
            let (bits, stats) = self.with_decoder(cfg, on, |d| {
                let mut bits = vec![0u8; host.len()];
                let stats = d.decode(Llrs::F32(&host), &mut bits).map_err(ldpc_err)?;
                Ok((bits, stats))
            })?;
            // SAFETY: `out` is the data pointer of a live C-contiguous uint8 array of
            // frames × N elements on `device`.
            unsafe { sigpu_runtime::cuda::foreign::copy_from_host(&s, &bits, out) }
                .map_err(runtime_err)?;
            Ok(stats_tuple(&stats))
        })
    }

    fn __repr__(&self) -> String {
        format!(
            "sigpu.ldpc.Code({:?}: n={}, k={}, rate={:.4})",
            self.code.name(),
            self.code.n(),
            self.code.k(),
            self.code.rate()
        )
    }
}

impl PyCode {
    fn check_n(&self, n: usize) -> PyResult<()> {
        if n != self.code.n() {
            return Err(value_err(format!(
                "{}: codewords have N = {} LLRs, the input's last axis has {n}",
                self.code.name(),
                self.code.n()
            )));
        }
        Ok(())
    }
}

fn modulation(name: &str) -> PyResult<Modulation> {
    name.parse::<Modulation>().map_err(ldpc_err)
}

/// The constellation cells of `bits` (0/1 per byte) as rows (I, Q).
#[pyfunction]
fn modulate<'py>(
    py: Python<'py>,
    bits: PyReadonlyArray1<'py, u8>,
    modulation_name: &str,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let m = modulation(modulation_name)?;
    let bits = bits.as_slice().map_err(value_err)?;
    if let Some(i) = bits.iter().position(|&b| b > 1) {
        return Err(value_err(format!(
            "bits must be 0 or 1; element {i} is {}",
            bits[i]
        )));
    }
    let cells = py.detach(|| m.map(bits));
    let n = cells.len();
    let flat: Vec<f64> = cells.into_iter().flatten().collect();
    Ok(Array2::from_shape_vec((n, 2), flat)
        .map_err(value_err)?
        .into_pyarray(py))
}

/// Bit LLRs of received cells (rows I, Q) at `es_n0_db`, `bits` of them.
#[pyfunction]
fn demap<'py>(
    py: Python<'py>,
    cells: PyReadonlyArray2<'py, f64>,
    modulation_name: &str,
    es_n0_db: f64,
    demapper: &str,
    bits: usize,
) -> PyResult<Bound<'py, PyArray1<f32>>> {
    let m = modulation(modulation_name)?;
    let d: Demapper = demapper.parse().map_err(ldpc_err)?;
    let channel = Channel::new(m, d, es_n0_db).map_err(ldpc_err)?;
    let flat = cells.as_slice().map_err(value_err)?;
    let cells: Vec<[f64; 2]> = flat.chunks_exact(2).map(|c| [c[0], c[1]]).collect();
    let llr = py.detach(|| {
        let mut llr = vec![0f32; bits];
        channel.demap(&cells, &mut llr);
        llr
    });
    Ok(Array1::from_vec(llr).into_pyarray(py))
}

fn interleaver(code: &PyCode, m: &str) -> PyResult<BitInterleaver> {
    BitInterleaver::new(&code.code, modulation(m)?, Interleaving::Dvbt2).map_err(ldpc_err)
}

/// Codewords (frames × N) in the DVB-T2 bit interleaver's cell order.
#[pyfunction]
fn interleave<'py>(
    py: Python<'py>,
    code: &PyCode,
    words: PyReadonlyArray2<'py, u8>,
    modulation_name: &str,
) -> PyResult<Bound<'py, PyArray2<u8>>> {
    let il = interleaver(code, modulation_name)?;
    let (frames, n) = words.as_array().dim();
    code.check_n(n)?;
    let src = words.as_slice().map_err(value_err)?;
    let mut out = vec![0u8; src.len()];
    for (w, o) in src.chunks(n).zip(out.chunks_mut(n)) {
        il.interleave(w, o);
    }
    Ok(Array2::from_shape_vec((frames, n), out)
        .map_err(value_err)?
        .into_pyarray(py))
}

/// LLRs (frames × N) from cell order back to codeword order.
#[pyfunction]
fn deinterleave<'py>(
    py: Python<'py>,
    code: &PyCode,
    llr: PyReadonlyArray2<'py, f32>,
    modulation_name: &str,
) -> PyResult<Bound<'py, PyArray2<f32>>> {
    let il = interleaver(code, modulation_name)?;
    let (frames, n) = llr.as_array().dim();
    code.check_n(n)?;
    let src = llr.as_slice().map_err(value_err)?;
    let mut out = vec![0f32; src.len()];
    for (w, o) in src.chunks(n).zip(out.chunks_mut(n)) {
        il.deinterleave(w, o);
    }
    Ok(Array2::from_shape_vec((frames, n), out)
        .map_err(value_err)?
        .into_pyarray(py))
}

/// A resumable SNR sweep, as `sigpu ldpc simulate`: the sweep document as JSON text.
#[pyfunction]
#[pyo3(signature = (code, axis, points, modulation_name, demapper, interleaver, seed, min_errors, max_frames, batch, decoder, precision, schedule, iterations, early_termination, scale, devices, threads, out=None, resume=false))]
#[allow(clippy::too_many_arguments)]
fn simulate(
    py: Python<'_>,
    code: &PyCode,
    axis: &str,
    points: &str,
    modulation_name: &str,
    demapper: &str,
    interleaver: &str,
    seed: u64,
    min_errors: u64,
    max_frames: u64,
    batch: Option<usize>,
    decoder: &str,
    precision: &str,
    schedule: &str,
    iterations: usize,
    early_termination: bool,
    scale: f32,
    devices: Vec<usize>,
    threads: usize,
    out: Option<PathBuf>,
    resume: bool,
) -> PyResult<String> {
    let cfg = config(
        decoder,
        precision,
        schedule,
        iterations,
        early_termination,
        scale,
        threads,
    )?;
    let axis = match axis {
        "ebn0" => SnrAxis::EbN0,
        "esn0" => SnrAxis::EsN0,
        other => return Err(value_err(format!("unknown SNR axis {other:?}"))),
    };
    let interleaving = match interleaver.trim().to_ascii_lowercase().as_str() {
        "auto" => Interleaving::default_for(&code.code),
        other => other.parse::<Interleaving>().map_err(ldpc_err)?,
    };
    let link = Link {
        modulation: modulation(modulation_name)?,
        demapper: demapper.parse().map_err(ldpc_err)?,
        interleaving,
        seed,
    };
    let points = sweep::parse_points(points).map_err(ldpc_err)?;
    let mut spec = SweepSpec::new(link, axis, points, cfg);
    spec.min_errors = min_errors;
    spec.max_frames = max_frames;
    spec.batch = batch;
    if threads > 0 {
        spec.threads = threads;
    }
    spec.out = out;
    spec.resume = resume;
    py.detach(|| {
        let gpus = devices
            .iter()
            .map(|&d| sigpu_runtime::cuda::Gpu::open_with_compiler(d).map_err(runtime_err))
            .collect::<PyResult<Vec<_>>>()?;
        let swept = sweep::run(&code.code, &gpus, &spec, &mut |_| {}).map_err(ldpc_err)?;
        serde_json::to_string(&swept).map_err(runtime_err)
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyCode>()?;
    m.add_function(wrap_pyfunction!(modulate, m)?)?;
    m.add_function(wrap_pyfunction!(demap, m)?)?;
    m.add_function(wrap_pyfunction!(interleave, m)?)?;
    m.add_function(wrap_pyfunction!(deinterleave, m)?)?;
    m.add_function(wrap_pyfunction!(simulate, m)?)?;
    Ok(())
}
