//! Complex data planned for a GPU: real coefficients run the real kernels on the real and
//! imaginary parts (host data uploaded, filtered, downloaded) and give the CPU's result;
//! complex coefficients run the complex serial engine on the CPU for host data, and its CUDA
//! kernel on device data, bit for bit the CPU's result. Skips without a GPU
//! (`SIGPU_REQUIRE_GPU=1` makes that a failure).

use sigpu_recurrence::complex::{plan_complex, ComplexSpec};
use sigpu_recurrence::FilterOptions;
use sigpu_runtime::cuda::gpu_for_test;
use sigpu_runtime::{GpuTarget, Target};

fn signal(n: usize) -> Vec<f64> {
    (0..2 * n)
        .map(|i| ((7919 * i) % 1013) as f64 / 506.5 - 1.0)
        .collect()
}

#[test]
fn complex_data_runs_on_a_gpu_target_as_on_the_cpu() {
    let Some(gpu) = gpu_for_test("complex_data_runs_on_a_gpu_target_as_on_the_cpu") else {
        return;
    };
    let target = Target::Gpu(GpuTarget::new(gpu));
    // butter(2, 0.1) as sections, and a complex one-pole filter.
    let sos = ComplexSpec::sos(
        &[
            0.020083365564211,
            0.040166731128423,
            0.020083365564211,
            1.0,
            -1.561018075800718,
            0.641351538057563,
        ],
        &[],
    )
    .unwrap();
    let complex = ComplexSpec::ba(&[0.1], &[0.05], &[1.0, -0.8], &[0.0, -0.3]).unwrap();
    let (channels, n) = (4, 1 << 16);
    let x64 = signal(channels * n);
    let x32: Vec<f32> = x64.iter().map(|&v| v as f32).collect();
    for spec in [&sos, &complex] {
        let on = |t: &Target| {
            let f = plan_complex::<f64>(spec, FilterOptions::default(), t).unwrap();
            let mut y = vec![0.0; x64.len()];
            let mut zf = vec![0.0; channels * 2 * f.state_len()];
            f.run(&x64, channels, &mut y, None, Some(&mut zf)).unwrap();
            (y, zf, f.report().coefficients)
        };
        let (gy, gz, kind) = on(&target);
        let (cy, cz, _) = on(&Target::cpu());
        let err = gy
            .iter()
            .zip(&cy)
            .map(|(p, q)| (p - q).abs())
            .fold(0.0, f64::max);
        let zerr = gz
            .iter()
            .zip(&cz)
            .map(|(p, q)| (p - q).abs())
            .fold(0.0, f64::max);
        assert!(err < 1e-12 && zerr < 1e-12, "{kind}: {err} {zerr}");
        // f32 parts (complex64) through the f32 kernels: within the f32 contract's scale.
        let f = plan_complex::<f32>(spec, FilterOptions::default(), &target).unwrap();
        let mut y = vec![0.0f32; x32.len()];
        f.run(&x32, channels, &mut y, None, None).unwrap();
        let err = y
            .iter()
            .zip(&cy)
            .map(|(p, q)| (*p as f64 - q).abs())
            .fold(0.0, f64::max);
        assert!(err < 1e-5, "{kind} f32: {err}");
    }
}

#[test]
fn complex_coefficient_kernel_checks_pass_on_a_gpu() {
    let Some(gpu) = gpu_for_test("complex_coefficient_kernel_checks_pass_on_a_gpu") else {
        return;
    };
    for check in sigpu_recurrence::complex::checks() {
        let report = (check.run)(&gpu, check.seed(1)).unwrap();
        assert!(report.passed(), "{}: {report:?}", check.name);
        println!("{}: {}", check.name, report.note);
    }
}

#[test]
fn device_data_with_complex_coefficients_is_the_cpu_result_bit_for_bit() {
    use sigpu_recurrence::DeviceBatch;
    use sigpu_runtime::cuda::{DeviceSlice, DeviceSliceMut};
    let Some(gpu) =
        gpu_for_test("device_data_with_complex_coefficients_is_the_cpu_result_bit_for_bit")
    else {
        return;
    };
    let target = GpuTarget::new(gpu.clone());
    let complex = ComplexSpec::ba(&[0.1, 0.2], &[0.05, 0.0], &[1.0, -0.8], &[0.0, -0.3]).unwrap();
    let (channels, n) = (3, 1 << 15);
    let x = signal(channels * n);
    let zi: Vec<f64> = (0..2 * channels).map(|i| i as f64 * 0.25 - 0.5).collect();
    let cpu = plan_complex::<f64>(&complex, FilterOptions::default(), &Target::cpu()).unwrap();
    let mut want = vec![0.0; x.len()];
    let mut want_zf = vec![0.0; zi.len()];
    cpu.run(&x, channels, &mut want, Some(&zi), Some(&mut want_zf))
        .unwrap();
    let f = plan_complex::<f64>(
        &complex,
        FilterOptions::default(),
        &Target::Gpu(target.clone()),
    )
    .unwrap();
    assert_eq!(f.report(), cpu.report(), "the same engine, the same bound");
    let stream = target.stream();
    let dx = stream.clone_htod(&x).unwrap();
    let dzi = stream.clone_htod(&zi).unwrap();
    let mut dy = gpu.alloc_poisoned::<f64>(x.len()).unwrap();
    let mut dzf = gpu.alloc_poisoned::<f64>(zi.len()).unwrap();
    f.run_device(DeviceBatch {
        x: DeviceSlice::of(&dx),
        channels,
        y: DeviceSliceMut::of(&mut dy),
        zi: Some(DeviceSlice::of(&dzi)),
        zf: Some(DeviceSliceMut::of(&mut dzf)),
    })
    .unwrap();
    let (y, zf) = (
        stream.clone_dtoh(&dy).unwrap(),
        stream.clone_dtoh(&dzf).unwrap(),
    );
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert!(bits(&y) == bits(&want), "y differs from the CPU engine");
    assert_eq!(bits(&zf), bits(&want_zf));
    // A plan for the CPU, and real coefficients, refuse device data with the way out.
    let real = ComplexSpec::ba(&[0.5], &[], &[1.0, -0.5], &[]).unwrap();
    let parts = plan_complex::<f64>(&real, FilterOptions::default(), &Target::Gpu(target)).unwrap();
    for (plan, says) in [(&cpu, "planned for the CPU"), (&parts, "real array")] {
        let err = plan
            .run_device(DeviceBatch {
                x: DeviceSlice::of(&dx),
                channels,
                y: DeviceSliceMut::of(&mut dy),
                zi: None,
                zf: None,
            })
            .unwrap_err();
        assert!(err.to_string().contains(says), "{err}");
    }
}
