//! Reproductions and benchmarks for sigpu-approx (seed 003, Li et al., ICS 2016).
//!
//! - [`microbench`]: the seed's Tables 4–5 on the GPU at hand (latency, throughput, error,
//!   registers, SASS mix of every catalog function), with [`sass`] reading the instruction mix.
//! - [`cpu_bench`]: the CPU fast functions' error, speed and chunk-split curve.
//! - [`tune`]: the app suite tuned under a QoS ratio, geometric means and HEU against OMG.
//! - [`listing`]: the catalog and the app suite as tables.
//! - [`figures`]: the seed's Fig. 4 and Fig. 8–11 from tuning reports.

pub mod cpu_bench;
pub mod figures;
pub mod listing;
pub mod microbench;
pub mod sass;
pub mod tune;
