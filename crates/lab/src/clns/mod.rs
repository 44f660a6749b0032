//! Reproductions and benchmarks for sigpu-clns.
