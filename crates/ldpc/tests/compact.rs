//! The compact layered 8-bit decoder: bit for bit equal to its scalar twin on every
//! instruction set, decodes low-noise frames, and is refused where it does not apply.

use sigpu_ldpc::channel::{Modulation, Quantizer, Snr};
use sigpu_ldpc::decoder::{compact_decode_scalar, cpu_decoder, simd_sets, CompactLayout, Rule8};
use sigpu_ldpc::sim::{make_frames, Link};
use sigpu_ldpc::{
    Algorithm, Code, CompactDecoder, Decoder, DecoderConfig, Llrs, Precision, Schedule,
};
use sigpu_runtime::host::CpuArch;

fn config(algorithm: Algorithm, iterations: usize) -> DecoderConfig {
    DecoderConfig {
        algorithm,
        schedule: Schedule::LayeredCompact,
        precision: Precision::Fixed8 { scale: 4.0 },
        iterations,
        early_termination: false,
        threads: 2,
    }
}

const RULES: [Algorithm; 3] = [
    Algorithm::MinSum,
    Algorithm::NormalizedMinSum { alpha: 0.75 },
    Algorithm::OffsetMinSum { beta: 0.5 },
];

#[test]
fn simd_decoder_equals_its_scalar_twin_bit_for_bit() {
    // A DVB code (renumbered parity bits; check degrees 4–7, each with its own unrolled
    // loop), the same code through a plain row list (identity numbering), and a rate-3/4 code
    // (degrees past 8: the generic loop and two sign bytes per check).
    let dvb = Code::standard("dvbt2-short-1/2").unwrap();
    let rows: Vec<Vec<u32>> = (0..dvb.m()).map(|r| dvb.row(r).to_vec()).collect();
    let plain = Code::from_rows("plain", dvb.n(), dvb.k(), &rows).unwrap();
    let high = Code::standard("dvbt2-short-3/4").unwrap();
    let n = dvb.n();
    let q = Quantizer::new(4.0).unwrap();
    for (code, eb_n0) in [(&dvb, 1.2), (&plain, 1.2), (&high, 2.6)] {
        // Near the waterfall, where frames fail and posteriors saturate: 70 frames = one full
        // group and one partial one.
        let es = Snr::EbN0(eb_n0).es_n0_db(Modulation::Qpsk, code.rate());
        let frames = make_frames(code, &Link::qpsk(7), es, 0, 70, 2).unwrap();
        let quantised: Vec<i8> = frames.llr.iter().map(|&l| q.quantize(l)).collect();
        let layout = CompactLayout::new(code).unwrap();
        for algorithm in RULES {
            for iterations in [1, 6] {
                let rule = Rule8::new(algorithm, 4.0).unwrap();
                let twin: Vec<u8> = quantised
                    .chunks(n)
                    .flat_map(|w| compact_decode_scalar(&layout, rule, w, iterations))
                    .collect();
                let failing = twin.chunks(n).filter(|w| !code.is_codeword(w)).count();
                assert!(failing > 0, "the comparison must see frames still failing");
                for simd in simd_sets(&CpuArch::host()) {
                    let mut dec = CompactDecoder::new(code.clone(), config(algorithm, iterations))
                        .unwrap()
                        .with_simd(simd)
                        .unwrap();
                    let mut bits = vec![9u8; 70 * n];
                    dec.decode(Llrs::F32(&frames.llr), &mut bits).unwrap();
                    let bad = bits.chunks(n).zip(twin.chunks(n)).position(|(a, b)| a != b);
                    assert_eq!(
                        bad,
                        None,
                        "{} on {}: codeword differs from the scalar twin",
                        dec.describe(),
                        code.name()
                    );
                }
            }
        }
    }
}

#[test]
fn decodes_low_noise_frames_and_terminates_early() {
    let code = Code::standard("dvbt2-short-1/2").unwrap();
    let n = code.n();
    let frames = make_frames(&code, &Link::qpsk(1), 3.0, 0, 5, 2).unwrap();
    for algorithm in RULES {
        for early in [false, true] {
            let cfg = DecoderConfig {
                early_termination: early,
                ..config(algorithm, 30)
            };
            let mut dec = cpu_decoder(&code, cfg).unwrap();
            let mut bits = vec![9u8; 5 * n];
            let stats = dec.decode(Llrs::F32(&frames.llr), &mut bits).unwrap();
            assert_eq!(stats.valid, 5, "{}", dec.describe());
            for (w, info) in bits.chunks(n).zip(frames.info.chunks(code.k())) {
                assert_eq!(&w[..code.k()], info, "{}", dec.describe());
                assert!(code.is_codeword(w));
            }
            // The same frames as 8-bit LLRs, at the decoder's scale and at another one.
            for scale in [4.0, 8.0] {
                let q = Quantizer::new(scale).unwrap();
                let values: Vec<i8> = frames.llr.iter().map(|&l| q.quantize(l)).collect();
                let mut again = vec![9u8; 5 * n];
                dec.decode(
                    Llrs::I8 {
                        values: &values,
                        scale,
                    },
                    &mut again,
                )
                .unwrap();
                assert_eq!(
                    again,
                    bits,
                    "{} from 8-bit LLRs at scale {scale}",
                    dec.describe()
                );
            }
            if early {
                assert!(stats.iterations < 5 * 30 / 2, "{stats:?}");
            } else {
                assert_eq!(stats.iterations, 5 * 30);
            }
        }
    }
}

#[test]
fn layered_compact_is_refused_where_it_does_not_apply() {
    let code = Code::standard("dvbt2-short-1/2").unwrap();
    assert_eq!(
        "layered-compact".parse::<Schedule>().unwrap(),
        Schedule::LayeredCompact
    );
    let float = DecoderConfig {
        precision: Precision::Float,
        ..config(Algorithm::MinSum, 10)
    };
    let e = cpu_decoder(&code, float).err().unwrap().to_string();
    assert!(e.contains("--precision 8bit"), "{e}");
    // The parameter check is the shared one.
    let e = cpu_decoder(
        &code,
        config(Algorithm::NormalizedMinSum { alpha: 1.5 }, 10),
    )
    .err()
    .unwrap()
    .to_string();
    assert!(e.contains("α must be in"), "{e}");
    // A check degree past 32 sign bits.
    let wide = Code::from_rows("wide", 40, 1, &{
        let mut rows = vec![(0..40).collect::<Vec<u32>>()];
        rows.extend((1..40).map(|c| vec![c - 1, c]));
        rows.truncate(39);
        rows
    })
    .unwrap();
    let e = cpu_decoder(&wide, config(Algorithm::MinSum, 10))
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("degree 40"), "{e}");
}

#[test]
fn every_instruction_set_agrees_on_normal_codes_at_50_iterations() {
    // The AVX-512 check keeps its own state layout and has arms for check degrees 7, 14,
    // 9–16 and 17–24 (normal 1/2, 3/4, 5/6): 50 iterations in the waterfall, where
    // posteriors saturate and frames still fail, must give what the generic check gives.
    let host = CpuArch::host();
    let sets = simd_sets(&host);
    for (name, eb_n0) in [
        ("dvbt2-normal-1/2", 0.9),
        ("dvbt2-normal-3/4", 2.3),
        ("dvbt2-normal-5/6", 3.0),
    ] {
        let code = Code::standard(name).unwrap();
        let n = code.n();
        let es = Snr::EbN0(eb_n0).es_n0_db(Modulation::Qpsk, code.rate());
        let frames = make_frames(&code, &Link::qpsk(11), es, 0, 64, 2).unwrap();
        let mut first: Option<Vec<u8>> = None;
        for &simd in &sets {
            let config = DecoderConfig {
                precision: Precision::Fixed8 { scale: 4.0 },
                ..config(Algorithm::MinSum, 50)
            };
            let mut dec = CompactDecoder::new(code.clone(), config)
                .unwrap()
                .with_simd(simd)
                .unwrap();
            let mut bits = vec![9u8; 64 * n];
            dec.decode(Llrs::F32(&frames.llr), &mut bits).unwrap();
            match &first {
                None => {
                    let failing = bits.chunks(n).filter(|w| !code.is_codeword(w)).count();
                    assert!(
                        failing > 0,
                        "{name}: the comparison must see frames failing"
                    );
                    first = Some(bits);
                }
                Some(f) => assert!(f == &bits, "{} on {name} differs", dec.describe()),
            }
        }
    }
}
