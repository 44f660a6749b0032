//! `sigpu lns calc`: stdin line by line through the library's calculator
//! ([`sigpu_lns::calc`]), each result printed as it comes (`sigpu_lab::lns::calc::stream`);
//! with `--json` the results are one JSON array, written as they come.

use anyhow::Result;
use clap::Args;
use sigpu_lab::lns::calc::stream;
use sigpu_lns::Format;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct CalcArgs {
    /// lns16, lns32 or i<I>f<F>.
    #[arg(long, default_value = "lns16")]
    pub format: Format,
}

pub fn run(json: bool, args: &CalcArgs) -> Result<ExitCode> {
    calculate(json, args).map_err(|e| {
        let bare_io = e.chain().count() == 1 && e.is::<std::io::Error>();
        match bare_io {
            true => e.context("cannot write the results to stdout"),
            false => e,
        }
    })
}

/// The calculator's loop over stdin and stdout; a bare `io::Error` from it is a failed write
/// to stdout.
fn calculate(json: bool, args: &CalcArgs) -> Result<ExitCode> {
    let (stdin, stdout) = (std::io::stdin(), std::io::stdout());
    let (mut input, mut out) = (stdin.lock(), stdout.lock());
    let on_error = |no: usize, e: &str| eprintln!("line {no}: {e}");
    let failed = stream(args.format, json, &mut input, &mut out, on_error)?;
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
