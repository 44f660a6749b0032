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

#[test]
fn gpu_views_of_owned_and_foreign_memory_launch_alike() {
    use sigpu_runtime::cuda::{DeviceSlice, DeviceSliceMut};
    use sigpu_runtime::GpuTarget;
    let Some(gpu) = gpu_for_test("gpu_views_of_owned_and_foreign_memory_launch_alike") else {
        return;
    };
    let source = KernelSource::embedded("runtime.cu", include_str!("../kernels/runtime.cu"));
    let kernel = gpu.kernel(&source, "saxpy_f32").unwrap();
    let target = GpuTarget::new(gpu.clone());
    let n = 1000usize;
    let x = gpu.upload(&vec![1.5f32; n]).unwrap();
    let mut y = gpu.upload(&vec![1.0f32; n]).unwrap();
    let (a, n64) = (2.0f32, n as u64);
    // Owned buffers through views.
    {
        let xv = DeviceSlice::of(&x);
        let mut yv = DeviceSliceMut::of(&mut y);
        target
            .launch(&kernel)
            .arg(&a)
            .slice(&xv)
            .slice_mut(&mut yv)
            .arg(&n64)
            .run(grid_1d(n, 256))
            .unwrap();
    }
    // The same memory as another library would hand it over: raw addresses.
    let (xp, yp) = (
        DeviceSlice::of(&x).device_ptr(),
        DeviceSliceMut::of(&mut y).device_ptr(),
    );
    // SAFETY: the addresses are the live buffers above, of n f32 each, on this device.
    let (xv, mut yv) = unsafe {
        (
            DeviceSlice::<f32>::from_raw(xp, n, &gpu),
            DeviceSliceMut::<f32>::from_raw(yp, n, &gpu),
        )
    };
    let half = n64 / 2;
    let mut head = yv.slice_mut(0..n / 2).unwrap();
    target
        .launch(&kernel)
        .arg(&a)
        .slice(&xv)
        .slice_mut(&mut head)
        .arg(&half)
        .run(grid_1d(n / 2, 256))
        .unwrap();
    target.synchronize().unwrap();
    let got = gpu.download(&y).unwrap();
    assert!(got[..n / 2].iter().all(|&v| v == 7.0), "{:?}", &got[..4]);
    assert!(
        got[n / 2..].iter().all(|&v| v == 4.0),
        "{:?}",
        &got[n - 4..]
    );
    assert!(xv.slice(0..n + 1).is_none());
}
