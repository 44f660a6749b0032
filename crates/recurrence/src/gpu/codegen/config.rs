//! The launch shape a kernel is generated for.

use crate::elem::DType;
use crate::error::FilterError;

/// The launch shape a kernel is generated for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct GpuConfig {
    /// Threads per block that filter values (a multiple of 32, at most 1024). 0 (the default)
    /// picks by filter what measured fastest on an H100: 512 for prefix sums (the look-back
    /// kernel with every factor 1), 256 otherwise.
    pub threads: usize,
    /// Consecutive values per thread (a multiple of 16 bytes' worth of elements). 0 (the
    /// default) picks by filter what measured fastest on an H100: 64 bytes per thread where
    /// the factors vanish within a warp's span (the tail-carry kernel, no look-back), else
    /// 128 bytes per thread, so that each look-back covers a larger chunk.
    pub vpt: usize,
    /// Load and store a warp's values with coalesced 16-byte accesses (lane l takes vector
    /// 32q + l) and transpose them through shared memory, instead of each thread reading its
    /// own V values directly (16-byte accesses 64 bytes apart across the warp).
    pub transpose: bool,
    /// Blocks per SM asked of the register allocator (`__launch_bounds__`); 0 leaves it free.
    pub min_blocks: usize,
    /// In the look-back kernel, one extra warp per block runs the decoupled look-back from the
    /// block's start, while the other warps load and merge the chunk, instead of warp 0
    /// looking back after the merge with the block waiting at a barrier. Used where the kernel
    /// looks back and the block has room for the warp (threads ≤ 992).
    pub lookback_warp: bool,
}

impl Default for GpuConfig {
    fn default() -> Self {
        GpuConfig {
            threads: 0,
            vpt: 0,
            transpose: true,
            min_blocks: 0,
            lookback_warp: true,
        }
    }
}

impl GpuConfig {
    /// Elements per chunk (one thread block).
    pub fn chunk(&self) -> usize {
        self.threads * self.vpt
    }

    /// The shape actually used for `dtype` and order `k`: vpt rounded up to whole 16-byte
    /// vectors and to at least k (a thread's last k values are its carry-out). Threads 0 (pick
    /// by filter) must be resolved before.
    pub fn normalized(&self, dtype: DType, k: usize) -> Result<GpuConfig, FilterError> {
        if self.threads == 0 || !self.threads.is_multiple_of(32) || self.threads > 1024 {
            return Err(FilterError::Config(format!(
                "threads per block must be a multiple of 32 up to 1024, not {}",
                self.threads
            )));
        }
        let per_vector = 16 / dtype.size();
        let vpt = self.vpt.max(k).max(1).div_ceil(per_vector) * per_vector;
        if vpt > 64 {
            return Err(FilterError::Config(format!(
                "{vpt} values per thread is more than the 64 supported"
            )));
        }
        Ok(GpuConfig { vpt, ..*self })
    }
}
