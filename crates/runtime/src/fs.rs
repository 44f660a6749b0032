//! The one way sigpu writes an output file, and the checks every output gets before any work.
//!
//! - [`write_atomic`] writes a regular file through a temporary file beside it (a random name,
//!   created `O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC`), `fsync`, a rename over the target and an
//!   `fsync` of the directory: a reader sees the old file or the complete new one, an
//!   interrupted run never leaves a truncated file, and a symlink planted at the temporary
//!   name (in a shared directory such as `/tmp`) is refused, never followed. A character
//!   device or a FIFO (`/dev/null`, `/dev/stdout`, a named pipe) is written directly, with
//!   every write error reported (`/dev/full` fails with "no space left"); a block device or
//!   a socket is refused. A symlink at the target is resolved and its target replaced, as a
//!   shell's `>` would, except a symlink owned by another user in a sticky world-writable
//!   directory (the kernel's `protected_symlinks` rule), which is refused.
//! - [`check_output`] finds before any work whether a path can be written: its directory
//!   exists (no directory is created), a temporary file can be made there, the target is no
//!   directory; [`same_file`] tells whether two paths name one file, so a command can refuse
//!   an output that is also an input or another output.
//! - [`remove_temps_on_signal`] (called once by a program's `main`) removes the temporary
//!   files still being written when SIGINT, SIGTERM or SIGHUP arrives, then dies of the
//!   signal as it would have.
//! - Temporary files a killed writer left (SIGKILL or a crash give no chance to clean up) are
//!   removed by the next [`write_atomic`] of the same target: their names carry the writer's
//!   pid (`.NAME.<pid>.<random>.tmp`), and those of a process that no longer exists (for a
//!   minute at least) or older than a day are removed, when they are regular files of the
//!   caller's.
//! - [`lock_exclusive`] holds an advisory lock on an output (a long sweep's results file), so
//!   a second process writing the same file gets an error instead of losing points.

use std::ffi::OsString;
use std::fs::{File, Metadata, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

/// Paths this process is writing (temporary files, lock files), removed on a signal.
static TEMPS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn temps() -> MutexGuard<'static, Vec<PathBuf>> {
    TEMPS.lock().unwrap_or_else(|e| e.into_inner())
}

fn unregister(list: &mut Vec<PathBuf>, path: &Path) {
    list.retain(|p| p != path);
}

fn err(kind: io::ErrorKind, message: String) -> io::Error {
    io::Error::new(kind, message)
}

/// Follows symlinks at the last component of `path` (at most 40, as the kernel does) to the
/// path that would be written: the first one that is not a symlink, or does not exist.
fn resolve(path: &Path) -> io::Result<PathBuf> {
    let mut p = path.to_owned();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let dir = parent(&p);
                refuse_foreign_link(&p, &m, &dir)?;
                let to = std::fs::read_link(&p)?;
                p = if to.is_absolute() { to } else { dir.join(to) };
            }
            Ok(_) => return Ok(p),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(p),
            Err(e) => return Err(e),
        }
    }
    Err(err(
        io::ErrorKind::InvalidInput,
        format!("{}: too many levels of symbolic links", path.display()),
    ))
}

/// The kernel's `protected_symlinks` rule: in a sticky world-writable directory, a symlink is
/// followed only if it belongs to us or to the directory's owner. Another user's link there
/// is how a run is tricked into overwriting a file it may write and they may not.
fn refuse_foreign_link(link: &Path, m: &Metadata, dir: &Path) -> io::Result<()> {
    let Ok(d) = std::fs::metadata(dir) else {
        return Ok(());
    };
    let sticky_shared = d.mode() & 0o1002 == 0o1002;
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    if sticky_shared && m.uid() != me && m.uid() != d.uid() {
        return Err(err(
            io::ErrorKind::PermissionDenied,
            format!(
                "{} is a symlink owned by another user (uid {}) in the shared directory {}; \
                 refusing to write through it",
                link.display(),
                m.uid(),
                dir.display()
            ),
        ));
    }
    Ok(())
}

/// The directory a file at `path` lives in (`.` for a bare name).
fn parent(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
        _ => PathBuf::from("."),
    }
}

/// What sits at a resolved output path.
enum Target {
    /// Nothing yet, or a regular file (with its mode, kept by the replacement).
    File(Option<u32>),
    /// A character device or FIFO: written in place.
    Stream,
}

fn classify(resolved: &Path, shown: &Path) -> io::Result<Target> {
    let m = match std::fs::metadata(resolved) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let dir = parent(resolved);
            return match std::fs::metadata(&dir) {
                Ok(d) if d.is_dir() => Ok(Target::File(None)),
                Ok(_) => Err(err(
                    io::ErrorKind::NotFound,
                    format!("{} is not a directory", dir.display()),
                )),
                Err(_) => Err(err(
                    io::ErrorKind::NotFound,
                    format!(
                        "directory {} does not exist (create it first; sigpu makes no directories)",
                        dir.display()
                    ),
                )),
            };
        }
        Err(e) => return Err(e),
    };
    let t = m.file_type();
    if t.is_file() {
        Ok(Target::File(Some(m.permissions().mode() & 0o7777)))
    } else if t.is_dir() {
        Err(err(
            io::ErrorKind::InvalidInput,
            format!("{} is a directory, not a file", shown.display()),
        ))
    } else if t.is_char_device() || t.is_fifo() {
        Ok(Target::Stream)
    } else {
        let what = if t.is_block_device() {
            "a block device"
        } else if t.is_socket() {
            "a socket"
        } else {
            "not a regular file"
        };
        Err(err(
            io::ErrorKind::InvalidInput,
            format!(
                "{} is {what}; outputs go to regular files, character devices or FIFOs",
                shown.display()
            ),
        ))
    }
}

/// A new temporary file beside `target`: random name, `O_EXCL|O_NOFOLLOW`, registered for
/// removal on a signal before anyone can see it.
fn create_temp(target: &Path, mode: u32) -> io::Result<(File, PathBuf)> {
    let dir = parent(target);
    let name = target.file_name().ok_or_else(|| {
        err(
            io::ErrorKind::InvalidInput,
            format!("{}: no file name", target.display()),
        )
    })?;
    let mut last = None;
    for _ in 0..16 {
        let mut tmp_name = OsString::from(".");
        tmp_name.push(name);
        tmp_name.push(format!(
            ".{}.{:016x}.tmp",
            std::process::id(),
            rand::random::<u64>()
        ));
        let tmp = dir.join(tmp_name);
        // Created and registered under the lock, so a signal handler waiting on it sees the
        // file and removes it.
        let mut list = temps();
        let opened = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&tmp);
        match opened {
            Ok(f) => {
                list.push(tmp.clone());
                return Ok((f, tmp));
            }
            // Someone else's file (or a planted symlink) at that name: never touch it.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("no temporary name was free")))
}

/// A temporary file older than this is stale whatever its name's pid says (pids are reused).
const STALE_AFTER: Duration = Duration::from_secs(24 * 3600);

/// A temporary file whose writer is gone is left alone this long first: the pid is this
/// host's, and a writer on another host sharing the directory may hold the same number.
const DEAD_WRITER_GRACE: Duration = Duration::from_secs(60);

/// The writer's pid in a temporary file name of ours for the target file name `name`:
/// `.NAME.<pid>.<16 hex digits>.tmp` gives `Some(Some(pid))`, the older `.NAME.<16 hex>.tmp`
/// (no pid) `Some(None)`, any other name `None`.
fn temp_writer(entry: &std::ffi::OsStr, name: &std::ffi::OsStr) -> Option<Option<u32>> {
    let entry = entry.as_encoded_bytes();
    let name = name.as_encoded_bytes();
    let rest = entry
        .strip_prefix(b".")?
        .strip_prefix(name)?
        .strip_prefix(b".")?;
    let rest = rest.strip_suffix(b".tmp")?;
    let hex = |b: &[u8]| b.len() == 16 && b.iter().all(u8::is_ascii_hexdigit);
    match rest.iter().position(|&c| c == b'.') {
        None if hex(rest) => Some(None),
        Some(dot) if hex(&rest[dot + 1..]) => {
            let pid = std::str::from_utf8(&rest[..dot]).ok()?;
            pid.bytes()
                .all(|c| c.is_ascii_digit())
                .then(|| pid.parse().ok())?
                .map(Some)
        }
        _ => None,
    }
}

/// Whether process `pid` exists on this host (a process of another user counts).
fn alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: signal 0 only checks that the process exists; nothing is sent.
    pid > 0
        && (unsafe { libc::kill(pid, 0) } == 0
            || io::Error::last_os_error().raw_os_error() == Some(libc::EPERM))
}

/// Removes the temporary files a killed writer (SIGKILL, a crash, a power cut) left beside
/// `target`: names of our pattern for this target, regular files owned by the caller, whose
/// writer's pid is gone for [`DEAD_WRITER_GRACE`], or older than [`STALE_AFTER`]. This
/// process's own are never touched (another thread may be writing them). Best effort:
/// nothing here can fail a write.
fn remove_stale_temps(target: &Path) {
    let (Some(name), Ok(entries)) = (target.file_name(), std::fs::read_dir(parent(target))) else {
        return;
    };
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    for entry in entries.flatten() {
        let Some(writer) = temp_writer(&entry.file_name(), name) else {
            continue;
        };
        if writer == Some(std::process::id()) {
            continue;
        }
        // No symlink, no other user's file: only what a writer of ours could have left.
        let Ok(m) = std::fs::symlink_metadata(entry.path()) else {
            continue;
        };
        if !m.file_type().is_file() || m.uid() != me {
            continue;
        }
        let age = m
            .modified()
            .ok()
            .and_then(|t| t.elapsed().ok())
            .unwrap_or_default();
        let writer_gone = writer.is_some_and(|pid| !alive(pid)) && age >= DEAD_WRITER_GRACE;
        if writer_gone || age >= STALE_AFTER {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

fn remove_temp(tmp: &Path) {
    let mut list = temps();
    let _ = std::fs::remove_file(tmp);
    unregister(&mut list, tmp);
}

/// `fsync` of a directory, so a rename in it survives a crash. File systems that cannot sync
/// a directory (EINVAL) have nothing to make durable.
fn sync_dir(dir: &Path) -> io::Result<()> {
    let d = File::open(dir)?;
    match d.sync_all() {
        Err(e) if e.raw_os_error() == Some(libc::EINVAL) => Ok(()),
        other => other,
    }
}

/// Writes `bytes` to `path`, the one way sigpu writes an output: see the module docs.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let resolved = resolve(path)?;
    match classify(&resolved, path)? {
        Target::Stream => {
            let mut f = OpenOptions::new()
                .write(true)
                .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
                .open(&resolved)?;
            f.write_all(bytes)?;
            f.flush()
        }
        Target::File(mode) => {
            remove_stale_temps(&resolved);
            let (mut f, tmp) = create_temp(&resolved, mode.unwrap_or(0o666))?;
            let result = (|| {
                f.write_all(bytes)?;
                if let Some(mode) = mode {
                    // The replacement keeps the old file's permissions (the umask applied to
                    // the temporary file's).
                    f.set_permissions(std::fs::Permissions::from_mode(mode))?;
                }
                f.sync_all()?;
                drop(f);
                let mut list = temps();
                std::fs::rename(&tmp, &resolved)?;
                unregister(&mut list, &tmp);
                Ok(())
            })();
            match result {
                Ok(()) => sync_dir(&parent(&resolved)),
                Err(e) => {
                    remove_temp(&tmp);
                    Err(e)
                }
            }
        }
    }
}

/// Whether `path` can be written by [`write_atomic`], found before any work: the directory
/// exists (none is created) and takes a new file, the target is no directory, block device
/// or socket. Nothing is left behind.
pub fn check_output(path: &Path) -> io::Result<()> {
    let resolved = resolve(path)?;
    match classify(&resolved, path)? {
        Target::Stream => {
            let c = std::ffi::CString::new(resolved.as_os_str().as_encoded_bytes())
                .map_err(|e| err(io::ErrorKind::InvalidInput, e.to_string()))?;
            // SAFETY: `c` is a valid NUL-terminated path for the duration of the call.
            if unsafe { libc::access(c.as_ptr(), libc::W_OK) } != 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        }
        Target::File(_) => {
            // A real probe: permissions, a read-only mount, a full quota and root's
            // exemptions all show here as they will in the write.
            let (f, tmp) = create_temp(&resolved, 0o600)?;
            drop(f);
            remove_temp(&tmp);
            Ok(())
        }
    }
}

/// Whether `a` and `b` name the same file: the same device and inode when both exist, else
/// the same directory and name after resolving symlinks.
pub fn same_file(a: &Path, b: &Path) -> bool {
    let (Ok(ra), Ok(rb)) = (resolve(a), resolve(b)) else {
        return false;
    };
    if let (Ok(ma), Ok(mb)) = (std::fs::metadata(&ra), std::fs::metadata(&rb)) {
        return (ma.dev(), ma.ino()) == (mb.dev(), mb.ino());
    }
    let canonical = |p: &Path| -> Option<PathBuf> {
        let dir = std::fs::canonicalize(parent(p)).ok()?;
        Some(dir.join(p.file_name()?))
    };
    match (canonical(&ra), canonical(&rb)) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

/// Installs (once) a handler that removes this process's temporary and lock files when
/// SIGINT, SIGTERM or SIGHUP arrives, then lets the signal end the process as it would have
/// (exit status 128 + signal in a shell: 130 for Ctrl-C, 143 for `kill`). For programs; a
/// library leaves a host's signals alone.
pub fn remove_temps_on_signal() -> io::Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    static INSTALLED: std::sync::OnceLock<()> = std::sync::OnceLock::new();
    if INSTALLED.get().is_some() {
        return Ok(());
    }
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])?;
    std::thread::Builder::new()
        .name("sigpu-signals".into())
        .spawn(move || {
            if let Some(sig) = signals.forever().next() {
                // Held to the end: no new temporary file appears after the sweep.
                let list = temps();
                for p in list.iter() {
                    let _ = std::fs::remove_file(p);
                }
                let _ = signal_hook::low_level::emulate_default_handler(sig);
                std::process::exit(128 + sig);
            }
        })?;
    let _ = INSTALLED.set(());
    Ok(())
}

/// Ends the process with `code` after removing its temporary and lock files, for a program
/// that must stop where it is (a failed write to stdout in a `println!` deep in a command):
/// no destructor runs, so nothing else would remove them. The list stays locked to the end,
/// so no new temporary file appears meanwhile.
pub fn exit_removing_temps(code: i32) -> ! {
    let list = temps();
    for p in list.iter() {
        let _ = std::fs::remove_file(p);
    }
    std::process::exit(code)
}

/// An exclusive advisory lock on an output, held until dropped (see [`lock_exclusive`]).
#[derive(Debug)]
pub struct OutputLock {
    path: PathBuf,
    _file: File,
}

impl Drop for OutputLock {
    fn drop(&mut self) {
        // Removed while still locked: a process that opened the old file sees it is gone
        // (the inode check in lock_exclusive) and starts over on a new one.
        remove_temp(&self.path);
    }
}

/// Locks the output `path` for this process: `flock` on a lock file `.NAME.lock` beside the
/// file it resolves to (the file itself is replaced by renames, so it cannot carry the lock).
/// A second process gets an error of kind `WouldBlock` naming the holder's pid. The lock goes
/// with the process, so a killed run never leaves a stale lock; the lock file is removed when
/// the lock is dropped.
pub fn lock_exclusive(path: &Path) -> io::Result<OutputLock> {
    let resolved = resolve(path)?;
    let name = resolved.file_name().ok_or_else(|| {
        err(
            io::ErrorKind::InvalidInput,
            format!("{}: no file name", path.display()),
        )
    })?;
    let mut lock_name = OsString::from(".");
    lock_name.push(name);
    lock_name.push(".lock");
    let lock_path = parent(&resolved).join(lock_name);
    for _ in 0..100 {
        let mut list = temps();
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o644)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&lock_path)
            .map_err(|e| err(e.kind(), format!("lock file {}: {e}", lock_path.display())))?;
        use std::os::fd::AsRawFd;
        // SAFETY: the descriptor is open for the duration of the call.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            let e = io::Error::last_os_error();
            drop(list);
            if e.raw_os_error() == Some(libc::EWOULDBLOCK) {
                let holder = std::fs::read_to_string(&lock_path).unwrap_or_default();
                let holder = holder.trim();
                let by = if holder.is_empty() {
                    String::new()
                } else {
                    format!(" (pid {holder})")
                };
                return Err(err(
                    io::ErrorKind::WouldBlock,
                    format!(
                        "{} is being written by another process{by}; wait for it or choose \
                         another file",
                        path.display()
                    ),
                ));
            }
            return Err(e);
        }
        // The file may have been removed by the previous holder between our open and lock.
        let held = file.metadata()?;
        match std::fs::symlink_metadata(&lock_path) {
            Ok(now) if (now.dev(), now.ino()) == (held.dev(), held.ino()) => {
                file.set_len(0)?;
                let _ = write!(file, "{}", std::process::id());
                list.push(lock_path.clone());
                return Ok(OutputLock {
                    path: lock_path,
                    _file: file,
                });
            }
            _ => continue,
        }
    }
    Err(io::Error::other(format!(
        "{}: could not take the lock",
        lock_path.display()
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(dir: &Path) -> Vec<String> {
        let mut v: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    /// A fresh directory holding one file `name` with `contents`.
    fn dir_with(name: &str, contents: &[u8]) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        std::fs::write(&path, contents).unwrap();
        (dir, path)
    }

    #[test]
    fn replaces_whole_file_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.json");
        write_atomic(&path, b"first version, longer").unwrap();
        write_atomic(&path, b"second").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"second");
        assert_eq!(entries(dir.path()), ["out.json"]);
    }

    #[test]
    fn keeps_the_mode_of_the_file_it_replaces() {
        let (_dir, path) = dir_with("out.bin", b"x");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_atomic(&path, b"y").unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
    }

    #[test]
    fn never_creates_directories() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("typo/out.json");
        let e = write_atomic(&path, b"x").unwrap_err().to_string();
        assert!(e.contains("does not exist"), "{e}");
        assert!(check_output(&path).is_err());
        assert!(!dir.path().join("typo").exists());
        let blocker = dir.path().join("file");
        std::fs::write(&blocker, b"x").unwrap();
        assert!(write_atomic(&blocker.join("child"), b"y").is_err());
        assert!(check_output(dir.path())
            .unwrap_err()
            .to_string()
            .contains("is a directory"));
    }

    #[test]
    fn devices_are_written_in_place_with_errors_reported() {
        write_atomic(Path::new("/dev/null"), b"discarded").unwrap();
        let m = std::fs::metadata("/dev/null").unwrap();
        assert!(
            m.file_type().is_char_device(),
            "/dev/null is still a device"
        );
        check_output(Path::new("/dev/null")).unwrap();
        if Path::new("/dev/full").exists() {
            let e = write_atomic(Path::new("/dev/full"), b"x").unwrap_err();
            assert_eq!(e.raw_os_error(), Some(libc::ENOSPC), "{e}");
        }
    }

    #[test]
    fn a_symlinked_target_is_resolved_and_its_target_replaced() {
        let (dir, real) = dir_with("real.json", b"old");
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink("real.json", &link).unwrap();
        write_atomic(&link, b"new").unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read(&real).unwrap(), b"new");
        assert!(same_file(&link, &real));
        assert!(!same_file(&link, &dir.path().join("other")));
        // A dangling link creates its target, as `>` does.
        let dangling = dir.path().join("dangling");
        std::os::unix::fs::symlink("made.json", &dangling).unwrap();
        write_atomic(&dangling, b"made").unwrap();
        assert_eq!(
            std::fs::read(dir.path().join("made.json")).unwrap(),
            b"made"
        );
    }

    /// The attack of a shared directory: a symlink planted at a temporary name must be
    /// neither followed nor removed. With random names the attacker cannot guess the name, so
    /// the test plants links at every name the writer could pick by forcing a collision: it
    /// fills the directory with links named like temporaries and checks the victim file.
    #[test]
    fn never_writes_through_a_planted_symlink() {
        let (dir, victim) = dir_with("victim", b"precious");
        let target = dir.path().join("out.json");
        // The old naming scheme's names, and a link at the target's lock name.
        for n in 0..4 {
            let name = format!(".out.json.{}.{n}.tmp", std::process::id());
            std::os::unix::fs::symlink(&victim, dir.path().join(name)).unwrap();
        }
        std::os::unix::fs::symlink(&victim, dir.path().join(".out.json.lock")).unwrap();
        write_atomic(&target, b"output").unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"output");
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
        // The lock file path is a planted link: refused (O_NOFOLLOW), victim intact.
        assert!(lock_exclusive(&target).is_err());
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
        // create_temp itself refuses an existing name, link or not.
        let planted = dir.path().join("planted");
        std::os::unix::fs::symlink(&victim, &planted).unwrap();
        let e = OpenOptions::new()
            .write(true)
            .create_new(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&planted)
            .unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::AlreadyExists);
    }

    #[test]
    fn a_second_lock_is_refused_and_the_first_released() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("sweep.json");
        let first = lock_exclusive(&out).unwrap();
        let e = lock_exclusive(&out).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::WouldBlock);
        assert!(e.to_string().contains("another process"), "{e}");
        assert!(
            e.to_string().contains(&std::process::id().to_string()),
            "{e}"
        );
        drop(first);
        assert!(entries(dir.path()).is_empty());
        let _again = lock_exclusive(&out).unwrap();
    }

    /// What SIGKILL leaves: a temporary file of a dead writer. The next write of the same
    /// target removes it (and the older pid-less name once stale), and nothing else.
    #[test]
    fn the_next_write_removes_temps_a_killed_writer_left() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("y.npy");
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let old = std::time::SystemTime::now() - Duration::from_secs(120);
        let ancient = std::time::SystemTime::now() - STALE_AFTER - Duration::from_secs(60);
        let put = |name: &str, when| {
            let f = File::create(dir.path().join(name)).unwrap();
            f.set_modified(when).unwrap();
        };
        let now = std::time::SystemTime::now();
        put(&format!(".y.npy.{dead}.00112233aabbccdd.tmp"), old);
        put(".y.npy.0123456789abcdef.tmp", ancient);
        // Kept: a live writer's (our parent's pid), a fresh dead one's, other targets',
        // names not of the pattern.
        let parent_pid = std::os::unix::process::parent_id();
        put(&format!(".y.npy.{parent_pid}.00112233aabbccdd.tmp"), old);
        put(&format!(".y.npy.{dead}.ffffffffffffffff.tmp"), now);
        put(&format!(".z.npy.{dead}.00112233aabbccdd.tmp"), old);
        put(".y.npy.keep.tmp", ancient);
        write_atomic(&target, b"new").unwrap();
        let mut want = vec![
            format!(".y.npy.{parent_pid}.00112233aabbccdd.tmp"),
            format!(".y.npy.{dead}.ffffffffffffffff.tmp"),
            format!(".z.npy.{dead}.00112233aabbccdd.tmp"),
            ".y.npy.keep.tmp".to_owned(),
            "y.npy".to_owned(),
        ];
        want.sort();
        assert_eq!(entries(dir.path()), want);
        assert_eq!(
            temp_writer(".y.npy.12.0011223344556677.tmp".as_ref(), "y.npy".as_ref()),
            Some(Some(12))
        );
        assert_eq!(
            temp_writer(".y.npy.0011223344556677.tmp".as_ref(), "y.npy".as_ref()),
            Some(None)
        );
        assert_eq!(
            temp_writer(".y.npy.x1.0011223344556677.tmp".as_ref(), "y.npy".as_ref()),
            None
        );
        assert_eq!(temp_writer(".y.npy.lock".as_ref(), "y.npy".as_ref()), None);
    }

    #[test]
    fn check_output_leaves_nothing_behind() {
        let dir = tempfile::tempdir().unwrap();
        check_output(&dir.path().join("new.json")).unwrap();
        assert!(entries(dir.path()).is_empty());
        assert!(temps().is_empty() || !temps().iter().any(|p| p.starts_with(dir.path())));
    }
}
