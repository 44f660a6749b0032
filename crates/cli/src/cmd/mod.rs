//! One module per subcommand; each returns the process exit code.

pub mod approx;
mod device;

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
pub mod ranks;

pub use device::{resolve, resolve_gpu, DeviceChoice, Need, Target};

use anyhow::{Context, Result};

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
        check(&[self.file()], &[])
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
        check(&[self.file(), other], &[])
    }
}

/// Every file a command will read or write, checked before any work: each input exists and
/// is no directory; each output can be written (its directory exists — none is created — and
/// takes a new file; it is no directory), none is also an input, and no two outputs are one
/// file (character devices such as /dev/null excepted). Errors name the flag. `outputs` and
/// `inputs` are (flag, path) pairs.
pub(crate) fn check_files(
    outputs: &[(&str, &std::path::Path)],
    inputs: &[(&str, &std::path::Path)],
) -> Result<()> {
    use sigpu_runtime::fs::same_file;
    use std::os::unix::fs::FileTypeExt;
    let device =
        |p: &std::path::Path| std::fs::metadata(p).is_ok_and(|m| m.file_type().is_char_device());
    for (flag, input) in inputs {
        match std::fs::metadata(input) {
            Ok(m) if m.is_dir() => anyhow::bail!(
                "{flag} {}: cannot read: it is a directory, not a file",
                input.display()
            ),
            Ok(_) => {}
            Err(e) => anyhow::bail!("{flag} {}: cannot read: {e}", input.display()),
        }
    }
    for (i, (flag, path)) in outputs.iter().enumerate() {
        for (in_flag, input) in inputs {
            if same_file(path, input) {
                anyhow::bail!(
                    "{flag} {} is also {in_flag}: writing it would destroy the input; choose \
                     another output file",
                    path.display()
                );
            }
        }
        for (other_flag, other) in &outputs[i + 1..] {
            if same_file(path, other) && !device(path) {
                anyhow::bail!(
                    "{flag} {} and {other_flag} {} are the same file: one would overwrite the \
                     other; give each output its own file",
                    path.display(),
                    other.display()
                );
            }
        }
        sigpu_runtime::fs::check_output(path)
            .with_context(|| format!("{flag} {}: cannot write", path.display()))?;
    }
    Ok(())
}

/// `inputs` and, when `value` names an existing file, `(flag, value)`: for the flags that
/// take a name or a file (`--code NAME|FILE`, `--sos FILE|VALUES`), so that an output is
/// checked against them too.
pub(crate) fn and_file<'a>(
    inputs: &[(&'a str, &'a std::path::Path)],
    flag: &'a str,
    value: &'a str,
) -> Vec<(&'a str, &'a std::path::Path)> {
    let path = std::path::Path::new(value);
    let mut all = inputs.to_vec();
    all.extend(path.is_file().then_some((flag, path)));
    all
}

/// One output flag of a command, for [`check`].
pub(crate) enum Output<'a> {
    /// A file.
    File(&'static str, Option<&'a std::path::Path>),
    /// `--plot BASE`: BASE.svg and BASE.png.
    Base(&'static str, Option<&'a std::path::Path>),
    /// A directory files are written into.
    Dir(&'static str, Option<&'a std::path::Path>),
}

/// [`check_files`] and [`check_dir`] over a command's output flags (those not given are
/// skipped), `inputs` being the files it reads.
pub(crate) fn check(
    outputs: &[Output<'_>],
    inputs: &[(&'static str, Option<&std::path::Path>)],
) -> Result<()> {
    let mut files: Vec<(&str, std::path::PathBuf)> = Vec::new();
    for output in outputs {
        match *output {
            Output::File(flag, Some(p)) => files.push((flag, p.to_owned())),
            Output::Base(flag, Some(p)) => files.extend(base_files(p).map(|f| (flag, f))),
            Output::Dir(flag, Some(p)) => check_dir(flag, p)?,
            _ => {}
        }
    }
    let files: Vec<_> = files.iter().map(|(f, p)| (*f, p.as_path())).collect();
    let inputs: Vec<_> = inputs
        .iter()
        .filter_map(|(f, p)| Some((*f, (*p)?)))
        .collect();
    check_files(&files, &inputs)
}

/// `--plot BASE`: the two files it becomes (BASE.svg, BASE.png), for [`check_files`].
pub(crate) fn base_files(base: &std::path::Path) -> [std::path::PathBuf; 2] {
    [base.with_extension("svg"), base.with_extension("png")]
}

/// A flag naming a directory that files are written into: it must exist (none is created, so
/// a typo is an error, not a new directory) and take new files.
pub(crate) fn check_dir(flag: &str, dir: &std::path::Path) -> Result<()> {
    if !dir.is_dir() {
        anyhow::bail!(
            "{flag} {}: no such directory (create it first; sigpu makes no directories)",
            dir.display()
        );
    }
    sigpu_runtime::fs::check_output(&dir.join("sigpu-write-check"))
        .with_context(|| format!("{flag} {}: cannot write into it", dir.display()))
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
