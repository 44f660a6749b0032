//! One module per subcommand; each returns the process exit code.

pub mod approx;
mod device;

pub mod bench;
pub mod bench_filter;
pub mod check;
pub mod clns;
pub mod demo;
pub mod filter;
pub mod info;
pub mod ldpc;
pub mod lns;

pub use device::{resolve, resolve_gpu, DeviceChoice, Need, Target};

use anyhow::{Context, Result};

fn print_json(value: &impl serde::Serialize) -> Result<()> {
    println!("{}", serde_json::to_string_pretty(value)?);
    Ok(())
}

/// `value` as JSON on stdout with `--json`, else the text `print` writes for it.
fn report<T: serde::Serialize>(
    json: bool,
    value: &T,
    print: impl FnOnce(&T),
) -> Result<std::process::ExitCode> {
    if json {
        print_json(value)?;
    } else {
        print(value);
    }
    Ok(std::process::ExitCode::SUCCESS)
}

/// `--out FILE`: the flag every command that reports figures takes.
#[derive(clap::Args, Debug)]
pub struct JsonOut {
    /// Also write the JSON result to this file (atomically).
    #[arg(long = "out", value_name = "FILE")]
    pub path: Option<std::path::PathBuf>,
}

/// The JSON result written atomically to `--out` when given, the file named in any error.
fn write_json_out(out: &JsonOut, value: &impl serde::Serialize) -> Result<()> {
    if let Some(path) = &out.path {
        let text = serde_json::to_string_pretty(value)?;
        sigpu_runtime::fs::write_atomic(path, text.as_bytes())
            .with_context(|| format!("--out {}: cannot write", path.display()))?;
    }
    Ok(())
}

/// The style drawn by `template` (indicatif's syntax), or the default bar.
fn bar_style(template: &str) -> indicatif::ProgressStyle {
    indicatif::ProgressStyle::with_template(template)
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
}

/// A progress bar of `len` steps drawn by `template`.
fn bar(len: u64, template: &str) -> indicatif::ProgressBar {
    indicatif::ProgressBar::new(len).with_style(bar_style(template))
}

/// A spinner with a message for work of unknown length, ticking on its own.
fn spinner() -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new_spinner();
    bar.set_style(
        indicatif::ProgressStyle::with_template("{spinner} {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
    );
    bar.enable_steady_tick(std::time::Duration::from_millis(200));
    bar
}
