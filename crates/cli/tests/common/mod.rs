//! Helpers every CLI test file shares: running the real `sigpu` binary and reading what it
//! printed. (Each test file uses a part of them, hence the `dead_code` allowance.)
#![allow(dead_code)]

use serde_json::Value;
use std::process::{Command, Output};

/// Runs `sigpu` with `args`, without `SIGPU_REQUIRE_GPU` from the caller's environment.
pub fn sigpu(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sigpu"))
        .args(args)
        .env_remove("SIGPU_REQUIRE_GPU")
        .output()
        .expect("the sigpu binary runs")
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The JSON the command printed on stdout (the test fails, showing the text, if it is not).
pub fn stdout_json(out: &Output) -> Value {
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}
