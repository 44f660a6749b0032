//! GPU tests: every CLNS kernel against its CPU twin (the `sigpu check` registry). Without a
//! GPU they print SKIP and pass, unless SIGPU_REQUIRE_GPU=1.

use sigpu_clns::{gpu::GpuClns, ClnsFormat, Geometry, Method};
use sigpu_runtime::cuda::{gpu_for_test, DeviceBuffer, Gpu};

/// What the refusal tests start from: `format`'s default tables on the GPU, an operand of
/// four zero words and a poisoned output of four.
struct Fixture {
    gpu: Gpu,
    tables: GpuClns,
    a: DeviceBuffer<[u32; 2]>,
    out: DeviceBuffer<[u32; 2]>,
}

/// The [`Fixture`] for test `name`; `None` (a SKIP) without a GPU.
fn fixture(name: &str, format: ClnsFormat) -> Option<Fixture> {
    let gpu = gpu_for_test(name)?;
    let tables = GpuClns::new(&gpu, format, Geometry::default_for(format)).unwrap();
    let a = gpu.upload(&[[0u32; 2]; 4]).unwrap();
    let out = gpu.alloc_poisoned(4).unwrap();
    Some(Fixture {
        gpu,
        tables,
        a,
        out,
    })
}

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
    let Some(mut f) = fixture("gpu_ops_reject_mismatched_lengths", ClnsFormat::CLNS16) else {
        return;
    };
    let b = f.gpu.upload(&[[0u32; 2]; 3]).unwrap();
    assert!(f.tables.add(Method::Tex, &f.a, &b, &mut f.out).is_err());
    assert!(f.tables.mul(&f.a, &b, &mut f.out).is_err());
    assert!(f.tables.mul_finite(&f.a, &b, &mut f.out).is_err());
    let af = f.gpu.upload(&[[0f32; 2]; 4]).unwrap();
    let bf = f.gpu.upload(&[[0f32; 2]; 3]).unwrap();
    let mut outf = f.gpu.alloc_poisoned::<[f32; 2]>(4).unwrap();
    assert!(f
        .tables
        .add_f32(Method::Tex, &af, &bf, &mut outf, false)
        .is_err());
    assert!(f.tables.mul_f32(&af, &bf, &mut outf).is_err());
    let mut d = f.gpu.upload(&[[0u32; 2]; 12]).unwrap();
    assert!(f.tables.fft(Method::Tex, &mut d, 12).is_err());
}

#[test]
fn the_sfu_method_refuses_wide_formats() {
    let Some(mut f) = fixture("the_sfu_method_refuses_wide_formats", ClnsFormat::CLNS32) else {
        return;
    };
    assert!(f.tables.add(Method::Sfu, &f.a, &f.a, &mut f.out).is_err());
    assert!(f.tables.certify_sfu_lattice().is_err());
}
