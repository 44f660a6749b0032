//! Reproductions and benchmarks for sigpu-recurrence.
