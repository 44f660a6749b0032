//! Complex LNS: values as (log2 magnitude, angle) with addition through S_b(Z) = log(1 + Z) read
//! from a 2-D table by the texture unit's bilinear filter, and an FFT in CLNS.
//!
//! Source: seed 001 (Vouzis, Arnold). Work starts in issue 4, on the real-LNS formats and the
//! shared function-approximation engine.
