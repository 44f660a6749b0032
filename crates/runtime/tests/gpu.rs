//! Tests that need a GPU. Without one they print SKIP and pass, unless SIGPU_REQUIRE_GPU=1,
//! when they fail; the no-GPU behaviour itself is tested too.

use sigpu_runtime::cuda::{
    checks, copy_bandwidth, gpu_for_test, grid_1d, probe, Coordinates, Error, Filter, Gpu,
    KernelSource, Missing, Texture, TextureDesc,
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
    let err = gpu.kernel(&src, "absent").expect_err("no such kernel");
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

#[test]
fn launch_checks_arguments_against_the_kernels_parameters() {
    let Some(gpu) = gpu_for_test("launch_checks_arguments_against_the_kernels_parameters") else {
        return;
    };
    let src = KernelSource::generated(
        "axpy.cu",
        "extern \"C\" __global__ void axpy(float a, const float* x, float* y, unsigned long long n) {\n\
         unsigned long long i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] += a * x[i]; }",
    );
    let k = gpu.kernel(&src, "axpy").unwrap();
    assert_eq!(
        k.param_sizes(),
        Some(&[4, 8, 8, 8][..]),
        "the driver reports sizes"
    );
    let x = gpu.upload(&[1.0f32; 64]).unwrap();
    let mut y = gpu.upload(&[2.0f32; 64]).unwrap();
    let (a, n) = (3.0f32, 64u64);
    let cfg = grid_1d(64, 64);
    gpu.launch(&k)
        .arg(&a)
        .buf(&x)
        .buf_mut(&mut y)
        .arg(&n)
        .run(cfg)
        .unwrap();
    assert_eq!(gpu.download(&y).unwrap(), vec![5.0f32; 64]);
    // A 4-byte count where the kernel takes 8 bytes, and a missing argument: refused before
    // the launch, naming the kernel.
    let n32 = 64u32;
    let e = gpu
        .launch(&k)
        .arg(&a)
        .buf(&x)
        .buf_mut(&mut y)
        .arg(&n32)
        .run(cfg)
        .unwrap_err();
    assert!(matches!(e, Error::Launch { .. }), "{e}");
    assert!(
        e.to_string().contains("axpy") && e.to_string().contains("parameter 3"),
        "{e}"
    );
    let e = gpu
        .launch(&k)
        .arg(&a)
        .buf(&x)
        .buf_mut(&mut y)
        .run(cfg)
        .unwrap_err();
    assert!(e.to_string().contains("4 parameters, 3 arguments"), "{e}");
    assert_eq!(
        gpu.download(&y).unwrap(),
        vec![5.0f32; 64],
        "refused launches never ran"
    );
    // The SM clock is measured, not read from the attributes.
    let mhz = sigpu_runtime::cuda::sm_clock_mhz(&gpu).unwrap();
    assert!((500.0..4000.0).contains(&mhz), "{mhz} MHz");
}
