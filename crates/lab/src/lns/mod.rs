//! Reproductions and benchmarks for sigpu-lns.
