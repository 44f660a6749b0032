//! Generated kernels must compile for sm_90 (the H100) with NVRTC, without a GPU. Without
//! NVRTC these tests print SKIP and pass, unless SIGPU_REQUIRE_NVRTC=1.

use sigpu_approx::catalog::{Function, CATALOG};
use sigpu_runtime::cuda::{compile, nvrtc_version, KernelCache, KernelSource};

fn nvrtc_or_skip(test: &str) -> bool {
    match nvrtc_version() {
        Ok(_) => true,
        Err(e) if std::env::var("SIGPU_REQUIRE_NVRTC").is_ok_and(|v| v == "1") => {
            panic!("{test}: SIGPU_REQUIRE_NVRTC=1 but {e}")
        }
        Err(e) => {
            println!("SKIP {test}: {e}");
            false
        }
    }
}

fn compiles(src: &KernelSource) -> Vec<String> {
    let c = compile(src, "sm_90", &KernelCache::disabled())
        .unwrap_or_else(|e| panic!("{} does not compile: {e}", src.name));
    c.kernel_names()
}

#[test]
fn microbenchmark_kernels_compile() {
    if !nvrtc_or_skip("microbenchmark_kernels_compile") {
        return;
    }
    let all: Vec<&Function> = CATALOG.iter().collect();
    let src = sigpu_approx::microbench::source(&all);
    let names = compiles(&src);
    assert_eq!(names.len(), src.entry_points().len(), "{names:?}");
}
