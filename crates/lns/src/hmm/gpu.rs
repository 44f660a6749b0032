//! The HMM forward algorithm on the GPU (`kernels/hmm.cu`): one block per sequence, the α
//! vector in shared memory, each cell a fused LNS dot product (exact products as integer adds,
//! the sum taken in f32 from the SFU's ex2 after a max shift, rounded back once), exact
//! rescaling after every step as on the CPU ([`HmmModel::forward_lns`] is the twin).
//!
//! Differences from the twin, measured by the `lns/hmm_*` checks: the per-cell sum is f32 with
//! SFU exponentials instead of a compensated f64 sum, so a cell may be off by a few codes
//! (lns32: a few 2^-23 in log2), and terms below 2^-120 of a cell's largest are dropped.

use super::{prob_word, HmmError, HmmModel};
use crate::format::Format;
use crate::value::Class;
use rand::{Rng, SeedableRng};
use sigpu_runtime::cuda::cudarc::driver::{DeviceRepr, LaunchConfig, PushKernelArg};
use sigpu_runtime::cuda::{
    Check, CheckReport, DeviceBuffer, Error, Gpu, KernelSource, Result, Tolerance,
};

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

/// Shared memory a block may use without opting in to more.
const SHARED_LIMIT: usize = 48 * 1024;

/// One thread per state, in one block.
pub const MAX_STATES: usize = 1024;

/// A model uploaded for one format: transition and initial codes on the device.
pub struct GpuHmm {
    pub format: Format,
    pub states: usize,
    init: DeviceBuffer<i32>,
    /// stride × stride, padded with the zero code.
    trans: DeviceBuffer<i32>,
    colmax: DeviceBuffer<i32>,
}

impl GpuHmm {
    /// Converts the model's probabilities to `format` and uploads them. The kernel keeps
    /// codes in 32-bit integers and builds f32 mantissas from their fraction bits, so F ≤ 23;
    /// transition and initial probabilities must be at most 1 (log ≤ 0), as probabilities are.
    pub fn new(gpu: &Gpu, model: &HmmModel, format: Format) -> Result<GpuHmm> {
        if format.frac_bits > 23 {
            return Err(Error::Invalid(format!(
                "{format}: the GPU HMM forward takes formats with F ≤ 23"
            )));
        }
        model.check_model().map_err(invalid)?;
        let s = model.states;
        if s > MAX_STATES {
            return Err(Error::Invalid(format!(
                "{s} states: the GPU HMM forward takes at most {MAX_STATES}"
            )));
        }
        let zero = format.special_code() as i32;
        let code = |what: &str, k: usize, ln_p: f64| -> Result<i32> {
            match format.decode(prob_word(format, ln_p)) {
                Class::Zero => Ok(zero),
                Class::Finite {
                    negative: false,
                    log,
                } if log <= 0 => Ok(log as i32),
                _ => Err(Error::Invalid(format!(
                    "{what}[{k}] = {ln_p}: log-probabilities must be ≤ 0 (or −∞)"
                ))),
            }
        };
        let init = (model.log_init.iter().enumerate())
            .map(|(k, &l)| code("log_init", k, l))
            .collect::<Result<Vec<_>>>()?;
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
        })
    }

    fn geo(&self, steps: usize) -> Result<(HmmGeo, LaunchConfig)> {
        let f = self.format;
        let (s, p) = (self.states, stride(self.states));
        let steps = i32::try_from(steps)
            .map_err(|_| Error::Invalid(format!("{steps} steps: at most 2^31 − 1")))?;
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
        gpu: &Gpu,
        emit: &DeviceBuffer<u32>,
        batch: usize,
        ll: &mut DeviceBuffer<f64>,
    ) -> Result<()> {
        let s = self.states;
        // At least one step: the kernel reads every sequence's first emission unconditionally.
        let per_step = batch.checked_mul(s).filter(|&n| n > 0);
        if per_step.is_none_or(|n| emit.is_empty() || !emit.len().is_multiple_of(n))
            || ll.len() != batch
        {
            return Err(Error::Invalid(format!(
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
            .ok_or_else(|| Error::Invalid(format!("batch {batch}: at most 2^31 − 1")))?;
        let name = match self.format.frac_bits {
            23 => "lns_hmm_forward_f23",
            10 => "lns_hmm_forward_f10",
            _ => "lns_hmm_forward",
        };
        let func = gpu.function(&kernels(), name)?;
        let mut launch = gpu.stream().launch_builder(&func);
        launch
            .arg(&geo)
            .arg(&self.init)
            .arg(&self.trans)
            .arg(&self.colmax)
            .arg(emit)
            .arg(ll);
        // SAFETY: arguments match the lns_hmm_forward kernels; emit holds batch × steps × S
        // words, ll batch doubles, init and colmax S codes, trans S × pitch codes; the block has one thread per
        // state (S ≤ 1024) and the shared size is what the kernel indexes.
        unsafe { launch.launch(cfg) }
            .map_err(|e| Error::Invalid(format!("launching {name}: {e}")))?;
        Ok(())
    }

    /// [`forward`](Self::forward) from host log-probabilities (batch × steps × states).
    pub fn forward_host(&self, gpu: &Gpu, log_emit: &[f64], batch: usize) -> Result<Vec<f64>> {
        let words = emission_words(self.format, log_emit);
        let emit = gpu.upload(&words)?;
        let mut ll = gpu.alloc_poisoned::<f64>(batch)?;
        self.forward(gpu, &emit, batch, &mut ll)?;
        gpu.download(&ll)
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

fn invalid(e: HmmError) -> Error {
    Error::Invalid(e.to_string())
}

/// GPU self-checks: the forward on random models with zero transitions and emissions, against
/// the CPU twin and the f64 reference.
pub fn checks() -> Vec<Check> {
    vec![
        Check {
            name: "lns/hmm_lns32",
            about: "HMM forward log-likelihoods (sparse random models) vs the CPU twin and f64",
            run: |gpu, seed| check_forward(gpu, seed, Format::LNS32),
        },
        Check {
            name: "lns/hmm_lns16",
            about: "HMM forward log-likelihoods (sparse random models) vs the CPU twin and f64",
            run: |gpu, seed| check_forward(gpu, seed, Format::LNS16),
        },
        Check {
            name: "lns/hmm_i7f16",
            about: "HMM forward of the kernel for any F (here i7f16) vs the CPU twin and f64",
            run: |gpu, seed| {
                check_forward(
                    gpu,
                    seed,
                    Format {
                        int_bits: 7,
                        frac_bits: 16,
                    },
                )
            },
        },
    ]
}

/// Relative log-likelihood tolerance against the twin: a few codes per cell over 120 steps,
/// scaled from lns32's 1e-6 by the format's ulp.
fn tolerance(format: Format) -> f64 {
    1e-6 * format.ulp() / Format::LNS32.ulp()
}

fn check_forward(gpu: &Gpu, seed: u64, format: Format) -> Result<CheckReport> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let (mut elements, mut mismatches) = (0, 0);
    let (mut worst_abs, mut worst_twin, mut worst_f64) = (0.0f64, 0.0f64, 0.0f64);
    // Below 32, not a multiple of 4, A in shared memory, A in global memory.
    for states in [5usize, 64, 101, 130] {
        let mut model = HmmModel::random(states, rng.random());
        // Sparse transitions: a tenth set to zero and a tenth to e^-80 (2^-115: a sum can then
        // sit more than 90 binades below its column's largest term, the kernel's exact path),
        // the self-loop kept so no row is empty.
        for k in 0..states * states {
            if k / states != k % states {
                match rng.random_range(0..10) {
                    0 => model.log_trans[k] = f64::NEG_INFINITY,
                    1 => model.log_trans[k] = -80.0,
                    _ => {}
                }
            }
        }
        let (batch, steps) = (6, 120);
        let mut emit = super::random_emissions(batch, steps, states, rng.random());
        for _ in 0..emit.len() / 50 {
            let k = rng.random_range(0..emit.len());
            emit[k] = f64::NEG_INFINITY;
        }
        let got = GpuHmm::new(gpu, &model, format)?.forward_host(gpu, &emit, batch)?;
        let twin = model
            .forward_lns_batch(format, &emit, batch)
            .map_err(invalid)?;
        for (b, (&g, &w)) in got.iter().zip(&twin).enumerate() {
            let exact = model
                .forward_f64(&emit[b * steps * states..(b + 1) * steps * states])
                .map_err(invalid)?;
            // Equal (−∞ included) is no error; a NaN is an infinite one.
            let rel = |a: f64, b: f64| if a == b { 0.0 } else { ((a - b) / b).abs() };
            let (e_twin, e_f64) = (rel(g, w), rel(g, exact));
            worst_abs = worst_abs.max(if g == w { 0.0 } else { (g - w).abs() });
            worst_twin = worst_twin.max(e_twin);
            worst_f64 = worst_f64.max(e_f64);
            elements += 1;
            let bound = tolerance(format);
            if e_twin.is_nan() || e_twin > bound {
                mismatches += 1;
            }
        }
    }
    Ok(CheckReport {
        elements,
        mismatches,
        max_error: worst_abs,
        tolerance: Tolerance {
            abs: 0.0,
            rel: tolerance(format),
        },
        note: format!(
            "max relative error {worst_twin:.2e} vs the CPU twin, {worst_f64:.2e} vs f64"
        ),
    })
}
