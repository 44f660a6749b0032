//! What a command-line program (not a library: a library leaves a host's signals and panic
//! hook alone) sets up at the start of `main` so that its output is never lost silently:
//! a closed pipe ends it as it ends `cat` ([`die_on_sigpipe`]), and any other failed write
//! to stdout is an error with exit status 1 rather than a panic's 101
//! ([`stdout_errors_end_the_process`]).

/// What `println!` panics with when stdout fails (a full disk, `/dev/full`, an I/O error).
const STDOUT_PANIC: &str = "failed printing to stdout: ";

/// Restores SIGPIPE's default action: a closed stdout (`prog | head -1`) ends the process
/// silently, killed by SIGPIPE (exit status 141 in a shell). Rust ignores SIGPIPE and turns
/// the failed write into a panic in `println!`. Call it first thing in `main`, before any
/// thread exists.
pub fn die_on_sigpipe() {
    // SAFETY: SIG_DFL is a valid disposition; called at the start of main, before threads.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// A write to stdout that fails (other than a closed pipe, which SIGPIPE ends) panics inside
/// `println!`, wherever a program prints. This hook turns that panic, on any thread, into the
/// error it is — a message, the temporary files removed ([`crate::fs`]), exit status 1 —
/// instead of a panic's 101 and backtrace. Other panics are left to the previous hook.
pub fn stdout_errors_end_the_process() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let text = (payload.downcast_ref::<String>().map(String::as_str))
            .or_else(|| payload.downcast_ref::<&str>().copied());
        match text.and_then(|t| t.strip_prefix(STDOUT_PANIC)) {
            Some(why) => {
                eprintln!("error: cannot write the results to stdout: {why}");
                crate::fs::exit_removing_temps(1)
            }
            None => previous(info),
        }
    }));
}
