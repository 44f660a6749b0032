//! What tests of every crate share: a GPU or NVRTC when there is one, a visible `SKIP` line
//! when there is not, and a failure instead of a skip where the environment demands the real
//! thing (a GPU machine, or CI with NVRTC installed).

use super::gpu::Gpu;
use super::probe::nvrtc_version;

/// The environment variable that turns "no GPU" from a skip into a failure.
pub const REQUIRE_GPU_ENV: &str = "SIGPU_REQUIRE_GPU";

/// The environment variable that turns "no NVRTC" from a skip into a failure.
pub const REQUIRE_NVRTC_ENV: &str = "SIGPU_REQUIRE_NVRTC";

fn env_flag(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| !v.is_empty() && v != "0")
}

/// True when `SIGPU_REQUIRE_GPU` is set to anything but empty or `0`.
pub fn gpu_required() -> bool {
    env_flag(REQUIRE_GPU_ENV)
}

/// The GPU (with NVRTC) for a test, or `None` with a visible `SKIP` line when there is none.
///
/// libtest has no skipped status, so a skipped GPU test passes; with `SIGPU_REQUIRE_GPU=1` it
/// panics instead, so a GPU machine can never pass by skipping.
pub fn gpu_for_test(test: &str) -> Option<Gpu> {
    match Gpu::open_with_compiler(0) {
        Ok(gpu) => Some(gpu),
        Err(e) if gpu_required() => panic!("{test}: {REQUIRE_GPU_ENV} is set but no GPU: {e}"),
        Err(e) => {
            println!("SKIP {test}: no GPU ({e})");
            None
        }
    }
}

/// Whether NVRTC is there for a compile-only test; prints `SKIP` when it is not, and panics
/// instead when `SIGPU_REQUIRE_NVRTC=1` (set by CI, which installs NVRTC).
pub fn nvrtc_for_test(test: &str) -> bool {
    match nvrtc_version() {
        Ok(_) => true,
        Err(e) if env_flag(REQUIRE_NVRTC_ENV) => panic!("{test}: {REQUIRE_NVRTC_ENV}=1 but {e}"),
        Err(e) => {
            println!("SKIP {test}: {e}");
            false
        }
    }
}
