//! A byte-mutation fuzzer for the test suite: every parser of user input (file formats, names,
//! number lists) is fed mutated valid inputs and asserted to never panic, hang or allocate
//! without bound, on stable Rust and in bounded time.
//!
//! A fuzz test gives [`run`] a few valid inputs (seeds), a dictionary of tokens the parser
//! knows, and the target: a closure that parses one input, checks what must hold (a round trip,
//! a bound) and returns whether the input was accepted. Accepted inputs join the corpus, so the
//! mutations move deeper into the grammar without coverage instrumentation.
//!
//! How long each parser runs comes from the environment, so the suite stays fast and
//! `scripts/fuzz` runs the same tests longer:
//! - `SIGPU_FUZZ_SECS`: seconds per parser (default 2; the suite's budget);
//! - `SIGPU_FUZZ_CASES`: a case count per parser instead (stops at whichever comes first);
//! - `SIGPU_FUZZ_SEED`: the random seed (default 1, so the suite is reproducible);
//! - `SIGPU_FUZZ_HANG_SECS`: one case running longer than this is a hang (default 10 s): the
//!   input is written out and the process aborts;
//! - `SIGPU_FUZZ_OUT`: where failing inputs are saved (default the system temp directory).
//!
//! Memory: a test binary installs [`CountingAlloc`] as its global allocator; it counts live
//! heap bytes, records the peak, and aborts (with the input on stderr) when a single run goes
//! past `SIGPU_FUZZ_MEM_MIB` (default 1024).
//!
//! Each parser prints one line, `fuzz NAME: ...`, with its counts: cases, accepted, panics,
//! the slowest case and the peak heap.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::alloc::{GlobalAlloc, Layout, System};
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static CAP: AtomicUsize = AtomicUsize::new(usize::MAX);
/// The input of the case running when the cap is hit (one at a time is shown).
static CURRENT: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());
static CURRENT_LEN: AtomicUsize = AtomicUsize::new(0);

/// The system allocator, counting live bytes and their peak, refusing to grow past the cap
/// set by [`run`] (`SIGPU_FUZZ_MEM_MIB`): an input that makes a parser allocate without bound
/// aborts the test with a message instead of taking the machine's memory.
pub struct CountingAlloc;

fn over_cap(size: usize) -> ! {
    let msg = format!(
        "fuzz: an allocation of {size} bytes would pass the memory cap \
         (SIGPU_FUZZ_MEM_MIB); the input follows on stderr\n"
    );
    // SAFETY: plain writes of valid buffers to the standard error descriptor.
    unsafe {
        libc::write(2, msg.as_ptr().cast(), msg.len());
        let p = CURRENT.load(Ordering::Relaxed);
        if !p.is_null() {
            libc::write(2, p.cast(), CURRENT_LEN.load(Ordering::Relaxed));
        }
    }
    std::process::abort()
}

// SAFETY: every call is forwarded to the system allocator unchanged; only counters are kept.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        if live > CAP.load(Ordering::Relaxed) {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
            // Lift the cap so the message can be formatted.
            CAP.store(usize::MAX, Ordering::Relaxed);
            over_cap(layout.size());
        }
        PEAK.fetch_max(live, Ordering::Relaxed);
        // SAFETY: forwarded with the caller's layout.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: forwarded with the caller's pointer and layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            let grow = new_size - layout.size();
            let live = LIVE.fetch_add(grow, Ordering::Relaxed) + grow;
            if live > CAP.load(Ordering::Relaxed) {
                LIVE.fetch_sub(grow, Ordering::Relaxed);
                CAP.store(usize::MAX, Ordering::Relaxed);
                over_cap(new_size);
            }
            PEAK.fetch_max(live, Ordering::Relaxed);
        } else {
            LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
        }
        // SAFETY: forwarded with the caller's pointer, layout and size.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// The heap's peak so far, bytes (0 unless the binary uses [`CountingAlloc`]).
pub fn peak_heap() -> usize {
    PEAK.load(Ordering::Relaxed)
}

thread_local! {
    /// Set while this thread runs a fuzz case: its panics are recorded, not printed.
    static IN_CASE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    static LAST_PANIC: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// A panic hook (installed once) that keeps a fuzz case's panic message for the report
/// instead of printing thousands of them; other panics go to the previous hook.
fn quiet_panics_in_cases() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if IN_CASE.with(|c| c.get()) {
                let text = info.to_string();
                LAST_PANIC.with(|l| *l.borrow_mut() = Some(text));
            } else {
                previous(info);
            }
        }));
    });
}

fn env<T: std::str::FromStr>(name: &str) -> Option<T> {
    std::env::var(name).ok()?.trim().parse().ok()
}

/// What one parser's run found.
#[derive(Clone, Debug)]
pub struct Report {
    /// The parser's name, as given to [`run`].
    pub name: String,
    /// Inputs tried.
    pub cases: u64,
    /// Inputs the parser accepted.
    pub accepted: u64,
    /// Inputs that panicked the parser; each is saved under [`failures`](Self::failures).
    pub panics: u64,
    /// Wall time of the run.
    pub seconds: f64,
    /// Wall time of the slowest single case.
    pub slowest_case_ms: f64,
    /// Peak live heap during the run, MiB.
    pub peak_heap_mib: f64,
    /// Files holding the inputs that panicked (the first few).
    pub failures: Vec<std::path::PathBuf>,
}

/// Tokens of the `.npy` header grammar, for every fuzz test of a parser that reads `.npy`.
pub const NPY_TOKENS: &[&str] = &[
    "'descr'",
    "'shape'",
    "'fortran_order'",
    "True",
    "False",
    "'yes'",
    "(",
    ")",
    ",",
    "{",
    "}",
    "<f8",
    "|i1",
    "<f4",
    ">f4",
    ">f8",
    ">i4",
    "0, ",
    "18446744073709551615",
    "1099511627776",
    "NUMPY",
    "\x01\x00",
    "\x02\x00",
    "\x03\x00",
];

/// `.npy` files to start from: several element types and shapes (a scalar, empty arrays,
/// which are refused), big-endian data, data at an odd offset and a version-2 header, so
/// mutations reach every branch of the header parser.
pub fn npy_seeds() -> Vec<Vec<u8>> {
    use crate::npy::encode;
    let f32s: Vec<u8> = (0..12).flat_map(|i| (i as f32).to_le_bytes()).collect();
    let mut v2 = encode("<f8", &[3], &[0u8; 24]);
    // A version-2 header: 4-byte length.
    v2[6] = 2;
    let len = u16::from_le_bytes([v2[8], v2[9]]) as u32;
    v2.splice(8..10, len.to_le_bytes());
    // Big-endian (as np.save writes a '>f8' array) and data at an odd offset (a header
    // not padded the way numpy pads it).
    let be: Vec<u8> = (0..3).flat_map(|i| (i as f64).to_be_bytes()).collect();
    let mut odd = encode("<f4", &[2], &f32s[..8]);
    let header_len = u16::from_le_bytes([odd[8], odd[9]]);
    odd.insert(10 + header_len as usize - 1, b' ');
    odd[8..10].copy_from_slice(&(header_len + 1).to_le_bytes());
    vec![
        encode("<f4", &[3, 4], &f32s),
        encode("|i1", &[5], &[1, 2, 3, 4, 5]),
        encode("<i8", &[], &[0; 8]),
        encode("<f4", &[0, 7], &[]),
        // A 128-byte file naming dimensions no buffer can hold (refused: no values).
        encode("<f4", &[usize::MAX, 0], &[]),
        encode(">f8", &[3], &be),
        odd,
        v2,
    ]
}

/// Tokens worth splicing into any text input: numbers at the edges of every type.
pub const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "1",
    "-1",
    "nan",
    "NaN",
    "inf",
    "-inf",
    "1e308",
    "1e309",
    "-1e308",
    "1e-320",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999",
    "0x10",
    "1.5",
    ".",
    "e",
    "+",
    "-",
];

fn mutate(
    rng: &mut ChaCha8Rng,
    input: &mut Vec<u8>,
    corpus: &[Vec<u8>],
    dict: &[&[u8]],
    max: usize,
) {
    const BYTES: &[u8] = b"\0\xff\x7f\x80 \n\t,:;-+.e0123456789'\"(){}[]#";
    for _ in 0..rng.random_range(1..=4) {
        let len = input.len();
        match rng.random_range(0..10) {
            0 if len > 0 => {
                let i = rng.random_range(0..len);
                input[i] ^= 1 << rng.random_range(0..8);
            }
            1 if len > 0 => {
                let i = rng.random_range(0..len);
                input[i] = if rng.random_bool(0.5) {
                    BYTES[rng.random_range(0..BYTES.len())]
                } else {
                    rng.random()
                };
            }
            2 if len > 0 => {
                let i = rng.random_range(0..len);
                let n = rng.random_range(1..=16.min(len - i));
                input.drain(i..i + n);
            }
            3 if len > 0 => {
                // Duplicate a range (repeated lines, fields, rows).
                let i = rng.random_range(0..len);
                let n = rng.random_range(1..=64.min(len - i));
                let chunk = input[i..i + n].to_vec();
                let at = rng.random_range(0..=len);
                input.splice(at..at, chunk);
            }
            4 if !corpus.is_empty() => {
                // Splice part of another input.
                let other = &corpus[rng.random_range(0..corpus.len())];
                if !other.is_empty() {
                    let i = rng.random_range(0..other.len());
                    let n = rng.random_range(1..=64.min(other.len() - i));
                    let at = rng.random_range(0..=len);
                    input.splice(at..at, other[i..i + n].iter().copied());
                }
            }
            5 | 6 if !dict.is_empty() => {
                let token = dict[rng.random_range(0..dict.len())];
                let at = rng.random_range(0..=len);
                if rng.random_bool(0.5) && at < len {
                    // Replace a run of the same class (a number by a number).
                    let end = (at..len)
                        .find(|&j| !input[j].is_ascii_alphanumeric() && input[j] != b'.')
                        .unwrap_or(len)
                        .max(at + 1);
                    input.splice(at..end, token.iter().copied());
                } else {
                    input.splice(at..at, token.iter().copied());
                }
            }
            7 => {
                let at = rng.random_range(0..=len);
                let n = rng.random_range(1..=8);
                let bytes: Vec<u8> = (0..n).map(|_| rng.random()).collect();
                input.splice(at..at, bytes);
            }
            8 if len > 0 => input.truncate(rng.random_range(0..len)),
            _ => {
                if rng.random_bool(0.02) {
                    let n = rng.random_range(0..64);
                    *input = (0..n).map(|_| rng.random()).collect();
                }
            }
        }
    }
    input.truncate(max);
}

/// Fuzzes one parser: see the module docs. `seeds` are valid inputs, `dict` the tokens the
/// parser knows (keywords, field names; [`NUMBERS`] are added), `max_len` caps an input's
/// length. `target` returns whether it accepted the input; a panic in it is a failure (the
/// input is saved), as is a case slower than `SIGPU_FUZZ_HANG_SECS`. Panics at the end when
/// any case panicked, naming the saved inputs.
pub fn run(
    name: &str,
    seeds: &[Vec<u8>],
    dict: &[&str],
    max_len: usize,
    target: impl Fn(&[u8]) -> bool,
) -> Report {
    let secs: f64 = env("SIGPU_FUZZ_SECS").unwrap_or(2.0);
    let cases: u64 = env("SIGPU_FUZZ_CASES").unwrap_or(u64::MAX);
    let seed: u64 = env("SIGPU_FUZZ_SEED").unwrap_or(1);
    let hang = Duration::from_secs_f64(env("SIGPU_FUZZ_HANG_SECS").unwrap_or(10.0));
    if let Some(mib) = env::<usize>("SIGPU_FUZZ_MEM_MIB").or(Some(1024)) {
        CAP.store(mib << 20, Ordering::Relaxed);
    }
    let out_dir = std::env::var_os("SIGPU_FUZZ_OUT")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    let dict: Vec<&[u8]> = (dict.iter().chain(NUMBERS)).map(|s| s.as_bytes()).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ fxhash(name.as_bytes()));
    let mut corpus: Vec<Vec<u8>> = seeds.to_vec();
    let mut report = Report {
        name: name.to_owned(),
        cases: 0,
        accepted: 0,
        panics: 0,
        seconds: 0.0,
        slowest_case_ms: 0.0,
        peak_heap_mib: 0.0,
        failures: Vec::new(),
    };

    // The watchdog: a case running past `hang` is reported with its input and ends the run
    // (a hung parser cannot be stopped from outside its thread).
    let started_ns = Arc::new(AtomicU64::new(u64::MAX));
    let done = Arc::new(AtomicBool::new(false));
    let t0 = Instant::now();
    let current: Arc<std::sync::Mutex<Vec<u8>>> = Arc::default();
    let watchdog = {
        let (started_ns, done, current) = (started_ns.clone(), done.clone(), current.clone());
        let (name, out_dir) = (name.to_owned(), out_dir.clone());
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(100));
                let s = started_ns.load(Ordering::Relaxed);
                let now = t0.elapsed().as_nanos() as u64;
                if s != u64::MAX && now.saturating_sub(s) > hang.as_nanos() as u64 {
                    let input = current.lock().map(|c| c.clone()).unwrap_or_default();
                    let path = out_dir.join(format!("fuzz-{}-hang.bin", sanitize(&name)));
                    let _ = std::fs::write(&path, &input);
                    eprintln!(
                        "fuzz {name}: HANG: one case ran over {:.1} s; input saved to {}",
                        hang.as_secs_f64(),
                        path.display()
                    );
                    std::process::abort();
                }
            }
        })
    };

    quiet_panics_in_cases();
    let mut i = 0usize;
    while report.cases < cases && t0.elapsed().as_secs_f64() < secs {
        // Every seed as it is first, then mutations of the corpus.
        let mut input = if i < seeds.len() {
            seeds[i].clone()
        } else {
            let mut x = corpus[rng.random_range(0..corpus.len())].clone();
            mutate(&mut rng, &mut x, &corpus, &dict, max_len);
            x
        };
        i += 1;
        input.truncate(max_len);
        if let Ok(mut c) = current.lock() {
            c.clone_from(&input);
        }
        CURRENT.store(input.as_ptr().cast_mut(), Ordering::Relaxed);
        CURRENT_LEN.store(input.len(), Ordering::Relaxed);
        let start = Instant::now();
        started_ns.store(t0.elapsed().as_nanos() as u64, Ordering::Relaxed);
        IN_CASE.with(|c| c.set(true));
        let result = std::panic::catch_unwind(AssertUnwindSafe(|| target(&input)));
        IN_CASE.with(|c| c.set(false));
        started_ns.store(u64::MAX, Ordering::Relaxed);
        CURRENT.store(std::ptr::null_mut(), Ordering::Relaxed);
        let ms = start.elapsed().as_secs_f64() * 1e3;
        report.slowest_case_ms = report.slowest_case_ms.max(ms);
        report.cases += 1;
        match result {
            Ok(true) => {
                report.accepted += 1;
                if corpus.len() < 512 {
                    corpus.push(input);
                } else {
                    let k = rng.random_range(0..corpus.len());
                    corpus[k] = input;
                }
            }
            Ok(false) => {}
            Err(_) => {
                report.panics += 1;
                if report.failures.len() < 5 {
                    let path = out_dir.join(format!(
                        "fuzz-{}-panic-{:016x}.bin",
                        sanitize(name),
                        fxhash(&input)
                    ));
                    let _ = std::fs::write(&path, &input);
                    let message = LAST_PANIC
                        .with(|l| l.borrow_mut().take())
                        .unwrap_or_default();
                    eprintln!(
                        "fuzz {name}: PANIC on {} input bytes (saved to {}): {message}",
                        input.len(),
                        path.display()
                    );
                    report.failures.push(path);
                }
            }
        }
        // Without a single valid seed there is nothing to keep mutating towards.
        if corpus.is_empty() {
            corpus.push(Vec::new());
        }
    }
    done.store(true, Ordering::Relaxed);
    let _ = watchdog.join();
    report.seconds = t0.elapsed().as_secs_f64();
    report.peak_heap_mib = peak_heap() as f64 / (1 << 20) as f64;
    println!(
        "fuzz {}: {} cases ({} accepted), {} panics, {:.1} s, slowest case {:.2} ms, peak heap {:.1} MiB (seed {seed})",
        report.name,
        report.cases,
        report.accepted,
        report.panics,
        report.seconds,
        report.slowest_case_ms,
        report.peak_heap_mib
    );
    assert!(
        report.panics == 0,
        "fuzz {}: {} inputs panicked; saved: {:?}",
        report.name,
        report.panics,
        report.failures
    );
    report
}

fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// A small stable hash (FNV-1a) for names and saved inputs.
fn fxhash(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_planted_panic_and_saves_its_input() {
        let dir = tempfile::tempdir().unwrap();
        std::env::set_var("SIGPU_FUZZ_OUT", dir.path());
        let caught = std::panic::catch_unwind(|| {
            run("planted", &[b"12".to_vec()], &[], 64, |b| {
                assert!(!b.contains(&b'7'), "a 7");
                true
            })
        });
        let message = caught.unwrap_err();
        let text = message
            .downcast_ref::<String>()
            .cloned()
            .unwrap_or_default();
        assert!(text.contains("inputs panicked"), "{text}");
        let saved: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert!(!saved.is_empty());
        let bytes = std::fs::read(saved[0].as_ref().unwrap().path()).unwrap();
        assert!(bytes.contains(&b'7'));
    }
}
