//! Reproductions and benchmarks for sigpu-approx.
