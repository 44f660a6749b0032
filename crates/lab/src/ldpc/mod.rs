//! Reproductions and benchmarks for sigpu-ldpc: the GPU LDPC decoder paper's throughput
//! tables ([`bench`], `sigpu bench ldpc`) and error-rate charts of sweep files ([`plot`]).

pub mod bench;
pub mod plot;
