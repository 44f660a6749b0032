//! Reproductions and benchmarks for sigpu-ldpc.
