//! The shared CUDA primitive layer: `.cuh` headers under `crates/runtime/kernels/` that the
//! capability crates' kernels build on, layered as CUB is (warp → block → kernel): warp
//! reductions on shuffles ([`REDUCE`]), warp loads and stores of blocked tiles through a
//! swizzled shared-memory transpose ([`WARP_IO`]), and the decoupled look-back protocol of a
//! single-pass chained scan ([`LOOKBACK`]: chunk order, epoch flags, the window wait). Each
//! header has an include guard and includes what it builds on; [`with_primitives`] attaches all
//! of them to a source, so `#include "sigpu_lookback.cuh"` resolves.

use super::compile::KernelSource;

/// Warp reductions (`sigpu_warp_sum`) and `FULL_MASK`.
pub const REDUCE: &str = include_str!("../../kernels/sigpu_reduce.cuh");
/// The name [`REDUCE`] is included by.
pub const REDUCE_NAME: &str = "sigpu_reduce.cuh";
/// Thread and warp loads and stores of `COUNT` consecutive values per thread.
pub const WARP_IO: &str = include_str!("../../kernels/sigpu_warp_io.cuh");
/// The name [`WARP_IO`] is included by.
pub const WARP_IO_NAME: &str = "sigpu_warp_io.cuh";
/// The decoupled look-back protocol: `sigpu_chunk_in_start_order`, `sigpu_lookback_flag`,
/// `sigpu_lookback_wait` and the status words.
pub const LOOKBACK: &str = include_str!("../../kernels/sigpu_lookback.cuh");
/// The name [`LOOKBACK`] is included by.
pub const LOOKBACK_NAME: &str = "sigpu_lookback.cuh";

/// Every primitive header as (name, text), in dependency order.
pub const HEADERS: [(&str, &str); 3] = [
    (REDUCE_NAME, REDUCE),
    (WARP_IO_NAME, WARP_IO),
    (LOOKBACK_NAME, LOOKBACK),
];

/// `source` with every primitive header attached.
pub fn with_primitives(source: KernelSource) -> KernelSource {
    HEADERS
        .iter()
        .fold(source, |s, &(name, text)| s.with_header(name, text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_resolve_once_each() {
        let src = with_primitives(KernelSource::generated(
            "k.cu",
            "#include \"sigpu_lookback.cuh\"\n#include \"sigpu_warp_io.cuh\"\n",
        ));
        let text = src.expanded();
        // The look-back header pulls in the reductions; nothing is pasted twice.
        assert_eq!(text.matches("#define SIGPU_REDUCE_CUH").count(), 1);
        assert_eq!(text.matches("#define SIGPU_LOOKBACK_CUH").count(), 1);
        assert_eq!(text.matches("#define SIGPU_WARP_IO_CUH").count(), 1);
    }
}
