//! The typed launch policies of the tunable kernel families, their defaults (the shapes
//! measured fastest on an H100, which every device ran before tuning existed) and the static
//! rules a policy must keep whatever the device (the driver's limits are checked at launch and
//! by the search, see [`super::fit`]).

use serde::{Deserialize, Serialize};

/// A kernel family whose launch shape is tuned per device: one policy type each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Family {
    /// The recurrence crate's generated PLR kernels ([`PlrPolicy`]).
    Plr,
    /// The recurrence crate's fused second-order-section kernel ([`ScanTile`]).
    Sos,
    /// The LNS element-wise streaming kernels: add / sub / mul / div ([`StreamPolicy`]).
    LnsStream,
    /// The LNS fused sum and dot product's partials kernel ([`FusedSumPolicy`]).
    LnsFusedSum,
}

impl Family {
    /// Every family, in the order the search runs them.
    pub const ALL: [Family; 4] = [
        Family::Plr,
        Family::Sos,
        Family::LnsStream,
        Family::LnsFusedSum,
    ];

    /// The name used in cache files and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Family::Plr => "plr",
            Family::Sos => "sos",
            Family::LnsStream => "lns-stream",
            Family::LnsFusedSum => "lns-fused-sum",
        }
    }
}

impl std::fmt::Display for Family {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Family {
    type Err = String;
    fn from_str(s: &str) -> Result<Family, String> {
        Family::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Family::ALL.iter().map(|f| f.name()).collect();
                format!("unknown kernel family {s:?} (known: {})", names.join(", "))
            })
    }
}

/// One tile of a blocked scan: a block of `threads` threads, each holding `bytes_per_thread`
/// bytes of consecutive values (values per thread = bytes / element size, so one tile serves
/// every element type), and the blocks per SM asked of the register allocator
/// (`__launch_bounds__`; 0 leaves it free). The grid is one block per chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScanTile {
    /// Threads per block that hold values (the kernels may add a warp of their own).
    pub threads: u32,
    /// Bytes of consecutive values per thread (whole 16-byte vectors).
    pub bytes_per_thread: u32,
    /// Blocks per SM asked of the register allocator; 0 leaves it free.
    pub min_blocks: u32,
}

/// The most bytes a thread may hold: 64 four-byte values (the kernels' register arrays).
pub const MAX_BYTES_PER_THREAD: u32 = 256;

impl ScanTile {
    /// Values per thread for elements of `size` bytes.
    pub fn values(&self, size: usize) -> usize {
        self.bytes_per_thread as usize / size.max(1)
    }

    /// The static rules: threads a multiple of 32 from 32 to 992 (the kernels may add a
    /// warp), bytes per thread whole 16-byte vectors up to [`MAX_BYTES_PER_THREAD`], at most
    /// 32 blocks per SM asked for.
    pub fn validate(&self) -> Result<(), String> {
        if self.threads == 0 || !self.threads.is_multiple_of(32) || self.threads > 992 {
            return Err(format!(
                "threads per block must be a multiple of 32 from 32 to 992, not {}",
                self.threads
            ));
        }
        let b = self.bytes_per_thread;
        if b == 0 || !b.is_multiple_of(16) || b > MAX_BYTES_PER_THREAD {
            return Err(format!(
                "bytes per thread must be a multiple of 16 up to {MAX_BYTES_PER_THREAD}, not {b}"
            ));
        }
        if self.min_blocks > 32 {
            return Err(format!(
                "at most 32 blocks per SM can be asked for, not {}",
                self.min_blocks
            ));
        }
        Ok(())
    }
}

/// The PLR kernels' tiles, one per kind of kernel the generator picks for a filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlrPolicy {
    /// Filters whose factors vanish within a warp's span: the tail-carry kernel (no
    /// look-back). Its tile also decides whether a filter is one of them.
    pub tail_carry: ScanTile,
    /// The look-back kernel of every other filter.
    pub look_back: ScanTile,
    /// The look-back kernel of prefix sums (order 1, every factor 1).
    pub prefix_sum: ScanTile,
}

impl Default for PlrPolicy {
    /// Measured fastest on an H100: 256 threads × 64 bytes for the tail-carry kernel (99.6% of
    /// copy), 256 × 128 bytes for the look-back kernel (a larger chunk per look-back), 512 ×
    /// 128 bytes with a look-back warp for prefix sums (338 G elements/s against 307 for 256
    /// threads, i32 and f32 at 2^28).
    fn default() -> Self {
        PlrPolicy {
            tail_carry: ScanTile {
                threads: 256,
                bytes_per_thread: 64,
                min_blocks: 0,
            },
            look_back: ScanTile {
                threads: 256,
                bytes_per_thread: 128,
                min_blocks: 0,
            },
            prefix_sum: ScanTile {
                threads: 512,
                bytes_per_thread: 128,
                min_blocks: 0,
            },
        }
    }
}

/// Static shared memory the tail-carry kernel's staging tile may take: (threads + 32) × bytes
/// per thread, within the 48 KiB of a block's static shared memory less room for the rest.
pub const PLR_TAIL_TILE_BYTES: u32 = 46 * 1024;
/// Dynamic shared memory the look-back kernel's transpose tiles may take on sm_90 (227 KiB):
/// threads × bytes per thread.
pub const PLR_LOOK_BACK_TILE_BYTES: u32 = 232_448;

impl PlrPolicy {
    /// Every tile's static rules and its shared memory, the failing one named.
    pub fn validate(&self) -> Result<(), String> {
        for (name, tile, extra, most) in [
            ("tail_carry", self.tail_carry, 32, PLR_TAIL_TILE_BYTES),
            ("look_back", self.look_back, 0, PLR_LOOK_BACK_TILE_BYTES),
            ("prefix_sum", self.prefix_sum, 0, PLR_LOOK_BACK_TILE_BYTES),
        ] {
            tile.validate().map_err(|e| format!("{name}: {e}"))?;
            let bytes = (tile.threads + extra) * tile.bytes_per_thread;
            if bytes > most {
                return Err(format!(
                    "{name}: {} threads x {} bytes stage {bytes} bytes through shared memory, \
                     more than the {most} the kernel may have",
                    tile.threads, tile.bytes_per_thread
                ));
            }
        }
        Ok(())
    }
}

/// The fused second-order-section kernel's default tile: 256 threads × 128 bytes (3 blocks
/// per SM), the fastest of 128–320 threads × 32 f32 measured on an H100 (butter(8, 0.1), 2^26
/// and 2^28 samples).
pub const SOS_DEFAULT: ScanTile = ScanTile {
    threads: 256,
    bytes_per_thread: 128,
    min_blocks: 0,
};

/// Bytes of one block's staging tile in the section kernel (48 KiB of static shared memory
/// less the rest): threads × bytes per thread may not exceed it.
pub const SOS_MAX_TILE_BYTES: u32 = 40 * 1024;

/// The section kernel's rules: a [`ScanTile`]'s, and a chunk within its staging tile.
pub fn validate_sos(tile: &ScanTile) -> Result<(), String> {
    tile.validate()?;
    let bytes = tile.threads * tile.bytes_per_thread;
    if bytes > SOS_MAX_TILE_BYTES {
        return Err(format!(
            "{} threads x {} bytes is more than the {} KiB a block stages through",
            tile.threads,
            tile.bytes_per_thread,
            SOS_MAX_TILE_BYTES / 1024
        ));
    }
    Ok(())
}

/// A grid-stride element-wise launch: `threads` per block, at most `blocks_per_sm` blocks per
/// SM (fewer when the data is shorter than one vector per thread), and `unroll` 16-byte
/// vectors per array in flight per thread and step (a compile-time constant of the kernel).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StreamPolicy {
    /// Threads per block.
    pub threads: u32,
    /// Most blocks per SM the grid is given.
    pub blocks_per_sm: u32,
    /// 16-byte vectors per array in flight per thread and step.
    pub unroll: u32,
}

impl Default for StreamPolicy {
    /// 256 threads, up to 32 blocks per SM, one vector per step: the runtime's
    /// [`streaming_config`](crate::cuda::streaming_config), what the LNS streaming kernels
    /// reached 90–100% of an H100's copy with.
    fn default() -> Self {
        StreamPolicy {
            threads: 256,
            blocks_per_sm: 32,
            unroll: 1,
        }
    }
}

impl StreamPolicy {
    /// The static rules: threads a multiple of 32 up to 1024, 1 to 64 blocks per SM, 1 to 8
    /// vectors in flight.
    pub fn validate(&self) -> Result<(), String> {
        if self.threads == 0 || !self.threads.is_multiple_of(32) || self.threads > 1024 {
            return Err(format!(
                "threads per block must be a multiple of 32 up to 1024, not {}",
                self.threads
            ));
        }
        if !(1..=64).contains(&self.blocks_per_sm) {
            return Err(format!(
                "blocks per SM must be 1 to 64, not {}",
                self.blocks_per_sm
            ));
        }
        if !(1..=8).contains(&self.unroll) {
            return Err(format!("unroll must be 1 to 8, not {}", self.unroll));
        }
        Ok(())
    }

    /// The launch over `n` elements on a device of `sms` SMs: [`StreamPolicy::blocks`] blocks
    /// of `threads`, no dynamic shared memory.
    pub fn launch(&self, sms: u32, n: usize) -> cudarc::driver::LaunchConfig {
        cudarc::driver::LaunchConfig {
            grid_dim: (self.blocks(sms, n), 1, 1),
            block_dim: (self.threads, 1, 1),
            shared_mem_bytes: 0,
        }
    }

    /// Blocks for `n` elements on `sms` SMs: one per `threads` elements, at least one, at most
    /// `blocks_per_sm` per SM.
    pub fn blocks(&self, sms: u32, n: usize) -> u32 {
        let most = u64::from(sms.max(1)) * u64::from(self.blocks_per_sm.max(1));
        (n.div_ceil(self.threads.max(1) as usize) as u64).clamp(1, most.min(u64::from(u32::MAX)))
            as u32
    }
}

/// The fused sum's partials kernel: 256 threads per block (its staging is laid out for them),
/// `blocks_per_sm` blocks per SM both in the grid and asked of the register allocator, and
/// `stages` cp.async stages of loads in flight (0: plain loads into registers).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FusedSumPolicy {
    /// Blocks per SM in the grid and in `__launch_bounds__`.
    pub blocks_per_sm: u32,
    /// cp.async stages (0, 1 or 2: three would pass the 48 KiB of static shared memory).
    pub stages: u32,
}

impl Default for FusedSumPolicy {
    /// Four blocks per SM (the register budget of 64 per thread: one wave, no tail) and two
    /// cp.async stages, measured on an H100.
    fn default() -> Self {
        FusedSumPolicy {
            blocks_per_sm: 4,
            stages: 2,
        }
    }
}

impl FusedSumPolicy {
    /// The static rules: 1 to 8 blocks per SM, 0 to 2 stages.
    pub fn validate(&self) -> Result<(), String> {
        if !(1..=8).contains(&self.blocks_per_sm) {
            return Err(format!(
                "blocks per SM must be 1 to 8, not {}",
                self.blocks_per_sm
            ));
        }
        if self.stages > 2 {
            return Err(format!(
                "at most 2 cp.async stages fit the shared memory, not {}",
                self.stages
            ));
        }
        Ok(())
    }
}

/// One policy per family: what a device runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Policies {
    /// [`Family::Plr`].
    pub plr: PlrPolicy,
    /// [`Family::Sos`].
    pub sos: ScanTile,
    /// [`Family::LnsStream`].
    pub lns_stream: StreamPolicy,
    /// [`Family::LnsFusedSum`].
    pub lns_fused_sum: FusedSumPolicy,
}

impl Default for Policies {
    fn default() -> Self {
        Policies {
            plr: PlrPolicy::default(),
            sos: SOS_DEFAULT,
            lns_stream: StreamPolicy::default(),
            lns_fused_sum: FusedSumPolicy::default(),
        }
    }
}

impl Policies {
    /// `family`'s policy as JSON (what the cache stores).
    pub fn get_json(&self, family: Family) -> serde_json::Value {
        let v = match family {
            Family::Plr => serde_json::to_value(self.plr),
            Family::Sos => serde_json::to_value(self.sos),
            Family::LnsStream => serde_json::to_value(self.lns_stream),
            Family::LnsFusedSum => serde_json::to_value(self.lns_fused_sum),
        };
        v.expect("policies are plain structs of integers")
    }

    /// Replaces `family`'s policy with `value` when it parses and keeps the family's rules;
    /// otherwise says why and changes nothing.
    pub fn set_json(&mut self, family: Family, value: &serde_json::Value) -> Result<(), String> {
        fn parse<P: serde::de::DeserializeOwned>(v: &serde_json::Value) -> Result<P, String> {
            P::deserialize(v).map_err(|e| e.to_string())
        }
        match family {
            Family::Plr => {
                let p: PlrPolicy = parse(value)?;
                p.validate()?;
                self.plr = p;
            }
            Family::Sos => {
                let p: ScanTile = parse(value)?;
                validate_sos(&p)?;
                self.sos = p;
            }
            Family::LnsStream => {
                let p: StreamPolicy = parse(value)?;
                p.validate()?;
                self.lns_stream = p;
            }
            Family::LnsFusedSum => {
                let p: FusedSumPolicy = parse(value)?;
                p.validate()?;
                self.lns_fused_sum = p;
            }
        }
        Ok(())
    }

    /// Every family's rules.
    pub fn validate(&self) -> Result<(), String> {
        self.plr.validate().map_err(|e| format!("plr: {e}"))?;
        validate_sos(&self.sos).map_err(|e| format!("sos: {e}"))?;
        self.lns_stream
            .validate()
            .map_err(|e| format!("lns-stream: {e}"))?;
        (self.lns_fused_sum.validate()).map_err(|e| format!("lns-fused-sum: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_keep_their_own_rules_and_round_trip_through_json() {
        let p = Policies::default();
        p.validate().unwrap();
        for family in Family::ALL {
            let mut q = Policies {
                plr: PlrPolicy {
                    prefix_sum: PlrPolicy::default().look_back,
                    ..PlrPolicy::default()
                },
                sos: ScanTile {
                    threads: 128,
                    ..SOS_DEFAULT
                },
                lns_stream: StreamPolicy {
                    unroll: 2,
                    ..StreamPolicy::default()
                },
                lns_fused_sum: FusedSumPolicy {
                    stages: 0,
                    ..FusedSumPolicy::default()
                },
            };
            q.set_json(family, &p.get_json(family)).unwrap();
            assert_eq!(q.get_json(family), p.get_json(family), "{family}");
            assert_eq!(family.name().parse::<Family>().unwrap(), family);
        }
        assert!("plr2".parse::<Family>().unwrap_err().contains("lns-stream"));
    }

    #[test]
    fn invalid_policies_are_refused_with_the_reason() {
        let mut p = Policies::default();
        let bad = [
            (
                Family::Plr,
                r#"{"tail_carry": {"threads": 48, "bytes_per_thread": 64, "min_blocks": 0}, "look_back": {"threads": 256, "bytes_per_thread": 128, "min_blocks": 0}, "prefix_sum": {"threads": 512, "bytes_per_thread": 128, "min_blocks": 0}}"#,
                "tail_carry: threads",
            ),
            (
                Family::Plr,
                r#"{"tail_carry": {"threads": 512, "bytes_per_thread": 128, "min_blocks": 0}, "look_back": {"threads": 256, "bytes_per_thread": 128, "min_blocks": 0}, "prefix_sum": {"threads": 512, "bytes_per_thread": 128, "min_blocks": 0}}"#,
                "tail_carry: 512 threads x 128 bytes",
            ),
            (
                Family::Sos,
                r#"{"threads": 512, "bytes_per_thread": 128, "min_blocks": 0}"#,
                "stages through",
            ),
            (
                Family::Sos,
                r#"{"threads": 256, "bytes_per_thread": 24, "min_blocks": 0}"#,
                "multiple of 16",
            ),
            (
                Family::Sos,
                r#"{"threads": 256, "bytes_per_thread": 128}"#,
                "min_blocks",
            ),
            (
                Family::Sos,
                r#"{"threads": 256, "bytes_per_thread": 128, "min_blocks": 0, "x": 1}"#,
                "unknown field",
            ),
            (
                Family::LnsStream,
                r#"{"threads": 256, "blocks_per_sm": 0, "unroll": 1}"#,
                "blocks per SM",
            ),
            (
                Family::LnsStream,
                r#"{"threads": 256, "blocks_per_sm": 8, "unroll": 9}"#,
                "unroll",
            ),
            (
                Family::LnsFusedSum,
                r#"{"blocks_per_sm": 4, "stages": 3}"#,
                "stages",
            ),
            (Family::LnsFusedSum, r#""four""#, "invalid type"),
        ];
        for (family, text, says) in bad {
            let v: serde_json::Value = serde_json::from_str(text).unwrap();
            let e = p.set_json(family, &v).unwrap_err();
            assert!(e.contains(says), "{family} {text}: {e}");
            assert_eq!(p, Policies::default());
        }
    }

    #[test]
    fn stream_blocks_cover_the_data_up_to_the_cap() {
        let p = StreamPolicy::default();
        assert_eq!(p.blocks(132, 0), 1);
        assert_eq!(p.blocks(132, 257), 2);
        assert_eq!(p.blocks(132, 1 << 30), 132 * 32);
        assert_eq!(p.blocks(0, 1 << 30), 32);
        let c = p.launch(132, 1000);
        assert_eq!(
            (c.grid_dim, c.block_dim, c.shared_mem_bytes),
            ((4, 1, 1), (256, 1, 1), 0)
        );
    }
}
