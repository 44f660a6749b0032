//! Generated kernels must compile for sm_90 (the H100) with NVRTC, without a GPU. Without
//! NVRTC these tests print SKIP and pass, unless SIGPU_REQUIRE_NVRTC=1.

mod common;

use sigpu_approx::catalog::{Function, CATALOG};
use sigpu_runtime::cuda::{compile, nvrtc_for_test, KernelCache, KernelSource};

fn compiles(src: &KernelSource) -> Vec<String> {
    let c = compile(src, "sm_90", &KernelCache::disabled())
        .unwrap_or_else(|e| panic!("{} does not compile: {e}", src.name));
    c.kernel_names()
}

#[test]
fn catalog_eval_kernels_compile() {
    if !nvrtc_for_test("catalog_eval_kernels_compile") {
        return;
    }
    let all: Vec<&Function> = CATALOG.iter().collect();
    let src = sigpu_approx::eval::source(&all);
    let names = compiles(&src);
    assert_eq!(names.len(), src.entry_points().len(), "{names:?}");
}

#[test]
fn transformed_user_kernels_compile() {
    if !nvrtc_for_test("transformed_user_kernels_compile") {
        return;
    }
    for kernel in ["box_muller", "norms"] {
        let t = sigpu_approx::transform::transform(common::USER_KERNEL, kernel).unwrap();
        let names = compiles(&KernelSource::generated("user.cu", t.source.clone()));
        for k in [&t.kernel, &t.sfu_kernel, &t.lambda_kernel, &t.block_kernel] {
            assert!(names.contains(k), "{k} missing from {names:?}");
        }
    }
}

#[test]
fn every_app_and_its_lambda_kernels_compile() {
    if !nvrtc_for_test("every_app_and_its_lambda_kernels_compile") {
        return;
    }
    for app in sigpu_approx::apps::APPS {
        let t = sigpu_approx::transform::transform(app.code, app.kernel).unwrap();
        let names = compiles(&KernelSource::generated(app.file, t.source.clone()));
        for k in [&t.kernel, &t.sfu_kernel, &t.lambda_kernel, &t.block_kernel] {
            assert!(
                names.contains(k),
                "{}: {k} missing from {names:?}",
                app.name
            );
        }
    }
}
