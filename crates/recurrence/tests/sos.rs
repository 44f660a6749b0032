//! The fused second-order-section kernel: NVRTC compiles it for every shape the benchmark
//! tries, and the GPU (where there is one) agrees with the CPU emulation of its scheme.

use sigpu_recurrence::gpu::sos_tables::{emulate, sos_coefficients, sosfilt_extended, SosTables};
use sigpu_recurrence::gpu::{sos_kernel_source, GpuSos};
use sigpu_recurrence::testing::BUTTER8_01;
use sigpu_recurrence::{DType, Element, SosConfig};
use sigpu_runtime::cuda::{compile, gpu_for_test, nvrtc_for_test, KernelCache};

fn compiles<T: Element>(sos: &[[f64; 6]], config: SosConfig) {
    let config = config.normalized(T::DTYPE).unwrap();
    let t = SosTables::new(sos_coefficients::<T>(sos).unwrap(), config);
    let src = sos_kernel_source(&t);

    let out = compile(&src, "sm_90", &KernelCache::disabled())
        .unwrap_or_else(|e| panic!("{} {config:?}: {e}", T::DTYPE));
    assert_eq!(out.kernel_names(), ["sos_filter"]);
}

#[test]
fn nvrtc_compiles_the_sos_kernel_for_sm_90() {
    if !nvrtc_for_test("nvrtc_compiles_the_sos_kernel_for_sm_90") {
        return;
    }
    for (threads, vpt) in [(256, 0), (128, 32), (512, 16), (32, 4), (1024, 8)] {
        for force_look_back in [false, true] {
            compiles::<f32>(
                &BUTTER8_01,
                SosConfig {
                    threads,
                    vpt,
                    force_look_back,
                    min_blocks: if threads == 256 { 4 } else { 0 },
                    chunks_per_block: if threads == 128 { 4 } else { 1 },
                    wide: threads == 512,
                },
            );
        }
    }
    compiles::<f64>(&BUTTER8_01, SosConfig::default());
    compiles::<f64>(
        &BUTTER8_01,
        SosConfig {
            threads: 128,
            vpt: 32,
            ..SosConfig::default()
        },
    );
    compiles::<f64>(
        &BUTTER8_01[..1],
        SosConfig {
            threads: 64,
            vpt: 2,
            ..SosConfig::default()
        },
    );
}

#[test]
fn gpu_matches_the_emulation() {
    let Some(gpu) = gpu_for_test("gpu_matches_the_emulation") else {
        return;
    };
    let g = GpuSos::<f32>::new(&gpu, &BUTTER8_01).unwrap();
    let n = 3 * g.config().chunk() + 11;
    let x: Vec<f32> = (0..2 * n)
        .map(|i| ((i * 7919) % 201) as f32 / 100.0 - 1.0)
        .collect();
    let zi = vec![0.25f32; 2 * g.state_len()];
    let (y, zf) = g.apply(&gpu, &x, 2, Some(&zi)).unwrap();
    let (ye, zfe) = emulate(g.tables(), &x, 2, Some(&zi));
    let x64: Vec<f64> = x.iter().map(|&v| v as f64).collect();
    let zi64: Vec<f64> = zi.iter().map(|&v| v as f64).collect();
    let c64: Vec<[f64; 6]> = g.coefficients().iter().map(|r| r.map(f64::from)).collect();
    let (yr, _) = sosfilt_extended(&c64, &x64, 2, Some(&zi64));
    let scale = yr.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    for i in 0..y.len() {
        assert!(
            (y[i] - ye[i]).abs() as f64 <= 1e-5 * scale,
            "[{i}] {} vs {}",
            y[i],
            ye[i]
        );
    }
    for (a, b) in zf.iter().zip(&zfe) {
        assert!(
            (a - b).abs() as f64 <= 1e-5 * scale.max(1.0),
            "zf {zf:?} vs {zfe:?}"
        );
    }
}

#[test]
fn tail_carry_only_where_the_cascade_forgets_its_state() {
    let t = |dtype: DType, sos: &[[f64; 6]]| {
        let config = SosConfig::default().normalized(dtype).unwrap();
        match dtype {
            DType::F32 => SosTables::new(sos_coefficients::<f32>(sos).unwrap(), config).tail,
            _ => SosTables::new(sos_coefficients::<f64>(sos).unwrap(), config).tail,
        }
    };
    // butter(8, 0.1) forgets within 1024 samples to below f32 rounding, not within 512 to f64's.
    assert!(t(DType::F32, &BUTTER8_01));
    assert!(!t(DType::F64, &BUTTER8_01));
    // a pole at 0.997 keeps 5% of its state after 1024 samples
    let slow = [[
        1e-5,
        2e-5,
        1e-5,
        1.0,
        -1.9936440506040927,
        0.993890031869166,
    ]];
    assert!(!t(DType::F32, &slow));
    let forced = SosConfig {
        force_look_back: true,
        ..SosConfig::default()
    };
    let c = sos_coefficients::<f32>(&BUTTER8_01).unwrap();
    assert!(!SosTables::new(c, forced.normalized(DType::F32).unwrap()).tail);
}
