//! The built-in tuning table: launch shapes measured on devices sigpu has run on, by the key
//! they hold for. What the table does not cover runs [`Policies::default`].

use super::key::TuneKey;
use super::policy::{Policies, ScanTile};

/// One row of the built-in table: the devices it covers and their policies.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    /// What the row was measured on, for reports (`H100 SXM (sm_90, 132 SMs, ~3.35 TB/s)`).
    pub name: &'static str,
    /// The architecture, exactly.
    pub arch: &'static str,
    /// The SM count, or any.
    pub sms: Option<u32>,
    /// Bandwidth classes covered (GB/s, inclusive), see [`TuneKey::dram_class_gb_per_s`].
    pub dram_class_gb_per_s: (u32, u32),
    /// The policies of every family.
    pub policies: fn() -> Policies,
}

impl Entry {
    /// Whether the row covers `key`.
    pub fn covers(&self, key: &TuneKey) -> bool {
        let (lo, hi) = self.dram_class_gb_per_s;
        key.arch == self.arch
            && self.sms.is_none_or(|s| s == key.sms)
            && (lo..=hi).contains(&key.dram_class_gb_per_s)
    }
}

/// The rows, most specific first. The H100 row holds the shapes every kernel was tuned with
/// (they are also the default, so any other device runs them until it is measured). The
/// H200 row is what `sigpu tune --family plr,sos --log2-n 26,28` chose on an H200 (sm_90,
/// 132 SMs, ~4.8 TB/s; bench/results/2026-11-30-h200-merged): the same SMs and clocks must
/// move 1.42× the bytes, so the tail-carry kernel takes 128 bytes per thread (128 threads),
/// 5% less time over its cases, and the look-back kernel 512 threads with two blocks per SM,
/// 8% less; prefix sums and the section cascade keep their H100 shapes (no candidate was
/// faster by the search's 1% margin). A measured cache on the device still comes first.
pub const BUILT_IN: &[Entry] = &[
    Entry {
        name: "H200 (sm_90, 132 SMs, ~4.8 TB/s)",
        arch: "sm_90",
        sms: Some(132),
        dram_class_gb_per_s: (4500, 5000),
        policies: h200,
    },
    Entry {
        name: "H100 SXM (sm_90, 132 SMs, ~3.35 TB/s)",
        arch: "sm_90",
        sms: Some(132),
        dram_class_gb_per_s: (3000, 3500),
        policies: Policies::default,
    },
];

/// The H200 row's policies (see [`BUILT_IN`]).
fn h200() -> Policies {
    let mut p = Policies::default();
    p.plr.tail_carry = ScanTile {
        threads: 128,
        bytes_per_thread: 128,
        min_blocks: 0,
    };
    p.plr.look_back = ScanTile {
        threads: 512,
        bytes_per_thread: 128,
        min_blocks: 2,
    };
    p
}

/// The first row of `table` covering `key`.
pub fn lookup<'t>(table: &'t [Entry], key: &TuneKey) -> Option<&'t Entry> {
    table.iter().find(|e| e.covers(key))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(arch: &str, sms: u32, class: u32) -> TuneKey {
        TuneKey {
            arch: arch.into(),
            sms,
            dram_class_gb_per_s: class,
            l2_mib: 50,
        }
    }

    #[test]
    fn the_h100_and_h200_rows_cover_their_devices_only() {
        let h100 = lookup(BUILT_IN, &key("sm_90", 132, 3500)).unwrap();
        assert!(h100.name.starts_with("H100"));
        assert_eq!((h100.policies)(), Policies::default());
        // H200: same SMs and clocks, more bandwidth: its own row; H100 PCIe; another
        // architecture.
        let h200 = lookup(BUILT_IN, &key("sm_90", 132, 5000)).unwrap();
        assert!(h200.name.starts_with("H200"));
        let p = (h200.policies)();
        assert!(p.plr.validate().is_ok());
        assert_eq!(p.plr.tail_carry.bytes_per_thread, 128);
        assert_eq!(p.plr.look_back.threads, 512);
        assert_eq!(p.sos, Policies::default().sos);
        assert!(lookup(BUILT_IN, &key("sm_90", 114, 2000)).is_none());
        assert!(lookup(BUILT_IN, &key("sm_100", 132, 3500)).is_none());
    }

    #[test]
    fn rows_are_tried_in_order_and_wildcards_match_any_sm_count() {
        fn other() -> Policies {
            let mut p = Policies::default();
            p.lns_stream.blocks_per_sm = 16;
            p
        }
        let table = [
            Entry {
                name: "exact",
                arch: "sm_90",
                sms: Some(132),
                dram_class_gb_per_s: (5000, 5000),
                policies: other,
            },
            Entry {
                name: "any sm_90",
                arch: "sm_90",
                sms: None,
                dram_class_gb_per_s: (0, u32::MAX),
                policies: Policies::default,
            },
        ];
        assert_eq!(
            lookup(&table, &key("sm_90", 132, 5000)).unwrap().name,
            "exact"
        );
        assert_eq!(
            lookup(&table, &key("sm_90", 78, 4000)).unwrap().name,
            "any sm_90"
        );
        assert!(lookup(&table, &key("sm_80", 108, 2000)).is_none());
    }
}
