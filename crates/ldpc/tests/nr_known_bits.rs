//! Filler bits (known zeros, LLR `FILLER_LLR`) stay known in the 8-bit layered decoder however
//! strongly the other bits pull them: their posterior starts far beyond what the check
//! messages can move (`decoder::KNOWN_LLR`), as the float decoders' does.

use sigpu_ldpc::nr::{NrCode, FILLER_LLR};
use sigpu_ldpc::{plan, Algorithm, DecoderConfig, Precision, Schedule};
use sigpu_runtime::Target;

#[test]
fn filler_bits_stay_zero_under_strong_wrong_messages() {
    const { assert!(FILLER_LLR >= sigpu_ldpc::decoder::KNOWN_LLR) };
    // BG2, K_b = 6, Z = 18, K = 10·Z: bits 100 .. 180 are filler.
    let nr = NrCode::parse("nr:k=100,n=300").unwrap();
    let code = nr.decoding_code(&[0]).unwrap();
    let (k, big_k) = (nr.k(), nr.params().k);
    assert!(big_k > k);
    // Every other bit says "1" at 15 LLR units (saturated 8-bit inputs); the punctured first
    // 2·Z bits say nothing.
    let mut llr = vec![-15.0f32; code.n()];
    llr[..2 * nr.z()].fill(0.0);
    llr[k..big_k].fill(FILLER_LLR);
    for (precision, algorithm) in [
        (Precision::Fixed8 { scale: 8.0 }, "oms:0.5"),
        (Precision::Fixed8 { scale: 4.0 }, "nms:0.75"),
        (Precision::Fixed8 { scale: 8.0 }, "minsum"),
        (Precision::Float, "spa"),
    ] {
        let config = DecoderConfig {
            algorithm: Algorithm::parse(algorithm).unwrap(),
            schedule: Schedule::Layered,
            precision,
            iterations: 20,
            early_termination: false,
            threads: 1,
        };
        let mut decoder = plan::decoder(&code, config, &Target::cpu()).unwrap();
        let mut bits = vec![0u8; code.n()];
        decoder
            .decode(sigpu_ldpc::Llrs::F32(&llr), &mut bits)
            .unwrap();
        assert!(
            bits[k..big_k].iter().all(|&b| b == 0),
            "{algorithm} {precision:?}: filler bits {:?}",
            &bits[k..big_k]
        );
    }
}
