//! LDPC decoding for DVB-T2 and DVB-S2: every standard code, 8-bit min-sum on the GPU (128
//! codewords per batch, coalesced layout) and on the CPU with SIMD over codewords, a float
//! sum-product reference, and BER/FER simulation.
//!
//! Source: seed 004 (Grönroos, Nybom, Björkqvist), issue 7.
//!
//! - [`Code`]: H of any DVB-T2/S2 code from the vendored tables ([`Code::standard`]) or an
//!   alist file ([`read_alist`]); [`to_alist`] exports one.
//! - [`Encoder`]: the systematic linear-time encoder of the DVB staircase codes.
//! - [`interleave`]: the DVB-T2 bit interleaver and bit-to-cell demultiplexer.
//! - [`channel`]: DVB-T2 constellations, AWGN, exact / max-log demapping, 8-bit quantisation.
//! - [`decoder`]: the [`Decoder`] trait and its CPU decoders; [`gpu`]: the CUDA decoder.

pub mod alist;
pub mod channel;
mod code;
pub mod decoder;
mod encode;
mod error;
pub mod gpu;
pub mod interleave;
pub mod npy;
pub mod sim;
pub mod table;

pub use alist::{read_alist, to_alist, write_alist};
pub use code::{Code, CodeInfo, Layer};
pub use decoder::{Algorithm, DecodeStats, Decoder, DecoderConfig, Llrs, Precision, Schedule};
pub use encode::Encoder;
pub use error::{LdpcError, Result};
