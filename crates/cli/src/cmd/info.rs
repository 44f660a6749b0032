use anyhow::Result;
use sigpu_lab::info::Info;
use std::process::ExitCode;

pub fn run(json: bool) -> Result<ExitCode> {
    let info = Info::detect(env!("CARGO_PKG_VERSION"));
    super::report(json, &info, |i| print!("{}", i.text()))
}
