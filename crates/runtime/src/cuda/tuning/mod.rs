//! Launch shapes chosen per device, as CUB keeps a tuning policy per architecture.
//!
//! Each tunable kernel family has a typed policy ([`policy`]). A device's policies are looked
//! up once, family by family, in this order: the shape measured on this device by the search
//! (`sigpu tune`) and kept in the [`TuningCache`] (one JSON file per device name and
//! [`TuneKey`], beside the kernel cache), then the row of the built-in table ([`table`]) that
//! covers the device's key, then the default (the shapes measured fastest on an H100, which
//! every device ran before). The kernels read their shape from [`Gpu::tuning`]
//! (`crate::cuda::Gpu::tuning`); the default values are the constants they used before, so a
//! device without a measurement runs exactly what it ran. `SIGPU_TUNING_CACHE=off` ignores
//! the cache, for reproducible runs.

mod fit;
mod key;
mod policy;
mod store;
mod table;

pub use fit::Fit;
pub use key::{bandwidth_class, TuneKey, BANDWIDTH_CLASS_GB_PER_S};
pub use policy::{
    validate_sos, Family, FusedSumPolicy, PlrPolicy, Policies, ScanTile, StreamPolicy,
    MAX_BYTES_PER_THREAD, PLR_LOOK_BACK_TILE_BYTES, PLR_TAIL_TILE_BYTES, SOS_DEFAULT,
    SOS_MAX_TILE_BYTES,
};
pub use store::{Loaded, TuningCache, FORMAT, TUNING_CACHE_ENV};
pub use table::{lookup, Entry, BUILT_IN};

use super::DeviceInfo;
use serde::Serialize;
use std::path::PathBuf;

/// Where one family's policy came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "from", rename_all = "kebab-case")]
pub enum Source {
    /// Measured on this device by the search, read from this cache file.
    Measured {
        /// The cache file.
        file: PathBuf,
    },
    /// The built-in table's row of this name.
    BuiltIn {
        /// The row's name.
        entry: &'static str,
    },
    /// The default: no measurement and no row for the device's key.
    Default,
}

/// A device's policies, where each came from, and what was ignored on the way.
#[derive(Clone, Debug, Serialize)]
pub struct Tuning {
    /// The device's name, as the driver gives it.
    pub device: String,
    /// The device's key.
    pub key: TuneKey,
    /// The policies its kernels run.
    pub policies: Policies,
    /// Each family's source, in [`Family::ALL`] order.
    pub sources: Vec<(Family, Source)>,
    /// Cache files or entries that were ignored, and why.
    pub warnings: Vec<String>,
}

impl Tuning {
    /// The policies of the device `info` describes: measured (from `cache`) → built-in row
    /// for its key → default, family by family.
    pub fn resolve(info: &DeviceInfo, cache: &TuningCache) -> Tuning {
        Tuning::resolve_in(&info.name, TuneKey::of(info), cache, BUILT_IN)
    }

    /// [`Tuning::resolve`] for a device named `device` with `key`, over the rows of `table`.
    pub fn resolve_in(device: &str, key: TuneKey, cache: &TuningCache, table: &[Entry]) -> Tuning {
        let row = lookup(table, &key);
        let mut policies = row.map_or_else(Policies::default, |e| (e.policies)());
        let base = match row {
            Some(e) => Source::BuiltIn { entry: e.name },
            None => Source::Default,
        };
        let mut loaded = cache.load(device, &key);
        let measured = store::apply(&mut policies, &mut loaded);
        let sources = Family::ALL
            .into_iter()
            .map(|f| {
                let source = match (&loaded.file, measured.contains(&f)) {
                    (Some(file), true) => Source::Measured { file: file.clone() },
                    _ => base.clone(),
                };
                (f, source)
            })
            .collect();
        Tuning {
            device: device.into(),
            key,
            policies,
            sources,
            warnings: loaded.warnings,
        }
    }

    /// The defaults for `device` with `key`, no table and no cache consulted.
    pub fn defaults(device: &str, key: TuneKey) -> Tuning {
        Tuning::resolve_in(device, key, &TuningCache::disabled(), &[])
    }

    /// Where `family`'s policy came from.
    pub fn source(&self, family: Family) -> &Source {
        (self.sources.iter())
            .find(|(f, _)| *f == family)
            .map(|(_, s)| s)
            .expect("every family has a source")
    }
}

#[cfg(test)]
mod tests;
