//! `sigpu`: the command-line face of the sigpu libraries ([`sigpu_cli`]).

use clap::Parser;
use sigpu_cli::cli;
use std::process::ExitCode;

fn main() -> ExitCode {
    // A closed stdout (`sigpu ... | head -1`) ends the process the way it ends `cat` or `ls`:
    // killed by SIGPIPE, silently, exit status 141 in a shell. Rust ignores SIGPIPE and turns
    // the failed write into a panic in `println!`; the default action is restored here, once,
    // for every command.
    // SAFETY: at the start of main, before any thread exists; SIG_DFL is a valid disposition.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // Ctrl-C / kill remove the temporary files of outputs being written, then end the process
    // with the signal's status (130, 143).
    if let Err(e) = sigpu_runtime::fs::remove_temps_on_signal() {
        eprintln!("warning: cannot watch for signals ({e}); an interrupted write may leave a temporary file");
    }
    let args = cli::Cli::parse();
    match cli::run(&args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
