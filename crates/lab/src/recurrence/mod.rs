//! Benchmarks for sigpu-recurrence: what `sigpu bench filter` measures and draws.
//!
//! - [`bench`]: one filter timed on a GPU (CUDA events) or on the CPU cores, checked against
//!   the reference at the benchmarked size, and the seeded benchmark input.
//! - [`sweep`]: PLR's suite over lengths and launch shapes, with the copy ceiling — the
//!   report `--out` writes.
//! - [`sos_bench`]: the fused second-order-section cascade (`--sos`) against the copy ceiling.
//! - [`plot`]: throughput-vs-length charts from such a report (saved runs can be re-plotted).
//! - [`filter_run`]: one `sigpu filter` run over files: read, plan, filter, write, report.
//! - [`summary`]: what one `sigpu filter` run reports.

pub mod bench;
pub mod filter_run;
pub mod plot;
pub mod sos_bench;
pub mod summary;
pub mod sweep;
