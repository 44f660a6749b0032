//! s_b and d_b codes of a GPU method against its CPU twin on random windows of inputs.

use super::{code_tolerance, in_codes};
use crate::arith::AddSub;
use crate::certify::Which;
use crate::error::LnsError;
use crate::format::Format;
use crate::gpu::GpuMethod;
use crate::method::Method;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sigpu_runtime::cuda::{CheckReport, Gpu};

/// The CPU twin of `method`: its own evaluator, or the f64 reference for the formula methods
/// that have none (libdevice, the SFUs).
pub(super) fn twin(format: Format, method: Method) -> Result<Box<dyn AddSub>, LnsError> {
    match method.cpu(format)? {
        Some(t) => Ok(t),
        None => Ok(Method::F64.cpu(format)?.expect("f64 runs on the CPU")),
    }
}

/// GPU method vs its CPU twin within [`code_tolerance`], both ends of each domain and random
/// windows of 4096 inputs.
pub(super) fn check(
    gpu: &Gpu,
    seed: u64,
    format: Format,
    method: Method,
) -> Result<CheckReport, LnsError> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let m = GpuMethod::new(gpu, method, format)?;
    let twin = twin(format, method)?;
    let tol = code_tolerance(method);
    let (mut elements, mut mismatches, mut max_error, mut note) =
        (0usize, 0usize, 0i64, String::new());
    for func in [Which::Sb, Which::Db] {
        let inputs = func.inputs(format);
        for window in 0..16 {
            let n = 4096i64.min(inputs.end() - inputs.start() + 1);
            // Always include both ends of the domain, then random windows.
            let start = match window {
                0 => *inputs.start(),
                1 => inputs.end() - n + 1,
                _ => rng.random_range(*inputs.start()..=inputs.end() - n + 1),
            };
            let got = m.eval(gpu, func, start, n as usize)?;
            for (i, g) in got.iter().enumerate() {
                let z = start + i as i64;
                let want = func.eval(&twin, z);
                let err = (g - want).abs();
                max_error = max_error.max(err);
                if err > tol {
                    if mismatches == 0 {
                        note = format!("first mismatch: {func:?} at z = {z}: got {g}, want {want}");
                    }
                    mismatches += 1;
                }
                elements += 1;
            }
        }
    }
    Ok(in_codes(elements, mismatches, max_error, tol, note))
}
