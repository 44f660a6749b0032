//! `sigpu ldpc encode` and `decode --output-info` as a user runs them, checked against the
//! parity-check matrix the CLI exports (every codeword c of every built-in code has H·c = 0),
//! and the PNG that `--plot x.png` writes.

mod common;

use common::{fails_with, ok, ok_json};

/// A .npy file of uint8, rows × cols.
fn npy_u8(values: &[u8], rows: usize, cols: usize) -> Vec<u8> {
    sigpu_runtime::npy::encode("|u1", &[rows, cols], values)
}

/// The data of a uint8 .npy file and its shape.
fn read_u8(path: &std::path::Path) -> (Vec<u8>, Vec<usize>) {
    let bytes = std::fs::read(path).unwrap();
    let npy = sigpu_runtime::npy::parse(&bytes, |d| {
        assert_eq!(d, "|u1");
        Ok(1)
    })
    .unwrap();
    (npy.data, npy.shape)
}

/// The check rows (0-based column lists) of an alist file: after the header (n m, the two
/// maximum degrees, the column and row degree lists) come n column lines, then m row lines.
fn alist_rows(text: &str) -> Vec<Vec<usize>> {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let nm: Vec<usize> = lines[0]
        .split_whitespace()
        .map(|t| t.parse().unwrap())
        .collect();
    let (n, m) = (nm[0], nm[1]);
    lines[4 + n..4 + n + m]
        .iter()
        .map(|l| {
            l.split_whitespace()
                .map(|t| t.parse::<usize>().unwrap())
                .filter(|&c| c > 0)
                .map(|c| c - 1)
                .collect()
        })
        .collect()
}

#[test]
fn every_code_encodes_to_codewords_with_zero_syndrome() {
    let dir = tempfile::tempdir().unwrap();
    let codes = ok_json(&["--json", "ldpc", "codes"]);
    let codes = codes.as_array().unwrap();
    assert_eq!(codes.len(), 36, "every DVB-T2/S2 code");
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    for c in codes {
        let (name, n, k) = (
            c["name"].as_str().unwrap(),
            c["n"].as_u64().unwrap() as usize,
            c["k"].as_u64().unwrap() as usize,
        );
        // Two random information words (xorshift: no dependency needed for coin flips).
        let info: Vec<u8> = (0..2 * k)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state & 1) as u8
            })
            .collect();
        let (bits, cw, h) = (
            dir.path().join("bits.npy"),
            dir.path().join("cw.npy"),
            dir.path().join("h.alist"),
        );
        std::fs::write(&bits, npy_u8(&info, 2, k)).unwrap();
        let p = |p: &std::path::Path| p.to_str().unwrap().to_owned();
        ok(&[
            "ldpc",
            "encode",
            "--code",
            name,
            "--input",
            &p(&bits),
            "--output",
            &p(&cw),
        ]);
        ok(&["ldpc", "export", "--code", name, "--output", &p(&h)]);
        let (words, shape) = read_u8(&cw);
        assert_eq!(shape, [2, n], "{name}");
        let rows = alist_rows(&std::fs::read_to_string(&h).unwrap());
        assert_eq!(rows.len(), n - k, "{name}");
        for (w, word) in words.chunks_exact(n).enumerate() {
            assert_eq!(&word[..k], &info[w * k..(w + 1) * k], "{name}: systematic");
            for (r, row) in rows.iter().enumerate() {
                let parity = row.iter().fold(0u8, |acc, &col| acc ^ word[col]);
                assert_eq!(parity, 0, "{name}: word {w} fails check {r}");
            }
        }
    }
}

#[test]
fn encode_refuses_wrong_shapes_and_values_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let bits = dir.path().join("bits.npy");
    let out = dir.path().join("cw.npy");
    let (b, o) = (bits.to_str().unwrap(), out.to_str().unwrap());
    let encode = [
        "ldpc",
        "encode",
        "--code",
        "dvbt2-short-1/2",
        "--input",
        b,
        "--output",
        o,
    ];
    std::fs::write(&bits, npy_u8(&[0; 10], 1, 10)).unwrap();
    let err = fails_with(&encode, "K = 7200");
    assert!(err.contains("bits.npy"), "{err}");
    std::fs::write(&bits, npy_u8(&[2; 7200], 1, 7200)).unwrap();
    fails_with(&encode, "0 or 1");
    assert!(!out.exists());
}

#[test]
fn decode_output_info_returns_the_encoded_information_bits() {
    let dir = tempfile::tempdir().unwrap();
    let d = |f: &str| dir.path().join(f).to_str().unwrap().to_owned();
    let k = 7200;
    let info: Vec<u8> = (0..3 * k)
        .map(|i| ((i * 7 + i / 13) % 3 == 0) as u8)
        .collect();
    std::fs::write(d("bits.npy"), npy_u8(&info, 3, k)).unwrap();
    let code = "dvbt2-short-1/2";
    ok(&[
        "ldpc",
        "encode",
        "--code",
        code,
        "--input",
        &d("bits.npy"),
        "--output",
        &d("cw.npy"),
    ]);
    // Noisy-looking but decodable LLRs: every 40th bit's sign flipped weakly.
    let (cw, _) = read_u8(std::path::Path::new(&d("cw.npy")));
    let llr: Vec<f32> = cw
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            let s = 1.0 - 2.0 * c as f32;
            if i % 40 == 0 {
                -0.5 * s
            } else {
                3.0 * s
            }
        })
        .collect();
    let bytes: Vec<u8> = llr.iter().flat_map(|v| v.to_le_bytes()).collect();
    let file = sigpu_runtime::npy::encode("<f4", &[3, cw.len() / 3], &bytes);
    std::fs::write(d("llr.npy"), file).unwrap();
    let (llr_file, hard_file, info_file) = (d("llr.npy"), d("hard.npy"), d("info.npy"));
    let decode = [
        "ldpc",
        "decode",
        "--code",
        code,
        "--input",
        &llr_file,
        "--output",
        &hard_file,
        "--output-info",
        &info_file,
    ];
    let out = ok(&decode);
    // Every file written is named, in text and in JSON.
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!("the information bits to {}", d("info.npy"))),
        "{text}"
    );
    let report = ok_json(&[&["--json"][..], &decode].concat());
    assert_eq!(report["output_info"].as_str(), Some(d("info.npy").as_str()));
    let (hard, _) = read_u8(std::path::Path::new(&d("hard.npy")));
    assert_eq!(hard, cw, "the decoder corrects every flipped bit");
    let (got, shape) = read_u8(std::path::Path::new(&d("info.npy")));
    assert_eq!(shape, [3, k]);
    assert_eq!(got, info);
}

#[test]
fn plots_follow_the_extension() {
    let dir = tempfile::tempdir().unwrap();
    let d = |f: &str| dir.path().join(f).to_str().unwrap().to_owned();
    ok(&[
        "ldpc",
        "simulate",
        "--code",
        "dvbt2-short-1/2",
        "--snr",
        "2,4",
        "--max-frames",
        "64",
        "--min-errors",
        "1",
        "--out",
        &d("s.json"),
        "--plot",
        &d("s.png"),
    ]);
    let png = std::fs::read(d("s.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "a real PNG");
    ok(&[
        "ldpc",
        "plot",
        "--input",
        &d("s.json"),
        "--fer",
        "--output",
        &d("p.svg"),
    ]);
    assert!(std::fs::read_to_string(d("p.svg"))
        .unwrap()
        .contains("<svg"));
    ok(&[
        "ldpc",
        "plot",
        "--input",
        &d("s.json"),
        "--output",
        &d("p.png"),
    ]);
    assert_eq!(&std::fs::read(d("p.png")).unwrap()[..4], b"\x89PNG");
    fails_with(
        &[
            "ldpc",
            "plot",
            "--input",
            &d("s.json"),
            "--output",
            &d("p.pdf"),
        ],
        ".png or .svg",
    );
}

#[test]
fn decode_soft_writes_the_library_decoders_posteriors() {
    use sigpu_ldpc::decoder::cpu_decoder;
    use sigpu_ldpc::{Algorithm, Code, DecoderConfig, Llrs, Precision};
    let dir = tempfile::tempdir().unwrap();
    let d = |f: &str| dir.path().join(f).to_str().unwrap().to_owned();
    let code = Code::standard("dvbt2-short-1/2").unwrap();
    let n = code.n();
    // The all-zero codeword with every 30th LLR pointing the wrong way, two frames.
    let llr: Vec<f32> = (0..2 * n)
        .map(|i| if i % 30 == 0 { -0.7 } else { 2.5 })
        .collect();
    let header = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': (2, {n}), }}\n");
    let mut file = b"\x93NUMPY\x01\x00".to_vec();
    file.extend_from_slice(&(header.len() as u16).to_le_bytes());
    file.extend_from_slice(header.as_bytes());
    file.extend(llr.iter().flat_map(|v| v.to_le_bytes()));
    std::fs::write(d("llr.npy"), file).unwrap();
    let args = |extra: &[&str]| {
        let mut a: Vec<String> = [
            "ldpc",
            "decode",
            "--code",
            "dvbt2-short-1/2",
            "--input",
            &d("llr.npy"),
            "--output",
            &d("hard.npy"),
            "--soft",
            &d("post.npy"),
            "--decoder",
            "spa",
            "--iterations",
            "20",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    // The 8-bit decoder (the default) keeps no f32 posteriors: refused, naming the way out.
    let eight = args(&[]);
    let eight: Vec<&str> = eight.iter().map(String::as_str).collect();
    fails_with(&eight, "--precision float");
    let float = args(&["--precision", "float"]);
    let float: Vec<&str> = float.iter().map(String::as_str).collect();
    ok(&float);
    let bytes = std::fs::read(d("post.npy")).unwrap();
    let npy = sigpu_runtime::npy::parse(&bytes, |descr| {
        assert_eq!(descr, "<f4");
        Ok(4)
    })
    .unwrap();
    assert_eq!(npy.shape, [2, n]);
    let got: Vec<f32> = npy
        .data
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    // The library's f32 decoder on the same LLRs gives the same posteriors, bit for bit.
    let config = DecoderConfig {
        algorithm: Algorithm::SumProduct,
        precision: Precision::Float,
        iterations: 20,
        ..DecoderConfig::default()
    };
    let mut decoder = cpu_decoder(&code, config).unwrap();
    let (mut bits, mut want) = (vec![0u8; 2 * n], vec![0f32; 2 * n]);
    decoder
        .decode_soft(Llrs::F32(&llr), &mut bits, &mut want)
        .unwrap();
    assert_eq!(got, want);
    // Decoded to the all-zero word: every posterior positive, and surer than the channel.
    let (hard, _) = read_u8(std::path::Path::new(&d("hard.npy")));
    assert!(hard.iter().all(|&b| b == 0));
    assert!(got.iter().zip(&llr).all(|(p, c)| *p > 0.0 && *p > c.abs()));
}
