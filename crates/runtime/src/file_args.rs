//! The files one command reads and writes, each named by the argument that gave it (a flag
//! such as `--output`, or a keyword), checked together before any work, so that a typo or a
//! full disk is found in a second rather than after an hour of computing: each input exists
//! and is no directory; each output can be written ([`crate::fs::check_output`]: its
//! directory exists — none is created — and takes a new file; it is no directory), none is
//! also an input, and no two outputs are one file (character devices such as /dev/null
//! excepted). Errors name the argument and the path.

use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

/// A file argument that cannot be used, in words naming the argument.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct FileArgError(String);

/// The result of a check.
pub type Result<T> = std::result::Result<T, FileArgError>;

fn refuse<T>(message: String) -> Result<T> {
    Err(FileArgError(message))
}

/// Checks `outputs` and `inputs`, (argument, path) pairs, as the module says.
pub fn check_files(outputs: &[(&str, &Path)], inputs: &[(&str, &Path)]) -> Result<()> {
    let device = |p: &Path| std::fs::metadata(p).is_ok_and(|m| m.file_type().is_char_device());
    for (flag, input) in inputs {
        match std::fs::metadata(input) {
            Ok(m) if m.is_dir() => {
                let path = input.display();
                return refuse(format!(
                    "{flag} {path}: cannot read: it is a directory, not a file"
                ));
            }
            Ok(_) => {}
            Err(e) => return refuse(format!("{flag} {}: cannot read: {e}", input.display())),
        }
    }
    for (i, (flag, path)) in outputs.iter().enumerate() {
        for (in_flag, input) in inputs {
            if crate::fs::same_file(path, input) {
                return refuse(format!(
                    "{flag} {} is also {in_flag}: writing it would destroy the input; choose \
                     another output file",
                    path.display()
                ));
            }
        }
        for (other_flag, other) in &outputs[i + 1..] {
            if crate::fs::same_file(path, other) && !device(path) {
                return refuse(format!(
                    "{flag} {} and {other_flag} {} are the same file: one would overwrite the \
                     other; give each output its own file",
                    path.display(),
                    other.display()
                ));
            }
        }
        if let Err(e) = crate::fs::check_output(path) {
            return refuse(format!("{flag} {}: cannot write: {e}", path.display()));
        }
    }
    Ok(())
}

/// `inputs` and, when `value` names an existing file, `(flag, value)`: for the arguments
/// that take a name or a file (`--code NAME|FILE`, `--sos FILE|VALUES`), so that an output
/// is checked against them too.
pub fn and_file<'a>(
    inputs: &[(&'a str, &'a Path)],
    flag: &'a str,
    value: &'a str,
) -> Vec<(&'a str, &'a Path)> {
    let path = Path::new(value);
    let mut all = inputs.to_vec();
    all.extend(path.is_file().then_some((flag, path)));
    all
}

/// One output argument of a command, for [`check`].
pub enum Output<'a> {
    /// A file.
    File(&'a str, Option<&'a Path>),
    /// A base name that becomes two pictures: BASE.svg and BASE.png ([`base_files`]).
    Base(&'a str, Option<&'a Path>),
    /// A directory files are written into ([`check_dir`]).
    Dir(&'a str, Option<&'a Path>),
}

/// [`check_files`] and [`check_dir`] over a command's output arguments (those not given are
/// skipped), `inputs` being the files it reads.
pub fn check(outputs: &[Output<'_>], inputs: &[(&str, Option<&Path>)]) -> Result<()> {
    let mut files: Vec<(&str, PathBuf)> = Vec::new();
    for output in outputs {
        match *output {
            Output::File(flag, Some(p)) => files.push((flag, p.to_owned())),
            Output::Base(flag, Some(p)) => files.extend(base_files(p).map(|f| (flag, f))),
            Output::Dir(flag, Some(p)) => check_dir(flag, p)?,
            _ => {}
        }
    }
    let files: Vec<_> = files.iter().map(|(f, p)| (*f, p.as_path())).collect();
    let inputs: Vec<_> = (inputs.iter())
        .filter_map(|(f, p)| Some((*f, (*p)?)))
        .collect();
    check_files(&files, &inputs)
}

/// The two pictures a base name becomes (BASE.svg, BASE.png).
pub fn base_files(base: &Path) -> [PathBuf; 2] {
    [base.with_extension("svg"), base.with_extension("png")]
}

/// A directory that files are written into: it must exist (none is created, so a typo is an
/// error, not a new directory) and take new files.
pub fn check_dir(flag: &str, dir: &Path) -> Result<()> {
    if !dir.is_dir() {
        return refuse(format!(
            "{flag} {}: no such directory (create it first; sigpu makes no directories)",
            dir.display()
        ));
    }
    match crate::fs::check_output(&dir.join("sigpu-write-check")) {
        Ok(()) => Ok(()),
        Err(e) => refuse(format!(
            "{flag} {}: cannot write into it: {e}",
            dir.display()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_output_that_is_an_input_or_another_output_is_refused_naming_both() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::write(&a, b"x").unwrap();
        let e = check_files(&[("--output", &a)], &[("--input", &a)]).unwrap_err();
        assert!(e.to_string().contains("--output") && e.to_string().contains("is also --input"));
        let e = check_files(&[("--output", &b), ("--zf", &b)], &[]).unwrap_err();
        assert!(e.to_string().contains("are the same file"), "{e}");
        assert!(check_files(&[("--output", &b)], &[("--input", &a)]).is_ok());
    }

    #[test]
    fn a_missing_input_or_directory_is_refused_naming_the_argument() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("none");
        let e = check_files(&[], &[("--input", &missing)]).unwrap_err();
        assert!(e.to_string().starts_with("--input "), "{e}");
        let e = check_files(&[], &[("--input", dir.path())]).unwrap_err();
        assert!(e.to_string().contains("it is a directory"), "{e}");
        let e = check_dir("--plot", &missing).unwrap_err();
        assert!(e.to_string().contains("no such directory"), "{e}");
        let e = check(&[Output::Base("--plot", Some(&missing.join("x")))], &[]).unwrap_err();
        assert!(e.to_string().starts_with("--plot "), "{e}");
    }
}
