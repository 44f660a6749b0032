//! The DVB-T2 bit interleaver and bit-to-cell demultiplexer (EN 302 755 §6.1.1–6.1.2), which
//! sit between the LDPC encoder and the QAM mapper.
//!
//! Three steps turn a codeword λ into the bits of the cells:
//! 1. **Parity interleaving**: u_i = λ_i for i < K; u_{K + 360t + s} = λ_{K + q·s + t}
//!    (0 ≤ s < 360, 0 ≤ t < q), so the staircase parity becomes quasi-cyclic like the rest.
//! 2. **Column-twist interleaving**: u is written column by column into N_c columns of
//!    N_r = N / N_c rows, column c starting at row t_c (its twist), and read out row by row.
//! 3. **Demultiplexing**: bit d of each row of N_c bits becomes bit y_{e(d)} of the row's cell
//!    word; a row of 2η bits (η bits per cell) fills two cells, y_0 … y_{η−1} the first.
//!
//! This places each code segment on the constellation bits the standard chose for it (for
//! 16-QAM, the highest-degree information bits on the weaker bits y_2, y_3). QPSK has no
//! column twist or demultiplexing; T2-Lite's short 1/3 and 2/5 interleave its parity only.
//!
//! Facts (twists, demultiplexer tables) are those of EN 302 755 Tables 8 and 13.

use crate::channel::Modulation;
use crate::code::Code;
use crate::error::{LdpcError, Result};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Which bit interleaver a link uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Interleaving {
    /// Codeword bits go to the cells in order (y_0 of cell 0 is bit 0).
    #[default]
    None,
    /// The DVB-T2 bit interleaver and demultiplexer of the code and constellation.
    Dvbt2,
}

impl Interleaving {
    /// The DVB-T2 interleaver for DVB-T2 codes, none for every other code.
    pub fn default_for(code: &Code) -> Interleaving {
        if dvbt2_rate(code).is_some() {
            Interleaving::Dvbt2
        } else {
            Interleaving::None
        }
    }

    /// The canonical spelling: `none` or `dvbt2`.
    pub fn name(self) -> &'static str {
        match self {
            Interleaving::None => "none",
            Interleaving::Dvbt2 => "dvbt2",
        }
    }
}

impl FromStr for Interleaving {
    type Err = LdpcError;
    fn from_str(s: &str) -> Result<Self> {
        match crate::text::name_key(s).as_str() {
            "none" | "off" => Ok(Interleaving::None),
            "dvbt2" | "t2" => Ok(Interleaving::Dvbt2),
            _ => Err(LdpcError::invalid(format!(
                "unknown bit interleaver {s:?}: expected dvbt2 or none"
            ))),
        }
    }
}

/// The canonical spelling ([`Interleaving::name`]).
impl fmt::Display for Interleaving {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The bit interleaver a user asks for: `auto` (the code's own, [`Interleaving::default_for`])
/// or a fixed one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum InterleaverChoice {
    /// DVB-T2's for DVB-T2 codes, none for the others.
    #[default]
    Auto,
    /// This one, whatever the code.
    Fixed(Interleaving),
}

impl InterleaverChoice {
    /// The interleaver a link of `code` uses.
    pub fn resolve(self, code: &Code) -> Interleaving {
        match self {
            InterleaverChoice::Auto => Interleaving::default_for(code),
            InterleaverChoice::Fixed(i) => i,
        }
    }
}

/// `auto`, or what [`Interleaving`] parses.
impl FromStr for InterleaverChoice {
    type Err = LdpcError;
    fn from_str(s: &str) -> Result<Self> {
        if crate::text::name_key(s) == "auto" {
            return Ok(InterleaverChoice::Auto);
        }
        s.parse().map(InterleaverChoice::Fixed).map_err(|_| {
            LdpcError::invalid(format!(
                "unknown bit interleaver {s:?}: expected auto, dvbt2 or none"
            ))
        })
    }
}

impl fmt::Display for InterleaverChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InterleaverChoice::Auto => f.write_str("auto"),
            InterleaverChoice::Fixed(i) => i.fmt(f),
        }
    }
}

/// `(normal frame, rate numerator, rate denominator)` of a DVB-T2 code, from its name.
fn dvbt2_rate(code: &Code) -> Option<(bool, u32, u32)> {
    let rest = code.name().strip_prefix("dvbt2-")?;
    let (frame, rate) = rest.split_once('-')?;
    let (a, b) = rate.split_once('/')?;
    let normal = match frame {
        "normal" => true,
        "short" => false,
        _ => return None,
    };
    Some((normal, a.parse().ok()?, b.parse().ok()?))
}

/// A permutation from the order in which bits fill the cells to codeword positions.
#[derive(Clone, Debug)]
pub struct BitInterleaver {
    /// `perm[p]` is the codeword bit carried by stream bit p (cell p / η, bit y_{p mod η}).
    perm: Vec<u32>,
}

/// The tables of 16- or 64-QAM, whose choice differs only in size: the twist of a normal or a
/// short code, and the demultiplexer of rate 3/5 normal, 1/3 short, 2/5 short, or else the
/// default one.
struct QamTables {
    twist_normal: &'static [usize],
    twist_short: &'static [usize],
    demux_3_5_normal: &'static [usize],
    demux_1_3_short: &'static [usize],
    demux_2_5_short: &'static [usize],
    demux: &'static [usize],
}

impl QamTables {
    /// The twist and demultiplexer for a normal or short code of rate a/b.
    fn pick(&self, normal: bool, (a, b): (u32, u32)) -> (&'static [usize], &'static [usize]) {
        (
            if normal {
                self.twist_normal
            } else {
                self.twist_short
            },
            match (normal, a, b) {
                (true, 3, 5) => self.demux_3_5_normal,
                (false, 1, 3) => self.demux_1_3_short,
                (false, 2, 5) => self.demux_2_5_short,
                _ => self.demux,
            },
        )
    }
}

/// The column twists and the bit-to-cell demultiplexer of a QAM constellation for a normal or
/// short code of rate a/b (EN 302 755 tables 23, 24, 25); `None` for BPSK and QPSK.
fn qam_tables(
    modulation: Modulation,
    normal: bool,
    (a, b): (u32, u32),
) -> Option<(&'static [usize], &'static [usize])> {
    Some(match modulation {
        Modulation::Bpsk | Modulation::Qpsk => return None,
        Modulation::Qam16 => QAM16.pick(normal, (a, b)),
        Modulation::Qam64 => QAM64.pick(normal, (a, b)),
        Modulation::Qam256 if normal => (
            &TWIST256_NORMAL,
            match (a, b) {
                (3, 5) => &DEMUX256_3_5_NORMAL,
                (2, 3) => &DEMUX256_2_3_NORMAL,
                _ => &DEMUX256_NORMAL,
            },
        ),
        Modulation::Qam256 => (
            &TWIST256_SHORT,
            match (a, b) {
                (1, 3) => &DEMUX256_1_3_SHORT,
                (2, 5) => &DEMUX256_2_5_SHORT,
                _ => &DEMUX256_SHORT,
            },
        ),
    })
}

impl BitInterleaver {
    /// The interleaver `kind` for `code` carried by `modulation`.
    pub fn new(code: &Code, modulation: Modulation, kind: Interleaving) -> Result<BitInterleaver> {
        let n = code.n();
        let identity = || BitInterleaver {
            perm: (0..n as u32).collect(),
        };
        if kind == Interleaving::None {
            return Ok(identity());
        }
        let not_t2 = || {
            LdpcError::invalid(format!(
                "the DVB-T2 bit interleaver needs a DVB-T2 code (dvbt2-normal-*/dvbt2-short-*), \
                 not {}: use --bit-interleaver none",
                code.name()
            ))
        };
        let (normal, a, b) = dvbt2_rate(code).ok_or_else(not_t2)?;
        let q = code.q().ok_or_else(not_t2)?;
        let k = code.k();
        // Step 1: u_j = λ_{parity(j)}.
        let parity = |j: usize| -> usize {
            if j < k {
                j
            } else {
                let (t, s) = ((j - k) / 360, (j - k) % 360);
                k + q * s + t
            }
        };
        let Some((twist, demux)) = qam_tables(modulation, normal, (a, b)) else {
            // BPSK and QPSK have no column twist; QPSK on short 1/3 and 2/5 keeps parity
            // interleaving.
            let parity_only =
                modulation == Modulation::Qpsk && !normal && ((a, b) == (1, 3) || (a, b) == (2, 5));
            return Ok(if parity_only {
                BitInterleaver {
                    perm: (0..n).map(|j| parity(j) as u32).collect(),
                }
            } else {
                identity()
            });
        };
        // Short 1/4 carries L1 signalling, whose QAM bit interleaving is a different one.
        if (a, b) == (1, 4) {
            return Err(LdpcError::invalid(format!(
                "{} is the L1-signalling code: EN 302 755 defines no PLP bit interleaver for it \
                 with {}; use --bit-interleaver none",
                code.name(),
                modulation.name()
            )));
        }
        let columns = twist.len();
        let rows = n / columns;
        debug_assert_eq!(rows * columns, n);
        let mut perm = vec![0u32; n];
        for r in 0..rows {
            for (c, (&t, &e)) in twist.iter().zip(demux).enumerate() {
                // Column c was written from row t on: row r holds its ((r − t) mod N_r)-th bit.
                let j = c * rows + (r + rows - t % rows) % rows;
                perm[r * columns + e] = parity(j) as u32;
            }
        }
        Ok(BitInterleaver { perm })
    }

    /// `perm[p]`: the codeword bit that stream bit p carries.
    pub fn permutation(&self) -> &[u32] {
        &self.perm
    }

    /// The bits in cell order: `stream[p] = word[perm[p]]`.
    pub fn interleave(&self, word: &[u8], stream: &mut [u8]) {
        for (s, &p) in stream.iter_mut().zip(&self.perm) {
            *s = word[p as usize];
        }
    }

    /// `perm()[p]` is the codeword bit carried by stream bit p.
    pub fn perm(&self) -> &[u32] {
        &self.perm
    }

    /// The LLRs back in codeword order: `llr[perm[p]] = stream[p]`.
    pub fn deinterleave(&self, stream: &[f32], llr: &mut [f32]) {
        for (&s, &p) in stream.iter().zip(&self.perm) {
            llr[p as usize] = s;
        }
    }
}

// EN 302 755 Table 8: column twist t_c.
const TWIST16_NORMAL: [usize; 8] = [0, 0, 2, 4, 4, 5, 7, 7];
const TWIST16_SHORT: [usize; 8] = [0, 0, 0, 1, 7, 20, 20, 21];
const TWIST64_NORMAL: [usize; 12] = [0, 0, 2, 2, 3, 4, 4, 5, 5, 7, 8, 9];
const TWIST64_SHORT: [usize; 12] = [0, 0, 0, 2, 2, 2, 3, 3, 3, 6, 7, 7];
const TWIST256_NORMAL: [usize; 16] = [0, 2, 2, 2, 2, 3, 7, 15, 16, 20, 22, 22, 27, 27, 28, 32];
const TWIST256_SHORT: [usize; 8] = [0, 0, 0, 1, 7, 20, 20, 21];

// EN 302 755 Table 13: input bit d (column) → output bit e of the cell word(s).
const DEMUX16: [usize; 8] = [7, 1, 4, 2, 5, 3, 6, 0];
const DEMUX16_3_5_NORMAL: [usize; 8] = [0, 5, 1, 2, 4, 7, 3, 6];
const DEMUX16_1_3_SHORT: [usize; 8] = [6, 0, 3, 4, 5, 2, 1, 7];
const DEMUX16_2_5_SHORT: [usize; 8] = [7, 5, 4, 0, 3, 1, 2, 6];
const QAM16: QamTables = QamTables {
    twist_normal: &TWIST16_NORMAL,
    twist_short: &TWIST16_SHORT,
    demux_3_5_normal: &DEMUX16_3_5_NORMAL,
    demux_1_3_short: &DEMUX16_1_3_SHORT,
    demux_2_5_short: &DEMUX16_2_5_SHORT,
    demux: &DEMUX16,
};
const DEMUX64: [usize; 12] = [11, 7, 3, 10, 6, 2, 9, 5, 1, 8, 4, 0];
const DEMUX64_3_5_NORMAL: [usize; 12] = [2, 7, 6, 9, 0, 3, 1, 8, 4, 11, 5, 10];
const DEMUX64_1_3_SHORT: [usize; 12] = [4, 2, 0, 5, 6, 1, 3, 7, 8, 9, 10, 11];
const DEMUX64_2_5_SHORT: [usize; 12] = [4, 0, 1, 6, 2, 3, 5, 8, 7, 10, 9, 11];
const QAM64: QamTables = QamTables {
    twist_normal: &TWIST64_NORMAL,
    twist_short: &TWIST64_SHORT,
    demux_3_5_normal: &DEMUX64_3_5_NORMAL,
    demux_1_3_short: &DEMUX64_1_3_SHORT,
    demux_2_5_short: &DEMUX64_2_5_SHORT,
    demux: &DEMUX64,
};
const DEMUX256_NORMAL: [usize; 16] = [15, 1, 13, 3, 8, 11, 9, 5, 10, 6, 4, 7, 12, 2, 14, 0];
const DEMUX256_3_5_NORMAL: [usize; 16] = [2, 11, 3, 4, 0, 9, 1, 8, 10, 13, 7, 14, 6, 15, 5, 12];
const DEMUX256_2_3_NORMAL: [usize; 16] = [7, 2, 9, 0, 4, 6, 13, 3, 14, 10, 15, 5, 8, 12, 11, 1];
const DEMUX256_SHORT: [usize; 8] = [7, 3, 1, 5, 2, 6, 4, 0];
const DEMUX256_1_3_SHORT: [usize; 8] = [4, 0, 1, 2, 5, 3, 6, 7];
const DEMUX256_2_5_SHORT: [usize; 8] = [4, 0, 5, 1, 2, 3, 6, 7];

#[cfg(test)]
mod tests {
    use super::*;

    fn t2_codes() -> Vec<Code> {
        Code::standard_names()
            .into_iter()
            .filter(|n| n.starts_with("dvbt2"))
            .map(|n| Code::standard(n).unwrap())
            .collect()
    }

    #[test]
    fn every_t2_code_and_constellation_gives_a_permutation() {
        for code in t2_codes() {
            for m in Modulation::ALL {
                let Ok(il) = BitInterleaver::new(&code, m, Interleaving::Dvbt2) else {
                    assert!(code.name().ends_with("1/4") && m.bits_per_symbol() > 2);
                    continue;
                };
                let mut seen = vec![false; code.n()];
                for &p in il.permutation() {
                    assert!(!std::mem::replace(&mut seen[p as usize], true));
                }
                assert!(seen.iter().all(|&s| s), "{} {m:?}", code.name());
            }
        }
    }

    #[test]
    fn spot_values_of_16qam_normal_1_2() {
        // Worked by hand from the three steps: N_r = 8100, q = 90, K = 32400.
        let code = Code::standard("dvbt2-normal-1/2").unwrap();
        let il = BitInterleaver::new(&code, Modulation::Qam16, Interleaving::Dvbt2).unwrap();
        let p = il.permutation();
        // Row 0, column 0 (twist 0): u_0 = λ_0 → y_7, bit 3 of the second cell.
        assert_eq!(p[7], 0);
        // Row 0, column 1 (twist 0): u_8100 → y_1.
        assert_eq!(p[1], 8100);
        // Row 0, column 2 (twist 2): u_{16200 + 8098} → y_4, bit 0 of the second cell.
        assert_eq!(p[4], 24298);
        // Row 0, column 4 (twist 4): u_{32400 + 8096}, parity t = 22, s = 176 → λ_{32400 + 90·176 + 22}.
        assert_eq!(p[5], 32400 + 90 * 176 + 22);
        // Row 1, column 7 (twist 7): u_{56700 + 8094}, t = 89, s = 354 → y_0 of cell 2.
        assert_eq!(p[8], (32400 + 90 * 354 + 89) as u32);
        // QPSK leaves the long codes alone.
        let q = BitInterleaver::new(&code, Modulation::Qpsk, Interleaving::Dvbt2).unwrap();
        assert!(q
            .permutation()
            .iter()
            .enumerate()
            .all(|(i, &p)| p == i as u32));
    }

    #[test]
    fn t2_lite_qpsk_interleaves_parity_only() {
        let code = Code::standard("dvbt2-short-1/3").unwrap();
        let il = BitInterleaver::new(&code, Modulation::Qpsk, Interleaving::Dvbt2).unwrap();
        let (k, q) = (code.k(), code.q().unwrap());
        assert_eq!(il.permutation()[k - 1], (k - 1) as u32);
        assert_eq!(il.permutation()[k + 1], (k + q) as u32);
        assert_eq!(il.permutation()[k + 360], (k + 1) as u32);
    }

    #[test]
    fn interleave_and_deinterleave_are_inverse() {
        let code = Code::standard("dvbt2-short-3/5").unwrap();
        let il = BitInterleaver::new(&code, Modulation::Qam64, Interleaving::Dvbt2).unwrap();
        let word: Vec<u8> = (0..code.n()).map(|i| (i * 7 % 3 == 0) as u8).collect();
        let mut stream = vec![0u8; code.n()];
        il.interleave(&word, &mut stream);
        let soft: Vec<f32> = stream.iter().map(|&b| 1.0 - 2.0 * b as f32).collect();
        let mut back = vec![0f32; code.n()];
        il.deinterleave(&soft, &mut back);
        for (b, l) in word.iter().zip(&back) {
            assert_eq!(*b == 1, *l < 0.0);
        }
    }

    #[test]
    fn non_t2_codes_are_refused_by_name() {
        let code = Code::standard("dvbs2-short-1/2").unwrap();
        assert_eq!(Interleaving::default_for(&code), Interleaving::None);
        let e = BitInterleaver::new(&code, Modulation::Qam16, Interleaving::Dvbt2).unwrap_err();
        assert!(e.to_string().contains("dvbs2-short-1/2"), "{e}");
        assert!("t2".parse::<Interleaving>().is_ok() && "x".parse::<Interleaving>().is_err());
    }
}
