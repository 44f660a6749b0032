//! Numbers a user can trust, as the command line gives them: `lns calc` on any input, decoder
//! parameters checked, the LDPC decode errors, simulate's JSON and its statistics.

mod common;

use common::{fails_with, line, ok_json, sigpu, sigpu_stdin, stderr, stdout_json};

#[test]
fn calc_takes_lines_without_spaces_and_says_why_a_result_is_inf() {
    let out = sigpu_stdin(&["lns", "calc"], b"1+2\n2 / 0\n0/0\n");
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("2.99999") && lines[0].ends_with("0x0657"),
        "{text}"
    );
    assert_eq!(
        lines[1],
        "inf  0x3fff  # 2 / 0: division by zero gives +inf"
    );
    assert!(lines[2].contains("0 / 0 is undefined: NaN"), "{text}");
}

#[test]
fn calc_json_is_one_array_with_the_expression_and_format() {
    let out = sigpu_stdin(
        &["lns", "calc", "--format", "lns32", "--json"],
        b"1+2\n2/0\n3 % 2\n",
    );
    assert_eq!(out.status.code(), Some(1), "a bad line fails the run");
    let rows = stdout_json(&out);
    let rows = rows.as_array().expect("one JSON array");
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[0]["expression"], "1+2");
    assert_eq!(rows[0]["format"], "lns32");
    assert!((rows[0]["value"].as_f64().unwrap() - 3.0).abs() < 1e-6);
    assert_eq!(rows[1]["special"], "+inf");
    assert!(
        rows[1]["value"].is_null()
            && rows[1]["note"]
                .as_str()
                .unwrap()
                .contains("division by zero")
    );
    assert!(rows[2]["error"]
        .as_str()
        .unwrap()
        .contains("unknown operator"));
    // No line at all: an empty array.
    let out = sigpu_stdin(&["lns", "calc", "--json"], b"");
    assert_eq!(stdout_json(&out), serde_json::json!([]));
}

#[test]
fn calc_reports_overlong_and_non_utf8_lines_one_by_one() {
    let mut input = b"1 + 1\n".to_vec();
    input.extend(std::iter::repeat_n(b'9', 1 << 20));
    input.extend_from_slice(b"\n2 \xff 3\n2 * 4\n");
    let out = sigpu_stdin(&["lns", "calc"], &input);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.lines().collect::<Vec<_>>(), ["2  0x0400", "8  0x0c00"]);
    let err = stderr(&out);
    let shown = format!("it starts \"{}\"", "9".repeat(80));
    assert!(
        err.contains("line 2: 1048576 bytes, over the 65536-byte limit") && err.contains(&shown),
        "{err}"
    );
    assert!(
        err.len() < 1000,
        "the line is not echoed whole: {} bytes",
        err.len()
    );
    assert!(
        err.contains("line 3: not UTF-8 text (bad byte at offset 2)"),
        "{err}"
    );
}

/// A .npy file of `descr` values, 1 × `count`.
fn npy(descr: &str, count: usize, data: &[u8]) -> Vec<u8> {
    sigpu_runtime::npy::encode(descr, &[1, count], data)
}

#[test]
fn decode_names_a_missing_file_once_and_takes_float64() {
    let dir = tempfile::tempdir().unwrap();
    let (input, output) = (dir.path().join("llr.npy"), dir.path().join("bits.npy"));
    let (i, o) = (input.to_str().unwrap(), output.to_str().unwrap());
    let args = |extra: &'static str| {
        let mut v = line(
            "ldpc decode --code dvbt2-short-1/2 --input",
            &[i, "--output", o],
        );
        v.extend(extra.split_whitespace());
        v
    };
    let err = fails_with(&args(""), "No such file");
    assert_eq!(err.matches("No such file").count(), 1, "{err}");
    assert!(
        err.contains(&format!("--input {i}: cannot read")),
        "names the flag: {err}"
    );
    // float64, numpy's default: decoded after conversion, and said so.
    let llr: Vec<u8> = (0..16200).flat_map(|_| 3.0f64.to_le_bytes()).collect();
    std::fs::write(&input, npy("<f8", 16200, &llr)).unwrap();
    let out = sigpu(&args(""));
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("float64 LLRs; decoded after conversion to float32"));
    let report = ok_json(&args("--json"));
    assert_eq!(
        (report["valid"].as_u64(), report["input_dtype"].as_str()),
        (Some(1), Some("float64"))
    );
    // Another type: the error says what to do.
    std::fs::write(&input, npy("<i4", 16200, &vec![0; 4 * 16200])).unwrap();
    fails_with(&args(""), "astype(np.float32)");
    // A scale that saturates every LLR to its sign is refused before decoding.
    std::fs::write(&input, npy("<f8", 16200, &llr)).unwrap();
    fails_with(&args("--scale 1e9"), "--scale) 1e9 must be in [0.25, 32]");
}

#[test]
fn decoder_parameters_are_refused_alike_on_every_path() {
    for (flags, want) in [
        (
            "--precision float --decoder nms:2",
            "α must be in [0.0625, 1]",
        ),
        (
            "--precision float --decoder nms:0",
            "α must be in [0.0625, 1]",
        ),
        (
            "--precision 8bit --decoder nms:2",
            "α must be in [0.0625, 1]",
        ),
        (
            "--precision float --decoder minsum:3",
            "min-sum takes no parameter",
        ),
        (
            "--precision float --decoder spa:7",
            "sum-product takes no parameter",
        ),
        (
            "--precision float --decoder oms:1e30",
            "β must be in [0, 8]",
        ),
        ("--precision 8bit --decoder oms:1e30", "β must be in [0, 8]"),
    ] {
        let args = line(
            "ldpc simulate --code dvbt2-short-1/2 --snr 3 --max-frames 1",
            &flags.split_whitespace().collect::<Vec<_>>(),
        );
        fails_with(&args, want);
    }
}

#[test]
fn simulate_json_names_the_decoder_as_fields_and_mean_iterations_per_frame() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sweep.json");
    let o = out.to_str().unwrap();
    let args = |snr: &'static str| {
        let mut v = line(
            "ldpc simulate --code dvbt2-short-1/2 --max-frames 8 --batch 8 --iterations 7 \
             --decoder nms:0.75 --schedule flooding --threads 1 --json --out",
            &[o, "--snr", snr],
        );
        v.push("--resume");
        v
    };
    let sweep = ok_json(&args("3"));
    assert_eq!(sweep["demapper"], "exact");
    let d = &sweep["decoder"];
    assert_eq!(
        (
            d["kind"].as_str(),
            d["alpha"].as_f64(),
            d["precision"].as_str()
        ),
        (Some("nms"), Some(0.75), Some("8bit"))
    );
    assert_eq!(
        (d["schedule"].as_str(), d["iterations"].as_u64()),
        (Some("flooding"), Some(7))
    );
    // 8 frames in one SIMD group of the 8-bit decoder, no early termination: 7 each (once 7/8).
    assert_eq!(sweep["points"][0]["mean_iterations"], 7.0);
    // A file written before the decoder fields (prose decoder, `Exact`) still resumes.
    let mut old = sweep.clone();
    old["decoder"] = d["description"].clone();
    old["demapper"] = "Exact".into();
    std::fs::write(&out, serde_json::to_string(&old).unwrap()).unwrap();
    let both = ok_json(&args("3,4"));
    assert_eq!(both["points"].as_array().unwrap().len(), 2, "{both}");
    assert_eq!(
        both["points"][0], sweep["points"][0],
        "the old point is kept"
    );
}

#[test]
fn certify_of_a_format_whose_range_ends_before_the_essential_zero_is_faithful() {
    // i2f10 (like i3f20 and i4f20): the f64 reference was "not faithful" at one input below
    // the most negative z an add can produce.
    let certs = ok_json(&line(
        "lns certify --format i2f10 --method f64 --device cpu --json",
        &[],
    ));
    let certs = certs.as_array().unwrap();
    assert_eq!(certs.len(), 2);
    for c in certs {
        assert_eq!(c["faithful"], true, "{c}");
        assert_eq!(c["correctly_rounded"], c["inputs"], "{c}");
    }
}
