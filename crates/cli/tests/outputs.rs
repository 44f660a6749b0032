//! How every command writes its outputs, through the real
//! binary: devices and symlinks, planted links in shared directories, outputs that are inputs
//! or each other, checks before any work, signals, the sweep file's lock and resume rule, and a
//! closed stdout.

mod common;
use common::*;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

const EXPORT: &str = "ldpc export --code dvbt2-short-1/2 --output";

/// Finding 1: a device is written in place (and its errors reported), a symlink's target is
/// replaced through the link.
#[test]
fn devices_are_written_in_place_and_symlinks_followed() {
    ok(&line(EXPORT, &["/dev/null"]));
    let m = std::fs::metadata("/dev/null").unwrap();
    assert!(
        m.file_type().is_char_device(),
        "/dev/null is still a device"
    );
    if Path::new("/dev/full").exists() {
        fails_with(&line(EXPORT, &["/dev/full"]), "No space left");
    }
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real.alist");
    std::fs::write(&real, "stale").unwrap();
    let link = dir.path().join("link.alist");
    std::os::unix::fs::symlink("real.alist", &link).unwrap();
    ok(&line(EXPORT, &[s(&link)]));
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    let text = std::fs::read_to_string(&real).unwrap();
    assert!(text.starts_with("16200 9000"), "{}", &text[..40]);
    assert_eq!(entries(dir.path()), ["link.alist", "real.alist"]);
}

/// Finding 2: in a shared (1777) directory, symlinks planted at the names the old writer used
/// for its temporary file, and another user's symlink at the output itself, are never followed.
#[test]
fn planted_symlinks_in_a_shared_directory_are_never_followed() {
    let dir = tempfile::tempdir().unwrap();
    let shared = dir.path().join("shared");
    std::fs::create_dir(&shared).unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o1777)).unwrap();
    let victim = dir.path().join("victim");
    std::fs::write(&victim, "precious").unwrap();
    // The old names were `.NAME.PID.N.tmp`: plant a range of pids around ours.
    let out = shared.join("code.alist");
    for pid in 0..200 {
        let name = format!(".code.alist.{}.0.tmp", std::process::id() + pid);
        std::os::unix::fs::symlink(&victim, shared.join(name)).unwrap();
    }
    ok(&line(EXPORT, &[s(&out)]));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    assert!(std::fs::read_to_string(&out)
        .unwrap()
        .starts_with("16200 9000"));
    // Another user's link at the output name (we may be root: the kernel's protected_symlinks
    // rule, which sigpu applies itself when it resolves the link).
    let trap = shared.join("trap.alist");
    std::os::unix::fs::symlink(&victim, &trap).unwrap();
    if std::os::unix::fs::lchown(&trap, Some(54321), Some(54321)).is_ok() {
        fails_with(&line(EXPORT, &[s(&trap)]), "owned by another user");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    }
}

/// Finding 3: an output that is also an input, or another output, is refused before any work.
#[test]
fn an_output_that_is_an_input_or_another_output_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let same = dir.path().join("same.npy");
    let input = dir.path().join("in.npy");
    let npy = sigpu_runtime_npy(&[1.0, 2.0, 3.0]);
    std::fs::write(&input, &npy).unwrap();
    let err = fails_with(
        &line(
            "filter --signature (1:0.5) --device cpu --input",
            &[s(&input), "--output", s(&same), "--zf", s(&same)],
        ),
        "are the same file",
    );
    assert!(err.contains("--output") && err.contains("--zf"), "{err}");
    assert!(!same.exists(), "nothing was written");
    fails_with(
        &line(
            "filter --signature (1:0.5) --device cpu --input",
            &[s(&input), "--output", s(&input)],
        ),
        "is also --input",
    );
    assert_eq!(
        std::fs::read(&input).unwrap(),
        npy,
        "the input is untouched"
    );

    let sweep = dir.path().join("sweep.json");
    ok(&line(
        "ldpc simulate --code dvbt2-short-1/2 --snr 4 --max-frames 8 --min-errors 1 --batch 8 --iterations 5 --threads 1 --out",
        &[s(&sweep)],
    ));
    let before = std::fs::read(&sweep).unwrap();
    fails_with(
        &line("ldpc plot --input", &[s(&sweep), "--output", s(&sweep)]),
        "is also --input",
    );
    assert_eq!(std::fs::read(&sweep).unwrap(), before);
    // Through a symlink, too.
    let alias = dir.path().join("alias.json");
    std::os::unix::fs::symlink(&sweep, &alias).unwrap();
    fails_with(
        &line("ldpc plot --input", &[s(&sweep), "--output", s(&alias)]),
        "is also --input",
    );
    // /dev/null may take two outputs.
    ok(&line(
        "filter --signature (1:0.5) --device cpu --input",
        &[s(&input), "--output", "/dev/null", "--zf", "/dev/null"],
    ));
}

/// A 1-D float64 .npy of `values`.
fn sigpu_runtime_npy(values: &[f64]) -> Vec<u8> {
    let header = format!(
        "{{'descr': '<f8', 'fortran_order': False, 'shape': ({},), }}",
        values.len()
    );
    let mut h = header.into_bytes();
    while (10 + h.len() + 1) % 64 != 0 {
        h.push(b' ');
    }
    h.push(b'\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend((h.len() as u16).to_le_bytes());
    out.extend(h);
    for v in values {
        out.extend(v.to_le_bytes());
    }
    out
}

/// A sweep that would run for minutes: any error that comes back fast came before the work.
const LONG_SWEEP: &str = "ldpc simulate --code dvbt2-normal-1/2 --snr 0:3:0.5 --max-frames 1000000 --min-errors 1000000 --threads 1";

/// Finding 4: an unwritable or missing output place is found before any work, naming the flag;
/// no directory is created.
#[test]
fn unwritable_outputs_are_found_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(Vec<&str>, &str); 4] = [
        (vec!["--out", s(dir.path())], "--out"),
        (vec!["--plot", s(dir.path())], "--plot"),
        (
            vec!["--out", "/nonexistent-sigpu/typo/sweep.json"],
            "does not exist",
        ),
        (vec!["--plot", "/proc/sigpu.svg"], "--plot"),
    ];
    for (args, text) in cases {
        let t = Instant::now();
        let err = fails_with(&line(LONG_SWEEP, &args), text);
        assert!(t.elapsed() < Duration::from_secs(20), "{args:?}: {err}");
    }
    assert!(
        !Path::new("/nonexistent-sigpu").exists(),
        "no directory made"
    );
    let typo = dir.path().join("typo");
    fails_with(
        &line(EXPORT, &[s(&typo.join("code.alist"))]),
        "does not exist",
    );
    assert!(!typo.exists());
    // A --plot DIR must exist too (the --from file exists: inputs are checked first).
    let from = dir.path().join("x.json");
    std::fs::write(&from, "{}").unwrap();
    fails_with(
        &line(
            "bench filter --device cpu --from",
            &[s(&from), "--plot", s(&typo)],
        ),
        "no such directory",
    );
    // A missing input is named by its flag, before any work.
    fails_with(
        &line(
            "bench filter --device cpu --from",
            &["missing.json", "--plot", s(dir.path())],
        ),
        "--from missing.json: cannot read: No such file",
    );
    assert!(!typo.exists());
}

fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_sigpu"))
        .args(args)
        .env_remove("SIGPU_REQUIRE_GPU")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("sigpu starts")
}

fn wait_for(path: &Path, child: &mut Child) {
    let t = Instant::now();
    while !path.exists() {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("sigpu ended early ({status}) before {}", path.display());
        }
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "no {}",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Findings 5 and 8: while a sweep runs its --out is locked (a second sweep on the file is
/// refused and the first loses nothing); SIGTERM / SIGINT end it with the signal's status and
/// leave no temporary or lock file behind.
#[test]
fn a_running_sweep_locks_its_file_and_cleans_up_on_signals() {
    for signal in [libc::SIGTERM, libc::SIGINT] {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("sweep.json");
        let mut first = spawn(&line(LONG_SWEEP, &["--out", s(&out)]));
        let lock = dir.path().join(".sweep.json.lock");
        wait_for(&lock, &mut first);
        let err = fails_with(
            &line(
                "ldpc simulate --code dvbt2-short-1/2 --snr 1 --max-frames 8 --out",
                &[s(&out)],
            ),
            "being written by another process",
        );
        assert!(err.contains(&format!("pid {}", first.id())), "{err}");
        // SAFETY: kill on the pid of a child this test started and has not reaped.
        unsafe { libc::kill(first.id() as i32, signal) };
        let status = first.wait().unwrap();
        assert_eq!(status.signal(), Some(signal), "{status}");
        let left: Vec<_> = entries(dir.path())
            .into_iter()
            .filter(|n| n.starts_with('.'))
            .collect();
        assert!(left.is_empty(), "left behind: {left:?}");
    }
}

/// Finding 8: a resume with another stopping rule runs the file's points again and says so.
#[test]
fn resume_with_another_stopping_rule_runs_the_points_again() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sweep.json");
    let run = "ldpc simulate --code dvbt2-short-1/2 --snr 5 --min-errors 1000 --batch 8 --iterations 5 --threads 1 --resume --max-frames";
    ok(&line(run, &["8", "--out", s(&out)]));
    let again = ok(&line(run, &["16", "--out", s(&out)]));
    let err = stderr(&again);
    assert!(err.contains("running it again"), "{err}");
    assert!(
        err.contains("--max-frames 8") && err.contains("--max-frames 16"),
        "{err}"
    );
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(v["max_frames"], 16);
    assert_eq!(v["points"][0]["frames"], 16);
    // The same rule: the point is kept (shown as kept), not run again.
    let same = ok(&line(run, &["16", "--out", s(&out)]));
    assert!(!stderr(&same).contains("running it again"));
    let text = String::from_utf8_lossy(&same.stdout);
    assert!(
        text.contains("16 frames") && text.contains(&format!("(kept from {})", s(&out))),
        "{text}"
    );
}

/// Finding 14: a closed stdout ends the command quietly (SIGPIPE, as `head` expects of any
/// program), never with a panic.
#[test]
fn a_closed_stdout_ends_commands_quietly() {
    let cases: [(&[&str], &str); 3] = [
        (&["ldpc", "codes", "--json"], ""),
        (&["approx", "list", "--json"], ""),
        (&["lns", "calc"], "1 + 2\n3 * 4\n"),
    ];
    for (args, input) in cases {
        // A pipe whose reader is gone before the command starts (`| head -0`), so its first
        // write fails whatever the timing (a reader closed after the spawn can lose the race to
        // a short output that fits in the pipe's buffer).
        let mut fds = [0; 2];
        // SAFETY: pipe(2) fills the two descriptors, each owned once below.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        // SAFETY: fds[0] and fds[1] are open and owned by nobody else.
        let (reader, writer) = unsafe {
            use std::os::fd::FromRawFd;
            (
                std::os::fd::OwnedFd::from_raw_fd(fds[0]),
                std::os::fd::OwnedFd::from_raw_fd(fds[1]),
            )
        };
        drop(reader);
        let mut child = Command::new(env!("CARGO_BIN_EXE_sigpu"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::from(writer))
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        std::io::Write::write_all(&mut stdin, input.as_bytes()).unwrap();
        drop(stdin);
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_eq!(out.status.signal(), Some(libc::SIGPIPE), "{args:?}: {err}");
    }
    // Through a shell, as the issue ran it: `head` gets its line, the status is 141.
    let bin = env!("CARGO_BIN_EXE_sigpu");
    let out = Command::new("bash")
        .args([
            "-c",
            &format!("set -o pipefail; '{bin}' ldpc codes --json | head -1"),
        ])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "[");
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    assert!(
        matches!(out.status.code(), Some(0 | 141)),
        "{:?}",
        out.status
    );
}
