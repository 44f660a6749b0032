//! Runs the real `sigpu` binary, as a user would.

use serde_json::Value;
use std::process::{Command, Output};

fn sigpu(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sigpu"))
        .args(args)
        .env_remove("SIGPU_REQUIRE_GPU")
        .output()
        .expect("the sigpu binary runs")
}

fn stdout_json(out: &Output) -> Value {
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn gpu_usable() -> bool {
    stdout_json(&sigpu(&["info", "--json"]))["cuda"]["available"] == true
}

#[test]
fn info_json_reports_host_and_cuda_status() {
    let out = sigpu(&["info", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v = stdout_json(&out);
    assert!(v["host"]["threads"].as_u64().unwrap() >= 1);
    assert!(v["host"]["simd"]["avx2"].is_boolean());
    let cuda = &v["cuda"];
    match cuda["available"]
        .as_bool()
        .expect("cuda.available is a boolean")
    {
        true => assert!(!cuda["devices"].as_array().unwrap().is_empty()),
        false => {
            let reason = cuda["reason"].as_str().expect("cuda.reason says why");
            assert!(
                reason.contains("driver") || reason.contains("device") || reason.contains("NVRTC"),
                "{reason}"
            );
        }
    }
}

#[test]
fn info_text_names_the_gpu_state() {
    let out = sigpu(&["info"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("SIMD:") && text.contains("GPU:"), "{text}");
}

#[test]
fn bad_device_is_a_usage_error_naming_it() {
    let out = sigpu(&["--device", "tpu:0", "info"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("tpu:0"), "{}", stderr(&out));
}

#[test]
fn check_lists_the_texture_round_trip() {
    let out = sigpu(&["check", "--list"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("runtime/tex2d_linear_f32"));
}

#[test]
fn check_filter_matching_nothing_is_an_error() {
    let out = sigpu(&["check", "--filter", "no-such-check"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("no-such-check"), "{}", stderr(&out));
}

#[test]
fn check_skips_without_gpu_unless_required() {
    if gpu_usable() {
        let out = sigpu(&["check", "--json"]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
        assert_eq!(stdout_json(&out)["failed"], 0);
        return;
    }
    let out = sigpu(&["check"]);
    assert!(out.status.success());
    assert!(stderr(&out).contains("SKIP"), "{}", stderr(&out));
    let required = Command::new(env!("CARGO_BIN_EXE_sigpu"))
        .arg("check")
        .env("SIGPU_REQUIRE_GPU", "1")
        .output()
        .unwrap();
    assert_eq!(required.status.code(), Some(1));
    assert!(
        stderr(&required).contains("SIGPU_REQUIRE_GPU"),
        "{}",
        stderr(&required)
    );
    let explicit = sigpu(&["check", "--device", "cuda:0"]);
    assert_eq!(explicit.status.code(), Some(1));
    assert!(
        stderr(&explicit).contains("cuda:0"),
        "{}",
        stderr(&explicit)
    );
}

#[test]
fn check_on_cpu_explains_itself() {
    let out = sigpu(&["--device", "cpu", "check"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("--device cuda"), "{}", stderr(&out));
}

#[test]
fn bench_copy_on_cpu_writes_json_atomically() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("results/copy.json");
    let out = sigpu(&[
        "bench",
        "copy",
        "--device",
        "cpu",
        "--size-mib",
        "8",
        "--runs",
        "3",
        "--json",
        "--out",
        path.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v = stdout_json(&out);
    assert_eq!(v["device_kind"], "cpu");
    assert!(v["gb_per_s"].as_f64().unwrap() > 0.0);
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(saved["bytes"], v["bytes"]);
    assert_eq!(
        std::fs::read_dir(path.parent().unwrap()).unwrap().count(),
        1,
        "no temp file left"
    );
}

#[test]
fn bench_copy_rejects_zero_size() {
    let out = sigpu(&["bench", "copy", "--device", "cpu", "--size-mib", "0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--size-mib"), "{}", stderr(&out));
}

#[test]
fn demo_runs_on_the_cpu() {
    let out = sigpu(&["--device", "cpu", "demo", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v = stdout_json(&out);
    assert!(v["cpu_copy"]["gb_per_s"].as_f64().unwrap() > 0.0);
    assert_eq!(v["gpu_skipped"], "--device cpu");
}
