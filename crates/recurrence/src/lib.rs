//! Linear recurrences and IIR filters: SciPy's `lfilter` / `sosfilt` on CPU cores and GPUs,
//! behind one front door that keeps an accuracy contract (within 4× SciPy's own error at the
//! same dtype) and picks the engine once.
//!
//! Source: PLR (Maleki & Burtscher, "Automatic Generation of 1D Recursive Filter Code for
//! GPUs", ASPLOS'18): a signature `(a0, a-1, … : b-1, …, b-k)` becomes a map plus a recurrence
//! parallelised with k-nacci correction factors, generated as CUDA C and run in a single pass at
//! memory-copy speed, with the same algorithm on CPU cores.
//!
//! - [`planner`]: [`plan`] takes a [`FilterSpec`] (`(b, a)`, a signature or second-order
//!   sections), [`FilterOptions`] and a `sigpu_runtime::Target`, and returns one
//!   [`Recurrence`] object: the method the contract chose ([`Lfilter`], [`Sos`], [`Report`]),
//!   run by the CPU engines or the GPU kernels, or refused with the way out where that method
//!   has no engine for the data. [`lfilter`] is SciPy's one-channel call through it.
//! - [`signal`]: SciPy's functions over N-D arrays with an axis and SciPy's zi / zf shapes.
//! - [`Signature`]: the PLR paper's notation and SciPy's `lfilter(b, a)` convention.
//! - [`Filter`]: a signature compiled for one element type (f32, f64, i32, i64; integers wrap),
//!   the PLR engine on CPU cores ([`cpu`], SIMD chosen through the runtime's `Isa`).
//! - [`Factors`]: the correction factors, with the PLR paper's optimisations and a switch.
//! - [`gpu`]: the CUDA code generator (the fixed helpers are the header `kernels/plr.cuh`),
//!   [`GpuFilter`] which runs the kernel it produces, and [`GpuSos`], every section fused in
//!   one pass over memory; both on device views and a target's stream.
//! - [`io`]: signals in `.npy`, raw and WAV files.
//! - [`time_varying`]: time-varying all-pole filters (coefficients per sample, torchlpc's
//!   interface), forward and backward, CPU and GPU, behind [`plan_allpole`].
//! - [`FilterError`]: every way a filter can refuse a signature, a shape or an input.
//!
//! Benchmarks and their charts are not here: they are `sigpu-lab`'s (`sigpu bench filter`).
//!
//! A one-pole low-pass, `y[i] = 0.2·x[i] + 0.8·y[i-1]`, given as SciPy's `(b, a)` and run on the
//! CPU path, against the serial loop it stands for:
//!
//! ```
//! use sigpu_recurrence::{lfilter, Filter, FilterOptions, Signature};
//!
//! let x: Vec<f64> = (0..100_000).map(|i| ((i * 7919) % 101) as f64 / 50.0 - 1.0).collect();
//! let (y, zf) = lfilter(&[0.2], &[1.0, -0.8], &x, None)?;
//!
//! let mut prev = 0.0;
//! for (xi, yi) in x.iter().zip(&y) {
//!     prev = 0.2 * xi + 0.8 * prev;
//!     assert!((yi - prev).abs() <= 1e-12);
//! }
//! // The final state continues the filter where it stopped (SciPy's zf).
//! assert!((zf[0] - 0.8 * prev).abs() <= 1e-12);
//!
//! // The same filter in the PLR paper's notation, compiled once for f32 and reused.
//! let filter = Filter::<f32>::new(&Signature::parse("(0.2 : 0.8)")?, FilterOptions::default())?;
//! let (y32, _) = filter.apply(&[1.0, 0.0, 0.0], None)?;
//! assert_eq!(y32, [0.2, 0.16000001, 0.128]);
//! # Ok::<(), sigpu_recurrence::FilterError>(())
//! ```

mod bounds;
mod cascade_tables;
pub mod complex;
pub mod cpu;
mod dd;
mod design;
mod elem;
mod engine;
mod error;
mod factors;
mod filter;
mod fir_fft;
pub mod gpu;
pub mod io;
mod layout;
mod numbers;
pub mod planner;
mod poles;
mod report;
pub mod serial;
pub mod signal;
mod signature;
mod sos;
mod sos_rows;
pub mod stability;
pub mod testing;
pub mod time_varying;
mod zi;

pub use design::Lfilter;
pub use elem::{from_le_bytes, to_le_bytes, DType, Element};
pub use engine::{Batch, DeviceBatch, Recurrence, Timing};
pub use error::{FilterError, ParseError};
pub use factors::{mat_mul, Factors, TableKind};
pub use filter::{check_finite, parse_values, Filter, FilterOptions, Strategy, MAX_ORDER};
pub use gpu::{GpuConfig, GpuFilter, GpuSos, RawSosCall, RunTimes, SosConfig};
pub use layout::ChannelLayout;
pub use numbers::short;
pub use planner::{lfilter, plan, planner, FilterPlanner, FilterSpec, Planned};
pub use poles::{max_root_magnitude, STABILITY_SLACK};
pub use report::{Method, Report};
pub use signature::{Coef, Signature};
pub use sos::{BlockedPeaks, Sos, MAX_SECTIONS, SEG};
pub use time_varying::{plan_allpole, AllPole, AllPoleOptions, AllPoleSpec};
pub use zi::{lfilter_zi, sosfilt_zi};
