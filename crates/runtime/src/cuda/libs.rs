//! Finding the CUDA shared libraries before cudarc touches them.
//!
//! cudarc opens `libcuda` and `libnvrtc` lazily by file name and panics when they are absent, so
//! every path into it first asks [`driver_present`] / [`nvrtc_present`].
//!
//! NVRTC often lives outside the loader's search path (the toolkit's `lib64`, or a pip
//! `nvidia-cuda-nvrtc` install). Setting `LD_LIBRARY_PATH` from inside the process is too late
//! for the loader, so instead we open the library by full path from a few known places: once it
//! is loaded, the loader resolves cudarc's later open by name (`libnvrtc.so.13`) to it.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The NVRTC file name for the CUDA major version cudarc was built for (13).
pub(crate) const NVRTC_FILE: &str = "libnvrtc.so.13";

/// Directories searched for NVRTC, in order, besides the loader's own search path.
fn nvrtc_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(d) = std::env::var_os("SIGPU_NVRTC_DIR") {
        dirs.push(PathBuf::from(d));
    }
    for var in ["CUDA_HOME", "CUDA_PATH"] {
        if let Some(d) = std::env::var_os(var) {
            dirs.push(Path::new(&d).join("lib64"));
        }
    }
    dirs.push("/usr/local/cuda/lib64".into());
    dirs
}

/// Where NVRTC was preloaded from, if it was found outside the loader's search path.
pub(crate) fn nvrtc_preloaded_from() -> Option<&'static Path> {
    static PRELOADED: OnceLock<Option<PathBuf>> = OnceLock::new();
    PRELOADED
        .get_or_init(|| {
            nvrtc_dirs()
                .into_iter()
                .map(|d| d.join(NVRTC_FILE))
                .find(|path| {
                    // NVRTC itself opens its builtins library by name at compile time, so that one
                    // is preloaded from the same directory first.
                    if let Some(builtins) = path.parent().and_then(builtins_in) {
                        keep_loaded(&builtins);
                    }
                    keep_loaded(path)
                })
        })
        .as_deref()
}

/// `libnvrtc-builtins.so.13.x` in `dir` (not the `.alt` variant).
fn builtins_in(dir: &Path) -> Option<PathBuf> {
    std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("libnvrtc-builtins.so.13") && !n.contains(".alt"))
        })
}

/// Opens `path` and keeps it loaded for the life of the process, so later opens by its
/// soname resolve to it.
fn keep_loaded(path: &Path) -> bool {
    // SAFETY: loading the NVRTC libraries runs only their initialisers, which have no
    // preconditions.
    match unsafe { libloading::Library::new(path) } {
        Ok(lib) => {
            std::mem::forget(lib);
            true
        }
        Err(_) => false,
    }
}

pub(crate) fn nvrtc_present() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    *PRESENT.get_or_init(|| {
        nvrtc_preloaded_from();
        // SAFETY: only tries to open the library; no symbol is called.
        unsafe { cudarc::nvrtc::sys::is_culib_present() }
    })
}

pub(crate) fn driver_present() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: only tries to open the library; no symbol is called.
    *PRESENT.get_or_init(|| unsafe { cudarc::driver::sys::is_culib_present() })
}
