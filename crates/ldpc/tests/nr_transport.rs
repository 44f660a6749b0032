//! 5G NR transport blocks: segmentation at the K = 3824 / 3840 / 8448 boundaries, filler bits,
//! CRCs per code block and per transport block, and round trips through rate matching, bit
//! interleaving, HARQ combining and decoding.

use rand::{Rng, SeedableRng};
use sigpu_ldpc::nr::{BaseGraph, Crc, LiftedEncoder, TransportBlock};
use sigpu_ldpc::{plan, DecoderConfig};
use sigpu_runtime::Target;

fn shape(tb: &TransportBlock) -> (Crc, usize, usize, usize, usize) {
    let p = tb.params();
    (tb.tb_crc(), tb.blocks(), p.k_prime, p.z, p.k)
}

#[test]
fn segmentation_at_the_boundaries() {
    let bg1 = Some(BaseGraph::Bg1);
    let bg2 = Some(BaseGraph::Bg2);
    // A = 3824: CRC16, B = 3840 = BG2's K_cb: one block, no filler.
    let tb = TransportBlock::new(3824, 7648, 2, None).unwrap();
    assert_eq!(tb.params().graph, BaseGraph::Bg2);
    assert_eq!(shape(&tb), (Crc::Crc16, 1, 3840, 384, 3840));
    // The same on BG1: 22·Z ≥ 3840 gives Z = 176, 32 filler bits.
    let tb = TransportBlock::new(3824, 4100, 2, bg1).unwrap();
    assert_eq!(shape(&tb), (Crc::Crc16, 1, 3840, 176, 3872));
    // A = 3825: CRC24A.
    let tb = TransportBlock::new(3825, 4200, 2, None).unwrap();
    assert_eq!(tb.params().graph, BaseGraph::Bg1);
    assert_eq!(shape(&tb), (Crc::Crc24A, 1, 3849, 176, 3872));
    // A = 8424: B = 8448 = BG1's K_cb, one block.
    let tb = TransportBlock::new(8424, 9000, 2, None).unwrap();
    assert_eq!(shape(&tb), (Crc::Crc24A, 1, 8448, 384, 8448));
    // A = 8456: B = 8480, two blocks of (8480 + 48) / 2 = 4264 bits, Z = 208, 312 filler bits.
    let tb = TransportBlock::new(8456, 12000, 4, None).unwrap();
    assert_eq!(shape(&tb), (Crc::Crc24A, 2, 4264, 208, 4576));
    // BG2 past 3840: A = 3848, B = 3872, two blocks of 1960, K_b = 10, Z = 208.
    let tb = TransportBlock::new(3848, 20000, 2, bg2).unwrap();
    assert_eq!(shape(&tb), (Crc::Crc24A, 2, 1960, 208, 2080));
    // E_r: G / Qm = 6001 symbols over two blocks, the second one symbol longer.
    let tb = TransportBlock::new(8456, 12002, 2, None).unwrap();
    assert_eq!(tb.block_lengths(), [6000, 6002]);
}

#[test]
fn sizes_that_do_not_split_evenly_are_refused_with_neighbours() {
    let e = TransportBlock::new(8425, 20000, 2, None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("A = 8425") && e.contains("nearest sizes"), "{e}");
    let e = TransportBlock::new(1000, 1001, 2, None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("multiple"), "{e}");
    let e = TransportBlock::new(1000, 1000, 2, None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("larger G"), "{e}");
}

fn noiseless(bits: &[u8]) -> Vec<f32> {
    bits.iter()
        .map(|&b| if b == 0 { 5.0 } else { -5.0 })
        .collect()
}

#[test]
fn transport_blocks_round_trip() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
    let config = DecoderConfig {
        early_termination: true,
        ..DecoderConfig::default()
    };
    for (a, g, qm) in [
        (8456usize, 12000usize, 4usize),
        (3824, 7648, 2),
        (200, 1200, 6),
        (20496, 40000, 8),
    ] {
        let tb = TransportBlock::new(a, g, qm, None).unwrap();
        let bits: Vec<u8> = (0..a).map(|_| rng.random_range(0..2)).collect();
        let mut dec = plan::decoder(tb.code(), config, &Target::cpu()).unwrap();
        for rvs in [vec![0u8], vec![0, 2, 3, 1]] {
            let rx: Vec<Vec<f32>> = rvs
                .iter()
                .map(|&rv| noiseless(&tb.encode(&bits, rv).unwrap()))
                .collect();
            let refs: Vec<&[f32]> = rx.iter().map(Vec::as_slice).collect();
            let out = tb.decode(&refs, &rvs, dec.as_mut()).unwrap();
            assert!(
                out.tb_ok && out.blocks_ok.iter().all(|&b| b),
                "A = {a} rvs {rvs:?}"
            );
            assert_eq!(out.bits, bits, "A = {a}");
        }
    }
}

#[test]
fn crcs_catch_a_wrong_code_block() {
    let tb = TransportBlock::new(8456, 12000, 4, None).unwrap();
    let bits: Vec<u8> = (0..8456).map(|i| (i % 3 == 0) as u8).collect();
    let blocks = tb.segment(&bits).unwrap();
    assert_eq!(blocks.len(), 2);
    // Each block: 4240 data bits, its CRC24B, 312 filler zeros.
    assert!(blocks
        .iter()
        .all(|b| Crc::Crc24B.check(&b[..4264]) && b[4264..].iter().all(|&x| x == 0)));
    let enc = LiftedEncoder::new(tb.params().graph, tb.params().z).unwrap();
    let n = tb.code().n();
    let mut hard = vec![0u8; 2 * n];
    for (b, w) in blocks.iter().zip(hard.chunks_exact_mut(n)) {
        enc.encode(b, w).unwrap();
    }
    let good = tb.desegment(&hard);
    assert!(good.tb_ok && good.blocks_ok == [true, true] && good.bits == bits);
    // A valid codeword with one data bit changed: block 1's CRC24B and the TB CRC fail.
    let mut other = blocks[1].clone();
    other[100] ^= 1;
    enc.encode(&other, &mut hard[n..]).unwrap();
    let bad = tb.desegment(&hard);
    assert_eq!((bad.tb_ok, bad.blocks_ok), (false, vec![true, false]));
}

#[test]
fn bad_transport_input_is_named() {
    let tb = TransportBlock::new(1000, 3000, 2, None).unwrap();
    let e = tb.encode(&[0u8; 999], 0).unwrap_err().to_string();
    assert!(e.contains("A = 1000"), "{e}");
    let mut dec = plan::decoder(tb.code(), DecoderConfig::default(), &Target::cpu()).unwrap();
    let e = tb
        .decode(&[&[0.0; 2998]], &[0], dec.as_mut())
        .unwrap_err()
        .to_string();
    assert!(e.contains("G = 3000"), "{e}");
    let e = tb.encode(&[0u8; 1000], 5).unwrap_err().to_string();
    assert!(e.contains("rv is 0, 1, 2 or 3"), "{e}");
}
