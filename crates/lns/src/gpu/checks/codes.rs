//! s_b and d_b codes of a GPU method against its CPU twin on random windows of inputs.

use super::{code_tolerance, in_codes};
use crate::arith::AddSub;
use crate::certify::Which;
use crate::error::LnsError;
use crate::format::Format;
use crate::gpu::GpuMethod;
use crate::method::Method;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use sigpu_runtime::cuda::{CheckReport, Gpu};

/// What a check compares: a method on the GPU, its CPU twin (its own evaluator, or the f64
/// reference for the formula methods that have none: libdevice, the SFUs), and how many codes
/// they may differ by.
pub(super) struct Subject {
    pub m: GpuMethod,
    pub twin: Box<dyn AddSub>,
    pub tol: i64,
}

impl Subject {
    pub(super) fn new(gpu: &Gpu, format: Format, method: Method) -> Result<Subject, LnsError> {
        let m = GpuMethod::new(gpu, method, format)?;
        let twin = match method.cpu(format)? {
            Some(t) => t,
            None => Method::F64.cpu(format)?.expect("f64 runs on the CPU"),
        };
        let tol = code_tolerance(method);
        Ok(Subject { m, twin, tol })
    }
}

/// GPU method vs its CPU twin within [`code_tolerance`], both ends of each domain and random
/// windows of 4096 inputs.
pub(super) fn check(mut rng: ChaCha8Rng, s: &Subject) -> Result<CheckReport, LnsError> {
    let (m, twin, tol, format) = (&s.m, &s.twin, s.tol, s.m.format);
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
            let got = m.eval(func, start, n as usize)?;
            for (i, g) in got.iter().enumerate() {
                let z = start + i as i64;
                let want = func.eval(twin, z);
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
