//! What every native entry point runs inside: [`catch`] turns a Rust panic into a
//! `RuntimeError` with the panic's message (pyo3's own `PanicException` derives from
//! `BaseException`, so `except Exception` would not catch it); [`interruptible`] runs long work
//! on a worker thread while the calling thread waits with the GIL released and checks for
//! signals every 50 ms, so Ctrl-C raises `KeyboardInterrupt` at once: the work's
//! cancellation token is set, its chunk loops stop at their next poll, and its result is
//! dropped; [`with_threads`] runs work on a pool of the caller's thread count; [`pythonic`]
//! rewrites the libraries' command-line words into the package's keyword arguments.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use sigpu_runtime::cancel::Cancel;
use std::any::Any;
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::Duration;

/// The message of a panic's payload.
fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_owned()
    }
}

/// The exception a caught panic becomes.
fn panic_err(payload: &(dyn Any + Send)) -> PyErr {
    PyRuntimeError::new_err(format!(
        "internal error in sigpu (please report it): {}",
        panic_message(payload)
    ))
}

/// `body`, with any panic in it (or in the threads it joins) raised as a `RuntimeError`.
pub fn catch<R>(body: impl FnOnce() -> PyResult<R>) -> PyResult<R> {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|p| Err(panic_err(&*p)))
}

/// Runs `work` without the GIL. When `long` (the caller's estimate: big enough that a thread
/// start is noise), it runs on a worker thread under a fresh [`Cancel`] token while this thread
/// checks for signals every 50 ms; a signal handler's exception (`KeyboardInterrupt`) cancels
/// the token, waits for the work to stop and is raised, the work's result dropped.
pub fn interruptible<R: Send>(
    py: Python<'_>,
    long: bool,
    work: impl FnOnce() -> R + Send,
) -> PyResult<R> {
    if !long {
        return py
            .detach(|| catch_unwind(AssertUnwindSafe(work)))
            .map_err(|p| panic_err(&*p));
    }
    let token = Cancel::new();
    let done = (Mutex::new(false), Condvar::new());
    std::thread::scope(|s| {
        let (token, done) = (&token, &done);
        let handle = s.spawn(move || {
            let out = catch_unwind(AssertUnwindSafe(|| token.scope(work)));
            *done.0.lock().unwrap_or_else(|p| p.into_inner()) = true;
            done.1.notify_all();
            out
        });
        loop {
            let finished = py.detach(|| {
                let flag = done.0.lock().unwrap_or_else(|p| p.into_inner());
                let wait = done
                    .1
                    .wait_timeout_while(flag, Duration::from_millis(50), |d| !*d);
                *wait.map_or_else(|p| p.into_inner().0, |w| w.0)
            });
            if finished {
                break;
            }
            if let Err(interrupt) = py.check_signals() {
                token.cancel();
                let _ = py.detach(|| handle.join());
                return Err(interrupt);
            }
        }
        match py.detach(|| handle.join()) {
            Ok(Ok(out)) => Ok(out),
            Ok(Err(p)) | Err(p) => Err(panic_err(&*p)),
        }
    })
}

/// Runs `work` on a pool of `threads` threads (rayon's global pool: all cores, for `None`),
/// carrying this thread's cancellation token into it. Pools are made once per size.
pub fn with_threads<R: Send>(threads: Option<usize>, work: impl FnOnce() -> R + Send) -> R {
    let Some(n) = threads else { return work() };
    static POOLS: OnceLock<Mutex<HashMap<usize, Arc<rayon::ThreadPool>>>> = OnceLock::new();
    let pool = {
        let mut pools = POOLS
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        match pools.get(&n) {
            Some(p) => Some(p.clone()),
            None => {
                let built = rayon::ThreadPoolBuilder::new().num_threads(n).build().ok();
                let built = built.map(Arc::new);
                if let Some(p) = &built {
                    pools.insert(n, p.clone());
                }
                built
            }
        }
    };
    let cancel = Cancel::current();
    match pool {
        Some(pool) => pool.install(move || cancel.scope(work)),
        None => work(),
    }
}

/// The libraries' messages name command-line flags (`--precision float`); the package's
/// callers pass keyword arguments (`precision='float'`). Flags with a value become
/// `name='value'`, switches `name=True` (`--no-X`: `X=False`), other flags `name=`, and the
/// library's own option names (`FilterOptions.x`) are dropped.
pub fn pythonic(message: &str) -> String {
    const VALUED: [&str; 4] = ["precision", "schedule", "decoder", "device"];
    const SWITCHES: [&str; 2] = ["allow-unstable", "early-termination"];
    let message = message
        .replace(" (library: FilterOptions.allow_unstable)", "")
        .replace(
            "`sigpu ldpc simulate --out`",
            "sigpu.ldpc.simulate(out=...)",
        );
    let mut out = String::with_capacity(message.len());
    let mut rest = message.as_str();
    while let Some(at) = rest.find("--") {
        let flag_len = rest[at + 2..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .unwrap_or(rest.len() - at - 2);
        let flag = &rest[at + 2..at + 2 + flag_len];
        let preceded = at == 0 || !rest[..at].ends_with(|c: char| c.is_ascii_alphanumeric());
        if flag.is_empty() || !preceded || !flag.starts_with(|c: char| c.is_ascii_lowercase()) {
            out.push_str(&rest[..at + 2]);
            rest = &rest[at + 2..];
            continue;
        }
        out.push_str(&rest[..at]);
        rest = &rest[at + 2 + flag_len..];
        let (negated, name) = match flag.strip_prefix("no-") {
            Some(n) => (true, n),
            None => (false, flag),
        };
        let keyword = name.replace('-', "_");
        if negated {
            out.push_str(&format!("{keyword}=False"));
        } else if SWITCHES.contains(&name) {
            out.push_str(&format!("{keyword}=True"));
        } else if VALUED.contains(&name) && rest.starts_with(' ') {
            // The flag's value: the next word, quoted as a Python string.
            let value_end = rest[1..]
                .find(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | ')'))
                .map_or(rest.len(), |e| e + 1);
            out.push_str(&format!("{keyword}='{}'", &rest[1..value_end]));
            rest = &rest[value_end..];
        } else if rest.starts_with(' ')
            && rest[1..].starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '.')
        {
            // `--iterations 0 must be …`: the value follows the `=`.
            out.push_str(&format!("{keyword}="));
            rest = &rest[1..];
        } else {
            out.push_str(&keyword);
        }
    }
    out.push_str(rest);
    out
}

/// Raises a panic inside [`catch`]: how the tests see that a panic reaches Python as a
/// `RuntimeError` with its message.
#[pyfunction]
fn _panic_for_test(message: String) -> PyResult<()> {
    catch(|| panic!("{message}"))
}

/// [`pythonic`] itself, for the package's tests.
#[pyfunction]
fn _pythonic_for_test(message: String) -> PyResult<String> {
    catch(|| Ok(pythonic(&message)))
}

/// Adds this module's functions to `_native`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_panic_for_test, m)?)?;
    m.add_function(wrap_pyfunction!(_pythonic_for_test, m)?)
}
