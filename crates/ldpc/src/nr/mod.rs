//! 5G NR LDPC (3GPP TS 38.212): the two base graphs and their 51 liftings, code-block
//! parameters, the systematic encoder, rate matching and bit interleaving, and transport
//! blocks (CRC attachment, code-block segmentation and concatenation), with the receive side
//! of each (de-rate-matching to full-length LLRs, HARQ combining, CRC checks).
//!
//! The lifted code is an ordinary [`crate::Code`] (68 Z or 52 Z bits), so every decoder, alist
//! export and the simulation take it as they take a DVB code; [`NrCode`] adds what the
//! standard wraps around it.

pub mod base_graph;
pub mod blocks;
mod code;
pub mod crc;
pub mod encoder;
pub mod files;
pub mod lifted;
pub mod lifting;
pub mod modulation;
pub mod params;
pub mod rate_match;
pub mod sim;
pub mod transport;
mod words;

pub use base_graph::BaseGraph;
pub use blocks::{
    decode_blocks, decode_transmissions, BlockDecoded, CodeBlock, Transmission, TransmissionDecoded,
};
pub use code::NrCode;
pub use crc::Crc;
pub use encoder::LiftedEncoder;
pub use lifted::lifted_code;
pub use params::BlockParams;
pub use rate_match::{deinterleave, interleave, RateMatch, FILLER_LLR};
pub use transport::{TbDecoded, TransportBlock};
