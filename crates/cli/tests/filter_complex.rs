//! `sigpu filter` on complex data: complex64 / complex128 .npy in and out, int8 / int16
//! interleaved I/Q (`--iq`), complex coefficients, zi / zf, zero-phase, and the errors.

mod common;

use common::{fails_with, ok_json};
use sigpu_recurrence::complex::{plan_complex, signal, ComplexSpec};
use sigpu_recurrence::io::complex::{encode_npy, parse_npy};
use sigpu_recurrence::{DType, FilterOptions};
use sigpu_runtime::Target;

fn signal_of(n: usize) -> Vec<f64> {
    (0..2 * n)
        .map(|i| ((7919 * i) % 1013) as f64 / 506.5 - 1.0)
        .collect()
}

fn read(path: &str) -> (Vec<usize>, Vec<f64>, DType) {
    let a = parse_npy(&std::fs::read(path).unwrap()).unwrap();
    (a.shape, a.values, a.part)
}

fn run(args: &[&str]) -> serde_json::Value {
    let mut full = vec!["--json", "--device", "cpu", "filter"];
    full.extend_from_slice(args);
    ok_json(&full)
}

fn max_diff(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(p, q)| (p - q).abs())
        .fold(0.0, f64::max)
}

/// b = [0.3, 0.1 + 0.2j], a = [1, −0.5 + 0.4j].
fn complex_spec() -> ComplexSpec {
    ComplexSpec::ba(&[0.3, 0.1], &[0.0, 0.2], &[1.0, -0.5], &[0.0, 0.4]).unwrap()
}

#[test]
fn complex_npy_round_trips_with_real_and_complex_coefficients() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n).display().to_string();
    let x = signal_of(3 * 500);
    std::fs::write(p("x.npy"), encode_npy(&[3, 500], &x)).unwrap();
    // Real coefficients: the real filter on both parts.
    let j = run(&[
        "--b",
        "0.2",
        "--a",
        "1,-0.8",
        "--input",
        &p("x.npy"),
        "--output",
        &p("y.npy"),
    ]);
    assert_eq!(j["method"], "plr");
    assert!(
        j["note"]
            .as_str()
            .unwrap()
            .contains("complex128, real coefficients"),
        "{j}"
    );
    let (shape, y, part) = read(&p("y.npy"));
    assert_eq!((shape.as_slice(), part), (&[3usize, 500][..], DType::F64));
    let spec = ComplexSpec::ba(&[0.2], &[], &[1.0, -0.8], &[]).unwrap();
    let f = plan_complex::<f64>(&spec, FilterOptions::default(), &Target::cpu()).unwrap();
    let (want, _) = signal::along_axis(&f, &x, &[3, 500], -1, None).unwrap();
    assert!(max_diff(&y, &want.y) < 1e-13);

    // Complex coefficients along axis 0, zi from a complex .npy (shape (1, 500)), zf out.
    let zi: Vec<f64> = signal_of(500).iter().map(|v| v * 0.5).collect();
    std::fs::write(p("zi.npy"), encode_npy(&[1, 500], &zi)).unwrap();
    let j = run(&[
        "--b",
        "0.3,0.1+0.2j",
        "--a",
        "1,-0.5+0.4j",
        "--axis",
        "0",
        "--zi",
        &p("zi.npy"),
        "--zf",
        &p("zf.npy"),
        "--input",
        &p("x.npy"),
        "--output",
        &p("y2.npy"),
    ]);
    assert_eq!(j["method"], "serial");
    let f = plan_complex::<f64>(&complex_spec(), FilterOptions::default(), &Target::cpu()).unwrap();
    let (want, _) = signal::along_axis(&f, &x, &[3, 500], 0, Some((&zi, &[1, 500]))).unwrap();
    let (_, y2, _) = read(&p("y2.npy"));
    let (zshape, zf, _) = read(&p("zf.npy"));
    assert_eq!(zshape, [1, 500]);
    assert_eq!((y2, zf), (want.y, want.zf));

    // complex64 in, complex64 out; zero-phase.
    let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
    std::fs::write(p("x32.npy"), encode_npy(&[3, 500], &x32)).unwrap();
    let j = run(&[
        "--b",
        "0.3,0.1+0.2j",
        "--a",
        "1,-0.5+0.4j",
        "--filtfilt",
        "--input",
        &p("x32.npy"),
        "--output",
        &p("y3.npy"),
    ]);
    assert_eq!(j["dtype"], "f32");
    let (_, y3, part) = read(&p("y3.npy"));
    assert_eq!(part, DType::F32);
    let want = signal::filtfilt(
        &complex_spec(),
        &x32,
        &[3, 500],
        -1,
        None,
        &FilterOptions::default(),
    )
    .unwrap();
    let want: Vec<f64> = want.iter().map(|&v| v as f64).collect();
    assert_eq!(y3, want);
}

#[test]
fn int16_and_int8_iq_are_read_as_complex() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n).display().to_string();
    let iq: Vec<i16> = (0..2000)
        .map(|i| ((i * 7919) % 65536 - 32768) as i16)
        .collect();
    let bytes: Vec<u8> = iq.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(p("x.cs16"), &bytes).unwrap();
    run(&[
        "--iq",
        "i16",
        "--b",
        "0.2",
        "--a",
        "1,-0.8",
        "--input",
        &p("x.cs16"),
        "--output",
        &p("y.npy"),
    ]);
    let x: Vec<f64> = iq.iter().map(|&v| v as f64 / 32768.0).collect();
    let spec = ComplexSpec::ba(&[0.2], &[], &[1.0, -0.8], &[]).unwrap();
    let f = plan_complex::<f64>(&spec, FilterOptions::default(), &Target::cpu()).unwrap();
    let (want, _) = f.apply(&x, None).unwrap();
    let (shape, y, part) = read(&p("y.npy"));
    assert_eq!((shape, part), (vec![1000], DType::F64));
    assert!(max_diff(&y, &want) < 1e-13);
    // Raw output: interleaved parts of the element type (f32 with --dtype f32).
    run(&[
        "--iq",
        "i16",
        "--dtype",
        "f32",
        "--b",
        "0.2",
        "--a",
        "1,-0.8",
        "--input",
        &p("x.cs16"),
        "--output",
        &p("y.cf32"),
    ]);
    let raw = std::fs::read(p("y.cf32")).unwrap();
    assert_eq!(raw.len(), 2000 * 4);
    // int8 pairs, two channels.
    let b8: Vec<u8> = (0..400u32).map(|i| (i * 37 % 256) as u8).collect();
    std::fs::write(p("x.cs8"), &b8).unwrap();
    let j = run(&[
        "--iq",
        "i8",
        "--channels",
        "2",
        "--b",
        "0.5j",
        "--a",
        "1",
        "--input",
        &p("x.cs8"),
        "--output",
        &p("y8.npy"),
    ]);
    assert_eq!(j["shape"], serde_json::json!([2, 100]));
    let (_, y8, _) = read(&p("y8.npy"));
    // b = 0.5j: y = 0.5j·x, so (re, im) = (−0.5·im, 0.5·re).
    let (re, im) = (b8[0] as i8 as f64 / 128.0, b8[1] as i8 as f64 / 128.0);
    assert_eq!((y8[0], y8[1]), (-0.5 * im, 0.5 * re));
}

#[test]
fn complex_errors_name_the_flag_and_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n).display().to_string();
    std::fs::write(p("odd.cs16"), [1u8, 0, 2, 0, 3, 0]).unwrap();
    std::fs::write(p("x.npy"), encode_npy(&[8], &[0.5f64; 16])).unwrap();
    let cases: [(&[&str], &str); 6] = [
        (
            &[
                "--iq",
                "i16",
                "--b",
                "1",
                "--a",
                "1",
                "--input",
                &p("odd.cs16"),
                "--output",
                &p("y.npy"),
            ],
            "odd number",
        ),
        (
            &[
                "--iq",
                "u8",
                "--b",
                "1",
                "--a",
                "1",
                "--input",
                &p("odd.cs16"),
                "--output",
                &p("y.npy"),
            ],
            "--iq",
        ),
        (
            &[
                "--b",
                "1+2i",
                "--a",
                "1",
                "--input",
                &p("x.npy"),
                "--output",
                &p("y.npy"),
            ],
            "--b",
        ),
        (
            &[
                "--b",
                "1",
                "--a",
                "1,-1.5j",
                "--input",
                &p("x.npy"),
                "--output",
                &p("y.npy"),
            ],
            "unstable",
        ),
        (
            &[
                "--b",
                "1j",
                "--a",
                "1",
                "--input",
                &p("x.npy"),
                "--output",
                &p("y.wav"),
            ],
            "cannot be WAV",
        ),
        (
            &[
                "--b",
                "1",
                "--a",
                "1",
                "--zi",
                "1,2",
                "--input",
                &p("x.npy"),
                "--output",
                &p("y.npy"),
            ],
            "--zi",
        ),
    ];
    for (args, says) in cases {
        let mut full = vec!["--device", "cpu", "filter"];
        full.extend_from_slice(args);
        fails_with(&full, says);
    }
}
