//! The catalog microbenchmark's kernels must compile for sm_90 (the H100) with NVRTC, without
//! a GPU. Without NVRTC the test prints SKIP and passes, unless SIGPU_REQUIRE_NVRTC=1.

use sigpu_runtime::cuda::{compile, nvrtc_for_test, KernelCache};

#[test]
fn microbenchmark_kernels_compile() {
    if !nvrtc_for_test("microbenchmark_kernels_compile") {
        return;
    }
    let src =
        sigpu_lab::approx::microbench::source(&sigpu_lab::approx::microbench::all_functions());
    let c = compile(&src, "sm_90", &KernelCache::disabled())
        .unwrap_or_else(|e| panic!("{} does not compile: {e}", src.name));
    let names = c.kernel_names();
    assert_eq!(names.len(), src.entry_points().len(), "{names:?}");
}
