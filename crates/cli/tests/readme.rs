//! The README's shell examples run as written: every ```sh block, in order, in one fresh
//! folder, with `target/release/sigpu` there standing for the binary under test (the README
//! calls the binary where its set-up command builds it). python/tests/test_readme.py runs the
//! ```python blocks the same way.
//!
//! A block is run unless the line just above its fence is a marker comment:
//! - `<!-- example: setup -->`: the set-up commands (a fresh build; they made this binary).
//!   The README keeps exactly two of them, which this test also checks.
//! - `<!-- example: not-run -->`: needs what a test cannot have (another host, a cluster
//!   launcher, root).
//! - `<!-- example: gpu -->`: needs a CUDA GPU (run by hand on one).
//!
//! and within a run block, a line ending in `# needs a GPU` is left out.

use std::path::{Path, PathBuf};
use std::process::Command;

/// One fenced code block: its language, the marker above it, its first line in the README.
struct Block {
    lang: String,
    marker: Option<String>,
    line: usize,
    code: String,
}

fn blocks(readme: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut lines = readme.lines().enumerate().peekable();
    let mut previous = "";
    while let Some((i, line)) = lines.next() {
        if let Some(lang) = line.strip_prefix("```").filter(|l| !l.is_empty()) {
            let mut code = String::new();
            for (_, l) in lines.by_ref() {
                if l.starts_with("```") {
                    break;
                }
                code += l;
                code += "\n";
            }
            let marker = previous
                .trim()
                .strip_prefix("<!-- example:")
                .and_then(|m| m.strip_suffix("-->"))
                .map(|m| m.trim().to_owned());
            out.push(Block {
                lang: lang.trim().to_owned(),
                marker,
                line: i + 1,
                code,
            });
            previous = "";
            continue;
        }
        if !line.trim().is_empty() {
            previous = line;
        }
    }
    out
}

fn readme() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The commands of a block: lines that are neither blank nor whole-line comments.
fn commands(code: &str) -> Vec<&str> {
    code.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
}

#[test]
fn the_readme_has_exactly_two_setup_commands() {
    let text = readme();
    let setup: Vec<Block> = blocks(&text)
        .into_iter()
        .filter(|b| b.marker.as_deref() == Some("setup"))
        .collect();
    assert_eq!(setup.len(), 1, "one block of set-up commands");
    let cmds = commands(&setup[0].code);
    assert_eq!(cmds.len(), 2, "two set-up commands: {cmds:?}");
    // One builds target/release/sigpu and runs the demo; the other runs every test.
    assert!(cmds[0].starts_with("cargo run --release") && cmds[0].contains("demo"));
    assert!(cmds[1].starts_with("scripts/test"));
    for b in blocks(&text) {
        if let Some(m) = &b.marker {
            assert!(
                ["setup", "not-run", "gpu"].contains(&m.as_str()),
                "README line {}: unknown example marker {m:?}",
                b.line
            );
        }
    }
}

/// A fresh folder holding `target/release/sigpu`, a link to the binary under test.
fn workdir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let bin: PathBuf = dir.path().join("target/release");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_sigpu"), bin.join("sigpu")).unwrap();
    dir
}

fn python_has_numpy() -> bool {
    Command::new("python3")
        .args(["-c", "import numpy"])
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn the_readme_shell_examples_run_as_written() {
    let text = readme();
    let runnable: Vec<Block> = blocks(&text)
        .into_iter()
        .filter(|b| b.lang == "sh" && b.marker.is_none())
        .collect();
    assert!(!runnable.is_empty(), "the README has shell examples");
    if !python_has_numpy() {
        // The examples make their inputs with numpy, as the README says.
        println!("SKIP readme: python3 with numpy is not here; the shell examples did not run");
        return;
    }
    let dir = workdir();
    for b in &runnable {
        let script: Vec<&str> = b
            .code
            .lines()
            .filter(|l| {
                let gpu = l.trim_end().ends_with("# needs a GPU");
                if gpu {
                    println!("SKIP readme line: needs a GPU: {l}");
                }
                !gpu
            })
            .collect();
        let started = std::time::Instant::now();
        let out = Command::new("bash")
            .args(["-euo", "pipefail", "-c", &script.join("\n")])
            .current_dir(dir.path())
            .env_remove("SIGPU_REQUIRE_GPU")
            .env("SIGPU_KERNEL_CACHE", "off")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "README block at line {} failed ({}):\n{}\nstdout:\n{}\nstderr:\n{}",
            b.line,
            out.status,
            b.code,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        println!(
            "README block at line {}: {} commands in {:.1} s",
            b.line,
            commands(&b.code).len(),
            started.elapsed().as_secs_f64()
        );
    }
    // What the examples say they make is there.
    for made in [
        "y.npy", "out.wav", "cw.npy", "hard.npy", "info.npy", "post.npy", "ber.png",
    ] {
        assert!(dir.path().join(made).exists(), "the examples made {made}");
    }
}

#[test]
fn blocks_and_markers_are_read_from_markdown() {
    let md = "text\n\n<!-- example: setup -->\n```sh\ncargo run --release -- demo\n# c\n\
              scripts/test\n```\n\n```python\nx = 1\n```\n";
    let b = blocks(md);
    assert_eq!(b.len(), 2);
    assert_eq!(b[0].marker.as_deref(), Some("setup"));
    assert_eq!(commands(&b[0].code).len(), 2);
    assert_eq!(
        (b[1].lang.as_str(), b[1].marker.as_deref()),
        ("python", None)
    );
}
