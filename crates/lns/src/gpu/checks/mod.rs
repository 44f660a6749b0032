//! The LNS self-checks `sigpu check` runs: every kernel of lns.cu, reduce.cu, hmm.cu and the
//! axis kernels (axis.cu, axis_rows.cu, axis_matmul.cu)
//! against its CPU twin on fresh random inputs.

/// The registry's entries from `(name, about, run, subject)`: each runs `run(gpu, seed, subject)`.
macro_rules! checks {
    ($(($name:literal, $about:expr, $run:expr, $subject:expr)),* $(,)?) => {
        vec![$(Check {
            name: $name,
            about: $about,
            run: |gpu, seed| $run(gpu, seed, $subject),
        }),*]
    };
}

mod add;
mod axis;
mod axis_cases;
mod blend;
mod codes;
mod fused;
mod hmm;
mod rows_matmul;

use crate::error::LnsError;
use crate::format::Format;
use crate::method::Method;
use crate::value::Class;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use sigpu_runtime::cuda::{check_result, Check, CheckReport, CheckResult, Gpu, Tolerance};

/// Runs `check` on `method` for `format`, its inputs drawn from `seed`.
fn run_on(
    gpu: &Gpu,
    seed: u64,
    (format, method): (Format, Method),
    check: fn(ChaCha8Rng, &codes::Subject) -> Result<CheckReport, LnsError>,
) -> CheckResult {
    let subject = codes::Subject::new(gpu, format, method);
    check_result(subject.and_then(|s| check(ChaCha8Rng::seed_from_u64(seed), &s)))
}

fn run_codes(gpu: &Gpu, seed: u64, subject: (Format, Method)) -> CheckResult {
    run_on(gpu, seed, subject, codes::check)
}

fn run_add(gpu: &Gpu, seed: u64, subject: (Format, Method)) -> CheckResult {
    run_on(gpu, seed, subject, add::check)
}

/// How many codes a method's GPU results may stray from its CPU twin: Horner tables and f64
/// match bit for bit; texture methods within 1 code (the filter's weights are modelled
/// exactly, its final rounding is not: on the H100 0.7% of fetches come out one f32 ulp above
/// the exactly rounded weighted sum, see docs/texture-filtering.md); libdevice f32 within 1
/// code and the SFUs within 2 codes of the f64 reference; texlut's texels are the f64 twin's
/// codes, read back exactly.
fn code_tolerance(method: Method) -> i64 {
    match method {
        Method::Accurate | Method::Tex1 | Method::Tex2 => 1,
        Method::Sfu => 2,
        _ => 0,
    }
}

/// Codes between two words: 0 when they decode alike (specials included), |Δlog| for finite
/// values of one sign, `i64::MAX` otherwise.
fn codes_apart(format: Format, got: u32, want: u32) -> i64 {
    match (format.decode(got), format.decode(want)) {
        (a, b) if a == b => 0,
        (
            Class::Finite {
                negative: p,
                log: a,
            },
            Class::Finite {
                negative: q,
                log: b,
            },
        ) if p == q => (a - b).abs(),
        _ => i64::MAX,
    }
}

/// A report whose tolerance is `codes` in the log domain.
fn in_codes(
    elements: usize,
    mismatches: usize,
    max_error: i64,
    codes: i64,
    note: String,
) -> CheckReport {
    CheckReport {
        elements,
        mismatches,
        max_error: max_error as f64,
        tolerance: Tolerance {
            abs: codes as f64,
            rel: 0.0,
        },
        note,
    }
}

const CODES: &str = "s_b and d_b codes vs the CPU twin on random input windows";
const BLEND: &str =
    "a warp-split blend's s_b and d_b codes at λ = 1, 4, 7 vs the f64 reference, per warp's method";
const ADD: &str =
    "element-wise LNS add, sub, mul, div of random words (specials, cancellations) vs Format";

/// The LNS self-checks for `sigpu check`.
pub fn checks() -> Vec<Check> {
    let mut checks = checks! {
        ("lns/lns16_f64", CODES, run_codes, (Format::LNS16, Method::F64)),
        ("lns/lns16_accurate", CODES, run_codes, (Format::LNS16, Method::Accurate)),
        ("lns/lns16_sfu", CODES, run_codes, (Format::LNS16, Method::Sfu)),
        ("lns/lns16_horner2", CODES, run_codes, (Format::LNS16, Method::Horner(2))),
        ("lns/lns16_horner3", CODES, run_codes, (Format::LNS16, Method::Horner(3))),
        ("lns/lns16_horner4", CODES, run_codes, (Format::LNS16, Method::Horner(4))),
        ("lns/lns16_horner5", CODES, run_codes, (Format::LNS16, Method::Horner(5))),
        ("lns/lns16_tex1", CODES, run_codes, (Format::LNS16, Method::Tex1)),
        ("lns/lns16_tex2", CODES, run_codes, (Format::LNS16, Method::Tex2)),
        ("lns/lns16_texlut", CODES, run_codes, (Format::LNS16, Method::TexLut)),
        ("lns/lns16_blend_texlut_sfu", BLEND, blend::run, (Method::TexLut, Method::Sfu)),
        ("lns/lns32_f64", CODES, run_codes, (Format::LNS32, Method::F64)),
        ("lns/lns16_f32split", CODES, run_codes, (Format::LNS16, Method::F32Split)),
        ("lns/lns32_f32split", CODES, run_codes, (Format::LNS32, Method::F32Split)),
        ("lns/lns32_horner3", CODES, run_codes, (Format::LNS32, Method::Horner(3))),
        ("lns/lns32_tex1", CODES, run_codes, (Format::LNS32, Method::Tex1)),
        ("lns/lns32_tex2", CODES, run_codes, (Format::LNS32, Method::Tex2)),
        ("lns/add_lns16_sfu", ADD, run_add, (Format::LNS16, Method::Sfu)),
        ("lns/add_lns16_tex2", ADD, run_add, (Format::LNS16, Method::Tex2)),
        ("lns/add_lns16_texlut", ADD, run_add, (Format::LNS16, Method::TexLut)),
        ("lns/add_lns32_f64", ADD, run_add, (Format::LNS32, Method::F64)),
        ("lns/add_lns32_f32split", ADD, run_add, (Format::LNS32, Method::F32Split)),
        ("lns/add_lns16_f32split", ADD, run_add, (Format::LNS16, Method::F32Split)),
        ("lns/add_lns32_horner3", ADD, run_add, (Format::LNS32, Method::Horner(3))),
    };
    checks.extend(fused::checks());
    checks.extend(hmm::checks());
    checks.extend(axis::checks());
    checks.extend(rows_matmul::checks());
    checks
}
