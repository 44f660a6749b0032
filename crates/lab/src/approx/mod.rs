//! Reproductions and benchmarks for sigpu-approx (Li et al.'s SFU-approximation paper, ICS 2016).
//!
//! - [`microbench`]: the paper's Tables 4–5 on the GPU at hand (latency, throughput, error,
//!   registers, SASS mix of every catalog function), with [`sass`] reading the instruction mix.
//! - [`cpu_bench`]: the CPU fast functions' error, speed and chunk-split curve.
//! - [`tune`]: the app suite tuned under a QoS ratio, geometric means and energy.
//! - [`heu_target`]: HEU against OMG at equal confidence, per app and over the suite.
//! - [`source_file`]: a CUDA file's kernel transformed (`sigpu approx transform`).
//! - [`figures`]: the paper's Fig. 4 and Fig. 8–11 from tuning reports.

pub mod cpu_bench;
pub mod figures;
pub mod heu_target;
pub mod listing;
pub mod microbench;
pub mod sass;
pub mod source_file;
pub mod tune;
