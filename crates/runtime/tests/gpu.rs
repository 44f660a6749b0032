//! Tests that need a GPU. Without one they print SKIP and pass, unless SIGPU_REQUIRE_GPU=1,
//! when they fail; the no-GPU behaviour itself is tested too.

use sigpu_runtime::cuda::{
    checks, copy_bandwidth, gpu_for_test, probe, Coordinates, Error, Filter, Gpu, KernelSource,
    Missing, Texture, TextureDesc,
};

#[test]
fn without_a_gpu_open_is_an_error_naming_what_is_missing() {
    let status = probe();
    if status.available {
        return;
    }
    let reason = status
        .reason
        .expect("an unavailable status carries a reason");
    assert!(!reason.is_empty());
    match Gpu::open(0) {
        Err(Error::Unavailable(u)) => {
            assert_ne!(u.missing, Missing::Nvrtc, "Gpu::open does not need NVRTC");
            assert!(!u.hint().is_empty());
        }
        Err(e) => panic!("expected Unavailable, got {e}"),
        Ok(_) => assert_eq!(
            status.missing,
            Some(Missing::Nvrtc),
            "a GPU opened although probe said {reason}"
        ),
    }
}

#[test]
fn gpu_runtime_checks_pass() {
    let Some(gpu) = gpu_for_test("gpu_runtime_checks_pass") else {
        return;
    };
    for check in checks() {
        let report = (check.run)(&gpu, 42).unwrap_or_else(|e| panic!("{}: {e}", check.name));
        assert!(report.passed(), "{}: {report:?}", check.name);
    }
}

#[test]
fn gpu_rejects_bad_input_without_panicking() {
    let Some(gpu) = gpu_for_test("gpu_rejects_bad_input_without_panicking") else {
        return;
    };
    let desc = TextureDesc {
        filter: Filter::Linear,
        coords: Coordinates::Normalized,
    };
    let err = Texture::new_2d(&gpu, &[1.0f32; 5], 2, 3, desc)
        .err()
        .expect("5 texels are not 2×3");
    assert!(err.to_string().contains("2×3"), "{err}");
    let err = Texture::new_1d(&gpu, &vec![0.0f32; 1 << 28], desc)
        .err()
        .expect("2^28 texels exceed the 1-D limit");
    assert!(err.to_string().contains("limit"), "{err}");
    let src = KernelSource::generated("one.cu", "extern \"C\" __global__ void present(int* x) {}");
    let err = gpu.function(&src, "absent").expect_err("no such kernel");
    assert!(err.to_string().contains("present"), "{err}");
    let err = Gpu::open(1 << 20).err().expect("no such ordinal");
    assert!(
        matches!(&err, Error::Unavailable(u) if u.missing == Missing::Device),
        "{err}"
    );
}

#[test]
fn gpu_copy_bench_times_every_method() {
    let Some(gpu) = gpu_for_test("gpu_copy_bench_times_every_method") else {
        return;
    };
    let bench = copy_bandwidth(&gpu, 64 << 20, 2, 5).unwrap();
    assert_eq!(bench.methods.len(), 3);
    for m in &bench.methods {
        assert!(m.gb_per_s > 0.0 && m.timing.samples_ms.len() == 5, "{m:?}");
        assert!(m.timing.min_ms <= m.timing.median_ms && m.timing.median_ms <= m.timing.max_ms);
    }
}
