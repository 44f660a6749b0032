//! `sigpu lns calc`: reads stdin line by line through the library's calculator
//! ([`sigpu_lns::calc`]) and prints each result as it comes; with `--json` the results are one
//! JSON array, written as they come (so memory stays bounded on endless input).

use anyhow::{Context, Result};
use clap::Args;
use sigpu_lns::calc::{next_line, CalcResult};
use sigpu_lns::Format;
use std::io::Write;
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

/// The calculator's loop; a bare `io::Error` from it is a failed write to stdout (reading
/// stdin has its own context).
fn calculate(json: bool, args: &CalcArgs) -> Result<ExitCode> {
    let (stdin, stdout) = (std::io::stdin(), std::io::stdout());
    let (mut input, mut out) = (stdin.lock(), stdout.lock());
    let (mut buf, mut no, mut count, mut failed) = (Vec::new(), 0, 0, false);
    if json {
        write!(out, "[")?;
    }
    while let Some(line) = next_line(&mut input, &mut buf).context("reading stdin")? {
        no += 1;
        let Some(result) = CalcResult::of(args.format, no, line) else {
            continue;
        };
        failed |= result.error.is_some();
        if json {
            let sep = if count == 0 { "\n" } else { ",\n" };
            write!(out, "{sep}{}", serde_json::to_string(&result)?)?;
        } else if let Some(e) = &result.error {
            out.flush()?;
            eprintln!("line {no}: {e}");
        } else if let Some(text) = result.text() {
            writeln!(out, "{text}")?;
        }
        count += 1;
    }
    if json {
        writeln!(out, "{}]", if count == 0 { "" } else { "\n" })?;
    }
    out.flush()?;
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
