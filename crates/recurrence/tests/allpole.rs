//! The time-varying all-pole kernel: NVRTC compiles it for sm_90 at the orders and types the
//! planner builds (no GPU needed; skips without NVRTC unless SIGPU_REQUIRE_NVRTC=1), and on a
//! GPU its `sigpu check` entries pass (skips without one unless SIGPU_REQUIRE_GPU=1).

use sigpu_recurrence::time_varying::{self, SOURCE};
use sigpu_runtime::cuda::{compile, gpu_for_test, nvrtc_for_test, KernelCache, KernelSource};

#[test]
fn allpole_kernel_compiles_for_every_order_and_type() {
    if !nvrtc_for_test("allpole_kernel_compiles_for_every_order_and_type") {
        return;
    }
    for (real, order, chunk) in [("float", 16, 256), ("float", 1, 16), ("double", 5, 64)] {
        let source = KernelSource::embedded("allpole.cu", SOURCE)
            .with_option(format!("-DREAL={real}"))
            .with_option(format!("-DORDER={order}"))
            .with_option(format!("-DCHUNK={chunk}"));
        let compiled = compile(&source, "sm_90", &KernelCache::disabled())
            .unwrap_or_else(|e| panic!("{real} order {order}: {e}"));
        let names = compiled.kernel_names();
        for k in ["tvap_summary", "tvap_carry", "tvap_apply", "tvap_grad_a"] {
            assert!(names.iter().any(|n| n == k), "{k} missing: {names:?}");
        }
    }
}

#[test]
fn allpole_checks_pass_on_a_gpu() {
    let Some(gpu) = gpu_for_test("allpole_checks_pass_on_a_gpu") else {
        return;
    };
    for check in time_varying::checks() {
        let report = (check.run)(&gpu, check.seed(1)).unwrap();
        assert!(report.passed(), "{}: {report:?}", check.name);
        println!("{}: {}", check.name, report.note);
    }
}
