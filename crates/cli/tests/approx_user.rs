//! `sigpu approx tune --source …`: every argument error is named before a GPU is needed.

mod common;

use common::{sigpu, stderr};

fn fixture(name: &str) -> String {
    format!(
        "{}/../approx/tests/fixtures/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn fails(args: &[&str], want: &str) -> String {
    let out = sigpu(args);
    let err = stderr(&out);
    // A usage error (2) from clap or a named error (1) from the command: never a panic (101).
    assert!(
        matches!(out.status.code(), Some(1) | Some(2)),
        "{:?}: {err}",
        out.status
    );
    assert!(err.contains(want), "{args:?}: wanted {want:?} in:\n{err}");
    err
}

#[test]
fn user_tune_names_the_bad_argument() {
    let src = fixture("activation.cu");
    let base = |extra: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = [
            "approx",
            "tune",
            "--source",
            &src,
            "--kernel",
            "softplus_gelu",
            "--grid",
            "4",
            "--block",
            "256",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        v.extend(extra.iter().map(|s| s.to_string()));
        v
    };
    let run = |extra: &[&str], want: &str| {
        let v = base(extra);
        let args: Vec<&str> = v.iter().map(String::as_str).collect();
        fails(&args, want)
    };
    run(
        &[
            "--args",
            "in:/nonexistent/x.npy",
            "out:f32:1024",
            "i32:1024",
        ],
        "argument 1 (\"in:/nonexistent/x.npy\")",
    );
    run(
        &["--args", "out:f32:1024", "i32:ten"],
        "argument 2 (\"i32:ten\")",
    );
    run(&["--args", "out:f16:8"], "\"f16\"");
    run(&["--args", "out:f32:8", "--metric", "l1"], "--metric");
    run(&["--args", "out:f32:8", "f32:-0.5", "--qos", "-1"], "--qos");
    // Flags after --args end the list (a spec never starts with '-').
    run(
        &["--args", "in:/nonexistent/x.npy", "--metric", "psnr"],
        "argument 1 (\"in:/nonexistent/x.npy\")",
    );
    run(&["--args", "out:f32:8", "--qos-ratio", "2"], "--qos-ratio");
    run(
        &["--args", "out:f32:8", "--holdout-args", "in:"],
        "--holdout-args",
    );
    let v = base(&[]);
    let args: Vec<&str> = v.iter().map(String::as_str).collect();
    fails(&args, "--args");
    fails(
        &[
            "approx",
            "tune",
            "--source",
            &src,
            "--grid",
            "1",
            "--block",
            "32",
            "--args",
            "out:f32:8",
        ],
        "--kernel",
    );
    fails(
        &[
            "approx", "tune", "--source", &src, "--kernel", "k", "--grid", "0", "--block", "32",
        ],
        "extent >= 1",
    );
    fails(
        &[
            "approx",
            "tune",
            "--source",
            "/nonexistent.cu",
            "--kernel",
            "k",
            "--grid",
            "1",
            "--block",
            "32",
            "--args",
            "out:f32:8",
        ],
        "--source",
    );
    fails(
        &["approx", "tune", "--app", "nbody", "--source", &src],
        "cannot be used with",
    );
}

#[test]
fn energy_seconds_must_be_a_bounded_number_for_apps_and_user_kernels() {
    let src = fixture("activation.cu");
    // An infinite stretch would never end; NaN and negatives are no length.
    for bad in ["inf", "nan", "-1", "61", "soon"] {
        let err = fails(
            &["approx", "tune", "--app", "nbody", "--energy-seconds", bad],
            "--energy-seconds",
        );
        assert!(err.contains("[0, 60]"), "{bad}: {err}");
        fails(
            &[
                "approx",
                "tune",
                "--source",
                &src,
                "--kernel",
                "softplus_gelu",
                "--grid",
                "4",
                "--block",
                "256",
                "--args",
                "out:f32:8",
                "--energy-seconds",
                bad,
            ],
            "--energy-seconds",
        );
    }
}
