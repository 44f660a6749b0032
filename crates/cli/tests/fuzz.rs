//! Fuzzing through the command itself: `sigpu lns calc`'s input lines (every case a batch of
//! mutated lines on stdin), and `sigpu filter`'s input files (mutated .npy arrays — big-endian,
//! odd offsets, shapes with no values — and WAV headers, filtered with --zf). The command must
//! answer (exit 0, or 1 with an error) without a panic, an abort, a hang or unbounded memory.
//! `scripts/fuzz` runs these longer.

use sigpu_runtime::fuzz;
use std::io::Write;
use std::process::{Command, Stdio};

/// The binary under test: scripts/fuzz runs a copy, so a rebuild of target/debug/sigpu
/// meanwhile cannot fail a case.
fn binary() -> std::path::PathBuf {
    std::env::var_os("SIGPU_FUZZ_BIN")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_sigpu").into())
}

/// Peak resident memory of the child processes so far, MiB.
fn children_peak_mib() -> f64 {
    // SAFETY: getrusage fills the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    usage.ru_maxrss as f64 / 1024.0
}

#[test]
fn fuzz_lns_calc_lines() {
    let sigpu = binary();
    let seed = "1 + 2\n3.5 * -2\n# a comment\n\n0.001 / 7\n-4 - 1e-3\n1e30 + 1e-30\n";
    let dict = ["+", "-", "*", "/", "\n", " ", "#"];
    fuzz::run(
        "lns calc lines",
        &[seed.as_bytes().to_vec()],
        &dict,
        1 << 16,
        |b| {
            let mut child = Command::new(&sigpu)
                .args(["lns", "calc", "--format", "lns32"])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("sigpu starts");
            let mut stdin = child.stdin.take().expect("stdin");
            let input = b.to_vec();
            // Written from a thread: the command may answer before reading everything.
            let writer = std::thread::spawn(move || {
                let _ = stdin.write_all(&input);
            });
            let out = child.wait_with_output().expect("sigpu runs");
            let _ = writer.join();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(!stderr.contains("panicked"), "{stderr}");
            assert!(
                matches!(out.status.code(), Some(0 | 1)),
                "status {:?}: {stderr}",
                out.status
            );
            out.status.success()
        },
    );
    // The calculator runs in child processes: their peak resident memory, all cases together.
    let mib = children_peak_mib();
    println!("fuzz lns calc lines: peak resident memory of a `sigpu lns calc` run {mib:.1} MiB");
    assert!(mib < 1024.0, "a calculator run peaked at {mib:.0} MiB");
}

/// A canonical one-channel 16-bit PCM WAV file of `samples` at `rate` Hz.
fn wav16(rate: u32, samples: &[i16]) -> Vec<u8> {
    let data: Vec<u8> = samples.iter().flat_map(|v| v.to_le_bytes()).collect();
    let mut w = b"RIFF".to_vec();
    w.extend((36 + data.len() as u32).to_le_bytes());
    w.extend(b"WAVEfmt ");
    w.extend(16u32.to_le_bytes());
    w.extend([1u8, 0, 1, 0]);
    w.extend(rate.to_le_bytes());
    w.extend((rate * 2).to_le_bytes());
    w.extend([2u8, 0, 16, 0]);
    w.extend(b"data");
    w.extend((data.len() as u32).to_le_bytes());
    w.extend(data);
    w
}

#[test]
fn fuzz_filter_input_files() {
    let sigpu = binary();
    let dir = tempfile::tempdir().expect("a scratch directory");
    let mut seeds = fuzz::npy_seeds();
    seeds.push(wav16(8000, &[1000, -2000, 32767, -32768, 7]));
    seeds.push(wav16(0, &[1, 2, 3]));
    let mut dict = fuzz::NPY_TOKENS.to_vec();
    dict.extend(["RIFF", "WAVE", "fmt ", "data", "\x00\x00\x00\x00"]);
    let (out, zf) = (dir.path().join("y"), dir.path().join("zf.npy"));
    fuzz::run("filter input files", &seeds, &dict, 4096, |b| {
        // The extension the reader goes by: WAV for what starts like one.
        let wav = b.starts_with(b"RIFF");
        let ext = if wav { "wav" } else { "npy" };
        let input = dir.path().join(format!("x.{ext}"));
        std::fs::write(&input, b).expect("the input is written");
        // An integer type for inputs of even length: WAV read as integers, .npy converted.
        let dtype = if b.len() % 2 == 0 { "i32" } else { "f64" };
        let output = out.with_extension(ext);
        let result = Command::new(&sigpu)
            .args([
                "--device",
                "cpu",
                "filter",
                "--signature",
                "(1 : 0)",
                "--dtype",
                dtype,
            ])
            .arg("--input")
            .arg(&input)
            .arg("--output")
            .arg(&output)
            .arg("--zf")
            .arg(&zf)
            .stdin(Stdio::null())
            .output()
            .expect("sigpu runs");
        let stderr = String::from_utf8_lossy(&result.stderr);
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(
            matches!(result.status.code(), Some(0 | 1)),
            "status {:?}: {stderr}",
            result.status
        );
        result.status.success()
    });
    let mib = children_peak_mib();
    println!("fuzz filter input files: peak resident memory of a `sigpu filter` run {mib:.1} MiB");
    assert!(mib < 1024.0, "a filter run peaked at {mib:.0} MiB");
}
