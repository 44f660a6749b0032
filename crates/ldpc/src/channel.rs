//! The channel: DVB-T2 constellations (Gray, unrotated, EN 302 755 §6.2.1), AWGN at a given
//! Es/N0, and the demappers that turn received cells into bit LLRs, plus 8-bit quantisation.
//!
//! LLRs are ln P(b = 0) / P(b = 1): positive means 0. Constellations have unit mean energy
//! (Es = 1), so N0 = 1 / (Es/N0).

use crate::error::{LdpcError, Result};
use crate::text::{display_by_name, from_names, lower, name_key, short};
use rand::Rng;
use serde::Serialize;

/// A constellation. QPSK and the QAMs are square: bits y0, y2, … pick the real part and
/// y1, y3, … the imaginary part, each axis a Gray-coded PAM whose first bit is the sign
/// (1 = negative) — the DVB-T2 mapping without rotation or cell interleaving.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Modulation {
    /// Binary phase-shift keying: one bit per cell, the real axis only.
    Bpsk,
    /// Quadrature phase-shift keying: two bits per cell.
    Qpsk,
    /// 16-QAM: four bits per cell.
    Qam16,
    /// 64-QAM: six bits per cell.
    Qam64,
    /// 256-QAM: eight bits per cell.
    Qam256,
}

impl Modulation {
    /// Every constellation, smallest first.
    pub const ALL: [Modulation; 5] = [
        Modulation::Bpsk,
        Modulation::Qpsk,
        Modulation::Qam16,
        Modulation::Qam64,
        Modulation::Qam256,
    ];

    /// Bits one cell carries.
    pub fn bits_per_symbol(self) -> usize {
        match self {
            Modulation::Bpsk => 1,
            Modulation::Qpsk => 2,
            Modulation::Qam16 => 4,
            Modulation::Qam64 => 6,
            Modulation::Qam256 => 8,
        }
    }

    /// Bits per real axis (BPSK uses the real axis only).
    pub fn bits_per_axis(self) -> usize {
        match self {
            Modulation::Bpsk => 1,
            m => m.bits_per_symbol() / 2,
        }
    }

    /// Scale that gives unit mean symbol energy: 1/√2, 1/√10, 1/√42, 1/√170 (EN 302 755).
    fn norm(self) -> f64 {
        match self {
            Modulation::Bpsk => 1.0,
            Modulation::Qpsk => 0.5f64.sqrt(),
            Modulation::Qam16 => 10f64.sqrt().recip(),
            Modulation::Qam64 => 42f64.sqrt().recip(),
            Modulation::Qam256 => 170f64.sqrt().recip(),
        }
    }

    /// The canonical spelling: `bpsk`, `qpsk`, `16qam`, `64qam` or `256qam`.
    pub fn name(self) -> &'static str {
        match self {
            Modulation::Bpsk => "bpsk",
            Modulation::Qpsk => "qpsk",
            Modulation::Qam16 => "16qam",
            Modulation::Qam64 => "64qam",
            Modulation::Qam256 => "256qam",
        }
    }

    /// The PAM level of one axis for its bits `bits` (first bit most significant): level index
    /// i (0 = most negative) carries the Gray code of L − 1 − i, so the first bit is the sign.
    pub fn axis_level(self, bits: usize) -> f64 {
        let levels = 1usize << self.bits_per_axis();
        // Invert Gray: g → index of the reflected-binary code.
        let mut b = bits;
        let mut shift = bits >> 1;
        while shift > 0 {
            b ^= shift;
            shift >>= 1;
        }
        let i = levels - 1 - b;
        (2.0 * i as f64 - (levels - 1) as f64) * self.norm()
    }

    /// Every level of one axis with the bits it carries.
    fn axis_table(self) -> Vec<(f64, usize)> {
        (0..1usize << self.bits_per_axis())
            .map(|bits| (self.axis_level(bits), bits))
            .collect()
    }
}

from_names!(Modulation, "modulation", name_key,
    ["bpsk"] => Modulation::Bpsk,
    ["qpsk", "4qam"] => Modulation::Qpsk,
    ["16qam", "qam16"] => Modulation::Qam16,
    ["64qam", "qam64"] => Modulation::Qam64,
    ["256qam", "qam256"] => Modulation::Qam256,
);

/// How the demapper combines constellation points.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Demapper {
    /// ln Σ exp over the points of each bit value: the exact LLR.
    Exact,
    /// The nearest point of each bit value only.
    MaxLog,
}

impl Demapper {
    /// The name `--demapper` takes: `exact` or `max-log`.
    pub fn name(self) -> &'static str {
        match self {
            Demapper::Exact => "exact",
            Demapper::MaxLog => "max-log",
        }
    }
}

from_names!(Demapper, "demapper", lower,
    ["exact", "log-map", "logmap"] => Demapper::Exact,
    ["max-log", "maxlog"] => Demapper::MaxLog,
);

// The canonical spellings ([`Modulation::name`], [`Demapper::name`]).
display_by_name!(Modulation, Demapper);

/// Signal-to-noise ratio per symbol (Es/N0) or per information bit (Eb/N0), in dB.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Snr {
    /// Es/N0 in dB.
    EsN0(f64),
    /// Eb/N0 in dB.
    EbN0(f64),
}

impl Snr {
    /// Es/N0 in dB for `modulation` carrying a code of `rate`: Es/N0 = Eb/N0 · R · bits/symbol.
    pub fn es_n0_db(self, modulation: Modulation, rate: f64) -> f64 {
        match self {
            Snr::EsN0(db) => db,
            Snr::EbN0(db) => db + 10.0 * (rate * modulation.bits_per_symbol() as f64).log10(),
        }
    }
}

/// Refuses an Es/N0 no channel is made for: beyond ±300 dB the noise variance under- or
/// overflows f64 and LLRs turn into NaN.
pub fn check_es_n0(es_n0_db: f64) -> Result<()> {
    if !(-300.0..=300.0).contains(&es_n0_db) {
        return Err(LdpcError::invalid(format!(
            "SNR {es_n0_db} dB is outside [-300, 300] dB"
        )));
    }
    Ok(())
}

/// An AWGN channel for one constellation at one Es/N0.
#[derive(Clone, Debug)]
pub struct Channel {
    modulation: Modulation,
    demapper: Demapper,
    /// Noise variance per real dimension, N0/2 (BPSK: the real axis only carries noise that
    /// matters, also N0/2).
    sigma2: f64,
    axis: Vec<(f64, usize)>,
}

impl Channel {
    /// The channel of `modulation` at `es_n0_db`, demapped by `demapper`; refused beyond ±300 dB.
    pub fn new(modulation: Modulation, demapper: Demapper, es_n0_db: f64) -> Result<Channel> {
        check_es_n0(es_n0_db)?;
        let n0 = 10f64.powf(-es_n0_db / 10.0);
        Ok(Channel {
            modulation,
            demapper,
            sigma2: n0 / 2.0,
            axis: modulation.axis_table(),
        })
    }

    /// The constellation.
    pub fn modulation(&self) -> Modulation {
        self.modulation
    }

    /// Noise variance per real dimension, N0/2.
    pub fn sigma2(&self) -> f64 {
        self.sigma2
    }

    /// Maps `bits` (0/1 per byte; a multiple of the bits per symbol, or padded with zeros),
    /// adds noise and writes one LLR per bit into `llr` (the padding's LLRs are dropped).
    pub fn transmit(&self, bits: &[u8], llr: &mut [f32], rng: &mut impl Rng) {
        let per_axis = self.modulation.bits_per_axis();
        let sigma = self.sigma2.sqrt();
        let mut gauss = Gauss::default();
        let axes_per_symbol = if self.modulation == Modulation::Bpsk {
            1
        } else {
            2
        };
        let bits_per_symbol = self.modulation.bits_per_symbol();
        let mut axis_llr = [0f64; 4];
        for (s, chunk) in bits.chunks(bits_per_symbol).enumerate() {
            for axis in 0..axes_per_symbol {
                // Axis `axis` carries bits axis, axis + 2, axis + 4, … of the symbol.
                let mut v = 0usize;
                for j in 0..per_axis {
                    let b = chunk.get(axis + axes_per_symbol * j).copied().unwrap_or(0);
                    v = (v << 1) | (b & 1) as usize;
                }
                let y = self.modulation.axis_level(v) + sigma * gauss.sample(rng);
                self.demap_axis(y, &mut axis_llr[..per_axis]);
                for (j, &l) in axis_llr[..per_axis].iter().enumerate() {
                    let bit = s * bits_per_symbol + axis + axes_per_symbol * j;
                    if let Some(out) = llr.get_mut(bit) {
                        *out = l as f32;
                    }
                }
            }
        }
    }

    /// LLRs of the bits of one received axis value `y`, first bit first.
    pub fn demap_axis(&self, y: f64, out: &mut [f64]) {
        let scale = 1.0 / (2.0 * self.sigma2);
        let bits = out.len();
        for (j, out) in out.iter_mut().enumerate() {
            let mask = 1 << (bits - 1 - j);
            // Log-domain accumulators for bit = 0 and bit = 1.
            let (mut l0, mut l1) = (f64::NEG_INFINITY, f64::NEG_INFINITY);
            for &(x, bits) in &self.axis {
                let metric = -(y - x) * (y - x) * scale;
                let acc = if bits & mask == 0 { &mut l0 } else { &mut l1 };
                *acc = match self.demapper {
                    Demapper::MaxLog => acc.max(metric),
                    Demapper::Exact => log_add(*acc, metric),
                };
            }
            *out = l0 - l1;
        }
    }
}

/// ln(e^a + e^b) without overflow.
pub(crate) fn log_add(a: f64, b: f64) -> f64 {
    let (hi, lo) = if a > b { (a, b) } else { (b, a) };
    if lo == f64::NEG_INFINITY {
        hi
    } else {
        hi + (lo - hi).exp().ln_1p()
    }
}

/// Standard normal samples by the polar Box–Muller method, one spare kept.
#[derive(Default)]
pub struct Gauss {
    spare: Option<f64>,
}

impl Gauss {
    /// One standard normal sample.
    pub fn sample(&mut self, rng: &mut impl Rng) -> f64 {
        if let Some(s) = self.spare.take() {
            return s;
        }
        loop {
            let u: f64 = rng.random_range(-1.0..1.0);
            let v: f64 = rng.random_range(-1.0..1.0);
            let s = u * u + v * v;
            if s > 0.0 && s < 1.0 {
                let f = (-2.0 * s.ln() / s).sqrt();
                self.spare = Some(v * f);
                return u * f;
            }
        }
    }
}

/// LLR → 8-bit: round(llr · scale) saturated to ±127 (−128 is never produced, so the range
/// is symmetric, as the GPU LDPC decoder paper's decoder requires).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Quantizer {
    /// Quantisation steps per LLR unit.
    pub scale: f32,
}

impl Quantizer {
    /// `scale` in [`Quantizer::MIN_SCALE`], [`Quantizer::MAX_SCALE`]: it sets both the step
    /// (1/scale) and the largest LLR kept (127/scale); outside, either every LLR saturates to
    /// its sign (at scale 1e9 the decoder sees ±127 for ±1e-7) or the steps are coarser than
    /// the LLRs themselves.
    pub fn new(scale: f32) -> Result<Quantizer> {
        if !(Self::MIN_SCALE..=Self::MAX_SCALE).contains(&scale) {
            return Err(LdpcError::invalid(format!(
                "LLR scale (--scale) {} must be in [{}, {}]: quantised = round(LLR · scale) \
                 within ±127, so the scale sets the step (1/scale) and the largest LLR kept \
                 (127/scale); the default 4 keeps LLRs up to 31.75 in steps of 0.25",
                short(scale),
                Self::MIN_SCALE,
                Self::MAX_SCALE
            )));
        }
        Ok(Quantizer { scale })
    }

    /// Largest LLR kept 508, step 4.
    pub const MIN_SCALE: f32 = 0.25;
    /// Largest LLR kept 3.97, step 1/32.
    pub const MAX_SCALE: f32 = 32.0;

    /// `llr` quantised: round(llr · scale) within ±127.
    pub fn quantize(&self, llr: f32) -> i8 {
        (llr * self.scale).round().clamp(-127.0, 127.0) as i8
    }

    /// Every LLR of `llr` quantised into `out`.
    pub fn quantize_all(&self, llr: &[f32], out: &mut [i8]) {
        for (o, &l) in out.iter_mut().zip(llr) {
            *o = self.quantize(l);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn dvbt2_16qam_levels_and_gray() {
        // EN 302 755: y0 y2 = 10 → −3, 11 → −1, 01 → +1, 00 → +3 (before 1/√10).
        let m = Modulation::Qam16;
        let levels: Vec<f64> = [0b10, 0b11, 0b01, 0b00]
            .iter()
            .map(|&b| m.axis_level(b) * 10f64.sqrt())
            .collect();
        for (got, want) in levels.iter().zip([-3.0, -1.0, 1.0, 3.0]) {
            assert!((got - want).abs() < 1e-12, "{levels:?}");
        }
        // 64-QAM: 100 → −7, 000 → +7, 110 → −1.
        let m = Modulation::Qam64;
        assert!((m.axis_level(0b100) * 42f64.sqrt() + 7.0).abs() < 1e-12);
        assert!((m.axis_level(0b000) * 42f64.sqrt() - 7.0).abs() < 1e-12);
        assert!((m.axis_level(0b110) * 42f64.sqrt() + 1.0).abs() < 1e-12);
    }

    #[test]
    fn unit_energy_and_gray_neighbours() {
        for m in Modulation::ALL {
            let t = m.axis_table();
            let axes = if m == Modulation::Bpsk { 1.0 } else { 2.0 };
            let energy = axes * t.iter().map(|(x, _)| x * x).sum::<f64>() / t.len() as f64;
            assert!((energy - 1.0).abs() < 1e-12, "{m:?} {energy}");
            let mut sorted = t.clone();
            sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
            for w in sorted.windows(2) {
                assert_eq!((w[0].1 ^ w[1].1).count_ones(), 1, "{m:?} is not Gray");
            }
        }
    }

    #[test]
    fn llrs_have_the_right_sign_and_bpsk_value() {
        let ch = Channel::new(Modulation::Bpsk, Demapper::Exact, 3.0).unwrap();
        let mut out = [0.0];
        ch.demap_axis(0.5, &mut out);
        // 4y/N0 with N0 = 10^(−0.3).
        assert!((out[0] - 2.0 * 10f64.powf(0.3)).abs() < 1e-9);
        // At high SNR every demapped bit has the sent sign.
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        for m in Modulation::ALL {
            for d in [Demapper::Exact, Demapper::MaxLog] {
                let ch = Channel::new(m, d, 40.0).unwrap();
                let bits: Vec<u8> = (0..240).map(|_| rng.random_range(0..2)).collect();
                let mut llr = vec![0f32; 240];
                ch.transmit(&bits, &mut llr, &mut rng);
                for (b, l) in bits.iter().zip(&llr) {
                    assert_eq!(*b == 1, *l < 0.0, "{m:?} {d:?}");
                }
            }
        }
    }

    #[test]
    fn max_log_is_within_ln_points_of_exact() {
        let exact = Channel::new(Modulation::Qam64, Demapper::Exact, 5.0).unwrap();
        let maxlog = Channel::new(Modulation::Qam64, Demapper::MaxLog, 5.0).unwrap();
        let (mut a, mut b) = ([0.0; 3], [0.0; 3]);
        for y in [-1.2, -0.3, 0.05, 0.7] {
            exact.demap_axis(y, &mut a);
            maxlog.demap_axis(y, &mut b);
            // ln Σ of 4 terms lies within [max, max + ln 4] for each bit value.
            for (x, m) in a.iter().zip(&b) {
                assert!((x - m).abs() <= 4f64.ln() + 1e-9, "{y}: {x} vs {m}");
            }
        }
    }

    #[test]
    fn snr_conversions_and_quantiser() {
        let es = Snr::EbN0(1.0).es_n0_db(Modulation::Qpsk, 0.5);
        assert!((es - 1.0).abs() < 1e-12);
        let q = Quantizer::new(2.0).unwrap();
        assert_eq!(
            (q.quantize(1.24), q.quantize(-100.0), q.quantize(100.0)),
            (2, -127, 127)
        );
        assert!(Quantizer::new(0.0).is_err() && Quantizer::new(f32::NAN).is_err());
    }
}

/// The mapper and demapper one cell at a time, for callers that bring their own channel (the
/// Python package's `modulate` / `demap`): the same constellation and LLRs as
/// [`Channel::transmit`].
impl Modulation {
    /// The cells of `bits` (0/1 per byte, zero-padded to whole symbols) as (I, Q) with unit
    /// mean energy; BPSK has Q = 0. Axis `a` of a symbol carries its bits a, a + 2, a + 4, …
    pub fn map(self, bits: &[u8]) -> Vec<[f64; 2]> {
        let per_axis = self.bits_per_axis();
        let axes = if self == Modulation::Bpsk { 1 } else { 2 };
        bits.chunks(self.bits_per_symbol())
            .map(|chunk| {
                let mut cell = [0.0; 2];
                for (axis, c) in cell.iter_mut().enumerate().take(axes) {
                    let mut v = 0usize;
                    for j in 0..per_axis {
                        let b = chunk.get(axis + axes * j).copied().unwrap_or(0);
                        v = (v << 1) | (b & 1) as usize;
                    }
                    *c = self.axis_level(v);
                }
                cell
            })
            .collect()
    }
}

impl Channel {
    /// LLRs of received cells (as [`Modulation::map`] lays them out), one per bit, into `llr`
    /// (bits past its end, the padding, are dropped).
    pub fn demap(&self, cells: &[[f64; 2]], llr: &mut [f32]) {
        let per_axis = self.modulation.bits_per_axis();
        let axes = if self.modulation == Modulation::Bpsk {
            1
        } else {
            2
        };
        let bits_per_symbol = self.modulation.bits_per_symbol();
        let mut axis_llr = [0f64; 4];
        for (s, cell) in cells.iter().enumerate() {
            for (axis, &y) in cell.iter().enumerate().take(axes) {
                self.demap_axis(y, &mut axis_llr[..per_axis]);
                for (j, &l) in axis_llr[..per_axis].iter().enumerate() {
                    if let Some(out) = llr.get_mut(s * bits_per_symbol + axis + axes * j) {
                        *out = l as f32;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod cell_tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn map_and_demap_match_transmit_without_noise() {
        for m in Modulation::ALL {
            let bits: Vec<u8> = (0..m.bits_per_symbol() * 7)
                .map(|i| (i * 7 % 3 == 0) as u8)
                .collect();
            let cells = m.map(&bits);
            let energy: f64 = cells.iter().map(|c| c[0] * c[0] + c[1] * c[1]).sum::<f64>();
            assert!(energy > 0.0);
            let ch = Channel::new(m, Demapper::Exact, 300.0).unwrap();
            let mut llr = vec![0f32; bits.len()];
            ch.demap(&cells, &mut llr);
            for (b, l) in bits.iter().zip(&llr) {
                assert_eq!(*b == 0, *l > 0.0, "{m:?}");
            }
            // transmit at 300 dB is noiseless too, and must agree in sign.
            let mut via = vec![0f32; bits.len()];
            ch.transmit(
                &bits,
                &mut via,
                &mut rand_chacha::ChaCha8Rng::seed_from_u64(1),
            );
            for (a, b) in llr.iter().zip(&via) {
                assert_eq!(a.signum(), b.signum());
            }
        }
    }
}
