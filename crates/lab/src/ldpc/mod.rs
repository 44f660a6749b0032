//! Reproductions and benchmarks for sigpu-ldpc: the GPU LDPC decoder paper's throughput
//! tables ([`bench`], `sigpu bench ldpc`), error-rate charts of sweep files ([`plot`]) and the
//! table of built-in codes ([`codes`]), the GPU 5G NR decoder's rows ([`nr_gpu`]), and
//! `sigpu ldpc simulate` run on its ranks and devices ([`simulate`]).

pub mod bench;
pub mod codes;
pub mod nr_gpu;
pub mod plot;
pub mod simulate;
