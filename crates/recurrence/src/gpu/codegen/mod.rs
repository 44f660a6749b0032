//! The CUDA C generator: one kernel per signature, element type and launch shape, with the
//! coefficients, the in-thread correction factors and the merge matrices written into the
//! source as constants (what the seed's PLR tool does), and the long factor tables passed in
//! a small constant buffer.
//!
//! The kernel is single-pass: every element is read once and written once (the tail-carry
//! kernel below reads the last 32 × vpt inputs of each chunk a second time, mostly from L2).
//! - Chunks of `threads × vpt` elements are handed out in order by an atomic counter.
//! - Each thread loads `vpt` consecutive elements (16-byte vector loads), applies the map
//!   `(a0, … : 0)` and runs `(1 : b…)` over them from zero.
//! - Threads merge their last k values with warp shuffles (5 doubling steps), then warps merge
//!   through shared memory, using the transfer matrices M_m[r][j] = f_j[m-1-r].
//! - Chunks chain through a decoupled look-back over a 32-chunk window: a chunk posts its
//!   local aggregate; a look-back warp (one warp more per block, polling from the block's
//!   start while the other warps load and merge; or warp 0 after the merge, without it) folds
//!   its predecessors' posts (with powers of the chunk transfer matrix) back to the nearest
//!   full carry. When the factors were truncated inside the chunk,
//!   its carry-out does not depend on its carry-in and it posts the full carry at once, so
//!   decaying filters have no serial chain.
//! - Each thread then adds its carry-in times the factors to its values and stores them.
//!
//! Where the factors vanish within one warp's 32 × vpt values (decaying filters, optimisations
//! on), a chunk's carry-in is exactly the carry-out, from zero, of the previous chunk's last
//! 32 × vpt inputs: the "tail-carry" kernel gives each block one extra warp that recomputes it
//! from the input, and has no look-back, flags or chunk counter, so blocks never wait on one
//! another (on an H100 this took the decaying filters from 74–82% to 99.6% of copy speed).
//!
//! Integer types compute in the unsigned type of their width, so overflow wraps as in two's
//! complement (signed overflow is undefined in C).
//!
//! The fixed device helpers (vector loads and stores, the transpose, the look-back, the carry
//! transfer) are the header `kernels/plr.cuh`, which the generated source includes; what is
//! generated is the part that depends on the filter. Generation runs in phases: `plan.rs`
//! (launch shape, factors, which kernel), the constants buffer, the prelude (defines and the
//! include), the local pass (`local.rs`), the filter and final-state kernels (`kernel.rs`).

mod config;
mod kernel;
mod local;
mod plan;

pub use config::GpuConfig;
pub use kernel::{FILTER_KERNEL, STATE_KERNEL};
pub use plan::resolve_shape;
pub use plan::{PLR_HEADER, PLR_HEADER_NAME};

use crate::elem::Element;
use crate::error::FilterError;
use crate::filter::Filter;
use plan::Plan;
use sigpu_runtime::cuda::primitives::with_primitives;
use sigpu_runtime::cuda::tuning::PlrPolicy;
use sigpu_runtime::cuda::KernelSource;

/// How a kernel's values lie in memory, beyond a channel's start (its channel stride is a
/// launch argument): the layouts of [`crate::engine::ChannelLayout`] as the kernel sees them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct KernelLayout {
    /// A value holds one sample of two channels interleaved element by element (a complex
    /// signal's re and im parts), filtered alike: float types only.
    pub pairs: bool,
    /// A channel's logical sample i lies at position n − 1 − i: the kernel filters it
    /// backwards in time, in place.
    pub reversed: bool,
}

/// A generated kernel and the constants it is launched with.
#[derive(Clone, Debug)]
pub struct Generated<T> {
    pub source: String,
    /// A file name for NVRTC messages and the kernel cache.
    pub name: String,
    pub config: GpuConfig,
    /// How the kernel reads and writes its values.
    pub layout: KernelLayout,
    /// f_j at positions −k…len−1 (table j at j·(len+k)), then T_C^l for l = 0…32, row-major.
    pub constants: Vec<T>,
    /// Factor table length after truncation.
    pub factor_len: usize,
    /// Chunk carry-outs do not depend on carry-ins.
    pub independent: bool,
    /// The factors vanish within a warp's 32 × vpt values: each block recomputes its carry-in
    /// from the previous chunk's last inputs with an extra warp, and there is no look-back.
    pub tail_carry: bool,
    /// A prefix sum (order 1, every factor 1): the look-back kernel with the prefix-sum tile.
    pub prefix_sum: bool,
    /// Dynamic shared memory the filter kernel is launched with (the look-back kernel's
    /// transpose tiles; may exceed the 48 KiB a block gets without opting in).
    pub shared_bytes: usize,
}

impl<T> Generated<T> {
    /// Threads per block of the filter kernel (the tail-carry kernel and the look-back warp
    /// add one warp).
    pub fn block_threads(&self) -> usize {
        self.config.threads
            + if self.tail_carry || self.config.lookback_warp {
                32
            } else {
                0
            }
    }
}

impl<T> Generated<T> {
    /// The source as NVRTC compiles it: the generated code with [`PLR_HEADER`] and the
    /// runtime's primitive headers it builds on attached.
    pub fn kernel_source(&self) -> KernelSource {
        with_primitives(KernelSource::generated(
            self.name.clone(),
            self.source.clone(),
        ))
        .with_header(PLR_HEADER_NAME, PLR_HEADER)
    }
}

/// Generates the kernel for `filter` with launch shape `config`, what it leaves to pick taken
/// from the default policy (the H100's shapes).
pub fn generate<T: Element>(
    filter: &Filter<T>,
    config: GpuConfig,
) -> Result<Generated<T>, FilterError> {
    generate_tuned(filter, config, &PlrPolicy::default())
}

/// Generates the kernel for `filter` with launch shape `config`, what it leaves to pick
/// (threads or values per thread 0) taken from `policy` (a device's, see
/// `sigpu_runtime::cuda::tuning`).
pub fn generate_tuned<T: Element>(
    filter: &Filter<T>,
    config: GpuConfig,
    policy: &PlrPolicy,
) -> Result<Generated<T>, FilterError> {
    generate_laid_out(filter, config, policy, KernelLayout::default())
}

/// [`generate_tuned`] for values laid out as `layout` says. The factors, constants and launch
/// shape are those of the plain kernel: only the loads, stores and the value type differ.
pub fn generate_laid_out<T: Element>(
    filter: &Filter<T>,
    config: GpuConfig,
    policy: &PlrPolicy,
    layout: KernelLayout,
) -> Result<Generated<T>, FilterError> {
    let plan = Plan::new(filter, config, policy, layout)?;
    let mut s = String::new();
    plan.write_prelude(&mut s);
    local::write_local_pass(&plan, &mut s);
    kernel::write_filter_kernel(&plan, &mut s);
    kernel::write_state_kernel(&plan, &mut s);
    let name = plan.file_name(&s);
    Ok(Generated {
        source: s,
        name,
        config: plan.config,
        layout,
        constants: plan.constants(),
        factor_len: plan.len,
        independent: plan.independent,
        tail_carry: plan.tail_carry,
        prefix_sum: plan.ones,
        shared_bytes: plan.dynamic_shared_bytes(),
    })
}

/// 8 hex digits of FNV-1a over a generated source: file names (and the kernel cache's) differ
/// whenever the code does.
pub(crate) fn short_hash(s: &str) -> String {
    let h = s.bytes().fold(0x811c_9dc5u32, |h, b| {
        (h ^ b as u32).wrapping_mul(0x0100_0193)
    });
    format!("{h:08x}")
}
