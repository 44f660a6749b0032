//! Approximate transcendentals: accurate (libdevice) and SFU (`.approx`) versions of each
//! function, kernels that split warps between them by a partition λ, and a QoS-bounded search
//! for the fastest λ.
//!
//! Source: seed 003 (Li, Song, Wijtvliet, Kumar, Corporaal, ICS 2016). Work starts in issue 6.
