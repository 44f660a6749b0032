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
        config("aoms:0.5", 8.0, 6, true),
        config("aoms:1", 16.0, 5, false),
        config("lmin:0.125", 8.0, 6, true),
        config("lmin:0.5", 16.0, 5, false),
    ];
    let arch = CpuArch::host();
    for (graph, z, rows) in cases {
        let code = lifted_rows(graph, z, rows).unwrap();
        let llr = frames(&code, z);
        for c in configs {
            let (want, its, valid) = reference(&code, c, &llr);
            for isa in simd_sets(&arch) {
                let mut d = QcDecoder::new(code.clone(), c)
                    .unwrap()
                    .with_simd(isa)
                    .unwrap();
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
        assert!(
            valid > 0 && valid < llr.len() / code.n(),
            "{}: {valid} valid",
            code.name()
        );
    }
}

#[test]
fn qc_decoder_reuses_its_buffers_across_calls_and_worker_threads() {
    // The decoder keeps one codeword's buffers per worker between calls (one worker runs on
    // the calling thread): a second call, a call with more workers and a call of one
    // codeword after them all give the reference's bits, iterations and valid count.
    let (z, rows) = (15, 10);
    let code = lifted_rows(BaseGraph::Bg1, z, rows).unwrap();
    let llr = frames(&code, z);
    for rule in ["oms:0.5", "aoms:0.5"] {
        let one = config(rule, 8.0, 6, true);
        let (want, its, valid) = reference(&code, one, &llr);
        let two = DecoderConfig { threads: 2, ..one };
        let mut d = QcDecoder::new(code.clone(), one).unwrap();
        let mut d2 = QcDecoder::new(code.clone(), two).unwrap();
        for which in [0, 1, 0] {
            let d = if which == 0 { &mut d } else { &mut d2 };
            for _ in 0..2 {
                let mut bits = vec![0u8; llr.len()];
                let s = d.decode(Llrs::F32(&llr), &mut bits).unwrap();
                assert!(bits == want, "{rule}: decoded bits differ");
                assert_eq!(s.iterations, its.iter().sum::<usize>(), "{rule}");
                assert_eq!(s.valid, valid, "{rule}");
            }
        }
        let last = llr.len() / code.n() - 1;
        let mut bits = vec![0u8; code.n()];
        let s = d2
            .decode(Llrs::F32(&llr[last * code.n()..]), &mut bits)
            .unwrap();
        assert!(
            bits[..] == want[last * code.n()..],
            "{rule}: last codeword alone"
        );
        assert_eq!(s.iterations, its[last], "{rule}");
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

/// Throughput on one core at BG1 k = 8448 (rate 0.93 and 1/3), 10 iterations, no early
/// termination, 128 codewords per call, and the encoder's time per block. Run by hand:
/// `taskset -c 0 cargo test --release -p sigpu-ldpc --test nr_qc -- --ignored --nocapture`.
#[test]
#[ignore]
fn measure_qc_speed() {
    use sigpu_ldpc::nr::NrCode;
    let words = 128;
    for n in [9126usize, 25344] {
        let nr = NrCode::new(8448, n, Some(BaseGraph::Bg1)).unwrap();
        let code = nr.decoding_code(&[0]).unwrap();
        let es_n0 = 1.0 + 10.0 * (2.0 * code.rate()).log10();
        let mut llr = make_frames(&code, &Link::qpsk(1), es_n0, 0, words, 2)
            .unwrap()
            .llr;
        for w in llr.chunks_mut(code.n()) {
            w[..2 * 384].fill(0.0);
        }
        let q = sigpu_ldpc::channel::Quantizer::new(8.0).unwrap();
        let mut llr8 = vec![0i8; llr.len()];
        q.quantize_all(&llr, &mut llr8);
        let input = Llrs::I8 {
            values: &llr8,
            scale: 8.0,
        };
        for rule in ["oms:0.5", "nms:0.75", "aoms:0.5", "lmin:0.125"] {
            let c = config(rule, 8.0, 10, false);
            let mut d = plan::decoder(&code, c, &Target::cpu()).unwrap();
            let mut bits = vec![0u8; llr.len()];
            let samples = sigpu_runtime::host::time_cpu(5, || {
                d.decode(input, &mut bits).unwrap();
            });
            let best = samples.iter().copied().fold(f64::INFINITY, f64::min);
            let mut sorted = samples.clone();
            sorted.sort_by(f64::total_cmp);
            let median = sorted[sorted.len() / 2];
            // CPU time of the process over many calls: what a core gives when others compete
            // for it (the wall clock counts their time slices too).
            let reps = 20;
            let before = cpu_seconds();
            for _ in 0..reps {
                d.decode(input, &mut bits).unwrap();
            }
            let cpu = (cpu_seconds() - before) / reps as f64;
            // The fastest of many short calls (16 codewords, about half a millisecond): on a
            // shared machine, what the decoder does when no other process interrupts it.
            let few = 16 * code.n();
            let few_input = Llrs::I8 {
                values: &llr8[..few],
                scale: 8.0,
            };
            let fastest = (0..300)
                .map(|_| {
                    let t = std::time::Instant::now();
                    d.decode(few_input, &mut bits[..few]).unwrap();
                    t.elapsed().as_secs_f64() / 16.0
                })
                .fold(f64::INFINITY, f64::min);
            println!(
                "n = {n}: fastest of 300 calls of 16 codewords {:.2} µs/codeword: info {:.1} Mbps",
                fastest * 1e6,
                8448.0 / fastest / 1e6
            );
            println!(
                "n = {n} ({} rows) {}: wall median {:.2} µs/codeword: info {:.1} Mbps, decoded code bits {:.1} Mbps, sent {:.1} Mbps (best {:.1} info); CPU time {:.2} µs/codeword: info {:.1} Mbps, decoded {:.1}, sent {:.1}",
                code.m() / 384,
                d.describe(),
                median / words as f64 * 1e6,
                (8448 * words) as f64 / median / 1e6,
                (code.n() * words) as f64 / median / 1e6,
                (n * words) as f64 / median / 1e6,
                (8448 * words) as f64 / best / 1e6,
                cpu / words as f64 * 1e6,
                (8448 * words) as f64 / cpu / 1e6,
                (code.n() * words) as f64 / cpu / 1e6,
                (n * words) as f64 / cpu / 1e6,
            );
        }
    }
    let enc = sigpu_ldpc::nr::LiftedEncoder::new(BaseGraph::Bg1, 384).unwrap();
    let info: Vec<u8> = (0..enc.k()).map(|i| ((i * 7919) % 3 == 0) as u8).collect();
    let mut word = vec![0u8; enc.n()];
    let reps = 2000;
    let samples = sigpu_runtime::host::time_cpu(5, || {
        for _ in 0..reps {
            enc.encode(std::hint::black_box(&info), &mut word).unwrap();
        }
    });
    let best = samples.iter().copied().fold(f64::INFINITY, f64::min);
    let before = cpu_seconds();
    for _ in 0..20 * reps {
        enc.encode(std::hint::black_box(&info), &mut word).unwrap();
    }
    let cpu = (cpu_seconds() - before) / (20 * reps) as f64;
    println!(
        "encoder BG1 Z = 384: {:.2} µs per block wall (best of 5 × {reps}), {:.2} µs CPU time",
        best / reps as f64 * 1e6,
        cpu * 1e6
    );
}

/// The fastest of many short calls (16 codewords) of the high-rate point with offset and
/// normalised min-sum, 10 iterations: a quick figure for comparing builds of the kernel on a
/// shared machine, where the fastest call is the one no other process interrupted. Run by hand:
/// `taskset -c 0 target/release/deps/nr_qc-<hash> --ignored --nocapture measure_qc_fastest`.
#[test]
#[ignore]
fn measure_qc_fastest() {
    use sigpu_ldpc::nr::NrCode;
    let nr = NrCode::new(8448, 9126, Some(BaseGraph::Bg1)).unwrap();
    let code = nr.decoding_code(&[0]).unwrap();
    let es_n0 = 1.0 + 10.0 * (2.0 * code.rate()).log10();
    let mut llr = make_frames(&code, &Link::qpsk(1), es_n0, 0, 128, 2)
        .unwrap()
        .llr;
    for w in llr.chunks_mut(code.n()) {
        w[..2 * 384].fill(0.0);
    }
    let q = sigpu_ldpc::channel::Quantizer::new(8.0).unwrap();
    let mut llr8 = vec![0i8; llr.len()];
    q.quantize_all(&llr, &mut llr8);
    let mut bits = vec![0u8; llr.len()];
    for rule in ["oms:0.5", "nms:0.75"] {
        let mut d = plan::decoder(&code, config(rule, 8.0, 10, false), &Target::cpu()).unwrap();
        // Short calls (half a millisecond), then the official measurement's 128 codewords.
        for (words, calls) in [(16, 400), (128, 40)] {
            let input = Llrs::I8 {
                values: &llr8[..words * code.n()],
                scale: 8.0,
            };
            let out = &mut bits[..words * code.n()];
            let fastest = (0..calls)
                .map(|_| {
                    let t = std::time::Instant::now();
                    d.decode(input, out).unwrap();
                    t.elapsed().as_secs_f64() / words as f64
                })
                .fold(f64::INFINITY, f64::min);
            println!(
                "{rule}: fastest of {calls} calls of {words} codewords {:.2} µs/codeword: info {:.1} Mbps",
                fastest * 1e6,
                8448.0 / fastest / 1e6
            );
        }
    }
}

/// User + system CPU time of this process (all threads), from `/proc/self/stat` (clock ticks
/// of 10 ms: time runs of a second or more).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .unwrap()
        .1
        .split_whitespace()
        .collect();
    // Fields 14 and 15 of stat(5), counted after the command name's closing parenthesis.
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    ticks as f64 / 100.0
}
