//! Helpers every CLI test file shares: running the real `sigpu` binary and reading what it
//! printed. (Each test file uses a part of them, hence the `dead_code` allowance.)
#![allow(dead_code)]

use serde_json::Value;
use std::process::{Command, Output};

/// Runs `sigpu` with `args` and `input` on its stdin (written from a thread, so a large input
/// cannot block on a full output pipe).
pub fn sigpu_stdin(args: &[&str], input: impl AsRef<[u8]>) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_sigpu"))
        .args(args)
        .env_remove("SIGPU_REQUIRE_GPU")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.as_ref().to_vec();
    // Written from a thread: the output is read while a large input is still going in.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

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

/// Runs `sigpu` with `args`, which must succeed (the test fails showing its stderr otherwise).
pub fn ok(args: &[&str]) -> Output {
    let out = sigpu(args);
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    out
}

/// Runs `sigpu` with `args`, which must succeed and print JSON; returns that JSON.
pub fn ok_json(args: &[&str]) -> Value {
    stdout_json(&ok(args))
}

/// Runs `sigpu` with `args`, which must fail with `text` in its stderr; returns the stderr.
pub fn fails_with(args: &[&str], text: &str) -> String {
    let out = sigpu(args);
    assert!(!out.status.success(), "{args:?} should fail");
    assert_mentions(&out, text)
}

/// Runs `sigpu` with `args`, which must exit with `code` and `text` in its stderr; returns
/// the stderr.
pub fn exits_with(args: &[&str], code: i32, text: &str) -> String {
    let out = sigpu(args);
    assert_eq!(out.status.code(), Some(code), "{args:?}: {}", stderr(&out));
    assert_mentions(&out, text)
}

/// Asserts that the command's stderr contains `text`; returns the stderr.
pub fn assert_mentions(out: &Output, text: &str) -> String {
    let err = stderr(out);
    assert!(err.contains(text), "wanted {text:?} in: {err}");
    err
}

/// A command line written as one string of space-separated words (none contains a space),
/// followed by `rest` (paths and other words that may).
pub fn line<'a>(words: &'a str, rest: &[&'a str]) -> Vec<&'a str> {
    words
        .split_whitespace()
        .chain(rest.iter().copied())
        .collect()
}
