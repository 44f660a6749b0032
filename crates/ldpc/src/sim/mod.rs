//! Error-rate simulation: random information words, the staircase encoder, a DVB-T2
//! constellation over AWGN, a demapper and any [`Decoder`](crate::Decoder); BER over information bits and FER
//! with 95% confidence intervals (FER: Wilson over frames; BER: Wilson on the effective
//! sample size that the spread of bit errors between frames gives, [`ber_interval`], or for
//! points read from files that lack that spread the worst case over every spread,
//! [`ber_interval_worst_case`]; [`BerCiMethod`] says which).
//!
//! Frame f at a given SNR draws everything from a counter-based generator keyed by (seed, SNR, f)
//! ([`chain`]; the GPU frame chain makes the same frames),
//! so results are reproducible whatever the batch size, thread count or device, and the same
//! on any number of processes ([`run_point_ranks`], [`sweep::run_ranks`]: MPI ranks).

pub mod chain;
mod file_check;
mod frames;
mod header;
mod parallel;
pub mod philox;
mod point;
pub mod portable;
pub mod sweep;

pub use chain::FramePlan;
pub use frames::{make_frames, make_planned_frames, FrameCounts, Frames, Link};
pub use header::SweepDecoder;
pub use parallel::{run_point_parallel, run_point_ranks, Source};
pub use point::{
    ber_interval, ber_interval_worst_case, max_errors_sq, spread_fits, wilson, BerCiMethod,
    PointResult, StopRule,
};
