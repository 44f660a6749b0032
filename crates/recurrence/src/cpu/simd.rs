//! Which instruction set the block functions run with, chosen from the `CpuArch` the caller
//! passes down (detected once per process by the runtime).

use sigpu_runtime::host::CpuArch;

/// Instruction set the block functions run with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Simd {
    #[serde(rename = "AVX2+FMA")]
    Avx2Fma,
    #[serde(rename = "scalar")]
    Scalar,
}

impl Simd {
    /// The best of the block functions' instruction sets that `arch` has.
    pub fn best(arch: &CpuArch) -> Simd {
        if cfg!(target_arch = "x86_64") && arch.avx2_fma() {
            Simd::Avx2Fma
        } else {
            Simd::Scalar
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Simd::Avx2Fma => "AVX2+FMA",
            Simd::Scalar => "scalar",
        }
    }
}
