//! LDPC decoding for DVB-T2 and DVB-S2: every standard code, 8-bit min-sum on the GPU (128
//! codewords per batch, coalesced layout) and on the CPU with SIMD over codewords, a float
//! sum-product reference, and BER/FER simulation.
//!
//! Source: seed 004 (Grönroos, Nybom, Björkqvist). Work starts in issue 7.
