//! 5G NR rate matching and bit interleaving against this file's own reading of TS 38.212
//! §5.3.2 (the buffer d with its NULL filler bits), §5.4.2.1 (Table 5.4.2.1-2's k0 and the
//! bit-selection loop) and §5.4.2.2; noiseless decoding through de-rate-matching; HARQ
//! combining; and the errors bad input gets.

use rand::{Rng, SeedableRng};
use sigpu_ldpc::nr::{deinterleave, interleave, BaseGraph, NrCode};
use sigpu_ldpc::{plan, Algorithm, DecoderConfig, Llrs, Precision, Schedule};
use sigpu_runtime::Target;

/// The standard's steps, written out independently of the library: returns f (E bits).
fn reference(code: &NrCode, word: &[u8], rv: u8, n_cb: usize, qm: usize) -> Vec<u8> {
    let p = code.params();
    let (z, k_prime, k) = (p.z, p.k_prime, p.k);
    let bg1 = code.graph() == BaseGraph::Bg1;
    let n = if bg1 { 66 * z } else { 50 * z };
    // §5.3.2: d_{i − 2Z} = c_i for i = 2Z … K − 1 (<NULL> for filler bits), then the parity.
    let d: Vec<Option<u8>> = (2 * z..2 * z + n)
        .map(|i| {
            if (k_prime..k).contains(&i) {
                None
            } else {
                Some(word[i])
            }
        })
        .collect();
    // Table 5.4.2.1-2, evaluated in floating point with floor.
    let frac = match (rv, bg1) {
        (0, _) => 0.0,
        (1, true) => 17.0 / 66.0,
        (2, true) => 33.0 / 66.0,
        (3, true) => 56.0 / 66.0,
        (1, false) => 13.0 / 50.0,
        (2, false) => 25.0 / 50.0,
        (3, false) => 43.0 / 50.0,
        _ => unreachable!(),
    };
    let k0 = (frac * n_cb as f64 / z as f64 + 1e-9).floor() as usize * z;
    // §5.4.2.1: k = 0, j = 0; while k < E { if d[(k0 + j) mod Ncb] ≠ NULL { e_k = …; k++ }; j++ }
    let e_len = code.n();
    let mut e = Vec::with_capacity(e_len);
    let mut j = 0;
    while e.len() < e_len {
        if let Some(b) = d[(k0 + j) % n_cb] {
            e.push(b);
        }
        j += 1;
    }
    // §5.4.2.2: for j < E/Qm, for i < Qm: f_{i + j·Qm} = e_{i·E/Qm + j}.
    let mut f = vec![0u8; e_len];
    for j in 0..e_len / qm {
        for i in 0..qm {
            f[i + j * qm] = e[i * (e_len / qm) + j];
        }
    }
    f
}

fn random_bits(rng: &mut impl Rng, n: usize) -> Vec<u8> {
    (0..n).map(|_| rng.random_range(0..2u8)).collect()
}

#[test]
fn encoder_and_rate_matching_follow_the_standard() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
    // (k, n, bg): both graphs, every BG2 K_b, filler bits, repetition (rate < 1/5), rate 0.95.
    let cases: &[(usize, usize, Option<u32>)] = &[
        (12, 60, None),
        (40, 400, None),
        (193, 240, None),
        (561, 1200, None),
        (641, 3200, None),
        (1000, 3000, None),
        (1000, 1056, Some(1)),
        (3824, 4800, Some(2)),
        (3840, 11520, None),
        (8448, 9126 - 9126 % 8 + 8, None),
        (8448, 25344, None),
        (500, 12000, Some(2)),
    ];
    for &(k, n, bg) in cases {
        let code = NrCode::new(k, n, bg.map(|b| BaseGraph::from_number(b).unwrap())).unwrap();
        let bits = random_bits(&mut rng, k);
        let word = code.encode_full(&bits).unwrap();
        assert!(code.code().is_codeword(&word), "{}", code.name());
        assert!(
            word[k..code.params().k].iter().all(|&b| b == 0),
            "filler bits are 0"
        );
        let n_full = code.params().n();
        for rv in 0..4 {
            let e = code.encode(&bits, rv).unwrap();
            for qm in [1usize, 2, 4, 6, 8] {
                if n % qm != 0 {
                    continue;
                }
                let mut f = vec![0u8; n];
                interleave(&e, qm, &mut f).unwrap();
                assert_eq!(
                    f,
                    reference(&code, &word, rv, n_full, qm),
                    "{} rv {rv} Qm {qm}",
                    code.name()
                );
                let mut back = vec![0u8; n];
                deinterleave(&f, qm, &mut back).unwrap();
                assert_eq!(back, e);
            }
        }
        // Limited buffer: N_cb below N.
        let n_cb = code.params().k + (n_full - code.params().k) / 2;
        let limited = code.clone().with_buffer(n_cb).unwrap();
        for rv in 0..4 {
            let e = limited.encode(&bits, rv).unwrap();
            assert_eq!(
                e,
                reference(&code, &word, rv, n_cb, 1),
                "{} N_cb {n_cb} rv {rv}",
                code.name()
            );
        }
    }
}

#[test]
fn filler_and_punctured_bits_are_never_sent() {
    let code = NrCode::new(1000, 20000, Some(BaseGraph::Bg2)).unwrap();
    let (z, kp, k) = (code.z(), code.params().k_prime, code.params().k);
    for rv in 0..4 {
        let pos = code.rate_match().positions(rv).unwrap();
        assert_eq!(pos.len(), 20000);
        assert!(pos
            .iter()
            .all(|&p| p as usize >= 2 * z && !(kp..k).contains(&(p as usize))));
    }
}

fn noiseless(sent: &[u8]) -> Vec<f32> {
    sent.iter()
        .map(|&b| if b == 0 { 6.0 } else { -6.0 })
        .collect()
}

#[test]
fn noiseless_words_decode_through_de_rate_matching() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    for (k, n) in [(100, 2000), (1000, 1200), (3000, 3200), (8448, 9000)] {
        let code = NrCode::new(k, n, None).unwrap();
        let bits = random_bits(&mut rng, k);
        let word = code.encode_full(&bits).unwrap();
        for rvs in [vec![0u8], vec![0, 2], vec![3, 1]] {
            let rx: Vec<Vec<f32>> = rvs
                .iter()
                .map(|&rv| noiseless(&code.encode(&bits, rv).unwrap()))
                .collect();
            let refs: Vec<&[f32]> = rx.iter().map(Vec::as_slice).collect();
            let full = code.llr_full(&refs, &rvs).unwrap();
            let config = DecoderConfig {
                early_termination: true,
                ..DecoderConfig::default()
            };
            let mut dec = plan::decoder(code.code(), config, &Target::cpu()).unwrap();
            let mut out = vec![0u8; full.len()];
            let stats = dec.decode(Llrs::F32(&full), &mut out).unwrap();
            assert_eq!(stats.valid, 1, "{} rvs {rvs:?}", code.name());
            assert_eq!(out, word, "{} rvs {rvs:?}", code.name());
        }
    }
}

fn awgn(rng: &mut impl Rng, sent: &[u8], es_n0_db: f64) -> Vec<f32> {
    let sigma2 = 1.0 / (2.0 * 10f64.powf(es_n0_db / 10.0));
    sent.iter()
        .map(|&b| {
            let (u1, u2): (f64, f64) = (rng.random_range(f64::MIN_POSITIVE..1.0), rng.random());
            let noise =
                (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos() * sigma2.sqrt();
            let y = 1.0 - 2.0 * f64::from(b) + noise;
            (2.0 * y / sigma2) as f32
        })
        .collect()
}

#[test]
fn harq_combining_decodes_where_one_transmission_does_not() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
    // Rate 0.83 at Es/N0 1 dB (BPSK capacity 0.69 bit): rv 0 alone cannot decode; rv 0 and
    // rv 2 together are rate 0.42.
    let code = NrCode::new(1000, 1200, None).unwrap();
    let config = DecoderConfig {
        algorithm: Algorithm::SumProduct,
        schedule: Schedule::Layered,
        precision: Precision::Float,
        iterations: 30,
        early_termination: true,
        threads: 1,
    };
    let mut dec = plan::decoder(code.code(), config, &Target::cpu()).unwrap();
    let (mut alone, mut combined) = (0, 0);
    for _ in 0..5 {
        let bits = random_bits(&mut rng, 1000);
        let rx0 = awgn(&mut rng, &code.encode(&bits, 0).unwrap(), 1.0);
        let rx2 = awgn(&mut rng, &code.encode(&bits, 2).unwrap(), 1.0);
        let mut out = vec![0u8; code.code().n()];
        dec.decode(Llrs::F32(&code.llr_full(&[&rx0], &[0]).unwrap()), &mut out)
            .unwrap();
        alone += usize::from(out[..1000] == bits[..]);
        dec.decode(
            Llrs::F32(&code.llr_full(&[&rx0, &rx2], &[0, 2]).unwrap()),
            &mut out,
        )
        .unwrap();
        combined += usize::from(out[..1000] == bits[..]);
    }
    assert_eq!((alone, combined), (0, 5));
}

#[test]
fn bad_input_gets_a_clear_error() {
    let code = NrCode::new(1000, 3000, None).unwrap();
    let bits = vec![0u8; 1000];
    let e = code.encode(&bits, 4).unwrap_err().to_string();
    assert!(e.contains("rv is 0, 1, 2 or 3"), "{e}");
    let e = code.encode(&bits[..999], 0).unwrap_err().to_string();
    assert!(e.contains("k = 1000"), "{e}");
    let e = code
        .llr_full(&[&[0.0; 2999]], &[0])
        .unwrap_err()
        .to_string();
    assert!(e.contains("2999") && e.contains("n = 3000"), "{e}");
    let e = code
        .llr_full(&[&[0.0; 3000]], &[0, 1])
        .unwrap_err()
        .to_string();
    assert!(e.contains("one per rv"), "{e}");
    let odd = NrCode::new(1000, 3001, None).unwrap();
    let sent = odd.encode(&bits, 0).unwrap();
    let e = interleave(&sent, 4, &mut vec![0u8; 3001])
        .unwrap_err()
        .to_string();
    assert!(e.contains("multiple of Q_m = 4"), "{e}");
    let e = code.clone().with_buffer(100).unwrap_err().to_string();
    assert!(e.contains("N_cb = 100"), "{e}");
}
