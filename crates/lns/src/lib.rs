//! Real logarithmic number system (LNS): numbers as sign + fixed-point log2|x|, with addition
//! and subtraction through s_b(z) = log2(1 + 2^z) and d_b(z) = log2|1 − 2^z| evaluated by
//! several GPU units (SFU, FMA polynomials, texture filtering) and certified exhaustively.
//!
//! Source: seed 000 (Arnold, Collange, Defour, ICASSP 2010). Work starts in issue 3; this crate
//! is the place for it, built on `sigpu-runtime`.
