//! `sigpu`: the command-line face of the sigpu libraries ([`sigpu_cli`]).

use clap::Parser;
use sigpu_cli::cli;
use std::io::Write;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether the process started without a descriptor 1 (`sigpu … >&-`).
static STDOUT_WAS_CLOSED: AtomicBool = AtomicBool::new(false);

/// Records whether descriptor 1 is open, before `main`: Rust's start-up reopens a closed
/// standard descriptor on /dev/null (so that no file opened later takes its number), after
/// which a closed stdout looks like `> /dev/null` and every result would vanish with exit
/// status 0. Run from `.init_array`, which the C library calls before Rust's start-up.
extern "C" fn record_closed_stdout() {
    // SAFETY: F_GETFD only asks whether the descriptor is open.
    if unsafe { libc::fcntl(1, libc::F_GETFD) } == -1 {
        STDOUT_WAS_CLOSED.store(true, Ordering::Relaxed);
    }
}

#[used]
#[link_section = ".init_array"]
static RECORD_CLOSED_STDOUT: extern "C" fn() = record_closed_stdout;

fn main() -> ExitCode {
    // A closed stdout (`sigpu ... | head -1`) ends the process the way it ends `cat` or `ls`;
    // any other failed write to stdout is an error (exit status 1), for every command.
    sigpu_runtime::program::die_on_sigpipe();
    if STDOUT_WAS_CLOSED.load(Ordering::Relaxed) {
        eprintln!(
            "error: stdout is closed (`>&-`?), and sigpu writes its results there; redirect \
             it to /dev/null to discard them"
        );
        return ExitCode::FAILURE;
    }
    sigpu_runtime::program::stdout_errors_end_the_process();
    // Ctrl-C / kill remove the temporary files of outputs being written, then end the process
    // with the signal's status (130, 143).
    if let Err(e) = sigpu_runtime::fs::remove_temps_on_signal() {
        eprintln!("warning: cannot watch for signals ({e}); an interrupted write may leave a temporary file");
    }
    let args = match cli::Cli::try_parse() {
        Ok(args) => args,
        // --help and --version go to stdout, usage errors to stderr: either way a failed write
        // is an error, not a silent exit 0.
        Err(e) => {
            let code = e.exit_code();
            if let Err(w) = e.print().and_then(|()| std::io::stdout().flush()) {
                eprintln!("error: cannot write to stdout: {w}");
                return ExitCode::FAILURE;
            }
            return ExitCode::from(u8::try_from(code).unwrap_or(2));
        }
    };
    let done = cli::run(&args).and_then(|code| {
        // What `print!` left in the buffer: an error here is as much a lost result.
        std::io::stdout()
            .flush()
            .map_err(|e| anyhow::anyhow!("cannot write the results to stdout: {e}"))?;
        Ok(code)
    });
    match done {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
