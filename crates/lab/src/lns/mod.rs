//! Reproductions and benchmarks for sigpu-lns.
//!
//! - [`bench`]: texture-LNS's Table 1 (s_b throughput per method and per blend of two units),
//!   the streaming add and fused reductions against the copy ceiling, the CPU's add throughput.
//! - [`fig3`] / [`fig3_gpu`] / [`figure`]: texture-LNS's Fig. 3 (s_b accuracy against input
//!   precision) from the CPU twins or measured on a GPU.
//! - [`calc`]: the calculator over a stream of lines, as text or one JSON array.
//! - [`certify`]: exhaustive certificates of several methods on the CPU or a GPU.
//! - [`hmm`]: the HMM forward in LNS, timed and checked against f64.

pub mod bench;
pub mod calc;
pub mod certify;
pub mod fig3;
pub mod fig3_gpu;
pub mod figure;
pub mod hmm;

/// The lab's LNS self-checks (Fig. 3's tables on the GPU against their CPU twins); the
/// library's own are `sigpu_lns::gpu::checks()`.
pub fn checks() -> Vec<sigpu_runtime::cuda::Check> {
    fig3_gpu::checks()
}
