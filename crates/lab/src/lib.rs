//! sigpu's lab: what reproduces a paper's table or figure, or measures. The libraries
//! (`sigpu-lns`, `sigpu-clns`, `sigpu-recurrence`, `sigpu-approx`, `sigpu-ldpc`) hold what a
//! user's program calls; this crate holds the experiments around them, so that figure code and
//! benchmarks are never part of a library's API.
//!
//! - [`checks`]: the self-check registry — every crate's GPU kernels against their CPU twins.
//! - [`demo`]: the tour `sigpu demo` prints.
//! - [`info`] and [`copy`]: what `sigpu info` and `sigpu bench copy` report.
//! - [`ranks`]: a command run on the MPI ranks it was started as (or this process alone).
//! - [`numfmt`]: figures with three significant digits and SI prefixes (the demo, `lns hmm`).
//! - one module per capability with its benchmarks, table and figure reproductions, each
//!   report with its text form ([`table`]: plain aligned columns) beside its JSON.
//!
//! ```
//! // Every registered check has a `crate/kernel` name; `sigpu check --list` prints them.
//! let checks = sigpu_lab::checks::registry();
//! assert!(checks.iter().any(|c| c.name.starts_with("runtime/")));
//! ```

#![warn(missing_docs)]

pub mod approx;
pub mod checks;
pub mod clns;
pub mod copy;
pub mod demo;
pub mod info;
pub mod ldpc;
pub mod lns;
pub mod numfmt;
pub mod ranks;
pub mod recurrence;
pub mod replot;
pub mod table;
pub mod tune;
