//! The section engine's shape: segment and block sizes, shared by its blocked loop and its
//! kernels.

/// Samples per segment (not a power of two: interleaved chains a power-of-two stride apart
/// alias in the L1 sets).
pub const SEG: usize = 2072;
/// Segments per block (the eight lanes of an AVX-512 f64 register).
pub const GROUP: usize = 8;
