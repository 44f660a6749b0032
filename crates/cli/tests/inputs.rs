//! What the commands do with inputs and outputs a user can get wrong, through the real binary:
//! integer WAV audio, WAV headers without a sample rate, `.npy` arrays in the other byte order
//! or with no values, outputs that are coefficient or code files, output names of another
//! format, stdout that fails or is closed, binary and endless code files, temporary files a
//! killed run left, and trailing zeros of a denominator.

mod common;
use common::*;
use std::path::Path;
use std::process::{Command, Stdio};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A canonical WAV file: PCM (`format` 1) or float (3) `samples` (little-endian bytes of
/// `bits`-bit samples), one channel at `rate` Hz.
fn wav(format: u16, bits: u16, rate: u32, samples: &[u8]) -> Vec<u8> {
    let block = bits / 8;
    let mut w = b"RIFF".to_vec();
    w.extend((36 + samples.len() as u32).to_le_bytes());
    w.extend(b"WAVEfmt ");
    w.extend(16u32.to_le_bytes());
    w.extend(format.to_le_bytes());
    w.extend(1u16.to_le_bytes());
    w.extend(rate.to_le_bytes());
    w.extend((rate * block as u32).to_le_bytes());
    w.extend(block.to_le_bytes());
    w.extend(bits.to_le_bytes());
    w.extend(b"data");
    w.extend((samples.len() as u32).to_le_bytes());
    w.extend(samples);
    w
}

fn pcm16(values: &[i16]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// A `.npy` file of f64 `values` with `shape`, in either byte order.
fn npy(shape: &[usize], values: &[f64], big_endian: bool) -> Vec<u8> {
    let bytes: Vec<u8> = match big_endian {
        true => values.iter().flat_map(|v| v.to_be_bytes()).collect(),
        false => values.iter().flat_map(|v| v.to_le_bytes()).collect(),
    };
    let descr = if big_endian { ">f8" } else { "<f8" };
    sigpu_runtime::npy::encode(descr, shape, &bytes)
}

fn f64s_of(path: &Path) -> Vec<f64> {
    let a = sigpu_runtime::npy::parse(&std::fs::read(path).unwrap(), |d| match d {
        "<f8" => Ok(8),
        other => Err(other.to_owned()),
    })
    .unwrap();
    (a.data.chunks_exact(8))
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

const FILTER: &str = "--device cpu filter";

/// `sigpu filter --dtype i32 --signature "(1 : 0)" --input a.wav --output o.wav` wrote
/// silence: the samples, scaled to [-1, 1), were truncated to 0. They are now the PCM
/// integers themselves, written back unchanged; clipping is warned about in text mode.
#[test]
fn integer_wav_audio_is_filtered_as_integers() {
    let dir = tempfile::tempdir().unwrap();
    let (a, o) = (dir.path().join("a.wav"), dir.path().join("o.wav"));
    let x = [1000i16, -2000, 32767, -32768, 7, 0];
    std::fs::write(&a, wav(1, 16, 8000, &pcm16(&x))).unwrap();
    let run = |sig: &str| {
        let args = line(FILTER, &["--dtype", "i32", "--signature", sig]);
        sigpu(&line(
            &args.join(" "),
            &["--input", s(&a), "--output", s(&o)],
        ))
    };
    let out = run("(1:0)");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(std::fs::read(&o).unwrap(), std::fs::read(&a).unwrap());
    // Doubled: the two full-scale samples clip, and text mode says so on stderr.
    let out = run("(2:0)");
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("warning: 2 of 6 samples (33.3%) were clipped"),
        "{err}"
    );
    let y = std::fs::read(&o).unwrap();
    assert_eq!(y[44..], pcm16(&[2000, -4000, 32767, -32768, 14, 0]));
    // A float WAV cannot be read as integers: refused with the way out.
    let f = dir.path().join("f.wav");
    std::fs::write(&f, wav(3, 32, 8000, &0.5f32.to_le_bytes())).unwrap();
    let args = line(FILTER, &["--dtype", "i64", "--signature", "(1:0)"]);
    fails_with(
        &line(&args.join(" "), &["--input", s(&f), "--output", s(&o)]),
        "filter it in f32 or f64",
    );
}

/// A WAV with sample rate 0 panicked (a division by zero in the writer, after the work); it
/// is refused when read, and nothing is written.
#[test]
fn a_wav_without_a_sample_rate_is_refused_when_read() {
    let dir = tempfile::tempdir().unwrap();
    let (a, o) = (dir.path().join("a.wav"), dir.path().join("o.wav"));
    let mut bytes = wav(1, 16, 8000, &pcm16(&[1, 2, 3]));
    bytes[24..32].fill(0);
    std::fs::write(&a, bytes).unwrap();
    let out = sigpu(&line(
        "--device cpu filter --signature (1:0.5) --input",
        &[s(&a), "--output", s(&o)],
    ));
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_mentions(&out, "sample rate of 0 Hz");
    assert!(!o.exists());
}

/// `--output` equal to the `--sos` file overwrote the coefficients; `ldpc export --output`
/// equal to its `--code` alist file destroyed the code. Both are refused, the file untouched.
#[test]
fn outputs_never_replace_a_coefficient_or_code_file() {
    let dir = tempfile::tempdir().unwrap();
    let (x, sos) = (dir.path().join("x.npy"), dir.path().join("sos.npy"));
    std::fs::write(&x, npy(&[4], &[1.0, 2.0, 3.0, 4.0], false)).unwrap();
    let coefficients = npy(&[1, 6], &[1.0, 0.0, 0.0, 1.0, -0.5, 0.0], false);
    std::fs::write(&sos, &coefficients).unwrap();
    let alias = dir.path().join("alias.npy");
    std::os::unix::fs::symlink(&sos, &alias).unwrap();
    for output in [&sos, &alias] {
        let args = line(FILTER, &["--sos", s(&sos), "--input", s(&x)]);
        fails_with(
            &line(&args.join(" "), &["--output", s(output)]),
            "is also --sos",
        );
    }
    assert_eq!(std::fs::read(&sos).unwrap(), coefficients);
    let code = dir.path().join("code.alist");
    ok(&line(
        "ldpc export --code dvbt2-short-1/2 --output",
        &[s(&code)],
    ));
    let before = std::fs::read(&code).unwrap();
    let args = ["ldpc", "export", "--code", s(&code), "--output", s(&code)];
    fails_with(&args, "is also --code");
    let args = ["ldpc", "encode", "--code", s(&code), "--input", s(&x)];
    fails_with(&line(&args.join(" "), &["--output", s(&code)]), "is also");
    assert_eq!(std::fs::read(&code).unwrap(), before);
}

/// `sigpu ldpc codes > /dev/full` panicked (exit 101), as did 11 other commands. Every
/// command now reports the failed write and exits 1; a closed stdout (`>&-`) is an error too.
#[test]
fn stdout_errors_are_errors_on_every_command() {
    if !Path::new("/dev/full").exists() {
        println!("SKIP: no /dev/full");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let x = dir.path().join("x.npy");
    std::fs::write(&x, npy(&[3], &[1.0, 2.0, 3.0], false)).unwrap();
    let y = dir.path().join("y.npy");
    let filter = format!("--device cpu filter --signature (1:0.5) --input {}", s(&x));
    let commands: Vec<(String, &str)> = vec![
        ("info".into(), ""),
        ("--json info".into(), ""),
        ("ldpc codes".into(), ""),
        ("ldpc codes --json".into(), ""),
        ("approx list".into(), ""),
        ("approx list --json".into(), ""),
        (
            "ldpc export --code dvbt2-short-1/2 --output /dev/null".into(),
            "",
        ),
        (format!("{filter} --output {}", s(&y)), ""),
        (format!("{filter} --output -"), ""),
        (format!("--json {filter} --output {}", s(&y)), ""),
        ("lns calc".into(), "1 + 2\n"),
        ("--help".into(), ""),
        ("--version".into(), ""),
        ("ldpc --help".into(), ""),
    ];
    let full = || {
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap()
    };
    for (args, input) in &commands {
        let mut child = Command::new(env!("CARGO_BIN_EXE_sigpu"))
            .args(args.split_whitespace())
            .stdin(Stdio::piped())
            .stdout(full())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        std::io::Write::write_all(&mut stdin, input.as_bytes()).unwrap();
        drop(stdin);
        let out = child.wait_with_output().unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{args}: {err}");
        assert!(
            err.contains("stdout") && err.contains("No space left") && !err.contains("panicked"),
            "{args}: {err}"
        );
    }
    // `>&-`: no descriptor 1 at all.
    let bin = env!("CARGO_BIN_EXE_sigpu");
    for args in ["ldpc codes", "info --json"] {
        let out = Command::new("bash")
            .args(["-c", &format!("'{bin}' {args} >&-")])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{args}");
        assert_mentions(&out, "stdout is closed");
    }
    // `> /dev/null` is a way to discard results, not an error.
    let out = Command::new(bin)
        .arg("info")
        .stdout(Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success());
}

/// A 128-byte .npy of shape (2^64 − 1, 0) panicked ("capacity overflow"); (2^40, 0) with --zf
/// aborted on a 4 TB allocation. Arrays with no values are refused when read.
#[test]
fn npy_arrays_without_values_are_refused_before_any_allocation() {
    let dir = tempfile::tempdir().unwrap();
    let (o, zf) = (dir.path().join("o.npy"), dir.path().join("zf.npy"));
    for shape in [[usize::MAX, 0], [1 << 40, 0]] {
        let x = dir.path().join("x.npy");
        std::fs::write(&x, npy(&shape, &[], false)).unwrap();
        let out = sigpu(&line(
            "--device cpu filter --signature (1:0.5) --input",
            &[s(&x), "--output", s(&o), "--zf", s(&zf)],
        ));
        assert_eq!(out.status.code(), Some(1), "{shape:?}: {}", stderr(&out));
        assert_mentions(&out, "holds no values");
        assert!(!o.exists() && !zf.exists());
    }
}

/// Big-endian arrays were refused with an internal message; scipy filters them. They are
/// byte-swapped on reading and give the little-endian array's output.
#[test]
fn big_endian_npy_is_filtered_like_little_endian() {
    let dir = tempfile::tempdir().unwrap();
    let x = [1.0, -2.5, 3.25, 0.0, 7.0];
    let (le, be) = (dir.path().join("le.npy"), dir.path().join("be.npy"));
    std::fs::write(&le, npy(&[5], &x, false)).unwrap();
    std::fs::write(&be, npy(&[5], &x, true)).unwrap();
    let (yl, yb) = (dir.path().join("yl.npy"), dir.path().join("yb.npy"));
    for (i, y) in [(&le, &yl), (&be, &yb)] {
        ok(&line(
            "--device cpu filter --b 1,0.5 --a 1,-0.25 --input",
            &[s(i), "--output", s(y)],
        ));
    }
    assert_eq!(f64s_of(&yb), f64s_of(&yl));
    assert_eq!(f64s_of(&yl)[..2], [1.0, -1.75]);
}

/// `--output y.wav` (or .txt, .csv) on a .npy input wrote NumPy data under that name. A
/// name of another format is written in that format or refused with the reason, and
/// `--output - --zf -` (two arrays back to back on stdout) is refused.
#[test]
fn outputs_are_in_the_format_their_name_says() {
    let dir = tempfile::tempdir().unwrap();
    let x = dir.path().join("x.npy");
    std::fs::write(&x, npy(&[3], &[1.0, 2.0, 3.0], false)).unwrap();
    let run = |output: &str| {
        sigpu(&line(
            "--device cpu filter --signature (1:0.5) --input",
            &[s(&x), "--output", output],
        ))
    };
    for (name, says) in [
        ("y.wav", "needs a sample rate"),
        ("y.txt", "names a text file"),
        ("y.csv", "names a text file"),
    ] {
        let y = dir.path().join(name);
        let out = run(s(&y));
        assert_eq!(out.status.code(), Some(1), "{name}");
        assert_mentions(&out, says);
        assert!(!y.exists(), "{name}");
    }
    // Raw values in, a .npy name out: a .npy file.
    let raw = dir.path().join("x.f64");
    std::fs::write(&raw, [1.0f64, 2.0].map(f64::to_le_bytes).concat()).unwrap();
    let y = dir.path().join("y.npy");
    ok(&line(
        "--device cpu filter --signature (1:0.5) --dtype f64 --input",
        &[s(&raw), "--output", s(&y)],
    ));
    assert_eq!(f64s_of(&y), [1.0, 2.5]);
    let out = run("-");
    assert!(out.status.success());
    fails_with(
        &line(
            "--device cpu filter --signature (1:0.5) --input",
            &[s(&x), "--output", "-", "--zf", "-"],
        ),
        "give --zf a file",
    );
}

/// A binary file given as `--code` said "stream did not contain valid UTF-8"; `/dev/zero` as
/// an alist was read without end. Both are refused naming the file and what was expected.
#[test]
fn code_files_are_capped_and_binary_ones_named() {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("code.alist");
    std::fs::write(&bin, b"\x89PNG\r\n\x1a\n\0\0").unwrap();
    let err = fails_with(
        &["ldpc", "export", "--code", s(&bin), "--output", "/dev/null"],
        "is not text (byte 0 is not UTF-8): expected an alist text file",
    );
    assert!(err.contains(s(&bin)), "{err}");
    let zero = dir.path().join("zero.alist");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    fails_with(
        &[
            "ldpc",
            "export",
            "--code",
            s(&zero),
            "--output",
            "/dev/null",
        ],
        "holds more than 64 MiB",
    );
}

/// SIGKILL left `.NAME.<random>.tmp` files that later runs never removed. The next write of
/// the same output removes those whose writer is gone.
#[test]
fn the_next_run_removes_what_a_killed_run_left() {
    let dir = tempfile::tempdir().unwrap();
    let x = dir.path().join("x.npy");
    std::fs::write(&x, npy(&[3], &[1.0, 2.0, 3.0], false)).unwrap();
    let mut child = Command::new("true").spawn().unwrap();
    let dead = child.id();
    child.wait().unwrap();
    let left = dir
        .path()
        .join(format!(".y.npy.{dead}.0123456789abcdef.tmp"));
    let f = std::fs::File::create(&left).unwrap();
    f.set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(300))
        .unwrap();
    let y = dir.path().join("y.npy");
    ok(&line(
        "--device cpu filter --signature (1:0.5) --input",
        &[s(&x), "--output", s(&y)],
    ));
    assert!(!left.exists(), "the killed run's temporary file is gone");
    assert!(y.exists());
}

/// Trailing zeros of `a` counted toward the order cap (scipy accepts them): a first-order
/// filter padded to 70 coefficients was refused. It runs, as the unpadded filter does, with
/// scipy's state length (69 + 1 values of zf).
#[test]
fn trailing_zeros_of_a_do_not_count_toward_the_order_cap() {
    let dir = tempfile::tempdir().unwrap();
    let x = dir.path().join("x.npy");
    let values: Vec<f64> = (0..100).map(|i| ((i * 7) % 11) as f64 - 5.0).collect();
    std::fs::write(&x, npy(&[100], &values, false)).unwrap();
    let padded = format!("1,-0.5{}", ",0".repeat(69));
    let (y1, y2, zf) = (
        dir.path().join("y1.npy"),
        dir.path().join("y2.npy"),
        dir.path().join("zf.npy"),
    );
    let run = |a: &str, y: &Path| {
        ok(&line(
            "--device cpu filter --b 1,0.25 --a",
            &[a, "--input", s(&x), "--output", s(y), "--zf", s(&zf)],
        ))
    };
    run("1,-0.5", &y1);
    run(&padded, &y2);
    assert_eq!(f64s_of(&zf).len(), 70);
    let (a, b) = (f64s_of(&y1), f64s_of(&y2));
    let worst = a
        .iter()
        .zip(&b)
        .map(|(p, q)| (p - q).abs())
        .fold(0.0, f64::max);
    assert!(worst <= 1e-12, "{worst}");
}
