//! LDPC codes: the code, encoder, channel pieces, decoders (planned by `sigpu_ldpc::plan` for
//! the CPU, a GPU, or LLRs already in a CUDA tensor) and resumable simulations. Options arrive
//! as library types (`crate::convert`).

use crate::convert::{to_python, SnrPoints, Wrap};
use crate::guard::{catch, interruptible};
use crate::{device, ldpc_err, value_err};
use numpy::ndarray::{Array1, Array2};
use numpy::{Element, IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use sigpu_ldpc::channel::{Channel, Demapper, Modulation};
use sigpu_ldpc::decoder_options::DecoderOptions;
use sigpu_ldpc::interleave::{BitInterleaver, InterleaverChoice, Interleaving};
use sigpu_ldpc::sim::sweep::{self, SnrAxis, SweepSpec};
use sigpu_ldpc::sweep_request::{fading_named, LinkChoice, NrLinkChoice, SweepStop};
use sigpu_ldpc::{
    plan, Algorithm, Code, Decoder, DecoderConfig, Encoder, Llrs, Precision, Schedule,
};
use sigpu_runtime::cuda::{DeviceSlice, DeviceSliceMut};
use sigpu_runtime::{GpuTarget, Target};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

mod nr;

#[pyclass(name = "Code", module = "sigpu._native", frozen)]
pub struct PyCode {
    code: Code,
    /// Decoders planned once per configuration and device and reused by later calls
    /// (planning one for a DVB-T2 code lays out its edges).
    decoders: Mutex<HashMap<String, Box<dyn Decoder>>>,
}

/// (codewords, valid codewords — None where not counted —, iterations, batches).
type Stats = (usize, Option<usize>, usize, usize);

/// H in CSR form: (indptr, indices).
type Csr<'py> = (Bound<'py, PyArray1<u32>>, Bound<'py, PyArray1<u32>>);

/// The decoder options as the Python keywords give them: a dict of `decoder`, `precision`,
/// `schedule`, `iterations`, `early_termination`, `scale` and `threads`.
struct Options {
    decoder: Wrap<Algorithm>,
    precision: Wrap<Precision>,
    schedule: Wrap<Schedule>,
    iterations: usize,
    early_termination: bool,
    scale: f32,
    threads: usize,
}

/// Item `key` of the options dict `d`, extracted as `T`.
fn item<'py, T>(d: &Bound<'py, PyDict>, key: &str) -> PyResult<T>
where
    for<'a> T: FromPyObject<'a, 'py, Error = PyErr>,
{
    match d.get_item(key)? {
        Some(v) => v.extract(),
        None => Err(value_err(format!("the options lack {key:?}"))),
    }
}

impl<'a, 'py> FromPyObject<'a, 'py> for Options {
    type Error = PyErr;
    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let d = obj.cast::<PyDict>()?;
        Ok(Options {
            decoder: item(&d, "decoder")?,
            precision: item(&d, "precision")?,
            schedule: item(&d, "schedule")?,
            iterations: item(&d, "iterations")?,
            early_termination: item(&d, "early_termination")?,
            scale: item(&d, "scale")?,
            threads: item(&d, "threads")?,
        })
    }
}

impl Options {
    /// The checked configuration, as the command line's decoder flags give theirs.
    fn config(&self) -> PyResult<DecoderConfig> {
        let options = DecoderOptions {
            algorithm: self.decoder.0,
            schedule: self.schedule.0,
            precision: self.precision.0,
            iterations: self.iterations,
            early_termination: self.early_termination,
            scale: self.scale,
            threads: self.threads,
        };
        options.config().map_err(ldpc_err)
    }
}

impl PyCode {
    /// Runs `f` with the decoder `plan` gives for `config` under `key` (planned on first use).
    fn with_decoder<R>(
        &self,
        key: String,
        plan: impl FnOnce() -> sigpu_ldpc::Result<Box<dyn Decoder>>,
        f: impl FnOnce(&mut dyn Decoder) -> PyResult<R>,
    ) -> PyResult<R> {
        let mut decoders = self.decoders.lock().unwrap_or_else(|p| p.into_inner());
        let decoder = match decoders.entry(key) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => e.insert(plan().map_err(ldpc_err)?),
        };
        f(decoder.as_mut())
    }

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

#[pymethods]
impl PyCode {
    /// A standard code by name (`dvbt2-normal-1/2`, …), an NR code's lifted code
    /// (`nr:k=K,n=N[,bg=1|2]`) or an alist file.
    #[new]
    fn new(py: Python<'_>, spec: &str) -> PyResult<Self> {
        catch(|| {
            let code = py.detach(|| {
                let path = Path::new(spec);
                if sigpu_ldpc::nr::NrCode::is_spec(spec) {
                    // A 5G NR code: its lifted mother code (`sigpu.ldpc.NrCode` is the code
                    // block with rate matching).
                    Code::resolve(spec)
                } else if spec.ends_with(".alist") || (path.exists() && !spec.starts_with("dvb")) {
                    sigpu_ldpc::read_alist(path)
                } else {
                    Code::standard(spec)
                }
            });
            Ok(PyCode {
                code: code.map_err(ldpc_err)?,
                decoders: Mutex::new(HashMap::new()),
            })
        })
    }

    #[staticmethod]
    fn standard_names() -> PyResult<Vec<&'static str>> {
        catch(|| Ok(Code::standard_names()))
    }

    #[getter]
    fn name(&self) -> PyResult<String> {
        catch(|| Ok(self.code.name().to_owned()))
    }
    #[getter]
    fn n(&self) -> PyResult<usize> {
        catch(|| Ok(self.code.n()))
    }
    #[getter]
    fn k(&self) -> PyResult<usize> {
        catch(|| Ok(self.code.k()))
    }
    #[getter]
    fn m(&self) -> PyResult<usize> {
        catch(|| Ok(self.code.m()))
    }
    #[getter]
    fn rate(&self) -> PyResult<f64> {
        catch(|| Ok(self.code.rate()))
    }

    /// H in CSR form: (indptr, indices), rows are checks, columns bits.
    fn h_csr<'py>(&self, py: Python<'py>) -> PyResult<Csr<'py>> {
        catch(|| {
            Ok((
                self.code.row_start().to_vec().into_pyarray(py),
                self.code.edge_col().to_vec().into_pyarray(py),
            ))
        })
    }

    /// Codewords (frames × N) of information words (frames × K), 0/1 per byte.
    fn encode<'py>(
        &self,
        py: Python<'py>,
        info: PyReadonlyArray2<'py, u8>,
    ) -> PyResult<Bound<'py, PyArray2<u8>>> {
        catch(|| {
            let (frames, k) = info.as_array().dim();
            if k != self.code.k() {
                return Err(value_err(format!(
                    "{}: information words have K = {} bits, the input's last axis has {k}",
                    self.code.name(),
                    self.code.k()
                )));
            }
            let bits = bits01(info.as_slice().map_err(value_err)?)?;
            let n = self.code.n();
            let words = py.detach(|| -> sigpu_ldpc::Result<Vec<u8>> {
                let encoder = Encoder::new(&self.code)?;
                let mut out = vec![0u8; frames * n];
                for (i, w) in bits.chunks(k.max(1)).zip(out.chunks_mut(n)) {
                    encoder.encode(i, w)?;
                }
                Ok(out)
            });
            matrix(py, frames, n, words.map_err(ldpc_err)?)
        })
    }

    /// Hard decisions (frames × N) of channel LLRs (frames × N, ln P(0)/P(1)) on the CPU
    /// (`device` None) or GPU `device`, and the statistics.
    fn decode<'py>(
        &self,
        py: Python<'py>,
        llr: PyReadonlyArray2<'py, f32>,
        options: Options,
        device: Option<usize>,
    ) -> PyResult<(Bound<'py, PyArray2<u8>>, Stats)> {
        catch(|| {
            let config = options.config()?;
            let (frames, n) = llr.as_array().dim();
            self.check_n(n)?;
            let values = llr.as_slice().map_err(value_err)?;
            let (bits, stats) = py.detach(|| {
                let target = match device {
                    None => Target::cpu(),
                    Some(d) => plan::target(Some(device::gpu(d)?)),
                };
                let key = format!("{config:?}/{device:?}");
                let plan = || plan::decoder(&self.code, config, &target);
                self.with_decoder(key, plan, |d| {
                    let mut bits = vec![0u8; values.len()];
                    let stats = d.decode(Llrs::F32(values), &mut bits).map_err(ldpc_err)?;
                    Ok((bits, stats))
                })
            })?;
            let stats = (
                stats.codewords,
                Some(stats.valid),
                stats.iterations,
                stats.batches,
            );
            Ok((matrix(py, frames, n, bits)?, stats))
        })
    }

    /// [`decode`] of `frames` codewords of float32 LLRs at device address `llr` into `frames × N`
    /// bytes at device address `out`, both the caller's on `device`, ordered on the caller's
    /// `stream`.
    #[allow(clippy::too_many_arguments)]
    fn decode_cuda(
        &self,
        py: Python<'_>,
        llr: u64,
        out: u64,
        frames: usize,
        options: Options,
        device: usize,
        stream: u64,
    ) -> PyResult<Stats> {
        catch(|| {
            let config = options.config()?;
            let len = frames * self.code.n();
            py.detach(|| {
                let gpu = device::gpu(device)?;
                // SAFETY: `llr` and `out` are the data pointers of live C-contiguous arrays of
                // frames × N float32 values and bytes on `device`, and `stream` is the caller's
                // current stream there (checked by the Python half).
                let (llr, out, target) = unsafe {
                    (
                        DeviceSlice::from_raw(llr, len, &gpu),
                        DeviceSliceMut::from_raw(out, len, &gpu),
                        GpuTarget::on_stream(gpu.clone(), stream),
                    )
                };
                let key = format!("{config:?}/device data on {device}");
                let plan = || plan::device_decoder(&self.code, config, &target);
                let s = self.with_decoder(key, plan, |d| {
                    d.decode_device(&target, llr, out).map_err(ldpc_err)
                })?;
                Ok((s.codewords, s.valid, s.iterations, s.batches))
            })
        })
    }

    fn __repr__(&self) -> PyResult<String> {
        catch(|| {
            Ok(format!(
                "sigpu.ldpc.Code({:?}: n={}, k={}, rate={:.4})",
                self.code.name(),
                self.code.n(),
                self.code.k(),
                self.code.rate()
            ))
        })
    }
}

/// `bits` when every one is 0 or 1.
fn bits01(bits: &[u8]) -> PyResult<&[u8]> {
    match bits.iter().position(|&b| b > 1) {
        Some(i) => Err(value_err(format!(
            "bits must be 0 or 1; element {i} is {}",
            bits[i]
        ))),
        None => Ok(bits),
    }
}

/// `values` as a rows × cols array.
fn matrix<T: Element>(
    py: Python<'_>,
    rows: usize,
    cols: usize,
    values: Vec<T>,
) -> PyResult<Bound<'_, PyArray2<T>>> {
    let array = Array2::from_shape_vec((rows, cols), values).map_err(value_err)?;
    Ok(array.into_pyarray(py))
}

/// The constellation cells of `bits` (0/1 per byte) as rows (I, Q).
#[pyfunction]
fn modulate<'py>(
    py: Python<'py>,
    bits: PyReadonlyArray1<'py, u8>,
    modulation: Wrap<Modulation>,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    catch(|| {
        let bits = bits01(bits.as_slice().map_err(value_err)?)?;
        let cells = py.detach(|| modulation.0.map(bits));
        let n = cells.len();
        matrix(py, n, 2, cells.into_iter().flatten().collect())
    })
}

/// The bits one cell of `modulation` carries.
#[pyfunction]
fn bits_per_symbol(modulation: Wrap<Modulation>) -> PyResult<usize> {
    catch(|| Ok(modulation.0.bits_per_symbol()))
}

/// Bit LLRs of received cells (rows I, Q) at `es_n0_db`, `bits` of them.
#[pyfunction]
fn demap<'py>(
    py: Python<'py>,
    cells: PyReadonlyArray2<'py, f64>,
    modulation: Wrap<Modulation>,
    es_n0_db: f64,
    demapper: Wrap<Demapper>,
    bits: usize,
) -> PyResult<Bound<'py, PyArray1<f32>>> {
    catch(|| {
        let channel = Channel::new(modulation.0, demapper.0, es_n0_db).map_err(ldpc_err)?;
        let flat = cells.as_slice().map_err(value_err)?;
        let cells: Vec<[f64; 2]> = flat.chunks_exact(2).map(|c| [c[0], c[1]]).collect();
        let llr = py.detach(|| {
            let mut llr = vec![0f32; bits];
            channel.demap(&cells, &mut llr);
            llr
        });
        Ok(Array1::from_vec(llr).into_pyarray(py))
    })
}

/// Every row of `rows` (frames × N) through `permute` with the DVB-T2 bit interleaver of
/// `code` and `modulation`.
fn permute_rows<'py, T: Element + Copy + Default>(
    py: Python<'py>,
    code: &PyCode,
    rows: PyReadonlyArray2<'py, T>,
    modulation: Modulation,
    permute: impl Fn(&BitInterleaver, &[T], &mut [T]),
) -> PyResult<Bound<'py, PyArray2<T>>> {
    let il = BitInterleaver::new(&code.code, modulation, Interleaving::Dvbt2).map_err(ldpc_err)?;
    let (frames, n) = rows.as_array().dim();
    code.check_n(n)?;
    let src = rows.as_slice().map_err(value_err)?;
    let mut out = vec![T::default(); src.len()];
    for (w, o) in src.chunks(n).zip(out.chunks_mut(n)) {
        permute(&il, w, o);
    }
    matrix(py, frames, n, out)
}

/// Codewords (frames × N) in the DVB-T2 bit interleaver's cell order.
#[pyfunction]
fn interleave<'py>(
    py: Python<'py>,
    code: &PyCode,
    words: PyReadonlyArray2<'py, u8>,
    modulation: Wrap<Modulation>,
) -> PyResult<Bound<'py, PyArray2<u8>>> {
    catch(|| permute_rows(py, code, words, modulation.0, BitInterleaver::interleave))
}

/// LLRs (frames × N) from cell order back to codeword order.
#[pyfunction]
fn deinterleave<'py>(
    py: Python<'py>,
    code: &PyCode,
    llr: PyReadonlyArray2<'py, f32>,
    modulation: Wrap<Modulation>,
) -> PyResult<Bound<'py, PyArray2<f32>>> {
    catch(|| permute_rows(py, code, llr, modulation.0, BitInterleaver::deinterleave))
}

/// The stopping rule (`stop`: `min_errors`, `max_frames`, `batch`), results file and threads
/// of a sweep, as every sweep entry reads them.
fn stop_and_output(
    spec: &mut SweepSpec,
    stop: &Bound<'_, PyDict>,
    options: &Options,
    out: Option<PathBuf>,
    resume: bool,
) -> PyResult<()> {
    let stop = SweepStop {
        min_errors: item(stop, "min_errors")?,
        max_frames: item(stop, "max_frames")?,
        batch: item(stop, "batch")?,
        out,
        resume,
    };
    stop.apply(spec);
    if options.threads > 0 {
        spec.threads = options.threads;
    }
    Ok(())
}

/// A resumable SNR sweep (`sigpu_ldpc::sim::sweep::run`) on the CPU or the GPUs `devices`:
/// one dict per point, the fields of a sweep file's points. `link` holds `modulation`,
/// `demapper`, `bit_interleaver` and `seed`; `stop` holds `min_errors`, `max_frames` and
/// `batch`.
#[pyfunction]
#[pyo3(signature = (code, axis, points, link, stop, options, devices, out=None, resume=false))]
#[allow(clippy::too_many_arguments)]
fn simulate<'py>(
    py: Python<'py>,
    code: &PyCode,
    axis: Wrap<SnrAxis>,
    points: SnrPoints,
    link: &Bound<'py, PyDict>,
    stop: &Bound<'py, PyDict>,
    options: Options,
    devices: Vec<usize>,
    out: Option<PathBuf>,
    resume: bool,
) -> PyResult<Bound<'py, PyAny>> {
    catch(|| {
        let link = LinkChoice {
            modulation: item::<Wrap<Modulation>>(link, "modulation")?.0,
            demapper: item::<Wrap<Demapper>>(link, "demapper")?.0,
            bit_interleaver: item::<Wrap<InterleaverChoice>>(link, "bit_interleaver")?.0,
            seed: item(link, "seed")?,
        }
        .link(&code.code);
        let mut spec = SweepSpec::new(link, axis.0, points.0, options.config()?);
        stop_and_output(&mut spec, stop, &options, out, resume)?;
        // A sweep is long: it runs where Ctrl-C stops it between batches.
        let swept = interruptible(py, true, || {
            let targets = (devices.iter())
                .map(|&d| Ok(plan::target(Some(device::gpu(d)?))))
                .collect::<PyResult<Vec<_>>>()?;
            sweep::run(&code.code, &targets, &spec, &mut |_| {}).map_err(ldpc_err)
        })??;
        to_python(py, &swept.points)
    })
}

/// A resumable SNR sweep of a 5G NR code block on the CPU, as `sigpu ldpc simulate --code
/// nr:…` runs it: one code block per frame, the rvs of `link["rvs"]` combined, TS 38.211's
/// constellation `link["modulation"]`, `link["fading"]` (`awgn` or `rayleigh`), on the same
/// sweep / resume machinery (the file records the block and refuses another).
#[pyfunction]
#[pyo3(signature = (code, axis, points, link, stop, options, out=None, resume=false))]
#[allow(clippy::too_many_arguments)]
fn simulate_nr<'py>(
    py: Python<'py>,
    code: &nr::PyNrCode,
    axis: Wrap<SnrAxis>,
    points: SnrPoints,
    link: &Bound<'py, PyDict>,
    stop: &Bound<'py, PyDict>,
    options: Options,
    out: Option<PathBuf>,
    resume: bool,
) -> PyResult<Bound<'py, PyAny>> {
    catch(|| {
        let modulation = item::<Wrap<Modulation>>(link, "modulation")?.0;
        let fading = item::<String>(link, "fading")?;
        let fading = fading_named(&fading).ok_or_else(|| {
            value_err(format!("fading {fading:?}: expected 'awgn' or 'rayleigh'"))
        })?;
        let choice = NrLinkChoice {
            modulation,
            fading,
            demapper: item::<Wrap<Demapper>>(link, "demapper")?.0,
            rvs: item(link, "rvs")?,
            seed: item(link, "seed")?,
        };
        let (nr, decoding) = choice.sweep(code.block().clone()).map_err(ldpc_err)?;
        let mut spec = SweepSpec::for_nr(nr, modulation, axis.0, points.0, options.config()?);
        stop_and_output(&mut spec, stop, &options, out, resume)?;
        let swept = interruptible(py, true, || {
            sweep::run(&decoding, &[Target::cpu()], &spec, &mut |_| {}).map_err(ldpc_err)
        })??;
        to_python(py, &swept.points)
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyCode>()?;
    m.add_function(wrap_pyfunction!(modulate, m)?)?;
    m.add_function(wrap_pyfunction!(bits_per_symbol, m)?)?;
    m.add_function(wrap_pyfunction!(demap, m)?)?;
    m.add_function(wrap_pyfunction!(interleave, m)?)?;
    m.add_function(wrap_pyfunction!(deinterleave, m)?)?;
    m.add_function(wrap_pyfunction!(simulate, m)?)?;
    m.add_function(wrap_pyfunction!(simulate_nr, m)?)?;
    nr::register(m)?;
    Ok(())
}
