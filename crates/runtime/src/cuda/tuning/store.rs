//! The on-disk cache of measured launch shapes: one JSON file per device name and
//! [`TuneKey`], beside the kernel cache, written atomically. A file that cannot be read, does
//! not parse, is of another format version, or names another device or key is ignored with a
//! warning, as is any family's entry that does not parse or breaks its family's rules: the
//! built-in table (or the default) is used instead. Nothing here panics or fails a run.

use super::key::TuneKey;
use super::policy::{Family, Policies};
use crate::fs::write_atomic;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Environment variable naming the tuning cache directory; `off` disables it (every device
/// then runs the built-in table or the default: reproducible runs).
pub const TUNING_CACHE_ENV: &str = "SIGPU_TUNING_CACHE";

/// The version written into (and required of) every cache file.
pub const FORMAT: &str = "sigpu-tuning-1";

/// Where measured launch shapes are kept: a directory, or none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TuningCache {
    dir: Option<PathBuf>,
}

/// One cache file: the device and key it was measured on, and each family's choice.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct File {
    format: String,
    device: String,
    key: TuneKey,
    families: BTreeMap<String, Stored>,
}

/// One family's measured choice and what the search recorded about it.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Stored {
    policy: serde_json::Value,
    #[serde(default)]
    measured: serde_json::Value,
}

/// What a cache file gave for one device: policies by family, and the warnings of what was
/// ignored.
#[derive(Clone, Debug, Default)]
pub struct Loaded {
    /// The file read, when there was one.
    pub file: Option<PathBuf>,
    /// Each family's measured policy (JSON, checked against the family's rules by the caller).
    pub families: Vec<(Family, serde_json::Value)>,
    /// What was ignored, and why.
    pub warnings: Vec<String>,
}

impl TuningCache {
    /// `$SIGPU_TUNING_CACHE`, else the `tuning` folder beside the kernel cache's `kernels`
    /// (`$XDG_CACHE_HOME/sigpu/tuning`, else `~/.cache/sigpu/tuning`); disabled when the
    /// variable is `off` or no home is known.
    pub fn from_env() -> Self {
        let var = std::env::var_os(TUNING_CACHE_ENV).filter(|v| !v.is_empty());
        TuningCache::from_setting(var, crate::cuda::cache::sigpu_cache_root())
    }

    /// The cache a value of [`TUNING_CACHE_ENV`] names, `root` being sigpu's cache folder.
    fn from_setting(var: Option<std::ffi::OsString>, root: Option<PathBuf>) -> Self {
        let dir = match var {
            Some(v) if v == "off" => None,
            Some(v) => Some(PathBuf::from(v)),
            None => root.map(|c| c.join("tuning")),
        };
        TuningCache { dir }
    }

    /// A cache in `dir`, created on first store.
    pub fn at(dir: impl Into<PathBuf>) -> Self {
        TuningCache {
            dir: Some(dir.into()),
        }
    }

    /// No cache: nothing read, nothing written.
    pub fn disabled() -> Self {
        TuningCache { dir: None }
    }

    /// The directory, or `None` when disabled.
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// The file of `device` (its name as the driver gives it) with `key`.
    pub fn path(&self, device: &str, key: &TuneKey) -> Option<PathBuf> {
        let stem: String = (device.chars())
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .take(64)
            .collect();
        Some(
            self.dir
                .as_ref()?
                .join(format!("{stem}-{}.json", key.label())),
        )
    }

    /// The measured policies of `device` with `key`; what cannot be used is left out with a
    /// warning (a missing file is no warning: nothing was measured).
    pub fn load(&self, device: &str, key: &TuneKey) -> Loaded {
        let Some(path) = self.path(device, key) else {
            return Loaded::default();
        };
        let mut loaded = Loaded::default();
        let shown = path.display().to_string();
        let text = match std::fs::read(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return loaded,
            Err(e) => {
                loaded
                    .warnings
                    .push(format!("tuning cache {shown}: cannot read ({e}); ignored"));
                return loaded;
            }
        };
        let file: File = match serde_json::from_slice(&text) {
            Ok(f) => f,
            Err(e) => {
                loaded.warnings.push(format!(
                    "tuning cache {shown}: not a tuning file ({e}); ignored"
                ));
                return loaded;
            }
        };
        let stale = if file.format != FORMAT {
            Some(format!("format {:?}, not {FORMAT:?}", file.format))
        } else if file.device != device {
            Some(format!("measured on {:?}, not {device:?}", file.device))
        } else if &file.key != key {
            Some(format!(
                "measured for {}, the device is {}",
                file.key.label(),
                key.label()
            ))
        } else {
            None
        };
        if let Some(why) = stale {
            loaded
                .warnings
                .push(format!("tuning cache {shown}: {why}; ignored"));
            return loaded;
        }
        for (name, stored) in file.families {
            match name.parse::<Family>() {
                Ok(family) => loaded.families.push((family, stored.policy)),
                Err(_) => loaded.warnings.push(format!(
                    "tuning cache {shown}: unknown family {name:?}; ignored"
                )),
            }
        }
        loaded.file = Some(path);
        loaded
    }

    /// Records `policy` as `family`'s measured choice for `device` with `key` (with what the
    /// search says about it), keeping the file's other families when it is a valid file of
    /// the same device and key. Returns the file written; an error when the cache is disabled
    /// or the file cannot be written.
    pub fn store(
        &self,
        device: &str,
        key: &TuneKey,
        family: Family,
        policy: serde_json::Value,
        measured: serde_json::Value,
    ) -> std::io::Result<PathBuf> {
        let path = self.path(device, key).ok_or_else(|| {
            std::io::Error::other(format!(
                "the tuning cache is disabled ({TUNING_CACHE_ENV}=off): nothing can be stored"
            ))
        })?;
        let mut file = std::fs::read(&path)
            .ok()
            .and_then(|t| serde_json::from_slice::<File>(&t).ok())
            .filter(|f| f.format == FORMAT && f.device == device && &f.key == key)
            .unwrap_or_else(|| File {
                format: FORMAT.into(),
                device: device.into(),
                key: key.clone(),
                families: BTreeMap::new(),
            });
        file.families
            .insert(family.name().into(), Stored { policy, measured });
        // The cache directory is the cache's own, made here (outputs get no mkdir).
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let text = serde_json::to_string_pretty(&file).map_err(std::io::Error::other)?;
        write_atomic(&path, format!("{text}\n").as_bytes())?;
        Ok(path)
    }

    /// Removes `device`'s file for `key` (nothing to do when there is none).
    pub fn clear(&self, device: &str, key: &TuneKey) -> std::io::Result<()> {
        match self.path(device, key).map(std::fs::remove_file) {
            Some(Err(e)) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }
}

/// `policies` with every usable family of `loaded` applied; the families taken, and a
/// warning for each entry that breaks its family's rules.
pub fn apply(policies: &mut Policies, loaded: &mut Loaded) -> Vec<Family> {
    let mut taken = Vec::new();
    let shown = loaded
        .file
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    for (family, value) in &loaded.families {
        match policies.set_json(*family, value) {
            Ok(()) => taken.push(*family),
            Err(e) => loaded.warnings.push(format!(
                "tuning cache {shown}: {family}: {e}; the built-in choice is used"
            )),
        }
    }
    taken
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_variable_names_the_folder_or_turns_the_cache_off() {
        let root = Some(PathBuf::from("/home/u/.cache/sigpu"));
        let at = |v: Option<&str>| TuningCache::from_setting(v.map(Into::into), root.clone());
        assert_eq!(
            at(None).dir(),
            Some(Path::new("/home/u/.cache/sigpu/tuning"))
        );
        assert_eq!(at(Some("off")).dir(), None);
        assert_eq!(at(Some("/tmp/t")).dir(), Some(Path::new("/tmp/t")));
        assert_eq!(TuningCache::from_setting(None, None).dir(), None);
    }
}
