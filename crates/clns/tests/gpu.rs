//! GPU tests: every CLNS kernel against its CPU twin (the `sigpu check` registry). Without a
//! GPU they print SKIP and pass, unless SIGPU_REQUIRE_GPU=1.

use sigpu_runtime::cuda::gpu_for_test;

#[test]
fn every_clns_check_passes() {
    let Some(gpu) = gpu_for_test("every_clns_check_passes") else {
        return;
    };
    for check in sigpu_clns::gpu::checks() {
        let report =
            (check.run)(&gpu, check.seed(1)).unwrap_or_else(|e| panic!("{}: {e}", check.name));
        assert!(report.passed(), "{}: {report:?}", check.name);
    }
}

#[test]
fn gpu_ops_reject_mismatched_lengths() {
    let Some(gpu) = gpu_for_test("gpu_ops_reject_mismatched_lengths") else {
        return;
    };
    use sigpu_clns::{gpu::GpuClns, ClnsFormat, Geometry, Method};
    let f = ClnsFormat::CLNS16;
    let g = GpuClns::new(&gpu, f, Geometry::default_for(f)).unwrap();
    let a = gpu.upload(&[[0u32; 2]; 4]).unwrap();
    let b = gpu.upload(&[[0u32; 2]; 3]).unwrap();
    let mut out = gpu.alloc_poisoned::<[u32; 2]>(4).unwrap();
    assert!(g.add(Method::Tex, &a, &b, &mut out).is_err());
    assert!(g.mul(&a, &b, &mut out).is_err());
    assert!(g.mul_finite(&a, &b, &mut out).is_err());
    let af = gpu.upload(&[[0f32; 2]; 4]).unwrap();
    let bf = gpu.upload(&[[0f32; 2]; 3]).unwrap();
    let mut outf = gpu.alloc_poisoned::<[f32; 2]>(4).unwrap();
    assert!(g.add_f32(Method::Tex, &af, &bf, &mut outf, false).is_err());
    assert!(g.mul_f32(&af, &bf, &mut outf).is_err());
    let mut d = gpu.upload(&[[0u32; 2]; 12]).unwrap();
    assert!(g.fft(Method::Tex, &mut d, 12).is_err());
}

#[test]
fn the_sfu_method_refuses_wide_formats() {
    let Some(gpu) = gpu_for_test("the_sfu_method_refuses_wide_formats") else {
        return;
    };
    use sigpu_clns::{gpu::GpuClns, ClnsFormat, Geometry, Method};
    let f = ClnsFormat::CLNS32;
    let g = GpuClns::new(&gpu, f, Geometry::default_for(f)).unwrap();
    let a = gpu.upload(&[[0u32; 2]; 4]).unwrap();
    let mut out = gpu.alloc_poisoned::<[u32; 2]>(4).unwrap();
    assert!(g.add(Method::Sfu, &a, &a, &mut out).is_err());
    assert!(g.certify_sfu_lattice().is_err());
}
