//! Decoding 5G NR code blocks over AWGN with the crate's decoders: every decoder family
//! decodes at a comfortable SNR and fails far below capacity; HARQ combining in the
//! simulation; and (ignored: run by hand, `-- --ignored --nocapture`) the measurement behind
//! the default decoder for NR codes.

use sigpu_ldpc::channel::Demapper;
use sigpu_ldpc::nr::modulation::{Fading, NrChannel, NrModulation};
use sigpu_ldpc::nr::sim::{simulate_point, NrLink};
use sigpu_ldpc::nr::NrCode;
use sigpu_ldpc::{plan, Algorithm, DecoderConfig, Precision, Schedule};
use sigpu_runtime::Target;

fn config(
    algorithm: &str,
    schedule: Schedule,
    precision: Precision,
    iterations: usize,
) -> DecoderConfig {
    DecoderConfig {
        algorithm: Algorithm::parse(algorithm).unwrap(),
        schedule,
        precision,
        iterations,
        early_termination: true,
        threads: 1,
    }
}

fn bpsk(rvs: &[u8]) -> NrLink {
    NrLink {
        modulation: NrModulation::Bpsk,
        fading: Fading::Awgn,
        demapper: Demapper::Exact,
        rvs: rvs.to_vec(),
        seed: 1,
    }
}

fn es_n0(code: &NrCode, eb_n0: f64, qm: usize) -> f64 {
    eb_n0 + 10.0 * (code.rate() * qm as f64).log10()
}

#[test]
fn every_decoder_family_decodes_an_nr_code() {
    let code = NrCode::new(200, 600, None).unwrap();
    let fixed = Precision::Fixed8 { scale: 8.0 };
    let configs = [
        config("spa", Schedule::Layered, Precision::Float, 20),
        config("spa", Schedule::Flooding, Precision::Float, 30),
        config("oms:0.5", Schedule::Layered, fixed, 20),
        config(
            "nms:0.75",
            Schedule::Layered,
            Precision::Fixed8 { scale: 4.0 },
            20,
        ),
        config(
            "oms:0.5",
            Schedule::LayeredCompact,
            Precision::Fixed8 { scale: 2.0 },
            20,
        ),
        config("minsum", Schedule::Flooding, fixed, 30),
        config("lmin:0.125", Schedule::Layered, fixed, 20),
        config("lmin:0.125", Schedule::Flooding, fixed, 30),
        config("lmin:0.125", Schedule::Layered, Precision::Float, 20),
    ];
    for c in configs {
        let mut dec = plan::decoder(&code.decoding_code(&[0]).unwrap(), c, &Target::cpu()).unwrap();
        let good = simulate_point(
            &code,
            &bpsk(&[0]),
            dec.as_mut(),
            es_n0(&code, 4.0, 1),
            1,
            64,
            64,
        )
        .unwrap();
        assert_eq!(good.frame_errors, 0, "{} at Eb/N0 4 dB", c.describe());
        let bad = simulate_point(
            &code,
            &bpsk(&[0]),
            dec.as_mut(),
            es_n0(&code, -3.0, 1),
            64,
            64,
            64,
        )
        .unwrap();
        assert!(
            bad.frame_errors > 50,
            "{}: {} of 64 frames failed at Eb/N0 −3 dB",
            c.describe(),
            bad.frame_errors
        );
    }
}

/// λ-min offset min-sum is closer to sum-product than offset min-sum on a low-rate NR code
/// (bench/results/2026-11-30-cpu-nr-gap: 0.026 dB from it on BG2 k = 1000 R = 1/3 where OMS
/// 0.5 is 0.23 dB away): on the same frames near FER 1e-2 it fails far fewer.
#[test]
fn lambda_min_fails_fewer_frames_than_offset_min_sum_at_rate_one_third() {
    let code = NrCode::new(1000, 3000, None).unwrap();
    let fixed = Precision::Fixed8 { scale: 8.0 };
    let errors = |rule: &str| {
        let c = config(rule, Schedule::Layered, fixed, 20);
        let mut dec = plan::decoder(&code.decoding_code(&[0]).unwrap(), c, &Target::cpu()).unwrap();
        simulate_point(
            &code,
            &bpsk(&[0]),
            dec.as_mut(),
            es_n0(&code, 0.6, 1),
            1000,
            256,
            64,
        )
        .unwrap()
        .frame_errors
    };
    let (oms, lmin) = (errors("oms:0.5"), errors("lmin:0.125"));
    assert!(
        oms >= 8 && 2 * lmin < oms,
        "frame errors of 256 at Eb/N0 0.6 dB: OMS 0.5 {oms}, λ-min 0.125 {lmin}"
    );
}

#[test]
fn combined_redundancy_versions_lower_the_error_rate() {
    // Rate 0.9 per transmission, QPSK at Es/N0 2 dB: one transmission fails, rv 0 + 2 do not.
    let code = NrCode::new(900, 1000, None).unwrap();
    let link = |rvs: &[u8]| NrLink {
        modulation: NrModulation::Qpsk,
        fading: Fading::Awgn,
        demapper: Demapper::MaxLog,
        rvs: rvs.to_vec(),
        seed: 3,
    };
    let cfg = config(
        "oms:0.5",
        Schedule::Layered,
        Precision::Fixed8 { scale: 8.0 },
        20,
    );
    let dec =
        |rvs: &[u8]| plan::decoder(&code.decoding_code(rvs).unwrap(), cfg, &Target::cpu()).unwrap();
    let one = simulate_point(&code, &link(&[0]), dec(&[0]).as_mut(), 2.0, 64, 64, 64).unwrap();
    let two = simulate_point(
        &code,
        &link(&[0, 2]),
        dec(&[0, 2]).as_mut(),
        2.0,
        64,
        64,
        64,
    )
    .unwrap();
    assert!(
        one.frame_errors > 60 && two.frame_errors == 0,
        "{one:?} {two:?}"
    );
}

#[test]
fn the_cut_code_decodes_as_the_whole_lifted_code() {
    // Rate 0.93 on BG1: rv 0 reaches the core's 4 block rows only; rv 3 reaches them all.
    let code = NrCode::new(8448, 9088, None).unwrap();
    assert_eq!(
        (
            code.rows_for(&[0]).unwrap(),
            code.rows_for(&[0, 3]).unwrap()
        ),
        (4, 46)
    );
    let cut = code.decoding_code(&[0]).unwrap();
    assert_eq!((cut.n(), cut.m(), cut.k()), (26 * 384, 4 * 384, 8448));
    let small = NrCode::new(300, 600, None).unwrap();
    let used = small.decoding_code(&[0]).unwrap().n();
    for c in [
        config("spa", Schedule::Layered, Precision::Float, 8),
        config(
            "oms:0.5",
            Schedule::Layered,
            Precision::Fixed8 { scale: 8.0 },
            8,
        ),
    ] {
        let link = NrLink {
            modulation: NrModulation::Qpsk,
            fading: Fading::Awgn,
            demapper: Demapper::Exact,
            rvs: vec![0],
            seed: 9,
        };
        let channel =
            NrChannel::new(NrModulation::Qpsk, Demapper::Exact, Fading::Awgn, 1.0).unwrap();
        let (_, llr) = sigpu_ldpc::nr::sim::nr_frames(&small, &link, &channel, 0, 64).unwrap();
        let mut whole = plan::decoder(small.code(), c, &Target::cpu()).unwrap();
        let mut part =
            plan::decoder(&small.decoding_code(&[0]).unwrap(), c, &Target::cpu()).unwrap();
        let mut a = vec![0u8; llr.len()];
        whole.decode(sigpu_ldpc::Llrs::F32(&llr), &mut a).unwrap();
        let n = small.code().n();
        let cut: Vec<f32> = llr.chunks(n).flat_map(|w| &w[..used]).copied().collect();
        let mut b = vec![0u8; cut.len()];
        part.decode(sigpu_ldpc::Llrs::F32(&cut), &mut b).unwrap();
        for (x, y) in a.chunks(n).zip(b.chunks(used)) {
            assert_eq!(&x[..used], y, "{}", c.describe());
        }
    }
}

#[test]
fn qam_and_rayleigh_block_fading() {
    let code = NrCode::new(400, 1200, None).unwrap();
    let cfg = config(
        "oms:0.5",
        Schedule::Layered,
        Precision::Fixed8 { scale: 8.0 },
        20,
    );
    let mut dec = plan::decoder(&code.decoding_code(&[0]).unwrap(), cfg, &Target::cpu()).unwrap();
    let link = |modulation, fading| NrLink {
        modulation,
        fading,
        demapper: Demapper::MaxLog,
        rvs: vec![0],
        seed: 4,
    };
    for m in [
        NrModulation::Pi2Bpsk,
        NrModulation::Qam16,
        NrModulation::Qam64,
        NrModulation::Qam256,
    ] {
        let p =
            simulate_point(&code, &link(m, Fading::Awgn), dec.as_mut(), 30.0, 1, 64, 64).unwrap();
        assert_eq!(p.frame_errors, 0, "{} at 30 dB", m.name());
    }
    // QPSK rate 1/3 at Es/N0 2 dB: AWGN decodes every block; Rayleigh block fading (a deep
    // fade now and then) does not.
    let awgn = simulate_point(
        &code,
        &link(NrModulation::Qpsk, Fading::Awgn),
        dec.as_mut(),
        2.0,
        64,
        128,
        64,
    )
    .unwrap();
    let fading = simulate_point(
        &code,
        &link(NrModulation::Qpsk, Fading::RayleighBlock),
        dec.as_mut(),
        2.0,
        64,
        128,
        64,
    )
    .unwrap();
    assert!(
        awgn.frame_errors == 0 && fading.frame_errors > 10,
        "{awgn:?} {fading:?}"
    );
}

#[test]
fn odd_n_for_the_constellation_is_refused() {
    let code = NrCode::new(200, 601, None).unwrap();
    let mut dec = plan::decoder(
        &code.decoding_code(&[0]).unwrap(),
        DecoderConfig::default(),
        &Target::cpu(),
    )
    .unwrap();
    let link = NrLink {
        modulation: NrModulation::Qam16,
        fading: Fading::Awgn,
        demapper: Demapper::Exact,
        rvs: vec![0],
        seed: 1,
    };
    let e = simulate_point(&code, &link, dec.as_mut(), 5.0, 1, 1, 1)
        .unwrap_err()
        .to_string();
    assert!(e.contains("multiple of Q_m = 4"), "{e}");
    let e = simulate_point(&code, &bpsk(&[4]), dec.as_mut(), 5.0, 1, 1, 1)
        .unwrap_err()
        .to_string();
    assert!(e.contains("rv is 0, 1, 2 or 3"), "{e}");
}

/// FER of each decoder on the codes at a few Eb/N0 (BPSK, 20 iterations): set
/// NR_MEASURE="k,n,eb0,eb1,step,frames" to choose.
#[test]
#[ignore]
fn measure_decoders() {
    let spec = std::env::var("NR_MEASURE").unwrap_or_else(|_| "1000,3000,1.0,2.0,0.25,300".into());
    let v: Vec<f64> = spec.split(',').map(|x| x.parse().unwrap()).collect();
    let code = NrCode::new(v[0] as usize, v[1] as usize, None).unwrap();
    let iters: usize = std::env::var("NR_ITERS")
        .map(|s| s.parse().unwrap())
        .unwrap_or(20);
    let which = std::env::var("NR_DECODERS").unwrap_or_else(|_| "spa,oms8,nms8,ms8,compact".into());
    let all = [
        (
            "spa",
            config("spa", Schedule::Layered, Precision::Float, iters),
        ),
        (
            "oms8",
            config(
                "oms:0.5",
                Schedule::Layered,
                Precision::Fixed8 { scale: 8.0 },
                iters,
            ),
        ),
        (
            "oms4",
            config(
                "oms:0.5",
                Schedule::Layered,
                Precision::Fixed8 { scale: 4.0 },
                iters,
            ),
        ),
        (
            "nms8",
            config(
                "nms:0.75",
                Schedule::Layered,
                Precision::Fixed8 { scale: 8.0 },
                iters,
            ),
        ),
        (
            "nms8-875",
            config(
                "nms:0.875",
                Schedule::Layered,
                Precision::Fixed8 { scale: 8.0 },
                iters,
            ),
        ),
        (
            "nms4",
            config(
                "nms:0.75",
                Schedule::Layered,
                Precision::Fixed8 { scale: 4.0 },
                iters,
            ),
        ),
        (
            "oms8-75",
            config(
                "oms:0.75",
                Schedule::Layered,
                Precision::Fixed8 { scale: 8.0 },
                iters,
            ),
        ),
        (
            "oms8-1",
            config(
                "oms:1",
                Schedule::Layered,
                Precision::Fixed8 { scale: 8.0 },
                iters,
            ),
        ),
        (
            "nms8-8125",
            config(
                "nms:0.8125",
                Schedule::Layered,
                Precision::Fixed8 { scale: 8.0 },
                iters,
            ),
        ),
        (
            "ms8",
            config(
                "minsum",
                Schedule::Layered,
                Precision::Fixed8 { scale: 8.0 },
                iters,
            ),
        ),
        (
            "compact",
            config(
                "oms:0.5",
                Schedule::LayeredCompact,
                Precision::Fixed8 { scale: 2.0 },
                iters,
            ),
        ),
        (
            "compact-nms",
            config(
                "nms:0.75",
                Schedule::LayeredCompact,
                Precision::Fixed8 { scale: 4.0 },
                iters,
            ),
        ),
    ];
    println!(
        "{} (Z = {}), BPSK, {iters} iterations",
        code.name(),
        code.z()
    );
    for (name, c) in all
        .iter()
        .filter(|(n, _)| which.split(',').any(|w| w == *n))
    {
        let mut dec =
            plan::decoder(&code.decoding_code(&[0]).unwrap(), *c, &Target::cpu()).unwrap();
        let mut eb = v[2];
        while eb <= v[3] + 1e-9 {
            let t = std::time::Instant::now();
            let p = simulate_point(
                &code,
                &bpsk(&[0]),
                dec.as_mut(),
                es_n0(&code, eb, 1),
                100,
                v[5] as u64,
                64,
            )
            .unwrap();
            println!(
                "{name:12} Eb/N0 {eb:5.2} dB: FER {:.3e} [{:.2e}, {:.2e}] ({}/{}), BER {:.2e}, {:.1} it, {:.1} s",
                p.fer, p.fer_ci[0], p.fer_ci[1], p.frame_errors, p.frames, p.ber, p.mean_iterations, t.elapsed().as_secs_f64()
            );
            eb += v[4];
        }
    }
}

/// Decoder and encoder speed on BG1 Z = 384 (k = 8448) at rate 0.93 (n = 9126) and 1/3 (n =
/// 25344), 10 iterations, one thread: run by hand in a release build pinned to one core,
/// `taskset -c 0 cargo test --release -p sigpu-ldpc --test nr_decoding measure_speed --
/// --ignored --nocapture`.
#[test]
#[ignore]
fn measure_speed() {
    let words = 128;
    for n in [9126usize, 25344] {
        let code = NrCode::new(8448, n, Some(sigpu_ldpc::nr::BaseGraph::Bg1)).unwrap();
        let link = bpsk(&[0]);
        let channel = NrChannel::new(
            NrModulation::Bpsk,
            Demapper::Exact,
            Fading::Awgn,
            es_n0(&code, 4.0, 1),
        )
        .unwrap();
        let (_, llr) = sigpu_ldpc::nr::sim::nr_frames(&code, &link, &channel, 0, words).unwrap();
        let dc = code.decoding_code(&[0]).unwrap();
        let used = dc.n();
        let cut: Vec<f32> = llr
            .chunks(code.code().n())
            .flat_map(|w| &w[..used])
            .copied()
            .collect();
        for (name, c) in [
            (
                "8-bit layered oms:0.5 scale 8",
                config(
                    "oms:0.5",
                    Schedule::Layered,
                    Precision::Fixed8 { scale: 8.0 },
                    10,
                ),
            ),
            (
                "8-bit layered-compact oms:0.5 scale 2",
                config(
                    "oms:0.5",
                    Schedule::LayeredCompact,
                    Precision::Fixed8 { scale: 2.0 },
                    10,
                ),
            ),
            (
                "8-bit flooding minsum scale 4",
                config(
                    "minsum",
                    Schedule::Flooding,
                    Precision::Fixed8 { scale: 4.0 },
                    10,
                ),
            ),
        ] {
            let c = DecoderConfig {
                early_termination: false,
                ..c
            };
            let mut dec = plan::decoder(&dc, c, &Target::cpu()).unwrap();
            let mut bits = vec![0u8; cut.len()];
            dec.decode(sigpu_ldpc::Llrs::F32(&cut), &mut bits).unwrap();
            let mut times: Vec<f64> = (0..3)
                .map(|_| {
                    let t = std::time::Instant::now();
                    dec.decode(sigpu_ldpc::Llrs::F32(&cut), &mut bits).unwrap();
                    t.elapsed().as_secs_f64()
                })
                .collect();
            times.sort_by(f64::total_cmp);
            let t = times[1];
            println!(
                "{} ({} rows of 46), {name}, 10 it, {words} words: {:.1} Mbps information, {:.1} Mbps coded (n), {:.3} ms per word",
                code.name(),
                dc.m() / 384,
                (words * 8448) as f64 / t / 1e6,
                (words * n) as f64 / t / 1e6,
                t / words as f64 * 1e3
            );
        }
        let bits: Vec<u8> = (0..8448).map(|i| ((i * 7 + i / 3) % 2) as u8).collect();
        let reps = 2000;
        let t = std::time::Instant::now();
        for _ in 0..reps {
            std::hint::black_box(code.encode_full(std::hint::black_box(&bits)).unwrap());
        }
        let full = t.elapsed().as_secs_f64() / reps as f64;
        let t = std::time::Instant::now();
        for _ in 0..reps {
            std::hint::black_box(code.encode(std::hint::black_box(&bits), 0).unwrap());
        }
        let rm = t.elapsed().as_secs_f64() / reps as f64;
        println!(
            "{}: encoder {:.2} µs per block (lifted codeword), {:.2} µs with rate matching",
            code.name(),
            full * 1e6,
            rm * 1e6
        );
    }
}
