//! Complex data planned for a GPU: real coefficients run the real kernels on the real and
//! imaginary parts (host data uploaded, filtered, downloaded) and give the CPU's result;
//! complex coefficients run the complex serial engine on the CPU. Skips without a GPU
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
