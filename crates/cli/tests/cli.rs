//! Runs the real `sigpu` binary, as a user would.

mod common;

use common::{exits_with, fails_with, line, ok, ok_json, sigpu, sigpu_stdin, stderr, stdout_json};

use serde_json::Value;
use std::process::Command;

fn gpu_usable() -> bool {
    stdout_json(&sigpu(&["info", "--json"]))["cuda"]["available"] == true
}

#[test]
fn info_json_reports_host_and_cuda_status() {
    let v = ok_json(&["info", "--json"]);
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
fn device_takes_one_device_or_all_and_says_which() {
    let err = exits_with(&["--device", "al", "info"], 2, "`all`");
    assert!(err.contains("\"al\""), "{err}");
    let copy = ["bench", "copy", "--size-mib", "1", "--runs", "1"];
    exits_with(
        &[&["--device", " ALL "][..], &copy].concat(),
        1,
        "--device all",
    );
    ok(&[&["--device", "cpu"][..], &copy].concat());
}

#[test]
fn info_text_names_the_gpu_state() {
    let out = ok(&["info"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("SIMD:") && text.contains("GPU:"), "{text}");
}

#[test]
fn bad_device_is_a_usage_error_naming_it() {
    exits_with(&["--device", "tpu:0", "info"], 2, "tpu:0");
}

#[test]
fn check_lists_the_texture_round_trip() {
    let out = ok(&["check", "--list"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("runtime/tex2d_linear_f32"));
}

#[test]
fn check_filter_matching_nothing_is_an_error() {
    exits_with(&["check", "--filter", "no-such-check"], 1, "no-such-check");
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
    let out = ok(&["check"]);
    common::assert_mentions(&out, "SKIP");
    let required = Command::new(env!("CARGO_BIN_EXE_sigpu"))
        .arg("check")
        .env("SIGPU_REQUIRE_GPU", "1")
        .output()
        .unwrap();
    assert_eq!(required.status.code(), Some(1));
    common::assert_mentions(&required, "SIGPU_REQUIRE_GPU");
    exits_with(&["check", "--device", "cuda:0"], 1, "cuda:0");
}

#[test]
fn check_on_cpu_explains_itself() {
    exits_with(&["--device", "cpu", "check"], 1, "--device cuda");
}

#[test]
fn bench_copy_on_cpu_writes_json_atomically() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("results/copy.json");
    // No directory is made for an output: a typo must not become a new directory.
    let args = line(
        "bench copy --device cpu --size-mib 8 --runs 3 --json --out",
        &[path.to_str().unwrap()],
    );
    fails_with(&args, "does not exist");
    std::fs::create_dir(dir.path().join("results")).unwrap();
    let v = ok_json(&line(
        "bench copy --device cpu --size-mib 8 --runs 3 --json --out",
        &[path.to_str().unwrap()],
    ));
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
    exits_with(
        &["bench", "copy", "--device", "cpu", "--size-mib", "0"],
        2,
        "--size-mib",
    );
}

#[test]
fn demo_runs_on_the_cpu() {
    let v = ok_json(&["--device", "cpu", "demo", "--json"]);
    assert!(v["cpu_copy"]["gb_per_s"].as_f64().unwrap() > 0.0);
    assert_eq!(v["gpu_skipped"], "--device cpu");
    assert!(v.get("gpu").is_none());
    let cpu = &v["cpu"];
    let num = |section: &str, field: &str| -> f64 {
        cpu[section][field]
            .as_f64()
            .unwrap_or_else(|| panic!("cpu.{section}.{field} missing: {cpu}"))
    };
    // Each section: a positive speed, and its error vs the reference within loose bounds.
    assert!(num("lns_hmm", "g_cells_per_s") > 0.0);
    assert!(num("lns_hmm", "max_relative_error") < 1e-5);
    assert_eq!(cpu["clns_fft"]["n"], 1024);
    assert!(num("clns_fft", "clns_db") > 50.0, "{}", cpu["clns_fft"]);
    assert!(num("clns_fft", "clns_db") > num("clns_fft", "fixed_input_scaled_db"));
    assert!(num("iir_filter", "m_samples_per_s") > 0.0);
    assert!(num("iir_filter", "max_relative_error") < 1e-4);
    let approx = cpu["approx"].as_array().expect("approx rows");
    assert_eq!(approx.len(), 4);
    for row in approx {
        let ulp = row["fast_max_ulp"].as_f64().unwrap();
        assert!(ulp > 0.0 && ulp < 8.0, "{row}");
        assert!(row["speedup"].as_f64().unwrap() > 0.0, "{row}");
    }
    assert!(num("ldpc", "frames") >= 64.0);
    assert!(num("ldpc", "coded_mbps") > 0.0);
    assert!(num("ldpc", "ber") < 0.05, "{}", cpu["ldpc"]);
    assert!(num("ldpc", "fer") <= 1.0);
}

#[test]
fn lns_calc_prints_value_and_word_and_names_bad_lines() {
    let out = sigpu_stdin(
        &["lns", "calc", "--format", "lns16"],
        "2 * 4\nnot a line\n1 + 1\n3 % 2\n",
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "a bad line makes the exit status non-zero"
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines, ["8  0x0c00", "2  0x0400"], "{text}");
    let err = stderr(&out);
    assert!(
        err.contains("line 2") && err.contains("line 4") && err.contains("unknown operator"),
        "{err}"
    );
}

#[test]
fn lns_calc_json_and_exact_identities() {
    let out = sigpu_stdin(
        &["lns", "calc", "--format", "lns32", "--json"],
        "1000000 - 1000000\n3 / 3\n",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let rows = stdout_json(&out);
    assert_eq!(rows[0]["value"], 0.0, "x − x is exactly zero");
    assert_eq!(rows[1]["value"], 1.0);
}

#[test]
fn lns_certify_on_the_cpu_reports_faithful_lns16() {
    let certs = ok_json(&[
        "lns", "certify", "--format", "lns16", "--method", "horner2", "--json",
    ]);
    let certs = certs.as_array().unwrap();
    assert_eq!(certs.len(), 2);
    for c in certs {
        assert_eq!(c["faithful"], true, "{c}");
        assert!(c["inputs"].as_u64().unwrap() > 11_000, "{c}");
    }
}

#[test]
fn bench_lns_method_selection_is_checked_before_measuring() {
    let cases = [
        ("cpu", "f64poly,sfu", 1, "sfu: runs on the GPU only"),
        ("cpu", "horner9", 2, "horner9"),
        ("cuda", "f64poly", 1, "--device cpu"),
    ];
    for (device, method, code, text) in cases {
        let args = ["bench", "lns", "--device", device, "--method", method];
        exits_with(&args, code, text);
    }
}

#[test]
fn lns_rejects_bad_format_and_gpu_only_methods_on_cpu() {
    exits_with(&["lns", "certify", "--format", "i9f23"], 2, "i9f23");
    let sfu_on_cpu = ["lns", "certify", "--method", "sfu", "--device", "cpu"];
    exits_with(&sfu_on_cpu, 1, "GPU only");
    exits_with(&["lns", "certify", "--method", "horner9"], 1, "horner9");
}

#[test]
fn lns_hmm_reports_a_small_error_against_f64() {
    let v = ok_json(&[
        "lns", "hmm", "--states", "4", "--steps", "50", "--batch", "2", "--json",
    ]);
    assert!(v["max_relative_error"].as_f64().unwrap() < 1e-5, "{v}");
    assert_eq!(v["log_likelihoods"].as_array().unwrap().len(), 2);
    let bad = sigpu(&["lns", "hmm", "--states", "0"]);
    assert_eq!(bad.status.code(), Some(2));
    // Each size in range, their product far too large to allocate: an error, not an abort.
    let huge = [
        "lns", "hmm", "--device", "cpu", "--states", "4096", "--steps", "1000000", "--batch",
        "65536",
    ];
    exits_with(&huge, 1, "--batch 65536");
}

#[test]
fn approx_tune_rejects_bad_apps_and_qos_before_touching_a_gpu() {
    let err = fails_with(&["approx", "tune", "--app", "nbodyy"], "--app");
    assert!(err.contains("nbody") && err.contains("all"), "{err}");
    for bad in ["0", "1.5", "-0.2", "NaN"] {
        let ratio = format!("--qos-ratio={bad}");
        fails_with(&["approx", "tune", "--app", "nbody", &ratio], "(0, 1]");
    }
    let search = ["approx", "tune", "--app", "nbody", "--search", "fast"];
    fails_with(&search, "smp, heu or omg");
    let on_cpu = ["--device", "cpu", "approx", "tune", "--app", "nbody"];
    fails_with(&on_cpu, "--device cuda");
}

#[test]
fn approx_list_and_transform() {
    let v = ok_json(&["approx", "list", "--json"]);
    assert_eq!(v["functions"].as_array().unwrap().len(), 16);
    assert_eq!(v["apps"].as_array().unwrap().len(), 12);
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("k.cu");
    std::fs::write(
        &src,
        "extern \"C\" __global__ void k(float* x) { x[threadIdx.x] = sinf(x[threadIdx.x]); }\n",
    )
    .unwrap();
    let dst = dir.path().join("k_lambda.cu");
    ok(&line(
        "approx transform",
        &[
            src.to_str().unwrap(),
            "--kernel",
            "k",
            "--output",
            dst.to_str().unwrap(),
        ],
    ));
    let text = std::fs::read_to_string(&dst).unwrap();
    assert!(text.contains("k_lambda(float* x, int sg_lambda, unsigned int* sg_slots)"));
    let unknown = [
        "approx",
        "transform",
        src.to_str().unwrap(),
        "--kernel",
        "nope",
    ];
    fails_with(&unknown, "no extern \"C\" __global__ kernel named \"nope\"");
}

#[test]
fn clns_certify_on_cpu_reports_json_and_rejects_bad_input() {
    let v = ok_json(&[
        "clns", "certify", "--device", "cpu", "--method", "f64", "--stride", "997", "--random",
        "500", "--json",
    ]);
    assert_eq!(v[0]["method"], "f64");
    assert!(v[0]["re_max_ulps"].as_f64().unwrap() <= 0.5 + 1e-9);
    fails_with(&["clns", "certify", "--format", "clns8"], "clns8");
    let gpu_only = ["clns", "certify", "--device", "cpu", "--method", "accurate"];
    fails_with(&gpu_only, "GPU only");
}

#[test]
fn clns_certify_f32_reports_sb_and_op_errors() {
    let v = ok_json(&line(
        "clns certify-f32 --grid 16 --random 200 --pairs 500 --json",
        &[],
    ));
    assert_eq!(v["sb"][0]["method"], "f64");
    assert!(v["sb"][0]["add_relative_bound"].as_f64().unwrap() < 1e-6);
    assert!(
        v["ops"][1]["add"][0].as_f64().unwrap() > 1e-6,
        "tex sums carry the table's error"
    );
    fails_with(&["clns", "certify-f32", "--grid", "1"], "--grid");
}

#[test]
fn clns_fft_compares_word_sizes_and_rejects_bad_sizes() {
    let v = ok_json(&[
        "clns", "fft", "--device", "cpu", "--size", "64", "--batch", "2", "--bits", "12,16",
        "--json",
    ]);
    let rows = v["snr"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert!(rows[1]["clns_db"].as_f64().unwrap() > rows[1]["fixed_db"].as_f64().unwrap());
    // The seed's f32-radian variant, at its own 64-bit word.
    let f32v = &v["f32_variant"];
    assert_eq!(f32v["word_bits"], 64);
    assert!(f32v["clns_f32_db"].as_f64().unwrap() > rows[1]["clns_db"].as_f64().unwrap());
    fails_with(
        &["clns", "fft", "--device", "cpu", "--size", "100"],
        "--size 100",
    );
    let narrow = [
        "clns", "fft", "--device", "cpu", "--size", "1024", "--bits", "8",
    ];
    fails_with(&narrow, "--bits 8");
    // batch × size overflowing usize is refused, not wrapped past the 2^26 limit.
    let huge = line(
        "clns fft --device cpu --size 2 --batch 9223372036854775808",
        &[],
    );
    fails_with(&huge, "--batch");
}

#[test]
fn clns_certify_refuses_a_grid_too_large_to_build() {
    let args = [
        "clns", "certify", "--device", "cpu", "--format", "clns32", "--stride", "1",
    ];
    fails_with(&args, "--stride: stride 1:");
}

#[test]
fn bench_clns_from_a_missing_file_names_it() {
    let missing = "/nonexistent/report.json";
    fails_with(&["bench", "clns", "--from", missing], missing);
}

#[test]
fn clns_cpu_only_commands_refuse_a_gpu_device() {
    for cmd in ["fig45", "certify-f32"] {
        fails_with(&["clns", cmd, "--device", "cuda"], "runs on the CPU only");
    }
}

#[test]
fn tune_names_bad_flags_and_needs_a_gpu() {
    let err = exits_with(&["tune", "--family", "plr,lns-warp"], 2, "--family");
    assert!(
        err.contains("lns-warp") && err.contains("lns-fused-sum"),
        "{err}"
    );
    exits_with(&["tune", "--log2-n", "26,40"], 2, "--log2-n");
    let out = sigpu(&["--device", "cpu", "tune", "--dry-run"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    if !gpu_usable() {
        let out = sigpu(&["tune", "--dry-run", "--family", "sos"]);
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    }
}
