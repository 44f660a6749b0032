//! The short-row and tiled matmul kernels the axis operations load by name are in their
//! compiled modules for sm_90, so a renamed or missing entry point fails without a GPU (the
//! runtime's NVRTC test compiles every source, but does not know the names loaded). SKIP
//! without NVRTC, unless SIGPU_REQUIRE_NVRTC=1.

use sigpu_lns::gpu::axis::{matmul_kernels, row_kernels};
use sigpu_runtime::cuda::{compile, nvrtc_for_test, KernelCache};

#[test]
fn the_row_and_matmul_kernels_the_axis_operations_load_are_compiled() {
    if !nvrtc_for_test("the_row_and_matmul_kernels_the_axis_operations_load_are_compiled") {
        return;
    }
    let wanted = [
        (
            row_kernels(),
            &[
                "lns_axis_sum_rows",
                "lns_axis_sum_rows_u16",
                "lns_axis_log_rows_f32",
                "lns_axis_log_rows_f64",
            ][..],
        ),
        (
            matmul_kernels(),
            &[
                "lns_axis_matmul_tiled",
                "lns_axis_matmul_tiled_u16",
                "lns_axis_matmul_filtered",
                "lns_axis_matmul_filtered_u16",
            ][..],
        ),
    ];
    for (source, names) in wanted {
        let compiled =
            compile(&source, "sm_90", &KernelCache::disabled()).unwrap_or_else(|e| panic!("{e}"));
        let have = compiled.kernel_names();
        for name in names {
            assert!(
                have.iter().any(|h| h == name),
                "{name} missing from {have:?}"
            );
        }
    }
}
