//! The constellations of TS 38.211 §5.1 (π/2-BPSK, BPSK, QPSK, 16-, 64- and 256-QAM, unit
//! mean energy) with their exact (log-MAP) and max-log demappers, over AWGN or Rayleigh block
//! fading with perfect channel knowledge.
//!
//! The mapper is the standard's formulas written out; the demapper enumerates the
//! constellation the mapper makes (2^Q_m points), so the two cannot disagree on the labelling.

use crate::channel::{check_es_n0, log_add, Demapper, Gauss};
use crate::error::{LdpcError, Result};
use rand::Rng;

/// A 38.211 §5.1 modulation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum NrModulation {
    /// §5.1.1: e^{jπ/2·(i mod 2)}/√2 · ((1 − 2b) + j(1 − 2b)).
    Pi2Bpsk,
    /// §5.1.2: ((1 − 2b) + j(1 − 2b))/√2.
    Bpsk,
    /// §5.1.3.
    Qpsk,
    /// §5.1.4.
    Qam16,
    /// §5.1.5.
    Qam64,
    /// §5.1.6.
    Qam256,
}

/// The channel between mapper and demapper.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Fading {
    /// Additive white Gaussian noise only.
    Awgn,
    /// Rayleigh block fading: one coefficient h ~ CN(0, 1) per transmission of a code block,
    /// known to the demapper (y = h·x + noise).
    RayleighBlock,
}

impl NrModulation {
    /// Every modulation.
    pub const ALL: [NrModulation; 6] = [
        NrModulation::Pi2Bpsk,
        NrModulation::Bpsk,
        NrModulation::Qpsk,
        NrModulation::Qam16,
        NrModulation::Qam64,
        NrModulation::Qam256,
    ];

    /// Q_m, the bits per symbol.
    pub fn qm(self) -> usize {
        match self {
            NrModulation::Pi2Bpsk | NrModulation::Bpsk => 1,
            NrModulation::Qpsk => 2,
            NrModulation::Qam16 => 4,
            NrModulation::Qam64 => 6,
            NrModulation::Qam256 => 8,
        }
    }

    /// `pi2bpsk`, `bpsk`, `qpsk`, `16qam`, `64qam`, `256qam`.
    pub fn name(self) -> &'static str {
        match self {
            NrModulation::Pi2Bpsk => "pi2bpsk",
            NrModulation::Bpsk => "bpsk",
            NrModulation::Qpsk => "qpsk",
            NrModulation::Qam16 => "16qam",
            NrModulation::Qam64 => "64qam",
            NrModulation::Qam256 => "256qam",
        }
    }

    /// Parses a name of [`NrModulation::name`] (any case; `pi/2-bpsk` too).
    pub fn parse(text: &str) -> Result<NrModulation> {
        let t = text
            .trim()
            .to_ascii_lowercase()
            .replace(['/', '-', '_'], "");
        let t = if t == "pi2bpsk" || t == "π2bpsk" {
            "pi2bpsk".to_owned()
        } else {
            t
        };
        NrModulation::ALL
            .into_iter()
            .find(|m| m.name() == t)
            .ok_or_else(|| {
                LdpcError::invalid(format!(
                    "modulation {text:?}: expected pi2bpsk, bpsk, qpsk, 16qam, 64qam or 256qam"
                ))
            })
    }

    /// The symbol of bits b(0) … b(Q_m − 1) (0 or 1) at symbol index `i` (π/2-BPSK rotates odd
    /// symbols), as (I, Q).
    pub fn symbol(self, b: &[u8], i: usize) -> [f64; 2] {
        let s = |k: usize| 1.0 - 2.0 * f64::from(b[k] & 1);
        match self {
            NrModulation::Bpsk => [s(0) / 2f64.sqrt(), s(0) / 2f64.sqrt()],
            NrModulation::Pi2Bpsk => {
                let (re, im) = (s(0) / 2f64.sqrt(), s(0) / 2f64.sqrt());
                // Multiplying by e^{jπ/2} = j turns (re, im) into (−im, re).
                if i % 2 == 1 {
                    [-im, re]
                } else {
                    [re, im]
                }
            }
            NrModulation::Qpsk => [s(0) / 2f64.sqrt(), s(1) / 2f64.sqrt()],
            NrModulation::Qam16 => {
                let n = 10f64.sqrt();
                [s(0) * (2.0 - s(2)) / n, s(1) * (2.0 - s(3)) / n]
            }
            NrModulation::Qam64 => {
                let n = 42f64.sqrt();
                [
                    s(0) * (4.0 - s(2) * (2.0 - s(4))) / n,
                    s(1) * (4.0 - s(3) * (2.0 - s(5))) / n,
                ]
            }
            NrModulation::Qam256 => {
                let n = 170f64.sqrt();
                [
                    s(0) * (8.0 - s(2) * (4.0 - s(4) * (2.0 - s(6)))) / n,
                    s(1) * (8.0 - s(3) * (4.0 - s(5) * (2.0 - s(7)))) / n,
                ]
            }
        }
    }

    /// Every point with its label (bit j of the label is b(j)) at symbol index `i`.
    fn points(self, i: usize) -> Vec<([f64; 2], usize)> {
        let qm = self.qm();
        (0..1usize << qm)
            .map(|label| {
                let bits: Vec<u8> = (0..qm).map(|j| ((label >> j) & 1) as u8).collect();
                (self.symbol(&bits, i), label)
            })
            .collect()
    }

    /// The symbols of `bits` (a multiple of Q_m).
    pub fn map(self, bits: &[u8]) -> Result<Vec<[f64; 2]>> {
        let qm = self.qm();
        if !bits.len().is_multiple_of(qm) {
            return Err(LdpcError::invalid(format!(
                "{} bits are not a whole number of {}-bit {} symbols",
                bits.len(),
                qm,
                self.name()
            )));
        }
        Ok(bits
            .chunks_exact(qm)
            .enumerate()
            .map(|(i, b)| self.symbol(b, i))
            .collect())
    }
}

/// A 38.211 link at one Es/N0: mapper, channel, demapper.
#[derive(Clone, Debug)]
pub struct NrChannel {
    modulation: NrModulation,
    demapper: Demapper,
    fading: Fading,
    es_n0_db: f64,
    /// N0 (Es = 1).
    n0: f64,
    /// The constellation at even and odd symbol indices (they differ for π/2-BPSK only).
    points: [Vec<([f64; 2], usize)>; 2],
}

impl NrChannel {
    /// The link of `modulation` at `es_n0_db`.
    pub fn new(
        modulation: NrModulation,
        demapper: Demapper,
        fading: Fading,
        es_n0_db: f64,
    ) -> Result<NrChannel> {
        check_es_n0(es_n0_db)?;
        Ok(NrChannel {
            modulation,
            demapper,
            fading,
            es_n0_db,
            n0: 10f64.powf(-es_n0_db / 10.0),
            points: [modulation.points(0), modulation.points(1)],
        })
    }

    /// The modulation.
    pub fn modulation(&self) -> NrModulation {
        self.modulation
    }

    /// Es/N0 in dB.
    pub fn es_n0_db(&self) -> f64 {
        self.es_n0_db
    }

    /// The LLRs (ln P(0)/P(1)) of `bits` sent through the channel: one fading coefficient for
    /// the whole call under [`Fading::RayleighBlock`].
    pub fn transmit(&self, bits: &[u8], llr: &mut [f32], rng: &mut impl Rng) -> Result<()> {
        let symbols = self.modulation.map(bits)?;
        if llr.len() != bits.len() {
            return Err(LdpcError::invalid(format!(
                "{} bits but room for {} LLRs",
                bits.len(),
                llr.len()
            )));
        }
        let mut gauss = Gauss::default();
        let h = match self.fading {
            Fading::Awgn => [1.0, 0.0],
            Fading::RayleighBlock => {
                let s = 0.5f64.sqrt();
                [s * gauss.sample(rng), s * gauss.sample(rng)]
            }
        };
        let sigma = (self.n0 / 2.0).sqrt();
        let qm = self.modulation.qm();
        for (i, (x, out)) in symbols.iter().zip(llr.chunks_exact_mut(qm)).enumerate() {
            let hx = mul(h, *x);
            let y = [
                hx[0] + sigma * gauss.sample(rng),
                hx[1] + sigma * gauss.sample(rng),
            ];
            self.demap(y, h, i, out);
        }
        Ok(())
    }

    /// The Q_m LLRs of received `y` at symbol index `i` with channel coefficient `h`.
    pub fn demap(&self, y: [f64; 2], h: [f64; 2], i: usize, out: &mut [f32]) {
        let points = &self.points[i % 2];
        for (j, o) in out.iter_mut().enumerate() {
            let (mut l0, mut l1) = (f64::NEG_INFINITY, f64::NEG_INFINITY);
            for &(s, label) in points {
                let hs = mul(h, s);
                let d = (y[0] - hs[0]).powi(2) + (y[1] - hs[1]).powi(2);
                let m = -d / self.n0;
                let acc = if (label >> j) & 1 == 0 {
                    &mut l0
                } else {
                    &mut l1
                };
                *acc = match self.demapper {
                    Demapper::MaxLog => acc.max(m),
                    Demapper::Exact => log_add(*acc, m),
                };
            }
            *o = (l0 - l1) as f32;
        }
    }
}

fn mul(a: [f64; 2], b: [f64; 2]) -> [f64; 2] {
    [a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0]]
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn constellations_follow_38_211() {
        let close =
            |a: [f64; 2], b: [f64; 2]| (a[0] - b[0]).abs() < 1e-12 && (a[1] - b[1]).abs() < 1e-12;
        let r = 1.0 / 10f64.sqrt();
        // 16-QAM: b = 0000 → (1 + j)/√10, 0010 → (3 + j)/√10, 1101 → (−1 − 3j)/√10.
        assert!(close(NrModulation::Qam16.symbol(&[0, 0, 0, 0], 0), [r, r]));
        assert!(close(
            NrModulation::Qam16.symbol(&[0, 0, 1, 0], 0),
            [3.0 * r, r]
        ));
        assert!(close(
            NrModulation::Qam16.symbol(&[1, 1, 0, 1], 0),
            [-r, -3.0 * r]
        ));
        // 64-QAM I levels for (b2, b4) with b0 = 0: 00 → 3, 01 → 1, 10 → 5, 11 → 7 (/√42).
        let i = |b2: u8, b4: u8| {
            (NrModulation::Qam64.symbol(&[0, 0, b2, 0, b4, 0], 0)[0] * 42f64.sqrt()).round()
        };
        assert_eq!([i(0, 0), i(0, 1), i(1, 0), i(1, 1)], [3.0, 1.0, 5.0, 7.0]);
        // π/2-BPSK: odd symbols turned by 90°.
        let h = 1.0 / 2f64.sqrt();
        assert!(close(NrModulation::Pi2Bpsk.symbol(&[0], 1), [-h, h]));
        assert!(close(NrModulation::Pi2Bpsk.symbol(&[1], 0), [-h, -h]));
        for m in NrModulation::ALL {
            let pts = m.points(0);
            let e: f64 = pts
                .iter()
                .map(|(s, _)| s[0] * s[0] + s[1] * s[1])
                .sum::<f64>()
                / pts.len() as f64;
            assert!((e - 1.0).abs() < 1e-12, "{}: mean energy {e}", m.name());
            // Distinct points, and Gray: nearest neighbours differ in one bit (QAM).
            if m.qm() >= 4 {
                let d_min = 2.0
                    * pts
                        .iter()
                        .map(|(s, _)| s[0].abs())
                        .fold(f64::INFINITY, f64::min);
                for (a, la) in &pts {
                    for (b, lb) in &pts {
                        let d = ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt();
                        if (d - d_min).abs() < 1e-9 {
                            assert_eq!((la ^ lb).count_ones(), 1, "{}", m.name());
                        }
                    }
                }
            }
            assert_eq!(NrModulation::parse(m.name()).unwrap(), m);
        }
        assert!(NrModulation::parse("1024qam").is_err());
    }

    #[test]
    fn noiseless_demapping_gives_the_bits_and_noise_is_calibrated() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        for m in NrModulation::ALL {
            for fading in [Fading::Awgn, Fading::RayleighBlock] {
                let ch = NrChannel::new(m, Demapper::Exact, fading, 60.0).unwrap();
                let bits: Vec<u8> = (0..m.qm() * 64).map(|_| rng.random_range(0..2)).collect();
                let mut llr = vec![0f32; bits.len()];
                ch.transmit(&bits, &mut llr, &mut rng).unwrap();
                for (b, l) in bits.iter().zip(&llr) {
                    assert_eq!(*b == 1, *l < 0.0, "{} {fading:?}", m.name());
                }
            }
        }
        // BPSK-like QPSK at Es/N0 0 dB: LLR = 2√2·y/N0 per axis, mean 4·Es/(2N0) = 2 for bit 0.
        let ch = NrChannel::new(NrModulation::Qpsk, Demapper::Exact, Fading::Awgn, 0.0).unwrap();
        let bits = vec![0u8; 40000];
        let mut llr = vec![0f32; bits.len()];
        ch.transmit(&bits, &mut llr, &mut rng).unwrap();
        let mean = llr.iter().map(|&l| f64::from(l)).sum::<f64>() / llr.len() as f64;
        assert!((mean - 2.0).abs() < 0.05, "mean LLR {mean}");
        assert!(ch.transmit(&[0u8; 3], &mut [0f32; 3], &mut rng).is_err());
    }
}
