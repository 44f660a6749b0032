//! Whether a launch shape fits a loaded kernel on its device, as the driver says: the most
//! threads a block of it may have (its registers decide) and how many blocks of a size are
//! resident per SM with a dynamic shared memory size.

use crate::cuda::error::{DriverContext, Result};
use crate::cuda::Kernel;
use cudarc::driver::sys::CUfunction_attribute_enum;

/// The driver's answer for one kernel and block shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Fit {
    /// The most threads a block of this kernel may have.
    pub max_threads_per_block: u32,
    /// Blocks of the asked size resident per SM (0: the block does not fit at all).
    pub blocks_per_sm: u32,
}

impl Fit {
    /// Asks the driver about `kernel` with blocks of `threads` threads and `shared_bytes` of
    /// dynamic shared memory.
    pub fn of(kernel: &Kernel, threads: u32, shared_bytes: usize) -> Result<Fit> {
        let f = kernel.function();
        let max = f
            .get_attribute(CUfunction_attribute_enum::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
            .context(format_args!(
                "querying {}'s block size limit",
                kernel.name()
            ))?;
        let max = u32::try_from(max).unwrap_or(0);
        let blocks = if threads > max {
            0
        } else {
            f.occupancy_max_active_blocks_per_multiprocessor(threads, shared_bytes, None)
                .context(format_args!("querying {}'s occupancy", kernel.name()))?
        };
        Ok(Fit {
            max_threads_per_block: max,
            blocks_per_sm: blocks,
        })
    }

    /// Why a launch of `threads` threads needing `blocks_per_sm` resident blocks per SM does
    /// not fit, or `None` when it does.
    pub fn refuses(&self, threads: u32, blocks_per_sm: u32) -> Option<String> {
        if threads > self.max_threads_per_block {
            Some(format!(
                "{threads} threads per block, the kernel takes at most {}",
                self.max_threads_per_block
            ))
        } else if self.blocks_per_sm < blocks_per_sm.max(1) {
            Some(format!(
                "{} block(s) of {threads} threads resident per SM, {} wanted",
                self.blocks_per_sm,
                blocks_per_sm.max(1)
            ))
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_name_the_limit() {
        let fit = Fit {
            max_threads_per_block: 768,
            blocks_per_sm: 2,
        };
        assert_eq!(fit.refuses(512, 2), None);
        assert_eq!(fit.refuses(512, 0), None);
        assert!(fit.refuses(1024, 1).unwrap().contains("at most 768"));
        assert!(fit.refuses(512, 4).unwrap().contains("2 block(s)"));
        let none = Fit {
            max_threads_per_block: 1024,
            blocks_per_sm: 0,
        };
        assert!(none.refuses(256, 0).is_some());
    }
}
