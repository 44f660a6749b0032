//! `sigpu`: the command-line face of the sigpu libraries. Each subcommand parses its arguments,
//! calls public library functions and prints what they return (text, or JSON with `--json`).

mod cli;
mod cmd;
#[cfg(test)]
mod help_tests;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    match cli::run(&args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
