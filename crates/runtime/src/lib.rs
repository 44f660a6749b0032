//! sigpu's runtime: what every capability crate needs to run on a CPU or a CUDA GPU.
//!
//! - [`host`]: facts about the CPU (model, SIMD features detected at run time, threads) and a
//!   multi-threaded copy benchmark that is the ceiling for memory-bound CPU kernels.
//! - [`cuda`]: the GPU layer over `cudarc`. Discovery never panics: when the driver, NVRTC or a
//!   device is missing, [`cuda::probe`] and [`cuda::Gpu::open`] say which one and what to do.
//!   Kernels are CUDA C compiled at run time by NVRTC for the device's own architecture and
//!   cached on disk; kernels are launched through one typed helper ([`cuda::Launch`]) that
//!   checks the arguments against the kernel's parameters. Texture objects (with a CPU model of
//!   the filter), event timing and the self-check type sit beside them.
//! - [`Device`]: the `cpu | cuda[:N]` a user names; [`Target`]: where a planned object runs,
//!   decided once (the CPU, or a GPU handle plus the stream its work is ordered on). Every
//!   capability's planner takes a `Target`. [`device_policy`]: how a command turns the
//!   `--device` it is given into the CPU or an opened GPU, one policy for every command.
//! - [`cancel::Cancel`]: a token a caller sets to stop long work, polled by the libraries'
//!   chunk loops (how Ctrl-C reaches a Python call).
//! - [`fs::write_atomic`]: every output file goes through a temp file and a rename;
//!   [`file_args`]: the files a command reads and writes, checked together before any work.
//! - [`input`]: reading a file a user names whole, with a size cap and a message saying what
//!   it should hold when it is not text.
//! - [`fuzz`]: the byte-mutation fuzzer every parser's fuzz test runs under.
//! - [`npy`]: the `.npy` container every command reads and writes arrays in.
//! - [`nvml`]: the GPU's energy counter, NVML opened at run time.
//! - [`program`]: what a command-line program sets up so that its output is never lost
//!   silently (SIGPIPE, failed writes to stdout).
//! - [`ranks`]: work spread over processes (MPI ranks with the `mpi` feature), as the
//!   LDPC simulation and the LNS certificates split it.
//!
//! ```
//! use sigpu_runtime::{cuda, host::CpuArch, Device};
//!
//! // The device a user names on the command line or in a call.
//! let device: Device = "cuda:1".parse()?;
//! assert_eq!(device, Device::Cuda(1));
//!
//! // The CPU's instruction sets, detected once and passed to every SIMD dispatcher.
//! let arch = CpuArch::host();
//! println!("CPU kernels will use {}", arch.best());
//!
//! // Whether a GPU is usable, and if not, exactly what is missing: never a panic.
//! let status = cuda::probe();
//! match &status.reason {
//!     None => println!("{} CUDA device(s)", status.devices.len()),
//!     Some(why) => println!("no GPU: {why}"),
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]

pub mod cancel;
pub mod cuda;
mod device;
pub mod device_policy;
pub mod file_args;
pub mod fs;
pub mod fuzz;
pub mod host;
pub mod input;
pub mod npy;
pub mod nvml;
pub mod program;
pub mod ranks;
mod target;

pub use device::{Device, ParseDeviceError};
pub use target::{CpuTarget, GpuTarget, Target};
