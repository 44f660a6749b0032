//! sigpu's runtime: what every capability crate needs to run on a CPU or a CUDA GPU.
//!
//! - [`host`]: facts about the CPU (model, SIMD features detected at run time, threads) and a
//!   multi-threaded copy benchmark that is the ceiling for memory-bound CPU kernels.
//! - [`cuda`]: the GPU layer over `cudarc`. Discovery never panics: when the driver, NVRTC or a
//!   device is missing, [`cuda::probe`] and [`cuda::Gpu::open`] say which one and what to do.
//!   Kernels are CUDA C compiled at run time by NVRTC for the device's own architecture and
//!   cached on disk; texture objects, event timing and a self-check registry sit beside them.
//! - [`Device`]: the `cpu | cuda[:N]` choice every command and library entry point takes.
//! - [`fs::write_atomic`]: every output file goes through a temp file and a rename.

pub mod cuda;
mod device;
pub mod fs;
pub mod host;
pub mod npy;

pub use device::{Device, ParseDeviceError};
