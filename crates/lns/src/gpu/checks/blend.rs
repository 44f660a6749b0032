//! A blend's codes against the f64 reference: each result must be its own method's, so warps
//! on texlut match the reference exactly and warps on the SFUs within their tolerance.

use super::{code_tolerance, in_codes};
use crate::arith::Accurate;
use crate::certify::Which;
use crate::error::LnsError;
use crate::format::Format;
use crate::gpu::{GpuBlend, GpuMethod};
use crate::method::Method;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use sigpu_runtime::cuda::{check_result, CheckReport, CheckResult, Gpu};

/// texlut + SFU on lns16 at λ = 1, 4, 7 (of 8): both ends of each domain and random windows of
/// 4096 inputs, every code against the f64 reference within its warp's method's tolerance.
pub(super) fn run(gpu: &Gpu, seed: u64, (a, b): (Method, Method)) -> CheckResult {
    check_result(check(gpu, rand::SeedableRng::seed_from_u64(seed), a, b))
}

fn check(gpu: &Gpu, mut rng: ChaCha8Rng, a: Method, b: Method) -> Result<CheckReport, LnsError> {
    let format = Format::LNS16;
    let (ga, gb) = (
        GpuMethod::new(gpu, a, format)?,
        GpuMethod::new(gpu, b, format)?,
    );
    let blend = GpuBlend::new(&ga, &gb)?;
    let reference = Accurate(format);
    let (tol_a, tol_b) = (code_tolerance(a), code_tolerance(b));
    let (mut elements, mut mismatches, mut max_error, mut note) =
        (0usize, 0usize, 0i64, String::new());
    for func in [Which::Sb, Which::Db] {
        let inputs = func.inputs(format);
        for (window, lambda) in (0..12).zip([1, 4, 7].into_iter().cycle()) {
            let n = 4096i64.min(inputs.end() - inputs.start() + 1);
            let start = match window {
                0 => *inputs.start(),
                1 => inputs.end() - n + 1,
                _ => rng.random_range(*inputs.start()..=inputs.end() - n + 1),
            };
            let got = blend.eval(func, lambda, start, n as usize)?;
            for (i, g) in got.iter().enumerate() {
                let z = start + i as i64;
                // The kernel's split: thread i is in warp i / 32 of the launch.
                let on_a = ((i / 32) % 8) < lambda as usize;
                let tol = if on_a { tol_a } else { tol_b };
                let err = (g - func.eval(&reference, z)).abs();
                max_error = max_error.max(err);
                if err > tol {
                    if mismatches == 0 {
                        note = format!(
                            "first mismatch: {func:?} at z = {z} (λ = {lambda}/8, on {}): got {g}, {err} codes off",
                            if on_a { a } else { b }
                        );
                    }
                    mismatches += 1;
                }
                elements += 1;
            }
        }
    }
    Ok(in_codes(
        elements,
        mismatches,
        max_error,
        tol_b.max(tol_a),
        note,
    ))
}
