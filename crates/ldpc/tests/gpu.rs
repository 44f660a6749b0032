//! The GPU decoder against its CPU twin (SKIP without a GPU; SIGPU_REQUIRE_GPU=1 fails then).

use sigpu_runtime::cuda::gpu_for_test;

#[test]
fn gpu_decoder_matches_cpu_twin_bit_for_bit() {
    let Some(gpu) = gpu_for_test("ldpc gpu_decoder_matches_cpu_twin_bit_for_bit") else {
        return;
    };
    for seed in [1, 2, 3] {
        for check in sigpu_ldpc::gpu::checks() {
            let report = (check.run)(&gpu, check.seed(seed)).unwrap();
            println!(
                "{} seed {seed}: {} mismatches of {}; {}",
                check.name, report.mismatches, report.elements, report.note
            );
            assert!(report.passed(), "{}: {report:?}", check.name);
        }
    }
}

#[test]
fn gpu_decoder_rejects_what_it_cannot_run() {
    let Some(gpu) = gpu_for_test("ldpc gpu_decoder_rejects_what_it_cannot_run") else {
        return;
    };
    use sigpu_ldpc::{Algorithm, Code, DecoderConfig, Precision, Schedule};
    let code = Code::standard("dvbt2-short-1/2").unwrap();
    let mut config = DecoderConfig {
        algorithm: Algorithm::SumProduct,
        schedule: Schedule::Flooding,
        precision: Precision::Float,
        iterations: 10,
        early_termination: false,
        threads: 0,
    };
    assert!(sigpu_ldpc::gpu::GpuDecoder::new(&gpu, code.clone(), config).is_err());
    config.algorithm = Algorithm::MinSum;
    config.precision = Precision::Fixed8 { scale: 4.0 };
    config.schedule = Schedule::Layered;
    assert!(sigpu_ldpc::gpu::GpuDecoder::new(&gpu, code, config).is_err());
}
