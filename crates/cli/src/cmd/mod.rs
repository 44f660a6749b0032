//! One module per subcommand; each returns the process exit code.

pub mod approx;

pub mod bench;
pub mod bench_filter;
pub mod check;
pub mod clns;
pub mod demo;
pub mod filter;
mod filter_complex;
pub mod info;
pub mod ldpc;
pub mod lns;
pub mod tune;

pub use policy::{DeviceChoice, Need, Resolved as Target};
/// The files a command reads and writes, checked before any work; errors name the flag.
pub(crate) use sigpu_runtime::file_args::{and_file, check, check_dir, check_files, Output};

use anyhow::{Context, Result};
use sigpu_runtime::device_policy as policy;
use sigpu_runtime::{cuda::Gpu, Device};

/// The one device policy (`sigpu_runtime::device_policy::resolve`); errors name --device.
pub fn resolve(device: Option<Device>, need: Need, what: &str) -> Result<Target> {
    Ok(policy::resolve(device, need, what)?)
}

/// [`resolve`] for commands that only run GPU kernels: the GPU itself.
pub fn resolve_gpu(device: Option<Device>, what: &str) -> Result<Gpu> {
    Ok(policy::resolve_gpu(device, what)?)
}

/// Writes `text` to stdout and flushes it: the one way results are printed, so a full disk
/// or a failing device is an error naming stdout (a closed pipe ends the process by SIGPIPE,
/// as `cat`'s). `println!` would panic instead; `main` turns those panics into the same error.
pub(crate) fn write_stdout(text: &str) -> Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .context("cannot write the results to stdout")
}

fn print_json(value: &impl serde::Serialize) -> Result<()> {
    write_stdout(&format!("{}\n", serde_json::to_string_pretty(value)?))
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
        // What print! left buffered fails here, as an error.
        write_stdout("")?;
    }
    Ok(std::process::ExitCode::SUCCESS)
}

/// `--out FILE`: the flag every command that reports figures takes.
#[derive(clap::Args, Debug)]
pub struct JsonOut {
    /// Also write the JSON result to this file (atomically; its directory must exist).
    #[arg(long = "out", value_name = "FILE")]
    pub path: Option<std::path::PathBuf>,
}

impl JsonOut {
    /// `--out` for [`check_files`], when given.
    pub(crate) fn output(&self) -> Option<(&'static str, &std::path::Path)> {
        self.path.as_deref().map(|p| ("--out", p))
    }

    /// `--out` as an [`Output`] for [`check`].
    pub(crate) fn file(&self) -> Output<'_> {
        Output::File("--out", self.path.as_deref())
    }

    /// [`check`] for a command whose only output flag is `--out`.
    pub(crate) fn check(&self) -> Result<()> {
        Ok(check(&[self.file()], &[])?)
    }

    /// `value` written to `--out` when given, then on stdout: JSON, or the `text` of it.
    pub(crate) fn report<T: serde::Serialize>(
        &self,
        json: bool,
        value: &T,
        text: impl FnOnce(&T) -> String,
    ) -> Result<std::process::ExitCode> {
        write_json_out(self, value)?;
        match json {
            true => print_json(value)?,
            false => write_stdout(&text(value))?,
        }
        Ok(std::process::ExitCode::SUCCESS)
    }

    /// [`check`] of `--out` and one more output flag.
    pub(crate) fn check_and(&self, other: Output<'_>) -> Result<()> {
        Ok(check(&[self.file(), other], &[])?)
    }
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

/// Runs `work` under a [`spinner`] showing the progress messages it sends, cleared after.
fn spinning<T, E>(work: impl FnOnce(&dyn Fn(&str)) -> Result<T, E>) -> Result<T, E> {
    let bar = spinner();
    let done = work(&|m: &str| bar.set_message(m.to_owned()));
    bar.finish_and_clear();
    done
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
