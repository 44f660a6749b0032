//! Approximate transcendentals: accurate (libdevice) and SFU (`.approx`) versions of each
//! function, kernels that split warps between them by a partition λ, and a QoS-bounded search
//! for the fastest λ.
//!
//! Source: Li, Song, Wijtvliet, Kumar, Corporaal, "SFU-driven transparent approximation
//! acceleration on GPUs", ICS 2016 (the SFU-approximation paper). The paper's tables and
//! figures are reproduced by `sigpu-lab` (`sigpu_lab::approx`); this crate holds what a
//! program calls.
//!
//! - [`catalog`]: the 9 + 4 functions of the paper's Tables 1–2 and Hopper's additions, each
//!   with its accurate CUDA and approximate PTX form, domains and f64 reference.
//! - [`eval`]: a catalog function's element-wise kernel, run on the GPU.
//! - [`transform`]: Algorithm 1, from a kernel's CUDA source to its λ-partitioned twin.
//! - [`search`]: SMP, HEU and OMG searches for λ under a QoS ratio, on any T(λ)/E(λ).
//! - [`noise`]: repeated timings until two candidates' confidence intervals separate.
//! - [`sites`]: per-call-site forms (accurate, SFU, FMA polynomial), λs and range guards.
//! - [`apps`] and [`tune`]: the app suite and the λ search on the GPU for one of its apps.
//! - [`user`]: tuning a user's own kernel on their data against their metric.
//! - [`energy`]: joules per run and average watts from NVML's counter.
//! - [`cpu`]: fast f32 exp / log / sin / cos on the CPU, with a λ-like chunk split.
//! - [`numeric`]: f16/bf16 conversions, random inputs and error statistics against f64.
//! - [`checks`]: the GPU self-checks `sigpu check` runs.
//!
//! The CPU fast exp on a slice, against f64:
//!
//! ```
//! use sigpu_approx::cpu::{fast_slice, CpuFunction, SimdPath};
//!
//! let x: Vec<f32> = (0..1000).map(|i| -10.0 + i as f32 * 0.02).collect();
//! let mut fast = vec![0f32; x.len()];
//! fast_slice(CpuFunction::Exp, SimdPath::Scalar, &x, &mut fast);
//! let max_rel = x
//!     .iter()
//!     .zip(&fast)
//!     .map(|(&x, &y)| ((y as f64 - (x as f64).exp()) / (x as f64).exp()).abs())
//!     .fold(0.0, f64::max);
//! assert!(max_rel < 1e-6, "{max_rel}");
//! ```
//!
//! A catalog entry and the λ transformation of a kernel that calls it:
//!
//! ```
//! use sigpu_approx::{catalog, transform::transform};
//!
//! let exp = catalog::find("exp_f32")?;
//! assert_eq!(exp.approx_ptx, "mul.ftz.f32 by log2 e, ex2.approx.ftz.f32");
//! let cuda = r#"extern "C" __global__ void k(float* x) { x[threadIdx.x] = expf(x[threadIdx.x]); }"#;
//! let t = transform(cuda, "k")?;
//! assert_eq!(t.lambda_kernel, "k_lambda");
//! assert_eq!(t.rewrites["expf"], 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]

pub mod apps;
pub mod catalog;
pub mod checks;
pub mod cpu;
pub mod dev;
pub mod energy;
mod error;
pub mod eval;
mod lex;
pub mod noise;
pub mod numeric;
mod precision;
pub mod search;
pub mod sites;
pub mod transform;
pub mod tune;
pub mod user;

pub use error::{ApproxError, Result};
