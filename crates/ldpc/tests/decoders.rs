//! Every decoder recovers noiseless and low-noise codewords; the 8-bit decoder's instruction
//! sets agree bit for bit; early termination changes nothing once frames decode.

use sigpu_ldpc::channel::{Modulation, Snr};
use sigpu_ldpc::decoder::simd_sets;
use sigpu_ldpc::decoder::{cpu_decoder, Fixed8Decoder};
use sigpu_ldpc::sim::{make_frames, Frames, Link};
use sigpu_ldpc::{Algorithm, Code, Decoder, DecoderConfig, Llrs, Precision, Schedule};
use sigpu_runtime::host::CpuArch;

fn config(algorithm: Algorithm, schedule: Schedule, precision: Precision) -> DecoderConfig {
    DecoderConfig {
        algorithm,
        schedule,
        precision,
        iterations: 30,
        early_termination: false,
        threads: 2,
    }
}

fn all_configs() -> Vec<DecoderConfig> {
    let mut v = Vec::new();
    for schedule in [Schedule::Flooding, Schedule::Layered] {
        v.push(config(Algorithm::SumProduct, schedule, Precision::Float));
        for algorithm in [
            Algorithm::MinSum,
            Algorithm::NormalizedMinSum { alpha: 0.75 },
            Algorithm::OffsetMinSum { beta: 0.5 },
        ] {
            v.push(config(algorithm, schedule, Precision::Float));
            v.push(config(
                algorithm,
                schedule,
                Precision::Fixed8 { scale: 4.0 },
            ));
        }
    }
    v
}

fn link(seed: u64) -> Link {
    Link::qpsk(seed)
}

/// The GPU LDPC decoder paper's decoder (8-bit min-sum, flooding, 30 iterations) on `count` frames of `code` at
/// `es_n0` dB.
fn minsum8_frames(
    code: &str,
    seed: u64,
    es_n0: f64,
    count: usize,
) -> (Code, Frames, DecoderConfig) {
    let code = Code::standard(code).unwrap();
    let frames = make_frames(&code, &link(seed), es_n0, 0, count, 2).unwrap();
    let cfg = config(
        Algorithm::MinSum,
        Schedule::Flooding,
        Precision::Fixed8 { scale: 4.0 },
    );
    (code, frames, cfg)
}

#[test]
fn every_decoder_recovers_noiseless_and_low_noise_frames() {
    let code = Code::standard("dvbt2-short-1/2").unwrap();
    let n = code.n();
    // 40 dB: essentially noiseless; 3 dB Es/N0 QPSK is ~2.5 dB above this code's waterfall.
    for es_n0 in [40.0, 3.0] {
        let frames = make_frames(&code, &link(1), es_n0, 0, 3, 2).unwrap();
        for cfg in all_configs() {
            let mut dec = cpu_decoder(&code, cfg).unwrap();
            let mut bits = vec![9u8; 3 * n];
            let stats = dec.decode(Llrs::F32(&frames.llr), &mut bits).unwrap();
            assert_eq!(stats.valid, 3, "{} at {es_n0} dB", dec.describe());
            for (w, info) in bits.chunks(n).zip(frames.info.chunks(code.k())) {
                assert_eq!(&w[..code.k()], info, "{}", dec.describe());
            }
        }
    }
}

#[test]
fn fixed8_instruction_sets_agree_bit_for_bit() {
    let code = Code::standard("dvbs2-short-3/5").unwrap();
    let n = code.n();
    // Near the waterfall, so some frames fail and messages saturate: a demanding comparison.
    let es = Snr::EbN0(1.6).es_n0_db(Modulation::Qpsk, code.rate());
    let frames = make_frames(&code, &link(2), es, 0, 70, 2).unwrap();
    for cfg in all_configs()
        .into_iter()
        .filter(|c| c.precision != Precision::Float)
    {
        let cfg = DecoderConfig {
            iterations: 12,
            early_termination: true,
            ..cfg
        };
        let mut reference: Option<Vec<u8>> = None;
        for simd in simd_sets(&CpuArch::host()) {
            let mut dec = Fixed8Decoder::new(code.clone(), cfg)
                .unwrap()
                .with_simd(simd)
                .unwrap();
            let mut bits = vec![0u8; 70 * n];
            dec.decode(Llrs::F32(&frames.llr), &mut bits).unwrap();
            match &reference {
                None => reference = Some(bits),
                Some(r) => assert!(r == &bits, "{} differs from the widest set", dec.describe()),
            }
        }
    }
}

#[test]
fn early_termination_keeps_results_and_saves_iterations() {
    let (code, frames, base) = minsum8_frames("dvbt2-short-3/4", 3, 6.0, 64);
    let run = |early| {
        let mut dec = cpu_decoder(
            &code,
            DecoderConfig {
                early_termination: early,
                ..base
            },
        )
        .unwrap();
        let mut bits = vec![0u8; frames.llr.len()];
        let stats = dec.decode(Llrs::F32(&frames.llr), &mut bits).unwrap();
        (bits, stats)
    };
    let (full, full_stats) = run(false);
    let (early, early_stats) = run(true);
    assert_eq!(full_stats.valid, 64);
    assert_eq!(full, early);
    assert!(
        early_stats.iterations < full_stats.iterations / 2,
        "{early_stats:?}"
    );
}

#[test]
fn quantised_input_decodes_like_float_input() {
    let (code, frames, cfg) = minsum8_frames("dvbt2-short-1/2", 4, 2.5, 8);
    let mut dec = cpu_decoder(&code, cfg).unwrap();
    let q: Vec<i8> = frames
        .llr
        .iter()
        .map(|&l| (l * 4.0).round().clamp(-127.0, 127.0) as i8)
        .collect();
    let (mut a, mut b) = (vec![0u8; q.len()], vec![0u8; q.len()]);
    dec.decode(Llrs::F32(&frames.llr), &mut a).unwrap();
    dec.decode(
        Llrs::I8 {
            values: &q,
            scale: 4.0,
        },
        &mut b,
    )
    .unwrap();
    assert_eq!(a, b);
    // Wrong lengths are errors, not panics.
    assert!(dec
        .decode(Llrs::F32(&frames.llr[1..]), &mut a[1..])
        .is_err());
    assert!(dec.decode(Llrs::F32(&frames.llr), &mut a[1..]).is_err());
}

#[test]
fn decoder_parameters_are_checked_alike_on_every_path() {
    // Parameters a rule does not take, and values out of range, refused by the parser...
    for (spec, want) in [
        ("nms:2", "α must be in [0.0625, 1]"),
        ("nms:0", "α must be in [0.0625, 1]"),
        ("nms:-0.5", "α must be in"),
        ("oms:1e30", "β must be in [0, 8]"),
        ("oms:-1", "β must be in"),
        ("minsum:3", "min-sum takes no parameter"),
        ("spa:7", "sum-product takes no parameter"),
        ("nms:x", "not a number"),
        ("nms:nan", "not a number"),
    ] {
        let e = Algorithm::parse(spec).unwrap_err().to_string();
        assert!(e.contains(want), "{spec}: {e}");
    }
    assert_eq!(
        Algorithm::parse("NMS: 0.75").unwrap(),
        Algorithm::NormalizedMinSum { alpha: 0.75 }
    );
    // ... and by every decoder built from a configuration made without the parser (the GPU
    // decoders run the same `DecoderConfig::validate` before touching the device).
    let code = Code::standard("dvbt2-short-1/2").unwrap();
    for algorithm in [
        Algorithm::NormalizedMinSum { alpha: 2.0 },
        Algorithm::NormalizedMinSum { alpha: 0.0 },
        Algorithm::OffsetMinSum { beta: 1e30 },
        Algorithm::OffsetMinSum { beta: f32::NAN },
    ] {
        for precision in [Precision::Float, Precision::Fixed8 { scale: 4.0 }] {
            let c = config(algorithm, Schedule::Flooding, precision);
            let e = cpu_decoder(&code, c).err().expect("refused").to_string();
            assert!(e.contains("must be in"), "{algorithm:?} {precision:?}: {e}");
            assert!(c.validate().is_err());
        }
    }
    // An offset the 8-bit step cannot represent would silently be plain min-sum.
    let c = config(
        Algorithm::OffsetMinSum { beta: 0.1 },
        Schedule::Flooding,
        Precision::Fixed8 { scale: 4.0 },
    );
    let e = cpu_decoder(&code, c).err().expect("refused").to_string();
    assert!(e.contains("half the 8-bit step"), "{e}");
    // An LLR scale that saturates every LLR to its sign (or rounds all to 0) is refused.
    for scale in [1e9, 0.01, 0.0, f32::NAN] {
        let c = config(
            Algorithm::MinSum,
            Schedule::Flooding,
            Precision::Fixed8 { scale },
        );
        let e = cpu_decoder(&code, c).err().expect("refused").to_string();
        assert!(
            e.contains("--scale") && e.contains("[0.25, 32]"),
            "{scale}: {e}"
        );
    }
}
