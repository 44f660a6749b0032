//! LDPC decoding for DVB-T2 and DVB-S2: every standard code, 8-bit min-sum on the GPU (128
//! codewords per batch, coalesced layout) and on the CPU with SIMD over codewords, a float
//! sum-product reference, and BER/FER simulation with resumable sweeps.
//!
//! After the GPU LDPC decoder paper (Grönroos, Nybom & Björkqvist, GPU and CPU min-sum LDPC
//! decoders for DVB-T2).
//!
//! - [`Code`]: H of any DVB-T2/S2 code from the vendored tables ([`Code::standard`]) or an
//!   alist file ([`read_alist`]); [`to_alist`] exports one.
//! - [`nr`]: 5G NR LDPC (TS 38.212): base graphs, liftings, encoder, rate matching, transport
//!   blocks.
//! - [`Encoder`]: the systematic linear-time encoder of the DVB staircase codes.
//! - [`interleave`]: the DVB-T2 bit interleaver and bit-to-cell demultiplexer.
//! - [`channel`]: DVB-T2 constellations, AWGN, exact / max-log demapping, 8-bit quantisation.
//! - [`decoder`]: the [`Decoder`] trait and its CPU decoders; [`gpu`]: the CUDA decoders.
//! - [`sim`]: frames over the channel, one SNR point on one or several decoders, and
//!   [`sim::sweep`]: a whole SNR sweep written point by point to a file it can resume;
//!   [`sweep_request`] builds one from the link and stopping rule as a face names them.
//! - [`decoder_options`]: a decoder choice as flat options, turned into a checked
//!   [`DecoderConfig`].
//!
//! Benchmarks and charts of these live in `sigpu-lab` (`sigpu_lab::ldpc`).
//!
//! Encode random bits with a short DVB-T2 code, send them as BPSK over a noiseless channel,
//! and decode with the GPU LDPC decoder paper's 8-bit min-sum on the CPU:
//!
//! ```
//! use sigpu_ldpc::{Code, Decoder, DecoderConfig, Encoder, Llrs};
//!
//! let code = Code::standard("dvbt2-short-1/2")?;
//! let (n, k) = (code.n(), code.k());
//! let info: Vec<u8> = (0..k).map(|i| ((i * 7 + i / 3) % 2) as u8).collect();
//! let mut word = vec![0u8; n];
//! Encoder::new(&code)?.encode(&info, &mut word)?;
//! // LLR = ln P(0)/P(1): a noiseless BPSK bit is sure of itself.
//! let llr: Vec<f32> = word.iter().map(|&b| if b == 0 { 8.0 } else { -8.0 }).collect();
//! let mut decoder = sigpu_ldpc::decoder::Fixed8Decoder::new(code.clone(), DecoderConfig::default())?;
//! let mut bits = vec![0u8; n];
//! let stats = decoder.decode(Llrs::F32(&llr), &mut bits)?;
//! assert_eq!(bits, word);
//! assert_eq!(&bits[..k], &info[..]);
//! assert_eq!(stats.valid, 1);
//! # Ok::<(), sigpu_ldpc::LdpcError>(())
//! ```

#![warn(missing_docs)]

pub mod alist;
pub mod channel;
mod code;
pub mod decode_file;
pub mod decoder;
pub mod decoder_options;
mod encode;
mod error;
pub mod gpu;
pub mod interleave;
pub mod npy;
pub mod nr;
pub mod plan;
pub mod sim;
pub mod sweep_request;
pub mod table;
mod text;

pub use alist::{read_alist, to_alist, write_alist};
pub use code::{Code, CodeInfo, Layer};
pub use decoder::{
    Algorithm, CompactDecoder, DecodeStats, Decoder, DecoderConfig, Llrs, Precision, Schedule,
};
pub use encode::{encode_npy, info_bits_npy, EncodedFile, Encoder};
pub use error::{LdpcError, Result};
