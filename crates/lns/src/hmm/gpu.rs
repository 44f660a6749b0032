//! The HMM forward algorithm on the GPU (`kernels/hmm.cu`): one block per sequence, the α
//! vector in shared memory, each cell a fused LNS dot product (exact products as integer adds,
//! the sum taken in f32 from the SFU's ex2 after a max shift, rounded back once), exact
//! rescaling after every step as on the CPU ([`HmmModel::forward_lns`] is the twin).
//!
//! Differences from the twin, measured by the `lns/hmm_*` checks: the per-cell sum is f32 with
//! SFU exponentials instead of a compensated f64 sum, so a cell may be off by a few codes
//! (lns32: a few 2^-23 in log2), and terms below 2^-120 of a cell's largest are dropped.

use super::{prob_word, HmmModel};
use crate::error::LnsError;
use crate::format::Format;
use crate::value::Class;
use sigpu_runtime::cuda::cudarc::driver::{DeviceRepr, LaunchConfig};
use sigpu_runtime::cuda::{DeviceBuffer, Gpu, KernelSource, KernelValue};

/// The HMM kernels (`kernels/hmm.cu`).
pub fn kernels() -> KernelSource {
    KernelSource::embedded("hmm.cu", include_str!("../../kernels/hmm.cu"))
}

/// `struct HmmGeo` in hmm.cu.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
struct HmmGeo {
    f: i32,
    zero: i32,
    max_code: i32,
    states: i32,
    stride: i32,
    steps: i32,
    a_shared: i32,
}

// SAFETY: a plain #[repr(C)] struct of i32s, laid out as `struct HmmGeo` in hmm.cu.
unsafe impl DeviceRepr for HmmGeo {}
impl KernelValue for HmmGeo {}

/// Shared memory a block may use without opting in to more.
const SHARED_LIMIT: usize = 48 * 1024;

/// One thread per state, in one block.
pub const MAX_STATES: usize = 1024;

/// A model uploaded for one format on one GPU: transition and initial codes on the device,
/// where every forward runs.
pub struct GpuHmm {
    /// The format of the uploaded codes and of every result.
    pub format: Format,
    /// Hidden states, at most [`MAX_STATES`].
    pub states: usize,
    init: DeviceBuffer<i32>,
    /// stride × stride, padded with the zero code.
    trans: DeviceBuffer<i32>,
    colmax: DeviceBuffer<i32>,
    gpu: Gpu,
}

impl GpuHmm {
    /// Converts the model's probabilities to `format` and uploads them. The kernel keeps
    /// codes in 32-bit integers and builds f32 mantissas from their fraction bits, so F ≤ 23;
    /// transition and initial probabilities must be at most 1 (log ≤ 0), as probabilities are.
    pub fn new(gpu: &Gpu, model: &HmmModel, format: Format) -> Result<GpuHmm, LnsError> {
        if format.frac_bits > 23 {
            return Err(LnsError::Unsupported(format!(
                "{format}: the GPU HMM forward takes formats with F ≤ 23"
            )));
        }
        model.check_model()?;
        let s = model.states;
        if s > MAX_STATES {
            return Err(LnsError::Unsupported(format!(
                "{s} states: the GPU HMM forward takes at most {MAX_STATES}"
            )));
        }
        let zero = format.special_code() as i32;
        let code = |what: &str, k: usize, ln_p: f64| -> Result<i32, LnsError> {
            match format.decode(prob_word(format, ln_p)) {
                Class::Zero => Ok(zero),
                Class::Finite {
                    negative: false,
                    log,
                } if log <= 0 => Ok(log as i32),
                _ => Err(LnsError::Invalid(format!(
                    "{what}[{k}] = {ln_p}: log-probabilities must be ≤ 0 (or −∞)"
                ))),
            }
        };
        let init = (model.log_init.iter().enumerate())
            .map(|(k, &l)| code("log_init", k, l))
            .collect::<Result<Vec<_>, _>>()?;
        // Transposed and padded (see `pitch`): row j holds A_ij for every i.
        let w = pitch(s);
        let mut trans = vec![zero; s * w];
        let mut colmax = vec![zero; s];
        for (k, &l) in model.log_trans.iter().enumerate() {
            let (i, j) = (k / s, k % s);
            let c = code("log_trans", k, l)?;
            trans[j * w + i] = c;
            colmax[j] = colmax[j].max(c);
        }
        Ok(GpuHmm {
            format,
            states: s,
            init: gpu.upload(&init)?,
            trans: gpu.upload(&trans)?,
            colmax: gpu.upload(&colmax)?,
            gpu: gpu.clone(),
        })
    }

    fn geo(&self, steps: usize) -> Result<(HmmGeo, LaunchConfig), LnsError> {
        let f = self.format;
        let (s, p) = (self.states, stride(self.states));
        let steps = i32::try_from(steps)
            .map_err(|_| LnsError::Invalid(format!("{steps} steps: at most 2^31 − 1")))?;
        // Ints: 64 (32 doubles of reduction scratch) + 64 (int scratch) + α (+ A).
        let base = (128 + p) * 4;
        let a_bytes = s * pitch(s) * 4;
        let a_shared = base + a_bytes <= SHARED_LIMIT;
        let geo = HmmGeo {
            f: f.frac_bits as i32,
            zero: f.special_code() as i32,
            max_code: f.max_code() as i32,
            states: s as i32,
            stride: p as i32,
            steps,
            a_shared: a_shared as i32,
        };
        let cfg = LaunchConfig {
            grid_dim: (1, 1, 1),
            block_dim: ((s.div_ceil(32) * 32) as u32, 1, 1),
            shared_mem_bytes: (base + if a_shared { a_bytes } else { 0 }) as u32,
        };
        Ok((geo, cfg))
    }

    /// ln P(o) of `batch` sequences whose emission words (batch × steps × states, from
    /// [`emission_words`]) are on the device, into `ll` (one per sequence): NaN where an
    /// emission word is negative, infinite or NaN.
    pub fn forward(
        &self,
        emit: &DeviceBuffer<u32>,
        batch: usize,
        ll: &mut DeviceBuffer<f64>,
    ) -> Result<(), LnsError> {
        let s = self.states;
        // At least one step: the kernel reads every sequence's first emission unconditionally.
        let per_step = batch.checked_mul(s).filter(|&n| n > 0);
        if per_step.is_none_or(|n| emit.is_empty() || !emit.len().is_multiple_of(n))
            || ll.len() != batch
        {
            return Err(LnsError::HmmShape(format!(
                "{} emission words and {} outputs do not make {batch} sequences of ≥ 1 step \
                 over {s} states",
                emit.len(),
                ll.len()
            )));
        }
        let steps = emit.len() / (batch * s);
        let (geo, mut cfg) = self.geo(steps)?;
        // One block per sequence: the grid's x extent is at most 2^31 − 1.
        cfg.grid_dim.0 = u32::try_from(batch)
            .ok()
            .filter(|&b| b <= i32::MAX as u32)
            .ok_or_else(|| LnsError::Invalid(format!("batch {batch}: at most 2^31 − 1")))?;
        let name = match self.format.frac_bits {
            23 => "lns_hmm_forward_f23",
            10 => "lns_hmm_forward_f10",
            _ => "lns_hmm_forward",
        };
        let gpu = &self.gpu;
        let kernel = gpu.kernel(&kernels(), name)?;
        // The block has one thread per state (S ≤ 1024) and the shared size is what the
        // kernel indexes; emit holds batch × steps × S words, ll batch doubles.
        gpu.launch(&kernel)
            .arg(&geo)
            .buf(&self.init)
            .buf(&self.trans)
            .buf(&self.colmax)
            .buf(emit)
            .buf_mut(ll)
            .run(cfg)?;
        Ok(())
    }

    /// [`forward`](Self::forward) from host log-probabilities (batch × steps × states).
    pub fn forward_host(&self, log_emit: &[f64], batch: usize) -> Result<Vec<f64>, LnsError> {
        let gpu = &self.gpu;
        let words = emission_words(self.format, log_emit);
        let emit = gpu.upload(&words)?;
        let mut ll = gpu.alloc_poisoned::<f64>(batch)?;
        self.forward(&emit, batch, &mut ll)?;
        Ok(gpu.download(&ll)?)
    }
}

/// Row length of α and A on the device: S rounded up to 4, for 16-byte loads of α.
fn stride(states: usize) -> usize {
    states.div_ceil(4) * 4
}

/// Row length of the transposed A: 4 more than the stride, so the rows of 8 consecutive
/// threads start in different 16-byte bank groups and their 16-byte loads do not conflict.
fn pitch(states: usize) -> usize {
    stride(states) + 4
}

/// Emission log-probabilities as LNS words, the kernel's input.
pub fn emission_words(format: Format, log_emit: &[f64]) -> Vec<u32> {
    log_emit.iter().map(|&l| prob_word(format, l)).collect()
}
