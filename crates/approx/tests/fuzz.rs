//! Fuzzing `approx transform`'s CUDA reader (`sigpu_approx::transform`): mutated kernels must
//! be transformed or refused with an error, never panic, hang or allocate without bound.
//! `scripts/fuzz` runs this longer.

mod common;

use sigpu_runtime::fuzz::{self, CountingAlloc};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

#[test]
fn fuzz_transform_cuda_source() {
    let mut seeds = vec![common::USER_KERNEL.as_bytes().to_vec()];
    let mut kernels = vec!["box_muller"];
    for app in sigpu_approx::apps::APPS.iter().take(4) {
        seeds.push(app.code.as_bytes().to_vec());
        kernels.push(app.kernel);
    }
    let dict = [
        "extern \"C\" __global__ void ",
        "__device__ ",
        "(",
        ")",
        "{",
        "}",
        ";",
        "/*",
        "*/",
        "//",
        "\"",
        "'",
        "#define ",
        "\\\n",
        "expf(",
        "sqrtf(",
        "__sinf(",
        "float",
        "double",
        "int",
        "<<",
        "?",
        ":",
        "[",
        "]",
        "1.0f",
        "0x1p-3",
    ];
    fuzz::run("approx transform CUDA source", &seeds, &dict, 16384, |b| {
        let Ok(text) = std::str::from_utf8(b) else {
            return false;
        };
        let mut accepted = false;
        for kernel in &kernels {
            if text.contains(kernel) {
                accepted |= sigpu_approx::transform::transform(text, kernel).is_ok();
            }
        }
        accepted
    });
}

/// What the fuzzer found: a function named at the very start of the source (no return type)
/// and a kernel without parameters made the transform slice out of bounds.
#[test]
fn kernels_with_no_return_type_or_parameters_do_not_panic() {
    let cases = [
        ("g(float x) { return expf(x); }\nextern \"C\" __global__ void k(float* o) { o[0] = g(1.0f); }", "k"),
        ("extern \"C\" __global__ void k() { float y = expf(1.0f); }", "k"),
    ];
    for (source, kernel) in cases {
        let _ = sigpu_approx::transform::transform(source, kernel);
    }
}
