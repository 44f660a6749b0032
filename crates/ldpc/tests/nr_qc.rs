//! The quasi-cyclic 8-bit layered decoder against the 8-bit layered decoder it re-implements:
//! on lifted NR codes of both base graphs and small and large Z, with every check-node rule,
//! with and without early termination, every instruction set gives the same decoded bits,
//! the same iteration count for every codeword and the same valid count.

use sigpu_ldpc::decoder::{simd_sets, Fixed8Decoder, QcDecoder};
use sigpu_ldpc::nr::lifted::lifted_rows;
use sigpu_ldpc::nr::BaseGraph;
use sigpu_ldpc::sim::{make_frames, Link};
use sigpu_ldpc::{plan, Algorithm, Code, Decoder, DecoderConfig, Llrs, Precision, Schedule};
use sigpu_runtime::host::CpuArch;
use sigpu_runtime::Target;

fn config(rule: &str, scale: f32, iterations: usize, early: bool) -> DecoderConfig {
    DecoderConfig {
        algorithm: Algorithm::parse(rule).unwrap(),
        schedule: Schedule::Layered,
        precision: Precision::Fixed8 { scale },
        iterations,
        early_termination: early,
        threads: 1,
    }
}

/// Noisy frames of `code` at a few Eb/N0 (some decode, some do not), the first 2 Z bits
/// punctured (LLR 0) as NR sends them.
fn frames(code: &Code, z: usize) -> Vec<f32> {
    let mut llr = Vec::new();
    for (i, eb_n0) in [-1.0, 1.0, 2.5, 6.0].into_iter().enumerate() {
        let es_n0 = eb_n0 + 10.0 * (2.0 * code.rate()).log10();
        let f = make_frames(code, &Link::qpsk(7), es_n0, 3 * i as u64, 2, 1).unwrap();
        llr.extend(f.llr);
    }
    for word in llr.chunks_mut(code.n()) {
        word[..2 * z].fill(0.0);
    }
    llr
}

/// (bits, iterations of each codeword, valid) of the 8-bit layered decoder, one codeword per
/// call so that each codeword's own iteration count is seen.
fn reference(code: &Code, c: DecoderConfig, llr: &[f32]) -> (Vec<u8>, Vec<usize>, usize) {
    let mut d = Fixed8Decoder::new(code.clone(), c).unwrap();
    let mut bits = vec![0u8; llr.len()];
    let mut its = Vec::new();
    let mut valid = 0;
    for (l, b) in llr.chunks(code.n()).zip(bits.chunks_mut(code.n())) {
        let s = d.decode(Llrs::F32(l), b).unwrap();
        its.push(s.iterations);
        valid += s.valid;
    }
    (bits, its, valid)
}

#[test]
fn qc_decoder_equals_the_8bit_layered_decoder_bit_for_bit() {
    // (graph, Z, block rows): tiny and odd liftings, a partial last chunk (Z = 208), and the
    // largest Z cut as a high-rate block is.
    let cases = [
        (BaseGraph::Bg1, 2, 46),
        (BaseGraph::Bg2, 15, 42),
        (BaseGraph::Bg1, 15, 10),
        (BaseGraph::Bg2, 208, 6),
        (BaseGraph::Bg1, 384, 4),
        (BaseGraph::Bg2, 384, 5),
    ];
    let configs = [
        config("oms:0.5", 8.0, 6, true),
        config("nms:0.75", 8.0, 5, false),
        config("minsum", 4.0, 4, true),
    ];
    let arch = CpuArch::host();
    for (graph, z, rows) in cases {
        let code = lifted_rows(graph, z, rows).unwrap();
        let llr = frames(&code, z);
        for c in configs {
            let (want, its, valid) = reference(&code, c, &llr);
            for isa in simd_sets(&arch) {
                let mut d = QcDecoder::new(code.clone(), c).unwrap().with_simd(isa).unwrap();
                let mut bits = vec![0u8; llr.len()];
                let what = format!("{} {} on {}", code.name(), c.describe(), isa.name());
                // Each codeword alone, then all at once (threads over codewords).
                for (w, l) in llr.chunks(code.n()).enumerate() {
                    let s = d
                        .decode(Llrs::F32(l), &mut bits[w * code.n()..(w + 1) * code.n()])
                        .unwrap();
                    assert_eq!(s.iterations, its[w], "{what}: codeword {w}");
                }
                assert!(bits == want, "{what}: decoded bits differ");
                let mut all = vec![0u8; llr.len()];
                let s = d.decode(Llrs::F32(&llr), &mut all).unwrap();
                assert!(all == want, "{what}: decoded bits differ in one call");
                assert_eq!(s.iterations, its.iter().sum::<usize>(), "{what}");
                assert_eq!(s.valid, valid, "{what}");
            }
        }
        // The frames span decoding and failing ones, or the comparison proves little.
        let (_, _, valid) = reference(&code, configs[0], &llr);
        assert!(valid > 0 && valid < llr.len() / code.n(), "{}: {valid} valid", code.name());
    }
}

#[test]
fn the_planner_picks_the_qc_decoder_for_nr_codes_on_the_8bit_layered_schedule() {
    let code = lifted_rows(BaseGraph::Bg2, 15, 4).unwrap();
    let d = plan::decoder(&code, config("oms:0.5", 8.0, 5, true), &Target::cpu()).unwrap();
    assert!(d.describe().contains("quasi-cyclic"), "{}", d.describe());
    // Flooding, compact and DVB codes keep their decoders.
    let flooding = DecoderConfig {
        schedule: Schedule::Flooding,
        ..config("oms:0.5", 8.0, 5, true)
    };
    let d = plan::decoder(&code, flooding, &Target::cpu()).unwrap();
    assert!(!d.describe().contains("quasi-cyclic"), "{}", d.describe());
    let dvb = Code::standard("dvbt2-short-1/2").unwrap();
    let d = plan::decoder(&dvb, config("oms:0.5", 8.0, 5, true), &Target::cpu()).unwrap();
    assert!(!d.describe().contains("quasi-cyclic"), "{}", d.describe());
    // A code that is not a lifted NR code is refused by the decoder itself.
    assert!(QcDecoder::new(dvb, config("oms:0.5", 8.0, 5, true)).is_err());
}
