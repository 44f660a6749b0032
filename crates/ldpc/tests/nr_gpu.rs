//! The GPU quasi-cyclic 5G NR decoder against its CPU twin, the quasi-cyclic decoder: every
//! decoded bit, iteration count and validity on noisy code blocks of both base graphs at Z = 2,
//! 15, 208 and 384, high and low rates, every redundancy version, and a mixed batch of 16 codes
//! in one launch and in parts on their own streams, fixed or as the engine splits a full launch
//! by default (SKIP without a GPU; SIGPU_REQUIRE_GPU=1
//! fails then). The tests that need no
//! GPU check what the GPU tests rely on: the specs reach the liftings they name, and the mixed
//! batch's CPU path is the quasi-cyclic decoder's.

use sigpu_ldpc::gpu::nr_checks::{mixed_batch, nr_cpu_twin, nr_noisy_words, MIXED_CODES};
use sigpu_ldpc::gpu::nr_layout::NrKernel;
use sigpu_ldpc::gpu::NrGpuDecoder;
use sigpu_ldpc::nr::{decode_blocks, BaseGraph, CodeBlock, NrCode};
use sigpu_ldpc::{plan, Algorithm, DecoderConfig, Llrs, Precision, Schedule};
use sigpu_runtime::cuda::gpu_for_test;
use sigpu_runtime::{GpuTarget, Target};

/// (k, n, rv, base graph, Z) of the per-code cases.
const CASES: [(usize, usize, u8, u8, usize); 7] = [
    (12, 36, 0, 2, 2),
    (88, 264, 2, 2, 15),
    (8448, 25344, 0, 1, 384),
    (8448, 9126, 0, 1, 384),
    (3840, 19200, 3, 2, 384),
    (2000, 6000, 1, 2, 208),
    (330, 440, 0, 1, 15),
];

fn config(algorithm: &str, iterations: usize, early: bool) -> DecoderConfig {
    DecoderConfig {
        algorithm: Algorithm::parse(algorithm).unwrap(),
        schedule: Schedule::Layered,
        precision: Precision::Fixed8 { scale: 8.0 },
        iterations,
        early_termination: early,
        threads: 0,
    }
}

#[test]
fn the_cases_reach_the_liftings_and_graphs_they_name() {
    for (k, n, _, bg, z) in CASES {
        let nr = NrCode::new(k, n, None).unwrap();
        assert_eq!((nr.graph().number(), nr.z()), (bg, z), "k = {k}, n = {n}");
    }
    let mut zs: Vec<usize> = MIXED_CODES
        .iter()
        .map(|&(k, n, _)| NrCode::new(k, n, None).unwrap().z())
        .collect();
    let graphs: Vec<BaseGraph> = MIXED_CODES
        .iter()
        .map(|&(k, n, _)| NrCode::new(k, n, None).unwrap().graph())
        .collect();
    assert!(graphs.contains(&BaseGraph::Bg1) && graphs.contains(&BaseGraph::Bg2));
    zs.sort();
    zs.dedup();
    assert!(zs.len() >= 8, "{zs:?}");
    assert!(zs[0] >= 16 && *zs.last().unwrap() == 384, "{zs:?}");
}

#[test]
fn the_mixed_batch_cpu_path_equals_the_quasi_cyclic_decoder_word_by_word() {
    let batch = mixed_batch(1, 5, 1.0).unwrap();
    let c = config("oms:0.5", 4, true);
    let blocks: Vec<CodeBlock<'_>> = batch
        .iter()
        .map(|(code, llr)| CodeBlock {
            code,
            llr: Llrs::F32(llr),
        })
        .collect();
    let got = decode_blocks(&blocks, c, &Target::cpu()).unwrap();
    for (b, (code, llr)) in got.iter().zip(&batch) {
        let (bits, r) = nr_cpu_twin(code, c, llr).unwrap();
        assert_eq!(b.bits, bits);
        assert_eq!((b.iterations, b.valid), (r[0].iterations, r[0].valid));
    }
}

#[test]
fn gpu_nr_decoder_equals_its_cpu_twin_bit_for_bit() {
    let Some(gpu) = gpu_for_test("ldpc gpu_nr_decoder_equals_its_cpu_twin_bit_for_bit") else {
        return;
    };
    for (i, (k, n, rv, _, z)) in CASES.into_iter().enumerate() {
        let nr = NrCode::new(k, n, None).unwrap();
        let count = if z >= 208 { 6 } else { 400 };
        for (j, (rule, early)) in [("oms:0.5", true), ("nms:0.75", false), ("minsum", true)]
            .into_iter()
            .enumerate()
        {
            let c = config(rule, 8, early);
            let es = 10.0 * (2.0 * nr.rate()).log10() + 0.4 * j as f64;
            let (code, llr) = nr_noisy_words(&nr, &[rv], es, count, (i * 3 + j) as u64).unwrap();
            let (want, wr) = nr_cpu_twin(&code, c, &llr).unwrap();
            for kernel in [NrKernel::Lanes, NrKernel::Pairs] {
                let mut d = NrGpuDecoder::with_kernel(&gpu, code.clone(), c, kernel).unwrap();
                let mut got = vec![0xAA; llr.len()];
                let r = d.decode_words(Llrs::F32(&llr), &mut got).unwrap();
                let what = format!("{kernel:?}, {} Z = {z} {rule}", nr.name());
                assert!(got == want, "{what}: bits differ");
                assert_eq!(r, wr, "{what}: results differ");
            }
            // And through the front door.
            let mut front =
                plan::decoder(&code, c, &Target::Gpu(GpuTarget::new(gpu.clone()))).unwrap();
            assert!(
                front.describe().contains("quasi-cyclic NR"),
                "{}",
                front.describe()
            );
            let mut again = vec![0; llr.len()];
            let s = front.decode(Llrs::F32(&llr), &mut again).unwrap();
            assert_eq!(again, want);
            assert_eq!(s.valid, wr.iter().filter(|r| r.valid).count());
        }
    }
}

#[test]
fn gpu_mixed_batch_of_16_codes_in_one_launch_equals_the_cpu_path() {
    let Some(gpu) =
        gpu_for_test("ldpc gpu_mixed_batch_of_16_codes_in_one_launch_equals_the_cpu_path")
    else {
        return;
    };
    let batch = mixed_batch(3, 11, 1.0).unwrap();
    let mut blocks = Vec::new();
    for w in 0..3 {
        for (code, llr) in &batch {
            let n = code.n();
            blocks.push(CodeBlock {
                code,
                llr: Llrs::F32(&llr[w * n..(w + 1) * n]),
            });
        }
    }
    for early in [true, false] {
        let c = config("oms:0.5", 10, early);
        let target = Target::Gpu(GpuTarget::new(gpu.clone()));
        let got = decode_blocks(&blocks, c, &target).unwrap();
        let want = decode_blocks(&blocks, c, &Target::cpu()).unwrap();
        assert_eq!(got, want);
    }
}

/// A mixed batch split into parts on their own streams gives every codeword the results of
/// the one-launch path and of the CPU twin, with and without early termination; timing it
/// end to end and device-only runs.
#[test]
fn gpu_mixed_batch_in_parts_on_their_own_streams_equals_one_launch() {
    let Some(gpu) =
        gpu_for_test("ldpc gpu_mixed_batch_in_parts_on_their_own_streams_equals_one_launch")
    else {
        return;
    };
    use sigpu_ldpc::gpu::nr_layout::{NrCodeTable, WordInput};
    use sigpu_ldpc::gpu::NrGpuEngine;
    let batch = mixed_batch(2, 5, 1.0).unwrap();
    let tables: Vec<_> = batch
        .iter()
        .map(|(c, _)| NrCodeTable::new(c).unwrap())
        .collect();
    let mut words = Vec::new();
    for (i, (code, llr)) in batch.iter().enumerate() {
        for w in llr.chunks(code.n()) {
            words.push(WordInput {
                code: i,
                llr: Llrs::F32(w),
            });
        }
    }
    for early in [true, false] {
        let c = config("oms:0.5", 8, early);
        let mut one = NrGpuEngine::new(&gpu, c).unwrap();
        one.set_parts(1).unwrap();
        one.load(&tables, &words).unwrap();
        assert_eq!(one.parts(), 1);
        let want = one.launch().unwrap();
        for parts in [2, 3, 7] {
            let mut split = NrGpuEngine::new(&gpu, c).unwrap();
            split.set_parts(parts).unwrap();
            split.load(&tables, &words).unwrap();
            let got = split.launch().unwrap();
            assert!(got == want, "{parts} parts, early {early}");
            // Again with the same buffers, then timed both ways.
            split.load(&tables, &words).unwrap();
            assert!(split.launch().unwrap() == want, "{parts} parts reloaded");
            if !early {
                split.time(true, 1, 2).unwrap();
                split.time(false, 1, 2).unwrap();
            }
            assert_eq!(split.loaded_size(), one.loaded_size());
        }
        let (mut k, mut at) = (0, 0);
        for (code, llr) in &batch {
            let (bits, results) = nr_cpu_twin(code, c, llr).unwrap();
            let n = code.n();
            for (w, r) in results.iter().enumerate() {
                assert_eq!(&want.0[at..at + n], &bits[w * n..(w + 1) * n]);
                assert_eq!(want.1[k], *r);
                k += 1;
                at += n;
            }
        }
        assert_eq!((k, at), (want.1.len(), want.0.len()));
    }
}

#[test]
fn gpu_engine_splits_a_full_launch_into_parts_by_default_and_equals_one_launch() {
    let Some(gpu) = gpu_for_test(
        "ldpc gpu_engine_splits_a_full_launch_into_parts_by_default_and_equals_one_launch",
    ) else {
        return;
    };
    use sigpu_ldpc::gpu::nr_layout::{NrCodeTable, WordInput};
    use sigpu_ldpc::gpu::{auto_parts, NrGpuEngine};
    // 528 blocks of BG1 Z = 384 (one codeword each): a full launch of the one-code decoder.
    let nr = NrCode::new(8448, 9126, None).unwrap();
    let (code, llr) = nr_noisy_words(&nr, &[0], 2.0, 528, 11).unwrap();
    let tables = [NrCodeTable::new(&code).unwrap()];
    let words: Vec<WordInput<'_>> = llr
        .chunks(code.n())
        .map(|w| WordInput {
            code: 0,
            llr: Llrs::F32(w),
        })
        .collect();
    let c = config("oms:0.5", 5, true);
    let mut one = NrGpuEngine::new(&gpu, c).unwrap();
    one.set_parts(1).unwrap();
    one.load(&tables, &words).unwrap();
    let want = one.launch().unwrap();
    let mut auto = NrGpuEngine::new(&gpu, c).unwrap();
    auto.load(&tables, &words).unwrap();
    let sms = gpu.info().sms as usize;
    assert_eq!(auto.parts(), auto_parts(528, sms));
    if sms <= 264 {
        assert!(auto.parts() > 1, "{} parts on {sms} SMs", auto.parts());
    }
    assert!(auto.launch().unwrap() == want, "{} parts", auto.parts());
    // A slot of 152 blocks stays in one launch on a GPU of 76 SMs or more.
    auto.load(&tables, &words[..152]).unwrap();
    assert_eq!(auto.parts(), auto_parts(152, sms));
    assert!(auto.launch().unwrap() == (want.0[..152 * code.n()].to_vec(), want.1[..152].to_vec()));
}
