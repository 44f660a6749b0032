//! `sigpu ldpc ...` as a user runs it: decoding a .npy file, a resumable simulation, and the
//! errors bad input gets.

mod common;

use common::{assert_mentions, fails_with, line, ok_json, sigpu, stderr, stdout_json};

use serde_json::Value;

/// A .npy file of float32 LLRs, codewords × n.
fn npy_f32(values: &[f32], rows: usize, cols: usize) -> Vec<u8> {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    sigpu_runtime::npy::encode("<f4", &[rows, cols], &bytes)
}

#[test]
fn decode_recovers_the_all_zero_codeword_from_noisy_llrs() {
    let dir = tempfile::tempdir().unwrap();
    let (input, output) = (dir.path().join("llr.npy"), dir.path().join("bits.npy"));
    let n = 16200;
    // Two codewords of the all-zero word: reliable LLRs with every 50th bit flipped weakly.
    let llr: Vec<f32> = (0..2 * n)
        .map(|i| if i % 50 == 0 { -0.5 } else { 3.0 })
        .collect();
    std::fs::write(&input, npy_f32(&llr, 2, n)).unwrap();
    for device_args in [
        vec!["--precision", "8bit"],
        vec!["--precision", "float", "--decoder", "spa"],
    ] {
        let mut args = line(
            "ldpc decode --code dvbt2-short-1/2 --iterations 20 --json --input",
            &[
                input.to_str().unwrap(),
                "--output",
                output.to_str().unwrap(),
            ],
        );
        args.extend(device_args);
        assert_eq!(ok_json(&args)["valid"], 2);
        let bytes = std::fs::read(&output).unwrap();
        assert!(bytes.ends_with(&vec![0u8; 2 * n]) && bytes.len() > 2 * n);
    }
}

#[test]
fn options_take_every_spelling_the_library_parses() {
    // The flags are parsed by the library's FromStr, as Python's keywords are: a non-canonical
    // spelling names the same decoder, and a bad one is refused naming the flag.
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("llr.npy");
    let n = 16200;
    let llr: Vec<f32> = (0..n)
        .map(|i| if i % 40 == 0 { -0.5 } else { 3.0 })
        .collect();
    std::fs::write(&input, npy_f32(&llr, 1, n)).unwrap();
    let output = dir.path().join("bits.npy");
    let decode = |flags: &str| {
        let mut args = line(
            "ldpc decode --code dvbt2-short-1/2 --iterations 6 --json --device cpu --input",
            &[
                input.to_str().unwrap(),
                "--output",
                output.to_str().unwrap(),
            ],
        );
        args.extend(flags.split(' '));
        let report = ok_json(&args);
        (report["decoder"].clone(), std::fs::read(&output).unwrap())
    };
    let canonical = decode("--precision 8bit --decoder nms:0.75 --schedule layered");
    let other = decode("--precision int8 --decoder normalised=0.75 --schedule Layered");
    assert_eq!(canonical, other);
    let float = decode("--precision float32 --decoder oms --schedule flood");
    assert!(
        float.0.as_str().unwrap().starts_with("f32 offset min-sum"),
        "{}",
        float.0
    );
    let bad = "ldpc decode --code dvbt2-short-1/2 --precision 16bit --output x.npy --input";
    let e = fails_with(&line(bad, &[input.to_str().unwrap()]), "unknown precision");
    assert!(e.contains("--precision"), "{e}");
}

#[test]
fn bad_input_gets_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("llr.npy");
    let out_path = dir.path().join("bits.npy");
    let run = |code: &str| {
        sigpu(&line(
            "ldpc decode --code",
            &[
                code,
                "--input",
                input.to_str().unwrap(),
                "--output",
                out_path.to_str().unwrap(),
            ],
        ))
    };
    // Wrong length for the code.
    std::fs::write(&input, npy_f32(&[1.0; 100], 1, 100)).unwrap();
    let out = run("dvbt2-short-1/2");
    assert!(!out.status.success());
    let e = assert_mentions(&out, "llr.npy");
    assert!(e.contains("N = 16200"), "{e}");
    // Not a .npy file.
    std::fs::write(&input, b"not numpy").unwrap();
    let e = stderr(&run("dvbt2-short-1/2"));
    assert!(e.contains("llr.npy") && e.contains("not a .npy"), "{e}");
    // Unknown code.
    let e = stderr(&run("dvbt2-normal-7/8"));
    assert!(
        e.contains("unknown code \"dvbt2-normal-7/8\"") && e.contains("dvbt2-normal-1/2"),
        "{e}"
    );
    // Malformed alist.
    let alist = dir.path().join("h.alist");
    std::fs::write(&alist, "4 2\n2 2\n1 1 1\n").unwrap();
    let e = stderr(&run(alist.to_str().unwrap()));
    assert!(
        e.contains("h.alist:3:") && e.contains("expected 4 numbers"),
        "{e}"
    );
    assert!(!out_path.exists(), "no output on error");
}

#[test]
fn simulate_writes_resumes_and_plots() {
    let dir = tempfile::tempdir().unwrap();
    let (out_path, plot) = (dir.path().join("sweep.json"), dir.path().join("ber.svg"));
    let run =
        |snr: &str| {
            sigpu(&line(
            "ldpc simulate --device cpu --code dvbt2-short-1/2 --modulation qpsk --iterations 10 \
             --max-frames 64 --min-errors 5 --json --resume --snr",
            &[snr, "--out", out_path.to_str().unwrap(), "--plot", plot.to_str().unwrap()],
        ))
        };
    let first = run("-1.0,4.0");
    assert!(first.status.success(), "{}", stderr(&first));
    let v = stdout_json(&first);
    let points = v["points"].as_array().unwrap();
    assert_eq!(points.len(), 2);
    assert!(
        points[0]["fer"].as_f64().unwrap() > 0.5,
        "far below the threshold every frame fails"
    );
    assert_eq!(points[1]["frame_errors"], 0);
    let again = stdout_json(&run("-1.0:4.0:5.0"));
    assert_eq!(
        again["points"], v["points"],
        "resumed points are kept, not rerun"
    );
    assert!(std::fs::read_to_string(&plot).unwrap().starts_with("<svg"));
    let merged = dir.path().join("merged.svg");
    let p = ok_json(&line(
        "--json ldpc plot --fer --input",
        &[
            out_path.to_str().unwrap(),
            "--output",
            merged.to_str().unwrap(),
        ],
    ));
    assert_eq!(p["series"].as_array().unwrap().len(), 2, "BER and FER");
    assert_eq!(p["series"][1]["points"][0][1], v["points"][0]["fer"]);
    assert_eq!(v["points"][0]["ber_ci_method"], "frames-t");
    assert_eq!(p["series"][0]["ci_method"][0], "frames-t");
    assert_eq!(p["series"][1]["ci_method"][0], "wilson");
    assert!(std::fs::read_to_string(&merged)
        .unwrap()
        .starts_with("<svg"));
    let e = stderr(&run("2:1:0.1"));
    assert!(e.contains("START ≤ STOP"), "{e}");
}

#[test]
fn plot_draws_old_sweeps_with_worst_case_ber_intervals() {
    // A committed sweep written before Σ e² was kept.
    let input = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../bench/results/2026-11-21-h100-ldpc-sim/2026-11-21-h100-sim-qpsk-n12-ms8.json"
    );
    let written: Value = serde_json::from_str(&std::fs::read_to_string(input).unwrap()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("old.svg");
    let p = ok_json(&line(
        "--json ldpc plot --fer --input",
        &[input, "--output", svg.to_str().unwrap()],
    ));
    let ber = &p["series"][0];
    let wpoints = written["points"].as_array().unwrap();
    let mut widened = 0;
    for (i, w) in wpoints.iter().enumerate() {
        if w["bit_errors"] == 0 {
            continue;
        }
        assert_eq!(ber["ci_method"][i], "frames-worst-case");
        let (lo, hi) = (
            ber["ci"][i][0].as_f64().unwrap(),
            ber["ci"][i][1].as_f64().unwrap(),
        );
        let (wlo, whi) = (
            w["ber_ci"][0].as_f64().unwrap(),
            w["ber_ci"][1].as_f64().unwrap(),
        );
        assert!(
            lo <= wlo && hi >= whi,
            "point {i}: [{lo}, {hi}] vs [{wlo}, {whi}]"
        );
        widened += 1;
    }
    assert!(widened > 0);
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.contains("FER: Wilson") && text.contains("widest interval"));
}

#[test]
fn simulate_applies_and_checks_the_bit_interleaver() {
    let run = |code: &str, interleaver: &str| {
        let words = "ldpc simulate --device cpu --modulation 16qam --eb-n0 8.0 --iterations 5 \
             --max-frames 8 --json --code";
        sigpu(&line(words, &[code, "--bit-interleaver", interleaver]))
    };
    // At 8 dB every 16-QAM frame decodes, with the interleaver or without.
    for interleaver in ["auto", "dvbt2", "none"] {
        let out = run("dvbt2-short-1/2", interleaver);
        assert!(out.status.success(), "{interleaver}: {}", stderr(&out));
        assert_eq!(
            stdout_json(&out)["points"][0]["frame_errors"],
            0,
            "{interleaver}"
        );
    }
    let e = stderr(&run("dvbs2-short-1/2", "dvbt2"));
    assert!(
        e.contains("DVB-T2 code") && e.contains("dvbs2-short-1/2"),
        "{e}"
    );
    let e = stderr(&run("dvbt2-short-1/2", "interleaved"));
    assert!(e.contains("unknown bit interleaver"), "{e}");
}

#[test]
fn bench_times_both_schedules_on_the_cpu() {
    let v = ok_json(&line(
        "--json bench ldpc --device cpu --codes dvbt2-short-1/2 --schedule flooding,layered \
         --iterations 2 --runs 1 --codewords 64",
        &[],
    ));
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    for (r, schedule) in results.iter().zip(["flooding", "layered"]) {
        assert!(r["decoder"].as_str().unwrap().contains(schedule), "{r:?}");
        assert!(r["coded_mbps"].as_f64().unwrap() > 0.0);
    }
    let zigzag = ["bench", "ldpc", "--device", "cpu", "--schedule", "zigzag"];
    fails_with(&zigzag, "zigzag");
}

#[test]
fn bench_times_an_nr_code_with_the_qc_decoder_per_core_and_its_encoder() {
    let v = ok_json(&line(
        "--json bench ldpc --device cpu --codes nr:k=200,n=240 --schedule layered \
         --decoder oms:0.5 --scale 8 --iterations 2 --runs 1 --codewords 4 --threads 1",
        &[],
    ));
    let r = &v["results"][0];
    assert!(
        r["decoder"].as_str().unwrap().contains("quasi-cyclic"),
        "{r:?}"
    );
    assert_eq!(r["threads"], 1);
    assert!(r["info_mbps_per_core"].as_f64().unwrap() > 0.0, "{r:?}");
    assert!(r["coded_mbps_per_core"].as_f64().unwrap() > 0.0, "{r:?}");
    assert!(
        v["encoders"][0]["us_per_block"].as_f64().unwrap() > 0.0,
        "{v:?}"
    );
}

/// Without the run's timings (seconds, frames/s, Mbps), which differ between any two runs.
fn points_without_timings(v: &Value) -> Vec<Value> {
    let mut points = v["points"].as_array().expect("a sweep has points").clone();
    for p in &mut points {
        let p = p.as_object_mut().unwrap();
        for timing in ["seconds", "frames_per_s", "info_mbps", "coded_mbps"] {
            p.remove(timing);
        }
    }
    points
}

#[test]
fn device_all_spreads_simulate_only() {
    // Commands that run on one device refuse `all`, naming the one command that takes it.
    for args in [
        vec!["--device", "all", "bench", "copy", "--size-mib", "1"],
        vec![
            "--device",
            "all",
            "bench",
            "ldpc",
            "--codes",
            "dvbt2-short-1/2",
        ],
        vec![
            "--device",
            "all",
            "ldpc",
            "decode",
            "--code",
            "dvbt2-short-1/2",
            "--input",
            "x.npy",
            "--output",
            "y.npy",
        ],
    ] {
        let e = common::exits_with(&args, 1, "--device all");
        assert!(e.contains("ldpc simulate"), "{e}");
    }
    let simulate = |device: &str| {
        let words = "--json ldpc simulate --code dvbt2-short-1/2 --modulation qpsk --snr 0.8,1.2 \
             --iterations 10 --max-frames 256 --min-errors 20 --batch 64";
        sigpu(&line(words, &["--device", device]))
    };
    let gpu = ok_json(&["--json", "info"])["cuda"]["available"]
        .as_bool()
        .unwrap();
    let all = simulate("all");
    if gpu {
        // Spread over every GPU, the counts equal one GPU's (frames are seeded per frame).
        assert!(all.status.success(), "{}", stderr(&all));
        let one = simulate("cuda:0");
        assert!(one.status.success(), "{}", stderr(&one));
        assert_eq!(
            points_without_timings(&stdout_json(&all)),
            points_without_timings(&stdout_json(&one))
        );
    } else {
        // No GPU: a clear error, not a panic (exit code 101).
        assert_eq!(all.status.code(), Some(1), "{}", stderr(&all));
        assert_mentions(&all, "--device all: no GPU");
    }
}

/// `ldpc simulate` on DVB-T2 short 1/2 at Eb/N0 0.4 and 1.0 dB, stopping after 20 frame
/// errors, with `extra` flags, under `taskset -c 0` (one core) when `one_core`: the points
/// without their timings.
fn counts_of_the_low_snr_sweep(extra: &[&str], one_core: bool) -> Vec<Value> {
    let args = line(
        "--json ldpc simulate --device cpu --code dvbt2-short-1/2 --iterations 10 \
         --eb-n0 0.4,1.0 --min-errors 20 --max-frames 700 --seed 5",
        extra,
    );
    let out = if one_core {
        std::process::Command::new("taskset")
            .args(["-c", "0", env!("CARGO_BIN_EXE_sigpu")])
            .args(&args)
            .env_remove("SIGPU_REQUIRE_GPU")
            .output()
            .expect("taskset runs")
    } else {
        sigpu(&args)
    };
    assert!(out.status.success(), "{}", stderr(&out));
    points_without_timings(&stdout_json(&out))
}

/// The same seed gives the same counts on any number of cores: the default batch is 64
/// frames per thread (64 under `taskset -c 0`, 128 on two cores), and a point used to stop at
/// the end of the batch that reached the errors (128 frames on two cores, 64 on one).
#[test]
fn simulate_counts_do_not_depend_on_the_cores_or_the_batch() {
    let want = counts_of_the_low_snr_sweep(&[], false);
    assert_eq!(
        want[0]["frame_errors"], 20,
        "the stop falls on the 20th error"
    );
    assert!(want[0]["frames"].as_u64().unwrap() < 64, "{want:?}");
    let taskset = std::process::Command::new("taskset").arg("-V").output();
    if taskset.is_ok_and(|o| o.status.success()) {
        assert_eq!(counts_of_the_low_snr_sweep(&[], true), want, "one core");
    } else {
        println!("SKIP one core: no taskset on this machine");
    }
    assert_eq!(counts_of_the_low_snr_sweep(&["--batch", "7"], false), want);
}

/// Commands refused before any work: a grid whose far end names no channel and a point
/// listed three times are refused before the first point runs; a resumed file changed by
/// hand (BER 5.0) is refused, naming the file and the point.
#[test]
fn simulate_checks_its_parameters_and_its_file_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sweep.json");
    let out_arg = out.to_str().unwrap();
    let sweep = |snr: &'static str, resume: bool| {
        let mut args = line(
            "ldpc simulate --device cpu --code dvbt2-short-1/2 --iterations 10 \
             --min-errors 5 --max-frames 16 --out",
            &[out_arg, "--snr", snr],
        );
        if resume {
            args.push("--resume");
        }
        args
    };
    let started = std::time::Instant::now();
    let e = fails_with(&sweep("0:1000:0.1", false), "300.1 dB");
    assert!(e.contains("no point of the sweep ran"), "{e}");
    assert!(started.elapsed().as_secs() < 30, "refused at once");
    assert!(!out.exists());
    fails_with(&sweep("0,0,0", false), "0 dB is listed 3 times");
    assert!(!out.exists());
    let first = sigpu(&sweep("-1,4", false));
    assert!(first.status.success(), "{}", stderr(&first));
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    v["points"][0]["ber"] = 5.0.into();
    std::fs::write(&out, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let e = fails_with(&sweep("-1,4,5", true), "BER 5");
    assert!(e.contains("sweep.json") && e.contains("Es/N0 -1 dB"), "{e}");
    let plot = dir.path().join("p.svg");
    let plot_arg = plot.to_str().unwrap();
    fails_with(
        &line("ldpc plot --input", &[out_arg, "--output", plot_arg]),
        "BER 5",
    );
}
