//! `sigpu filter` as a user runs it: .npy and raw files in and out, the two filter notations,
//! zi/zf, and errors that name the bad argument or file.

mod common;

use common::{fails_with, line, ok, ok_json};

use std::path::Path;

/// A 1-D little-endian f64 .npy file.
fn write_npy_f64(path: &Path, values: &[f64]) {
    let mut header = format!(
        "{{'descr': '<f8', 'fortran_order': False, 'shape': ({},), }}",
        values.len()
    );
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
    bytes.extend_from_slice(header.as_bytes());
    for v in values {
        bytes.extend_from_slice(&v.to_le_bytes());
    }
    std::fs::write(path, bytes).unwrap();
}

fn read_npy_f64(path: &Path) -> Vec<f64> {
    let bytes = std::fs::read(path).unwrap();
    assert!(bytes.starts_with(b"\x93NUMPY"));
    let header_len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    let header = std::str::from_utf8(&bytes[10..10 + header_len]).unwrap();
    assert!(header.contains("'descr': '<f8'"), "{header}");
    bytes[10 + header_len..]
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// `sigpu --device cpu filter ARGS…`, which must succeed.
fn filter_ok(args: &[&str]) {
    let mut full = vec!["--device", "cpu", "filter"];
    full.extend_from_slice(args);
    ok(&full);
}

#[test]
fn filters_npy_with_either_notation_and_streams_state() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).display().to_string();
    let x: Vec<f64> = (0..10_000)
        .map(|i| ((i * 37) % 101) as f64 / 50.0 - 1.0)
        .collect();
    let (xp, y1, y2) = (path("x.npy"), path("y1.npy"), path("y2.npy"));
    write_npy_f64(Path::new(&xp), &x);
    filter_ok(&[
        "--signature",
        "(0.2 : 0.8)",
        "--input",
        &xp,
        "--output",
        &y1,
    ]);
    let y = read_npy_f64(Path::new(&y1));
    let mut prev = 0.0;
    for (i, (&xi, &yi)) in x.iter().zip(&y).enumerate() {
        let want = 0.2 * xi + 0.8 * prev;
        assert!((yi - want).abs() < 1e-12, "[{i}] {yi} vs {want}");
        prev = want;
    }
    // SciPy's lfilter(b, a) notation gives the same filter.
    filter_ok(&[
        "--b", "0.2", "--a", "1,-0.8", "--input", &xp, "--output", &y2,
    ]);
    assert_eq!(read_npy_f64(Path::new(&y2)), y);
    // Two pieces chained through --zf / --zi equal the one-shot output.
    let (a, b) = x.split_at(4321);
    let (ap, bp, ya, yb, zf) = (
        path("a.npy"),
        path("b.npy"),
        path("ya.npy"),
        path("yb.npy"),
        path("zf.npy"),
    );
    write_npy_f64(Path::new(&ap), a);
    write_npy_f64(Path::new(&bp), b);
    let sig = ["--signature", "(0.2 : 0.8)"];
    filter_ok(&[&sig[..], &["--input", &ap, "--output", &ya, "--zf", &zf]].concat());
    filter_ok(&[&sig[..], &["--input", &bp, "--output", &yb, "--zi", &zf]].concat());
    let joined: Vec<f64> = read_npy_f64(Path::new(&ya))
        .into_iter()
        .chain(read_npy_f64(Path::new(&yb)))
        .collect();
    for (g, w) in joined.iter().zip(&y) {
        assert!((g - w).abs() < 1e-12);
    }
}

#[test]
fn raw_integer_channels_with_zi() {
    let dir = tempfile::tempdir().unwrap();
    let x: Vec<i32> = vec![1, 2, 3, i32::MAX, 10, 20, 30, 40];
    let xp = dir.path().join("x.bin");
    std::fs::write(
        &xp,
        x.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<_>>(),
    )
    .unwrap();
    let yp = dir.path().join("y.bin");
    let summary = ok_json(&line(
        "--device cpu --json filter --dtype i32 --channels 2 --zi 100,-5",
        &[
            "--signature",
            "(1 : 1)",
            "--input",
            xp.to_str().unwrap(),
            "--output",
            yp.to_str().unwrap(),
        ],
    ));
    assert_eq!(summary["channels"], 2);
    let y: Vec<i32> = std::fs::read(&yp)
        .unwrap()
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(
        y,
        [101, 103, 106, 106i32.wrapping_add(i32::MAX), 5, 25, 55, 95]
    );
}

#[test]
fn emit_cuda_needs_no_gpu() {
    let out = ok(&line(
        "filter --dtype i32 --emit-cuda",
        &["--signature", "(1 : 1)"],
    ));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("extern \"C\" __global__") && text.contains("typedef unsigned int S;"));
}

#[test]
fn errors_name_the_argument_or_file() {
    let dir = tempfile::tempdir().unwrap();
    let xp = dir.path().join("x.npy");
    write_npy_f64(&xp, &[1.0, f64::NAN, 3.0]);
    let good = dir.path().join("good.npy");
    write_npy_f64(&good, &[1.0, 2.0, 3.0]);
    let out_path = dir.path().join("y.npy");
    // Arguments separated by `|`; X, G and O stand for the NaN input, a good input and the
    // output; each case's error must contain the text after it.
    let cases = [
        (
            "--signature|(0.2 : 0.8x)|--input|G|--output|O",
            "--signature",
        ),
        ("--signature|(0.2 : 0.8x)|--input|G|--output|O", "column"),
        ("--signature|(1 : 1.5)|--input|G|--output|O", "unstable"),
        (
            "--signature|(1 : 0.5)|--input|missing.npy|--output|O",
            "--input missing.npy: cannot read",
        ),
        // A huge pole is shown in exponent notation, not as a 301-digit number.
        (
            "--b|1|--a|1,1e300|--input|G|--output|O",
            "magnitude 1.000000e300 > 1",
        ),
        // Just above 1 in f32: enough digits to show it is above 1.
        (
            "--b|1|--a|1,-1.0000001|--input|G|--output|O",
            "magnitude 1.0000001 > 1",
        ),
        ("--signature|(1 : 0.5)|--input|X|--output|O", "x.npy[1]"),
        (
            "--signature|(1 : 0.5)|--dtype|f32|--input|G|--output|O",
            "--dtype",
        ),
        (
            "--signature|(1 : 0.5)|--input|G|--output|O|--zi|1,2",
            "--zi",
        ),
        ("--b|1|--a|0,1|--input|G|--output|O", "a[0]"),
        (
            "--signature|(1 : 0.5)|--format|raw|--input|G|--output|O",
            "--dtype",
        ),
        (
            "--signature|(0.5 : 1)|--dtype|i32|--format|raw|--input|G|--output|O",
            "integer",
        ),
    ];
    let file = |p: &Path| p.display().to_string();
    for (case, want) in cases {
        let args: Vec<String> = case
            .split('|')
            .map(|a| match a {
                "X" => file(&xp),
                "G" => file(&good),
                "O" => file(&out_path),
                other => other.to_owned(),
            })
            .collect();
        let mut full = vec!["--device", "cpu", "filter"];
        full.extend(args.iter().map(String::as_str));
        let err = fails_with(&full, want);
        assert!(!err.contains("panicked"), "{err}");
    }
    assert!(
        !out_path.exists(),
        "no output is written when filtering fails"
    );
}

/// The PLR issue names the benchmark `sigpu bench recur`; it is the same command as `bench filter`.
#[test]
fn bench_recur_is_bench_filter_on_the_cpu() {
    let v = ok_json(&line(
        "--device cpu --json bench recur --log2-n 12 --runs 2 --warmup 1",
        &["--signature", "(0.2 : 0.8)"],
    ));
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{v}");
    assert!(rows[0]["gelem_per_s"].as_f64().unwrap_or(0.0) > 0.0, "{v}");
}
