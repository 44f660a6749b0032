//! Fuzzing `sigpu lns calc`'s input lines through the command itself: every case is a batch of
//! mutated lines on stdin; the command must answer (exit 0, or 1 when a line is bad) without a
//! panic, a hang or unbounded memory. `scripts/fuzz` runs this longer.

use sigpu_runtime::fuzz;
use std::io::Write;
use std::process::{Command, Stdio};

#[test]
fn fuzz_lns_calc_lines() {
    // scripts/fuzz runs a copy, so a rebuild of target/debug/sigpu meanwhile cannot fail a case.
    let sigpu = std::env::var_os("SIGPU_FUZZ_BIN")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_sigpu").into());
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
    // SAFETY: getrusage fills the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    let mib = usage.ru_maxrss as f64 / 1024.0;
    println!("fuzz lns calc lines: peak resident memory of a `sigpu lns calc` run {mib:.1} MiB");
    assert!(mib < 1024.0, "a calculator run peaked at {mib:.0} MiB");
}
