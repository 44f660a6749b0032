//! The launch shape of the fused cascade: threads per block, values per thread and the
//! switches measurements and tests turn, normalised per element type.

use crate::elem::DType;
use crate::error::FilterError;
use sigpu_runtime::cuda::tuning::ScanTile;

/// The launch shape of the fused cascade.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct SosConfig {
    /// Threads per block (a multiple of 32, at most 1024); 0 takes threads, values per thread
    /// (when 0) and blocks per SM (when 0) from the device's section policy
    /// ([`SosConfig::on_device`]).
    pub threads: usize,
    /// Consecutive values per thread (whole 16-byte vectors); 0 picks 128 bytes per thread.
    pub vpt: usize,
    /// Resolve every chunk's carries by the look-back even where the cascade decays fast
    /// enough for the tail carry (for tests and measurements).
    pub force_look_back: bool,
    /// Blocks per SM asked of the register allocator (`__launch_bounds__`); 0 leaves it free.
    pub min_blocks: usize,
    /// Consecutive chunks one block filters with the tail-carry kernel (0 or 1: one); after the
    /// first, a chunk's carry-ins are the previous chunk's end states. The look-back kernel
    /// always takes one.
    pub chunks_per_block: usize,
    /// Arithmetic in f64 for f32 signals (f64 signals always compute in f64): the kernel that
    /// filters again the channels whose fast run's peaks do not keep the contract.
    pub wide: bool,
}

impl Default for SosConfig {
    fn default() -> Self {
        // 256 threads × 128 bytes (3 blocks per SM): the fastest of 128–320 threads × 32 f32
        // measured on an H100 (butter(8, 0.1), 2^26 and 2^28 samples).
        SosConfig {
            threads: 256,
            vpt: 0,
            force_look_back: false,
            min_blocks: 0,
            chunks_per_block: 1,
            wide: false,
        }
    }
}

/// Static shared memory a block may use for its staging tile (48 KiB less the rest).
const MAX_TILE_BYTES: usize = 40 * 1024;

impl SosConfig {
    /// The shape for elements of `dtype` on a device whose section policy is `tile`: what
    /// threads 0 leaves to pick taken from it (values per thread and blocks per SM only when
    /// they are 0 too); a shape with threads set is returned as it is.
    pub fn on_device(&self, tile: &ScanTile, dtype: DType) -> SosConfig {
        if self.threads != 0 {
            return *self;
        }
        SosConfig {
            threads: tile.threads as usize,
            vpt: match self.vpt {
                0 => tile.values(dtype.size()),
                v => v,
            },
            min_blocks: match self.min_blocks {
                0 => tile.min_blocks as usize,
                b => b,
            },
            ..*self
        }
    }

    /// Elements per chunk (one thread block).
    pub fn chunk(&self) -> usize {
        self.threads * self.vpt
    }

    /// The shape used for `dtype`: vpt defaulted and rounded up to whole 16-byte vectors.
    pub fn normalized(&self, dtype: DType) -> Result<SosConfig, FilterError> {
        if self.threads == 0 || !self.threads.is_multiple_of(32) || self.threads > 1024 {
            return Err(FilterError::Config(format!(
                "threads per block must be a multiple of 32 up to 1024, not {}",
                self.threads
            )));
        }
        let per_vector = 16 / dtype.size();
        let vpt = match self.vpt {
            // f64 arithmetic on f32 values: 16 per thread keeps the registers of 32 doubles
            0 if self.wide && dtype == DType::F32 => 16,
            0 => 128 / dtype.size(),
            v => v.div_ceil(per_vector) * per_vector,
        };
        if vpt > 64 {
            return Err(FilterError::Config(format!(
                "{vpt} values per thread is more than the 64 supported"
            )));
        }
        if self.threads * vpt * dtype.size() > MAX_TILE_BYTES {
            return Err(FilterError::Config(format!(
                "a chunk of {} threads x {vpt} values of {dtype} needs more than the {} KiB of \
                 shared memory a block stages through",
                self.threads,
                MAX_TILE_BYTES / 1024
            )));
        }
        let wide = self.wide || dtype == DType::F64;
        Ok(SosConfig { vpt, wide, ..*self })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sigpu_runtime::cuda::tuning::SOS_DEFAULT;

    #[test]
    fn the_default_policy_gives_the_default_shape() {
        let on_device = SosConfig {
            threads: 0,
            ..SosConfig::default()
        };
        for dtype in [DType::F32, DType::F64] {
            let tuned = on_device
                .on_device(&SOS_DEFAULT, dtype)
                .normalized(dtype)
                .unwrap();
            assert_eq!(
                tuned,
                SosConfig::default().normalized(dtype).unwrap(),
                "{dtype}"
            );
        }
        // A shape with threads set is the caller's; threads 0 keeps a caller's vpt and bounds.
        let fixed = SosConfig {
            threads: 128,
            ..SosConfig::default()
        };
        let tile = ScanTile {
            threads: 512,
            bytes_per_thread: 64,
            min_blocks: 2,
        };
        assert_eq!(fixed.on_device(&tile, DType::F32), fixed);
        let partly = SosConfig {
            threads: 0,
            vpt: 8,
            ..SosConfig::default()
        };
        let c = partly.on_device(&tile, DType::F32);
        assert_eq!((c.threads, c.vpt, c.min_blocks), (512, 8, 2));
        assert_eq!(on_device.on_device(&tile, DType::F64).vpt, 8);
    }
}

#[cfg(test)]
mod parse_tests {
    use super::*;

    #[test]
    fn default_names_the_devices_policy_and_a_shape_stays_the_callers() {
        let d: SosConfig = "default".parse().unwrap();
        assert_eq!((d.threads, d.vpt, d.min_blocks), (0, 0, 0));
        let l: SosConfig = "defaultl/2".parse().unwrap();
        assert_eq!((l.threads, l.force_look_back, l.min_blocks), (0, true, 2));
        let s: SosConfig = "192x16c2".parse().unwrap();
        assert_eq!((s.threads, s.vpt, s.chunks_per_block), (192, 16, 2));
    }
}
