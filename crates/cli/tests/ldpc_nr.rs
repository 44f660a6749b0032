//! `sigpu ldpc … --code nr:k=K,n=N` as a user runs it: encode with one or several redundancy
//! versions and the §5.4.2.2 interleaver, decode the noiseless LLRs back (one version and
//! combined versions), list and export the lifted code, simulate a point, and the error each
//! bad input gets.

mod common;

use common::{fails_with, ok, ok_json};
use std::path::Path;

fn bits_file(path: &Path, rows: usize, k: usize, seed: u64) -> Vec<u8> {
    let mut state = seed | 1;
    let bits: Vec<u8> = (0..rows * k)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state & 1) as u8
        })
        .collect();
    std::fs::write(path, sigpu_runtime::npy::encode("|u1", &[rows, k], &bits)).unwrap();
    bits
}

fn read_u8(path: &Path) -> (Vec<u8>, Vec<usize>) {
    let npy = sigpu_runtime::npy::parse(&std::fs::read(path).unwrap(), |_| Ok(1)).unwrap();
    (npy.data, npy.shape)
}

/// Noiseless LLRs (ln P(0)/P(1)) of bits, as float32 with `shape`.
fn llr_file(path: &Path, bits: &[u8], shape: &[usize]) {
    let bytes: Vec<u8> = bits
        .iter()
        .flat_map(|&b| if b == 0 { 4.0f32 } else { -4.0 }.to_le_bytes())
        .collect();
    std::fs::write(path, sigpu_runtime::npy::encode("<f4", shape, &bytes)).unwrap();
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn encode_then_decode_round_trips_with_combined_rvs() {
    let dir = tempfile::tempdir().unwrap();
    let (bits, tx, llr, out) = (
        dir.path().join("b.npy"),
        dir.path().join("t.npy"),
        dir.path().join("l.npy"),
        dir.path().join("o.npy"),
    );
    let sent = bits_file(&bits, 3, 500, 7);
    let code = "nr:k=500,n=1200";
    // Two redundancy versions, 16-QAM interleaving: 3 × 2 × 1200.
    let r = ok_json(&[
        "--json",
        "ldpc",
        "encode",
        "--code",
        code,
        "--rv",
        "0,3",
        "--bits-per-symbol",
        "4",
        "--input",
        s(&bits),
        "--output",
        s(&tx),
    ]);
    assert_eq!(r["shape"], serde_json::json!([3, 2, 1200]));
    let (coded, shape) = read_u8(&tx);
    assert_eq!(shape, [3, 2, 1200]);
    llr_file(&llr, &coded, &shape);
    let r = ok_json(&[
        "--json",
        "ldpc",
        "decode",
        "--code",
        code,
        "--rv",
        "0,3",
        "--bits-per-symbol",
        "4",
        "--early-termination",
        "--input",
        s(&llr),
        "--output",
        s(&out),
    ]);
    assert_eq!(r["stats"]["valid"], 3);
    let (decoded, shape) = read_u8(&out);
    assert_eq!((decoded, shape), (sent.clone(), vec![3, 500]));
    // One version, no interleaver: 3 × 1200, and its first transmission is the rv-0 row above
    // de-interleaved.
    ok(&[
        "ldpc",
        "encode",
        "--code",
        code,
        "--input",
        s(&bits),
        "--output",
        s(&tx),
    ]);
    let (one, shape) = read_u8(&tx);
    assert_eq!(shape, [3, 1200]);
    llr_file(&llr, &one, &shape);
    ok(&[
        "ldpc",
        "decode",
        "--code",
        code,
        "--input",
        s(&llr),
        "--output",
        s(&out),
    ]);
    assert_eq!(read_u8(&out).0, sent);
}

#[test]
fn the_lifted_code_is_listed_and_exported() {
    let dir = tempfile::tempdir().unwrap();
    // Rate 0.93 on BG1 Z = 384: rv 0 reaches the core's 4 block rows, so the decoding code is
    // H cut to 4·384 checks and 26·384 bits (BG1's rows 0–3 hold 76 entries).
    let codes = ok_json(&["--json", "ldpc", "codes", "--code", "nr:k=8448,n=9126"]);
    assert_eq!(codes[0]["name"], "nr-bg1-z384-rows4");
    assert_eq!(codes[0]["n"], 26 * 384);
    assert_eq!(codes[0]["k"], 8448);
    assert_eq!(codes[0]["edges"], 76 * 384);
    // Rate 1/5 and below reach every row: the whole lifted code.
    let codes = ok_json(&[
        "--json",
        "ldpc",
        "codes",
        "--code",
        "nr:k=8448,n=60000,bg=1",
    ]);
    assert_eq!(
        (codes[0]["name"].as_str(), codes[0]["edges"].as_u64()),
        (Some("nr-bg1-z384"), Some(316 * 384))
    );
    let h = dir.path().join("h.alist");
    ok(&[
        "ldpc",
        "export",
        "--code",
        "nr:k=100,n=1000",
        "--output",
        s(&h),
    ]);
    let first = std::fs::read_to_string(&h).unwrap();
    // BG2 (k ≤ 292), K_b = 6, Z = 18: all 52·18 bits and 42·18 checks at rate 0.1.
    assert!(
        first.starts_with(&format!("{} {}", 52 * 18, 42 * 18)),
        "{}",
        &first[..20]
    );
}

#[test]
fn simulate_reports_the_block_error_rate() {
    let r = ok_json(&[
        "--json",
        "ldpc",
        "simulate",
        "--code",
        "nr:k=200,n=600",
        "--modulation",
        "16qam",
        "--fading",
        "rayleigh",
        "--eb-n0",
        "30,-4",
        "--rv",
        "0,2",
        "--max-frames",
        "64",
        "--min-errors",
        "10",
        "--early-termination",
    ]);
    // The sweep file's layout: points in SNR order, the block named field by field.
    let points = r["points"].as_array().unwrap();
    assert_eq!(points[0]["eb_n0_db"], -4.0);
    assert!(points[0]["frame_errors"].as_u64().unwrap() >= 10);
    assert_eq!(points[1]["frame_errors"], 0);
    assert_eq!(r["code"], "nr:k=200,n=600,bg=2");
    assert_eq!(r["nr"]["qm"], 4);
    assert_eq!(r["nr"]["fading"], "rayleigh-block");
}

#[test]
fn an_nr_sweep_file_resumes_and_refuses_another_block() {
    fn refs(v: &[String]) -> Vec<&str> {
        v.iter().map(String::as_str).collect()
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s.json");
    let sweep = |code: &str, rv: &str, points: &str| {
        let out = s(&out).to_owned();
        let args: Vec<String> = [
            "--json",
            "ldpc",
            "simulate",
            "--code",
            code,
            "--rv",
            rv,
            "--eb-n0",
            points,
            "--iterations",
            "8",
            "--max-frames",
            "64",
            "--min-errors",
            "10",
            "--out",
            &out,
            "--resume",
        ]
        .iter()
        .map(|a| a.to_string())
        .collect();
        args
    };
    let first = ok_json(&refs(&sweep("nr:k=100,n=300", "0", "0")));
    let both = ok_json(&refs(&sweep("nr:k=100,n=300", "0", "0,3")));
    assert_eq!(
        both["points"][0]["frame_errors"],
        first["points"][0]["frame_errors"]
    );
    assert_eq!(both["points"].as_array().unwrap().len(), 2);
    assert_eq!(both["nr"]["rvs"], serde_json::json!([0]));
    assert_eq!(both["nr"]["z"], 18);
    fails_with(&refs(&sweep("nr:k=100,n=300", "2", "0")), "cannot resume");
    fails_with(&refs(&sweep("nr:k=100,n=320", "0", "0")), "cannot resume");
}

#[test]
fn bad_nr_input_gets_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let (bits, out) = (dir.path().join("b.npy"), dir.path().join("o.npy"));
    bits_file(&bits, 1, 500, 3);
    let enc = |code: &str, extra: &[&str], text: &str| {
        let mut args = vec![
            "ldpc",
            "encode",
            "--code",
            code,
            "--input",
            s(&bits),
            "--output",
            s(&out),
        ];
        args.extend_from_slice(extra);
        fails_with(&args, text);
    };
    enc("nr:k=9000,n=20000", &[], "at most 8448");
    enc("nr:k=8,n=100", &[], "at least 12");
    enc("nr:k=500,n=510", &[], "above 0.95");
    enc(
        "nr:k=500,n=1201",
        &["--bits-per-symbol", "4"],
        "multiple of Q_m = 4",
    );
    enc("nr:k=500,n=1200", &["--rv", "4"], "redundancy version");
    enc("nr:k=400,n=1200", &[], "the last axis must be k = 400");
    fails_with(
        &[
            "ldpc",
            "encode",
            "--code",
            "dvbt2-short-1/2",
            "--rv",
            "1",
            "--input",
            s(&bits),
            "--output",
            s(&out),
        ],
        "apply to 5G NR codes",
    );
    let llr = dir.path().join("l.npy");
    llr_file(&llr, &[0u8; 1199], &[1, 1199]);
    fails_with(
        &[
            "ldpc",
            "decode",
            "--code",
            "nr:k=500,n=1200",
            "--input",
            s(&llr),
            "--output",
            s(&out),
        ],
        "the last axes must be [1200]",
    );
    fails_with(
        &[
            "ldpc",
            "decode",
            "--code",
            "nr:k=500,n=1200",
            "--rv",
            "0,1",
            "--input",
            s(&llr),
            "--output",
            s(&out),
        ],
        "[2, 1200]",
    );
    fails_with(
        &[
            "ldpc",
            "simulate",
            "--code",
            "nr:k=200,n=602",
            "--modulation",
            "16qam",
            "--snr",
            "3",
        ],
        "multiple of Q_m = 4",
    );
    fails_with(
        &[
            "ldpc",
            "simulate",
            "--code",
            "nr:k=200,n=600",
            "--fading",
            "rician",
            "--snr",
            "3",
        ],
        "awgn or rayleigh",
    );
}

#[test]
fn bench_takes_nr_codes_with_their_commas() {
    let r = ok_json(&[
        "--json",
        "bench",
        "ldpc",
        "--codes",
        "nr:k=200,n=600,dvbt2-short-1/2",
        "--iterations",
        "2",
        "--runs",
        "1",
        "--codewords",
        "64",
    ]);
    let text = r.to_string();
    assert!(text.contains("nr-bg2-z"), "{text}");
}
