//! The GPU frame chain against the CPU (SKIP without a GPU; SIGPU_REQUIRE_GPU=1 fails then):
//! LLRs bit for bit over many frames, and a small sweep's counts equal on the CPU, on the GPU
//! with frames made there, and on the GPU with frames made on the host.

use sigpu_ldpc::channel::{Demapper, Modulation};
use sigpu_ldpc::gpu::GpuFrameChain;
use sigpu_ldpc::interleave::Interleaving;
use sigpu_ldpc::sim::sweep::{self, SnrAxis, SweepSpec};
use sigpu_ldpc::sim::{make_planned_frames, FramePlan, Link};
use sigpu_ldpc::{Algorithm, Code, DecoderConfig, Precision, Schedule};
use sigpu_runtime::cuda::gpu_for_test;

#[test]
fn gpu_frames_equal_cpu_frames_bit_for_bit() {
    let Some(gpu) = gpu_for_test("ldpc gpu_frames_equal_cpu_frames_bit_for_bit") else {
        return;
    };
    for (name, modulation) in [
        ("dvbt2-normal-1/2", Modulation::Qpsk),
        ("dvbt2-normal-1/2", Modulation::Qam16),
        ("dvbt2-short-3/4", Modulation::Qam16),
        ("dvbt2-short-1/2", Modulation::Qam256),
    ] {
        let code = Code::standard(name).unwrap();
        let mut chain = GpuFrameChain::new(&gpu, &code).unwrap();
        for (demapper, es) in [(Demapper::Exact, 1.0), (Demapper::MaxLog, 9.5)] {
            let link = Link {
                modulation,
                demapper,
                interleaving: Interleaving::default_for(&code),
                seed: 77,
            };
            let plan = FramePlan::new(&code, &link, es).unwrap();
            // 1024 frames in 4 launches, from a frame index past 2³².
            for first in [0u64, 256, 5 << 32, 7 << 40] {
                let want = make_planned_frames(&plan, first, 256, 2);
                chain.make(&plan, first, 256).unwrap();
                let got = chain.llr(256).unwrap();
                let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                let same = bits(&got) == bits(&want.llr);
                assert!(same, "{name} {modulation:?} {demapper:?} from {first}");
                assert_eq!(chain.info_bits(256).unwrap(), want.info);
            }
        }
    }
}

#[test]
fn a_sweep_counts_alike_on_cpu_and_gpu() {
    let Some(gpu) = gpu_for_test("ldpc a_sweep_counts_alike_on_cpu_and_gpu") else {
        return;
    };
    let code = Code::standard("dvbt2-short-1/2").unwrap();
    let config = DecoderConfig {
        algorithm: Algorithm::MinSum,
        schedule: Schedule::Flooding,
        precision: Precision::Fixed8 { scale: 4.0 },
        iterations: 20,
        early_termination: false,
        threads: 0,
    };
    for (modulation, points) in [
        (Modulation::Qpsk, vec![1.0, 1.5, 2.0]),
        (Modulation::Qam16, vec![2.0, 2.5, 3.0]),
    ] {
        let link = Link {
            modulation,
            demapper: Demapper::Exact,
            interleaving: Interleaving::default_for(&code),
            seed: 5,
        };
        let mut spec = SweepSpec::new(link, SnrAxis::EbN0, points, config);
        spec.min_errors = 30;
        spec.max_frames = 1000;
        spec.batch = Some(100);
        let on_gpu = [sigpu_ldpc::plan::target(Some(gpu.clone()))];
        let cpu = sweep::run(&code, &[], &spec, &mut |_| {}).unwrap();
        let device = sweep::run(&code, &on_gpu, &spec, &mut |_| {}).unwrap();
        spec.device_frames = false;
        let host = sweep::run(&code, &on_gpu, &spec, &mut |_| {}).unwrap();
        for ((c, d), h) in cpu.points.iter().zip(&device.points).zip(&host.points) {
            println!(
                "{modulation:?} Eb/N0 {}: cpu {} / {} frames, gpu {:.0} frames/s (device frames) vs {:.0} (host frames)",
                c.eb_n0_db, c.frame_errors, c.frames, d.frames_per_s, h.frames_per_s
            );
            assert_eq!(c.untimed(), d.untimed(), "{modulation:?}: device frames");
            assert_eq!(c.untimed(), h.untimed(), "{modulation:?}: host frames");
        }
        assert!(cpu.points.iter().any(|p| p.frame_errors > 0));
    }
}
