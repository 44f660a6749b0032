//! The generated kernel variants (sub-batches of 64 and 32 codewords) compile for sm_90 with
//! every entry point; the 128-codeword file itself is compiled by the runtime's NVRTC test.
//! SKIP without NVRTC, unless SIGPU_REQUIRE_NVRTC=1.

use sigpu_runtime::cuda::{compile, nvrtc_version, KernelCache};

#[test]
fn sub_batch_kernels_compile_for_sm_90() {
    if let Err(e) = nvrtc_version() {
        if std::env::var("SIGPU_REQUIRE_NVRTC").is_ok_and(|v| v == "1") {
            panic!("SIGPU_REQUIRE_NVRTC=1 but {e}");
        }
        println!("SKIP sub_batch_kernels_compile_for_sm_90: {e}");
        return;
    }
    for sub in [64, 32] {
        let source = sigpu_ldpc::gpu::kernel_source(sub);
        let compiled = compile(&source, "sm_90", &KernelCache::disabled())
            .unwrap_or_else(|e| panic!("sub-batch {sub}: {e}"));
        let names = compiled.kernel_names();
        for declared in source.entry_points() {
            assert!(
                names.contains(&declared),
                "sub-batch {sub}: {declared} missing"
            );
        }
    }
}
