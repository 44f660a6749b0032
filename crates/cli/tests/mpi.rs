//! `sigpu ldpc simulate` and `sigpu lns certify` under `mpirun`: built with `--features mpi`
//! these run Open MPI's `mpirun` with 1, 2 and 3 ranks (oversubscribed on a 2-core machine);
//! `scripts/test` installs Open MPI where it can and builds this feature. Without the feature,
//! only the check that a binary without MPI refuses to run under a launcher.

mod common;

use common::*;
use std::process::Command;
#[cfg(feature = "mpi")]
use std::{path::Path, process::Output};

/// Refused: every process of `mpirun -n 2` would run the whole sweep.
#[cfg(not(feature = "mpi"))]
#[test]
fn a_binary_without_mpi_refuses_to_run_under_a_launcher() {
    let out = Command::new(env!("CARGO_BIN_EXE_sigpu"))
        .args([
            "ldpc",
            "simulate",
            "--code",
            "dvbt2-short-1/2",
            "--snr",
            "3",
        ])
        .env("OMPI_COMM_WORLD_SIZE", "2")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert_mentions(&out, "built without MPI");
    assert_mentions(&out, "--features mpi");
}

/// `mpirun` for `ranks` ranks running sigpu with `args`, or `None` (SKIP printed) where
/// there is no `mpirun`.
#[cfg(feature = "mpi")]
fn mpirun(ranks: usize, args: &[&str]) -> Option<Command> {
    let found = Command::new("mpirun").arg("--version").output();
    if !found.is_ok_and(|o| o.status.success()) {
        println!("SKIP mpi: no mpirun on this machine (scripts/test installs Open MPI)");
        return None;
    }
    let mut c = Command::new("mpirun");
    c.args([
        "-n",
        &ranks.to_string(),
        "--oversubscribe",
        "--bind-to",
        "none",
    ])
    .arg(env!("CARGO_BIN_EXE_sigpu"))
    .args(args)
    // Root in CI; containers without the kernel's cross-memory attach.
    .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
    .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    .env("OMPI_MCA_btl_vader_single_copy_mechanism", "none")
    .env_remove("SIGPU_REQUIRE_GPU");
    Some(c)
}

#[cfg(feature = "mpi")]
fn run(c: &mut Command) -> Output {
    let out = c.output().expect("mpirun runs");
    assert!(out.status.success(), "{c:?}: {}", stderr(&out));
    out
}

/// The counts of a sweep file's points (everything but the timings).
#[cfg(feature = "mpi")]
fn counts(path: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut sweep: serde_json::Value = serde_json::from_str(&text).unwrap();
    let points = sweep["points"].as_array_mut().unwrap();
    for p in points.iter_mut() {
        let p = p.as_object_mut().unwrap();
        for timing in ["seconds", "frames_per_s", "info_mbps", "coded_mbps"] {
            p.remove(timing);
        }
    }
    points.clone()
}

/// The points a sweep file holds so far (0 while it is not written yet).
#[cfg(feature = "mpi")]
fn points_in(path: &Path) -> usize {
    std::fs::read_to_string(path).map_or(0, |t| t.matches("\"es_n0_db\"").count())
}

/// Waits (five minutes at most) until a running sweep has written its first point to `out`.
#[cfg(feature = "mpi")]
fn wait_for_a_point(out: &Path) {
    let start = std::time::Instant::now();
    while points_in(out) == 0 && start.elapsed().as_secs() < 300 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// A short-code sweep with a point that stops on frame errors mid-way (Es/N0 2.1 dB, at its
/// 20th frame error, inside a batch: each rank count makes other batches) and one that runs to
/// --max-frames (4 dB). The decoder is the paper's 8-bit flooding min-sum, whose waterfall puts
/// those points there (the default layered decoder makes too few errors at 2.1 dB).
#[cfg(feature = "mpi")]
const SWEEP: &str = "ldpc simulate --device cpu --code dvbt2-short-1/2 --iterations 10 \
                     --decoder ms --schedule flooding --scale 4 \
                     --snr 2.1,4 --min-errors 20 --max-frames 700 --seed 5";

#[cfg(feature = "mpi")]
#[test]
fn counts_are_equal_on_1_2_and_3_ranks_and_to_one_process() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain.json");
    let args: Vec<&str> = SWEEP.split_whitespace().collect();
    let plain_arg = plain.to_str().unwrap();
    ok(&[&args[..], &["--out", plain_arg]].concat());
    let want = counts(&plain);
    assert_eq!(want.len(), 2);
    assert!(want[0]["frame_errors"].as_u64().unwrap() >= 20);
    assert!(want[0]["frames"].as_u64().unwrap() < 700, "{want:?}");
    assert_eq!(want[1]["frames"], 700);
    for ranks in [1, 2, 3] {
        let out = dir.path().join(format!("ranks{ranks}.json"));
        let out_arg = out.to_str().unwrap().to_owned();
        let Some(mut c) = mpirun(ranks, &args) else {
            return;
        };
        c.args(["--out", &out_arg]);
        let printed = run(&mut c);
        assert_eq!(counts(&out), want, "{ranks} ranks");
        // Rank 0 alone prints the points.
        let lines = String::from_utf8_lossy(&printed.stdout).lines().count();
        assert_eq!(lines, 2, "{ranks} ranks");
    }
}

/// A 5G NR block on the same machinery: a point that stops on frame errors inside a batch
/// (Eb/N0 -0.5 dB) and one that runs to --max-frames, two rvs combined, 16-QAM.
#[cfg(feature = "mpi")]
const NR_SWEEP: &str = "ldpc simulate --code nr:k=100,n=300 --rv 0,2 --modulation 16qam \
                        --iterations 8 --eb-n0=-0.5,3 --min-errors 15 --max-frames 300 \
                        --batch 16 --seed 5";

#[cfg(feature = "mpi")]
#[test]
fn nr_counts_are_equal_on_2_ranks_and_to_one_process() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain.json");
    let args: Vec<&str> = NR_SWEEP.split_whitespace().collect();
    ok(&[&args[..], &["--out", plain.to_str().unwrap()]].concat());
    let want = counts(&plain);
    assert_eq!(want.len(), 2);
    assert!(want[0]["frame_errors"].as_u64().unwrap() >= 15, "{want:?}");
    assert!(want[0]["frames"].as_u64().unwrap() < 300, "{want:?}");
    let out = dir.path().join("ranks.json");
    let Some(mut c) = mpirun(2, &args) else {
        return;
    };
    c.args(["--out", out.to_str().unwrap()]);
    run(&mut c);
    assert_eq!(counts(&out), want);
}

/// A sweep of six points that run to --max-frames (long enough to be stopped after the
/// first), with `seed`, and where its file goes: a new directory and its `sweep.json`.
#[cfg(feature = "mpi")]
fn long_sweep(seed: &'static str) -> (Vec<&'static str>, tempfile::TempDir, std::path::PathBuf) {
    let sweep = "ldpc simulate --device cpu --code dvbt2-short-1/2 --iterations 10 \
                 --snr 3:3.5:0.1 --min-errors 1000 --max-frames 1536 --batch 64 --seed";
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sweep.json");
    (sweep.split_whitespace().chain([seed]).collect(), dir, out)
}

#[cfg(feature = "mpi")]
#[test]
fn a_killed_run_resumes_on_another_number_of_ranks() {
    let (args, dir, out) = long_sweep("2");
    let out_arg = out.to_str().unwrap();
    let Some(mut c) = mpirun(2, &[&args[..], &["--out", out_arg]].concat()) else {
        return;
    };
    let mut child = c
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    wait_for_a_point(&out);
    // SAFETY: kill(2) on the child's pid.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let status = child.wait().unwrap();
    let kept = points_in(&out);
    assert!(
        !status.success() && (1..6).contains(&kept),
        "{status:?}, {kept} points"
    );
    let Some(mut c) = mpirun(3, &[&args[..], &["--out", out_arg, "--resume"]].concat()) else {
        return;
    };
    let resumed = run(c.stdout(std::process::Stdio::piped()));
    // Points kept from the file are printed too, marked "(kept from …)".
    let text = String::from_utf8_lossy(&resumed.stdout);
    let ran = text.lines().filter(|l| !l.contains("(kept from")).count();
    assert_eq!(text.lines().count(), 6, "every point is printed: {text}");
    assert_eq!(ran, 6 - kept, "the points in the file are not run again");
    let plain = dir.path().join("plain.json");
    ok(&[&args[..], &["--out", plain.to_str().unwrap()]].concat());
    assert_eq!(counts(&out), counts(&plain));
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 2, "no temporary file is left: {names:?}");
}

/// The processes of this machine whose environment holds `key=value` and `rank`.
#[cfg(feature = "mpi")]
fn pids_of(mark: &str, rank: usize) -> Vec<i32> {
    let rank = format!("OMPI_COMM_WORLD_RANK={rank}");
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            let env = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
            let vars: Vec<&[u8]> = env.split(|&b| b == 0).collect();
            vars.contains(&mark.as_bytes()) && vars.contains(&rank.as_bytes())
        })
        .collect()
}

#[cfg(feature = "mpi")]
#[test]
fn a_rank_that_dies_fails_the_run_and_the_file_keeps_the_finished_points() {
    let (args, _dir, out) = long_sweep("3");
    let Some(mut c) = mpirun(3, &[&args[..], &["--out", out.to_str().unwrap()]].concat()) else {
        return;
    };
    let mark = format!("SIGPU_MPI_TEST_RUN={}", std::process::id());
    let (key, value) = mark.split_once('=').unwrap();
    let child = c
        .env(key, value)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_a_point(&out);
    let victims = pids_of(&mark, 2);
    assert_eq!(victims.len(), 1, "rank 2's process");
    // SAFETY: kill(2) on a process this test started (through mpirun).
    unsafe { libc::kill(victims[0], libc::SIGKILL) };
    let done = child.wait_with_output().unwrap();
    assert!(!done.status.success());
    let err = stderr(&done);
    assert!(err.contains("rank 2") && err.contains("signal 9"), "{err}");
    let kept = counts(&out);
    assert!((1..6).contains(&kept.len()), "{} points", kept.len());
}

#[cfg(feature = "mpi")]
#[test]
fn certificates_are_equal_on_3_ranks_and_to_one_process() {
    let args = [
        "lns", "certify", "--device", "cpu", "--format", "lns16", "--json",
    ];
    let want = ok_json(&args);
    let Some(mut c) = mpirun(3, &args) else {
        return;
    };
    let got = stdout_json(&run(&mut c));
    assert_eq!(got, want);
    assert!(want.as_array().is_some_and(|a| a.len() >= 4), "{want}");
}
