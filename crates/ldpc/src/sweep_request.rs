//! An SNR sweep as a user's face asks for it — the link by name, the stopping rule and the
//! results file — turned into the library's [`SweepSpec`]: one way for the command line's
//! `ldpc simulate` and the Python `simulate`, for the staircase codes and for 5G NR code
//! blocks.

use crate::channel::{Demapper, Modulation};
use crate::interleave::InterleaverChoice;
use crate::nr::modulation::{Fading, NrModulation};
use crate::nr::sim::{NrLink, NrSweep};
use crate::nr::NrCode;
use crate::sim::sweep::SweepSpec;
use crate::sim::Link;
use crate::{Code, Result};
use std::path::PathBuf;

/// When each point stops and where the results go.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepStop {
    /// A point stops after this many frame errors ...
    pub min_errors: u64,
    /// ... or this many frames.
    pub max_frames: u64,
    /// Frames per decoder call (`None`: the sweep's default).
    pub batch: Option<usize>,
    /// The results file, rewritten after every point.
    pub out: Option<PathBuf>,
    /// Keep the points already in `out`.
    pub resume: bool,
}

impl SweepStop {
    /// Sets these on `spec`.
    pub fn apply(self, spec: &mut SweepSpec) {
        spec.min_errors = self.min_errors;
        spec.max_frames = self.max_frames;
        spec.batch = self.batch;
        spec.out = self.out;
        spec.resume = self.resume;
    }
}

/// The link of a staircase-code sweep by name: constellation, demapper, bit interleaver
/// (`auto`: the code's standard one) and seed.
#[derive(Clone, Copy, Debug)]
pub struct LinkChoice {
    /// The constellation.
    pub modulation: Modulation,
    /// The demapper.
    pub demapper: Demapper,
    /// The bit interleaver, resolved for the code.
    pub bit_interleaver: InterleaverChoice,
    /// Seed of the bits and the noise.
    pub seed: u64,
}

impl LinkChoice {
    /// The link frames of `code` go over.
    pub fn link(&self, code: &Code) -> Link {
        Link {
            modulation: self.modulation,
            demapper: self.demapper,
            interleaving: self.bit_interleaver.resolve(code),
            seed: self.seed,
        }
    }
}

/// The channel named `name`: `awgn`, or `rayleigh` / `rayleigh-block` (block fading);
/// `None` for any other name (each face words its refusal).
pub fn fading_named(name: &str) -> Option<Fading> {
    match name {
        "awgn" => Some(Fading::Awgn),
        "rayleigh" | "rayleigh-block" => Some(Fading::RayleighBlock),
        _ => None,
    }
}

/// The link of a 5G NR code-block sweep by name: the constellation under its DVB name (the
/// same names as TS 38.211's), the channel, demapper, redundancy versions and seed.
#[derive(Clone, Debug)]
pub struct NrLinkChoice {
    /// The constellation.
    pub modulation: Modulation,
    /// AWGN or Rayleigh block fading.
    pub fading: Fading,
    /// The demapper.
    pub demapper: Demapper,
    /// The redundancy versions sent, their LLRs combined.
    pub rvs: Vec<u8>,
    /// Seed of the bits and the noise.
    pub seed: u64,
}

impl NrLinkChoice {
    /// The sweep of `block` over this link, checked ([`NrSweep::check`]), and the code its
    /// decoders run ([`NrSweep::decoding_code`]).
    pub fn sweep(self, block: NrCode) -> Result<(NrSweep, Code)> {
        let nr = NrSweep {
            code: block,
            link: NrLink {
                modulation: NrModulation::parse(self.modulation.name())?,
                fading: self.fading,
                demapper: self.demapper,
                rvs: self.rvs,
                seed: self.seed,
            },
        };
        nr.check()?;
        let decoding = nr.decoding_code()?;
        Ok((nr, decoding))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::sweep::SnrAxis;
    use crate::DecoderConfig;

    #[test]
    fn fading_names_are_the_two_channels() {
        assert_eq!(fading_named("awgn"), Some(Fading::Awgn));
        assert_eq!(fading_named("rayleigh"), Some(Fading::RayleighBlock));
        assert_eq!(fading_named("rayleigh-block"), Some(Fading::RayleighBlock));
        assert_eq!(fading_named("rician"), None);
    }

    #[test]
    fn an_nr_link_gives_the_block_and_the_stop_reaches_the_spec() {
        let block = NrCode::parse("nr:k=100,n=300").unwrap();
        let choice = NrLinkChoice {
            modulation: Modulation::Qpsk,
            fading: Fading::Awgn,
            demapper: Demapper::Exact,
            rvs: vec![0],
            seed: 7,
        };
        let (nr, decoding) = choice.sweep(block).unwrap();
        assert_eq!(nr.link.seed, 7);
        assert!(decoding.n() > 0);
        let config = DecoderConfig::default();
        let mut spec = SweepSpec::for_nr(nr, Modulation::Qpsk, SnrAxis::EsN0, vec![1.0], config);
        let stop = SweepStop {
            min_errors: 5,
            max_frames: 50,
            batch: Some(8),
            out: None,
            resume: false,
        };
        stop.apply(&mut spec);
        assert_eq!(
            (spec.min_errors, spec.max_frames, spec.batch),
            (5, 50, Some(8))
        );
    }
}
