//! 5G NR LDPC (`sigpu_ldpc::nr`): code blocks (`NrCode`: encode with rate matching and the
//! bit interleaver, decode with HARQ combining) and transport blocks (CRC, segmentation).

use super::{bits01, matrix, Options, Stats};
use crate::guard::catch;
use crate::{ldpc_err, value_err};
use numpy::ndarray::Array1;
use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use sigpu_ldpc::nr::{decode_transmissions, BaseGraph, NrCode, Transmission, TransportBlock};
use sigpu_ldpc::{plan, Decoder};
use sigpu_runtime::Target;
use std::collections::HashMap;
use std::sync::Mutex;

/// Decoders planned once per configuration (laying out a lifted code's edges is not free).
type Cache = Mutex<HashMap<String, Box<dyn Decoder>>>;

fn graph(bg: Option<u32>) -> PyResult<Option<BaseGraph>> {
    bg.map(BaseGraph::from_number).transpose().map_err(ldpc_err)
}

/// The CPU (`device` None) or GPU `device`: the front door picks the quasi-cyclic decoder
/// there (the GPU's is bit for bit the CPU's).
fn target_of(device: Option<usize>) -> PyResult<Target> {
    Ok(match device {
        None => Target::cpu(),
        Some(d) => plan::target(Some(crate::device::gpu(d)?)),
    })
}

/// Runs `f` with the decoder of `options` for the code `code` makes, planned once per
/// configuration and `shape` (what tells the codes apart).
fn with_decoder<R>(
    cache: &Cache,
    shape: String,
    code: impl FnOnce() -> sigpu_ldpc::Result<sigpu_ldpc::Code>,
    options: &Options,
    device: Option<usize>,
    f: impl FnOnce(&mut dyn Decoder) -> PyResult<R>,
) -> PyResult<R> {
    let config = options.config()?;
    let target = target_of(device)?;
    let mut map = cache.lock().unwrap_or_else(|p| p.into_inner());
    let key = format!("{config:?}/{device:?}/{shape}");
    let decoder = match map.entry(key) {
        std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
        std::collections::hash_map::Entry::Vacant(e) => {
            let code = code().map_err(ldpc_err)?;
            e.insert(plan::decoder(&code, config, &target).map_err(ldpc_err)?)
        }
    };
    f(decoder.as_mut())
}

#[pyclass(name = "NrCode", module = "sigpu._native", frozen)]
pub struct PyNrCode {
    code: NrCode,
    decoders: Cache,
}

impl PyNrCode {
    /// The code block (for the sweep, module `ldpc`).
    pub(super) fn block(&self) -> &NrCode {
        &self.code
    }
}

#[pymethods]
impl PyNrCode {
    #[new]
    #[pyo3(signature = (k, n, bg=None))]
    fn new(k: usize, n: usize, bg: Option<u32>) -> PyResult<Self> {
        catch(|| {
            let code = NrCode::new(k, n, graph(bg)?).map_err(ldpc_err)?;
            Ok(PyNrCode {
                code,
                decoders: Mutex::new(HashMap::new()),
            })
        })
    }

    #[getter]
    fn name(&self) -> PyResult<String> {
        catch(|| Ok(self.code.name()))
    }
    #[getter]
    fn k(&self) -> PyResult<usize> {
        catch(|| Ok(self.code.k()))
    }
    #[getter]
    fn n(&self) -> PyResult<usize> {
        catch(|| Ok(self.code.n()))
    }
    #[getter]
    fn bg(&self) -> PyResult<u8> {
        catch(|| Ok(self.code.graph().number()))
    }
    #[getter]
    fn z(&self) -> PyResult<usize> {
        catch(|| Ok(self.code.z()))
    }
    /// K of §5.2.2: k plus the filler bits.
    #[getter]
    fn k_filled(&self) -> PyResult<usize> {
        catch(|| Ok(self.code.params().k))
    }
    /// Bits of the lifted code (68 Z or 52 Z), the length of full LLR vectors.
    #[getter]
    fn n_full(&self) -> PyResult<usize> {
        catch(|| Ok(self.code.code().n()))
    }

    /// words × (len(rvs) · n) bits of words × k bits.
    #[pyo3(signature = (bits, rvs, qm=None))]
    fn encode<'py>(
        &self,
        py: Python<'py>,
        bits: PyReadonlyArray2<'py, u8>,
        rvs: Vec<u8>,
        qm: Option<usize>,
    ) -> PyResult<Bound<'py, PyArray2<u8>>> {
        catch(|| {
            let (words, k) = bits.as_array().dim();
            if k != self.code.k() {
                return Err(value_err(format!(
                    "{}: the last axis must have k = {} bits, got {k}",
                    self.code.name(),
                    self.code.k()
                )));
            }
            let flat = bits01(bits.as_slice().map_err(value_err)?)?;
            let cols = rvs.len() * self.code.n();
            let out = py
                .detach(|| self.code.encode_words(flat, &rvs, qm))
                .map_err(ldpc_err)?;
            matrix(py, words, cols, out)
        })
    }

    /// The k decoded bits of each word of LLRs (words × (len(rvs) · n), ln P(0)/P(1)).
    #[pyo3(signature = (llr, rvs, qm, options, device=None))]
    fn decode<'py>(
        &self,
        py: Python<'py>,
        llr: PyReadonlyArray2<'py, f32>,
        rvs: Vec<u8>,
        qm: Option<usize>,
        options: Options,
        device: Option<usize>,
    ) -> PyResult<(Bound<'py, PyArray2<u8>>, Stats)> {
        catch(|| {
            let (words, cols) = llr.as_array().dim();
            if cols != rvs.len() * self.code.n() {
                return Err(value_err(format!(
                    "{}: LLRs must have {} redundancy version(s) × n = {} values per word, got {cols}",
                    self.code.name(),
                    rvs.len(),
                    self.code.n()
                )));
            }
            let values = llr.as_slice().map_err(value_err)?;
            let (bits, stats) = py.detach(|| {
                let rows = self.code.rows_for(&rvs).map_err(ldpc_err)?;
                let code = || self.code.decoding_code(&rvs);
                with_decoder(
                    &self.decoders,
                    format!("rows {rows}"),
                    code,
                    &options,
                    device,
                    |d| {
                        self.code
                            .decode_words(values, &rvs, qm, d)
                            .map_err(ldpc_err)
                    },
                )
            })?;
            let stats = (
                stats.codewords,
                Some(stats.valid),
                stats.iterations,
                stats.batches,
            );
            Ok((matrix(py, words, self.code.k(), bits)?, stats))
        })
    }

    /// The full-length LLRs (words × n_full) of LLRs laid out as `decode` takes them.
    #[pyo3(signature = (llr, rvs, qm=None))]
    fn llr_full<'py>(
        &self,
        py: Python<'py>,
        llr: PyReadonlyArray2<'py, f32>,
        rvs: Vec<u8>,
        qm: Option<usize>,
    ) -> PyResult<Bound<'py, PyArray2<f32>>> {
        catch(|| {
            let words = llr.as_array().dim().0;
            let values = llr.as_slice().map_err(value_err)?;
            let full = py
                .detach(|| self.code.llr_words(values, &rvs, qm))
                .map_err(ldpc_err)?;
            matrix(py, words, self.code.code().n(), full)
        })
    }

    fn __repr__(&self) -> PyResult<String> {
        catch(|| {
            let c = &self.code;
            Ok(format!(
                "sigpu.ldpc.NrCode(k={}, n={}, bg={}: Z={}, K={}, rate={:.4})",
                c.k(),
                c.n(),
                c.graph().number(),
                c.z(),
                c.params().k,
                c.rate()
            ))
        })
    }
}

/// (A, G, C, K', Z, base graph, E of each block).
type TbShape = (usize, usize, usize, usize, usize, u8, Vec<usize>);

#[pyclass(name = "TransportBlock", module = "sigpu._native", frozen)]
pub struct PyTransportBlock {
    tb: TransportBlock,
    decoders: Cache,
}

#[pymethods]
impl PyTransportBlock {
    #[new]
    #[pyo3(signature = (a, g, qm, bg=None))]
    fn new(a: usize, g: usize, qm: usize, bg: Option<u32>) -> PyResult<Self> {
        catch(|| {
            let tb = TransportBlock::new(a, g, qm, graph(bg)?).map_err(ldpc_err)?;
            Ok(PyTransportBlock {
                tb,
                decoders: Mutex::new(HashMap::new()),
            })
        })
    }

    /// (A, G, C, K', Z, base graph, E of each block).
    fn shape(&self) -> PyResult<TbShape> {
        catch(|| {
            let p = self.tb.params();
            Ok((
                self.tb.a(),
                self.tb.g(),
                self.tb.blocks(),
                p.k_prime,
                p.z,
                p.graph.number(),
                self.tb.block_lengths(),
            ))
        })
    }

    /// The G bits `rv` sends for the A bits `bits`.
    fn encode<'py>(
        &self,
        py: Python<'py>,
        bits: PyReadonlyArray1<'py, u8>,
        rv: u8,
    ) -> PyResult<Bound<'py, PyArray1<u8>>> {
        catch(|| {
            let bits = bits01(bits.as_slice().map_err(value_err)?)?;
            let out = py.detach(|| self.tb.encode(bits, rv)).map_err(ldpc_err)?;
            Ok(Array1::from_vec(out).into_pyarray(py))
        })
    }

    /// (A decoded bits, per-block CRC results, transport block CRC result) of transmissions
    /// (len(rvs) × G LLRs).
    #[pyo3(signature = (llr, rvs, options, device=None))]
    fn decode<'py>(
        &self,
        py: Python<'py>,
        llr: PyReadonlyArray2<'py, f32>,
        rvs: Vec<u8>,
        options: Options,
        device: Option<usize>,
    ) -> PyResult<(Bound<'py, PyArray1<u8>>, Vec<bool>, bool)> {
        catch(|| {
            let flat = llr.as_slice().map_err(value_err)?;
            let g = self.tb.g();
            let rows: Vec<&[f32]> = flat.chunks(g.max(1)).collect();
            let out = py.detach(|| {
                let code = || Ok(self.tb.code().clone());
                with_decoder(&self.decoders, String::new(), code, &options, device, |d| {
                    self.tb.decode(&rows, &rvs, d).map_err(ldpc_err)
                })
            })?;
            Ok((
                Array1::from_vec(out.bits).into_pyarray(py),
                out.blocks_ok,
                out.tb_ok,
            ))
        })
    }
}

/// One received transmission as Python hands it: the code block, its LLRs (len(rvs) · n),
/// the redundancy versions sent and the interleaver's bits per symbol.
type PyTransmission<'py> = (
    PyRef<'py, PyNrCode>,
    PyReadonlyArray1<'py, f32>,
    Vec<u8>,
    Option<usize>,
);

/// What one transmission of a mixed batch decoded to: (k bits, iterations, valid).
type PyDecoded<'py> = (Bound<'py, PyArray1<u8>>, u32, bool);

/// A mixed batch: transmissions of different NR code blocks decoded together (on a GPU in
/// one launch); (k bits, iterations, valid) of each.
#[pyfunction]
#[pyo3(signature = (blocks, options, device=None))]
fn nr_decode_blocks<'py>(
    py: Python<'py>,
    blocks: Vec<PyTransmission<'py>>,
    options: Options,
    device: Option<usize>,
) -> PyResult<Vec<PyDecoded<'py>>> {
    catch(|| {
        let config = options.config()?;
        let target = target_of(device)?;
        let llrs = (blocks.iter())
            .map(|(_, l, _, _)| l.as_slice().map_err(value_err))
            .collect::<PyResult<Vec<&[f32]>>>()?;
        let items: Vec<Transmission<'_>> = (blocks.iter().zip(&llrs))
            .map(|((c, _, rvs, qm), llr)| Transmission {
                code: &c.code,
                llr,
                rvs,
                qm: *qm,
            })
            .collect();
        let out = py
            .detach(|| decode_transmissions(&items, config, &target))
            .map_err(ldpc_err)?;
        Ok(out
            .into_iter()
            .map(|d| {
                (
                    Array1::from_vec(d.bits).into_pyarray(py),
                    d.iterations,
                    d.valid,
                )
            })
            .collect())
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(nr_decode_blocks, m)?)?;
    m.add_class::<PyNrCode>()?;
    m.add_class::<PyTransportBlock>()?;
    Ok(())
}
