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

/// Every kernel the decoders load by name is in the compiled modules (the entry points are
/// stamped by macros, which `entry_points` does not expand).
#[test]
fn every_kernel_the_decoders_load_is_compiled() {
    if !sigpu_runtime::cuda::nvrtc_for_test("every_kernel_the_decoders_load_is_compiled") {
        return;
    }
    let mut flooding = vec![
        "ldpc_transpose_llr",
        "ldpc_init",
        "ldpc_syndrome",
        "ldpc_mark_done",
    ];
    flooding.extend([
        "ldpc_cn",
        "ldpc_cn_8",
        "ldpc_cn_16",
        "ldpc_cn_32",
        "ldpc_cn_v",
        "ldpc_cn_v8",
    ]);
    for suffix in ["", "_8", "_16", "_v", "_v8"] {
        flooding.extend(
            [format!("ldpc_vn{suffix}"), format!("ldpc_vn_hd{suffix}")].map(|s| &*s.leak()),
        );
    }
    for sub in [128, 64, 32] {
        let compiled = compile(
            &sigpu_ldpc::gpu::kernel_source(sub),
            "sm_90",
            &KernelCache::disabled(),
        )
        .unwrap_or_else(|e| panic!("sub-batch {sub}: {e}"));
        let names = compiled.kernel_names();
        for name in &flooding {
            assert!(
                names.iter().any(|n| n == name),
                "sub-batch {sub}: {name} missing from {names:?}"
            );
        }
    }
    let layered = sigpu_runtime::cuda::KernelSource::embedded(
        "ldpc_layered8.cu",
        include_str!("../kernels/ldpc_layered8.cu"),
    );
    let names = compile(&layered, "sm_90", &KernelCache::disabled())
        .unwrap()
        .kernel_names();
    for d in [8, 16, 32] {
        let name = format!("ldpc_layered_{d}");
        assert!(names.contains(&name), "{name} missing from {names:?}");
    }
}

/// Both quasi-cyclic NR kernels compile, with their header as the decoder attaches it, into
/// the entry points the engine loads.
#[test]
fn the_nr_quasi_cyclic_kernels_compile_with_their_header() {
    if !sigpu_runtime::cuda::nvrtc_for_test("the_nr_quasi_cyclic_kernels_compile_with_their_header")
    {
        return;
    }
    use sigpu_ldpc::gpu::nr_layout::NrKernel;
    for kernel in [NrKernel::Lanes, NrKernel::Pairs] {
        let compiled = compile(
            &sigpu_ldpc::gpu::nr_kernel_source(kernel),
            "sm_90",
            &KernelCache::disabled(),
        )
        .unwrap_or_else(|e| panic!("{kernel:?}: {e}"));
        assert_eq!(compiled.kernel_names(), vec![kernel.entry().to_owned()]);
    }
}
