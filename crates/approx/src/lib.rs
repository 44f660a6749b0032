//! Approximate transcendentals: accurate (libdevice) and SFU (`.approx`) versions of each
//! function, kernels that split warps between them by a partition λ, and a QoS-bounded search
//! for the fastest λ.
//!
//! Source: seed 003 (Li, Song, Wijtvliet, Kumar, Corporaal, "SFU-driven transparent
//! approximation acceleration on GPUs", ICS 2016).
//!
//! - [`catalog`]: the 9 + 4 functions of the seed's Tables 1–2 and Hopper's additions, each
//!   with its accurate CUDA and approximate PTX form, domains and f64 reference.
//! - [`microbench`]: the seed's Tables 4–5 measured on the GPU at hand.
//! - [`transform`]: Algorithm 1, from a kernel's CUDA source to its λ-partitioned twin.
//! - [`search`]: SMP, HEU and OMG searches for λ under a QoS ratio, on any T(λ)/E(λ).

pub mod apps;
pub mod catalog;
pub mod checks;
pub mod cpu;
mod dev;
pub mod figures;
mod lex;
pub mod microbench;
pub mod numeric;
pub mod sass;
pub mod search;
pub mod transform;
pub mod tune;
