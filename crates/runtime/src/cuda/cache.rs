//! The on-disk cache of compiled kernels.
//!
//! Keyed by a SHA-256 of source, NVRTC options (architecture included) and NVRTC version, so a
//! change to any of them compiles afresh; entries are written atomically, so a crash mid-write
//! leaves no torn CUBIN behind. A cache that cannot be written only costs recompilation.

use crate::fs::write_atomic;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// Environment variable naming the cache directory; `off` disables the cache.
pub const CACHE_ENV: &str = "SIGPU_KERNEL_CACHE";

/// `$XDG_CACHE_HOME/sigpu`, else `~/.cache/sigpu`: the folder of every cache sigpu keeps (the
/// compiled kernels, the measured launch shapes); `None` when no home is known.
pub(crate) fn sigpu_cache_root() -> Option<PathBuf> {
    let env = |k| std::env::var_os(k).filter(|v| !v.is_empty());
    env("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| env("HOME").map(|h| Path::new(&h).join(".cache")))
        .map(|c| c.join("sigpu"))
}

/// Where compiled CUBINs are kept between runs: a directory, or none (every kernel compiled
/// afresh). [`Gpu`](super::Gpu) takes [`KernelCache::from_env`]; [`compile`](super::compile) takes any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelCache {
    dir: Option<PathBuf>,
}

impl KernelCache {
    /// `$SIGPU_KERNEL_CACHE`, else `$XDG_CACHE_HOME/sigpu/kernels`, else
    /// `~/.cache/sigpu/kernels`; disabled when the variable is `off` or no home is known.
    pub fn from_env() -> Self {
        let env = |k| std::env::var_os(k).filter(|v| !v.is_empty());
        let dir = match env(CACHE_ENV) {
            Some(v) if v == "off" => None,
            Some(v) => Some(PathBuf::from(v)),
            None => sigpu_cache_root().map(|c| c.join("kernels")),
        };
        KernelCache { dir }
    }

    /// A cache in `dir`, created on first store.
    pub fn at(dir: impl Into<PathBuf>) -> Self {
        KernelCache {
            dir: Some(dir.into()),
        }
    }

    /// No cache: every compile runs NVRTC and nothing is written.
    pub fn disabled() -> Self {
        KernelCache { dir: None }
    }

    /// The cache directory, or `None` when the cache is disabled.
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    pub(crate) fn key(name: &str, code: &str, options: &[String], nvrtc_version: &str) -> String {
        let mut h = Sha256::new();
        for part in [
            "sigpu-kernel-cache-v1",
            nvrtc_version,
            name,
            &options.join("\u{1f}"),
            code,
        ] {
            h.update(part.as_bytes());
            h.update([0u8]);
        }
        h.finalize()
            .iter()
            .take(16)
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    fn path(&self, name: &str, key: &str) -> Option<PathBuf> {
        let stem: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .take(48)
            .collect();
        Some(self.dir.as_ref()?.join(format!("{stem}-{key}.cubin")))
    }

    pub(crate) fn load(&self, name: &str, key: &str) -> Option<Vec<u8>> {
        std::fs::read(self.path(name, key)?)
            .ok()
            .filter(|b| !b.is_empty())
    }

    pub(crate) fn store(&self, name: &str, key: &str, cubin: &[u8]) {
        if let Some(path) = self.path(name, key) {
            // Ignored on purpose: an unwritable cache must not fail the compile it serves.
            // The cache directory is the cache's own, made here (outputs get no mkdir).
            if let Some(dir) = path.parent() {
                let _ = std::fs::create_dir_all(dir);
            }
            let _ = write_atomic(&path, cubin);
        }
    }

    /// Removes an entry that turned out to be unloadable, so the next run recompiles it.
    pub(crate) fn evict(&self, name: &str, key: &str) {
        if let Some(path) = self.path(name, key) {
            let _ = std::fs::remove_file(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_changes_with_every_input() {
        let opts = vec!["--gpu-architecture=sm_90".to_owned()];
        let base = KernelCache::key("a.cu", "code", &opts, "13.0");
        assert_eq!(base, KernelCache::key("a.cu", "code", &opts, "13.0"));
        assert_ne!(base, KernelCache::key("a.cu", "code2", &opts, "13.0"));
        assert_ne!(base, KernelCache::key("a.cu", "code", &opts, "13.1"));
        assert_ne!(base, KernelCache::key("b.cu", "code", &opts, "13.0"));
        let sm80 = vec!["--gpu-architecture=sm_80".to_owned()];
        assert_ne!(base, KernelCache::key("a.cu", "code", &sm80, "13.0"));
    }

    #[test]
    fn stores_loads_and_evicts() {
        let dir = tempfile::tempdir().unwrap();
        let cache = KernelCache::at(dir.path());
        assert_eq!(cache.load("x.cu", "k1"), None);
        cache.store("x.cu", "k1", b"cubin");
        assert_eq!(cache.load("x.cu", "k1").as_deref(), Some(&b"cubin"[..]));
        cache.evict("x.cu", "k1");
        assert_eq!(cache.load("x.cu", "k1"), None);
        KernelCache::disabled().store("x.cu", "k1", b"ignored");
    }
}
