//! The HMM forward on the GPU against its CPU twin and the f64 forward, on sparse random
//! models.

use crate::error::LnsError;
use crate::format::Format;
use crate::hmm::gpu::GpuHmm;
use crate::hmm::{random_emissions, HmmModel};
use rand::{Rng, SeedableRng};
use sigpu_runtime::cuda::{Check, CheckReport, CheckResult, Gpu, Tolerance};

/// GPU self-checks: the forward on random models with zero transitions and emissions, against
/// the CPU twin and the f64 reference.
pub(super) fn checks() -> Vec<Check> {
    checks! {
        ("lns/hmm_lns32", ABOUT, run, Format::LNS32),
        ("lns/hmm_lns16", ABOUT, run, Format::LNS16),
        ("lns/hmm_i7f16", ABOUT_ANY_F, run, I7F16),
    }
}

const ABOUT: &str = "HMM forward log-likelihoods (sparse random models) vs the CPU twin and f64";
const ABOUT_ANY_F: &str =
    "HMM forward of the kernel for any F (here i7f16) vs the CPU twin and f64";
const I7F16: Format = Format {
    int_bits: 7,
    frac_bits: 16,
};

fn run(gpu: &Gpu, seed: u64, format: Format) -> CheckResult {
    sigpu_runtime::cuda::check_result(check(gpu, seed, format))
}

/// Relative log-likelihood tolerance against the twin: a few codes per cell over 120 steps,
/// scaled from lns32's 1e-6 by the format's ulp.
fn tolerance(format: Format) -> f64 {
    1e-6 * format.ulp() / Format::LNS32.ulp()
}

fn check(gpu: &Gpu, seed: u64, format: Format) -> Result<CheckReport, LnsError> {
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
        let mut emit = random_emissions(batch, steps, states, rng.random());
        for _ in 0..emit.len() / 50 {
            let k = rng.random_range(0..emit.len());
            emit[k] = f64::NEG_INFINITY;
        }
        let got = GpuHmm::new(gpu, &model, format)?.forward_host(&emit, batch)?;
        let twin = model.forward_lns_batch(format, &emit, batch)?;
        for (b, (&g, &w)) in got.iter().zip(&twin).enumerate() {
            let exact = model.forward_f64(&emit[b * steps * states..(b + 1) * steps * states])?;
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
