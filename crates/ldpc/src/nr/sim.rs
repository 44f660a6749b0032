//! Error-rate simulation of one NR code block over AWGN: random k-bit words, the encoder,
//! rate matching for each redundancy version sent, the bit interleaver of §5.4.2.2, a
//! 38.211 constellation over AWGN or Rayleigh block fading and its demapper, de-interleaving, de-rate-matching with HARQ combining of
//! every version, and any [`Decoder`] of [`NrCode::decoding_code`]. Counts errors over the k bits.
//!
//! Frame f draws its bits and noise from a ChaCha8 generator seeded by (seed, Es/N0, f), so a
//! point's counts do not depend on the batch size.

use super::code::NrCode;
use super::modulation::{Fading, NrChannel, NrModulation};
use super::rate_match::{deinterleave, interleave};
use crate::channel::Demapper;
use crate::decoder::{Decoder, Llrs};
use crate::error::{LdpcError, Result};
use crate::sim::wilson;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// What one point sends.
#[derive(Clone, Debug)]
pub struct NrLink {
    /// The TS 38.211 constellation (Q_m bits per symbol; the §5.4.2.2 interleaver uses it).
    pub modulation: NrModulation,
    /// AWGN, or Rayleigh block fading (one coefficient per transmission of a block).
    pub fading: Fading,
    /// The demapper.
    pub demapper: Demapper,
    /// The redundancy versions sent, each n bits, their LLRs combined before decoding.
    pub rvs: Vec<u8>,
    /// Seed of the bits and the noise.
    pub seed: u64,
}

/// The counts of one point.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct NrPoint {
    /// Es/N0 per transmitted symbol, dB.
    pub es_n0_db: f64,
    /// Frames (code blocks) decoded.
    pub frames: u64,
    /// Frames with at least one wrong bit among the k.
    pub frame_errors: u64,
    /// Wrong bits among the k of every frame.
    pub bit_errors: u64,
    /// Frame error rate (BLER).
    pub fer: f64,
    /// Bit error rate over the k bits.
    pub ber: f64,
    /// 95% Wilson interval of the FER.
    pub fer_ci: [f64; 2],
    /// Mean decoder iterations per frame.
    pub mean_iterations: f64,
}

/// The frames `first .. first + count` of a point: the k bits of each and the full-length
/// LLRs (HARQ-combined) the decoder takes.
pub fn nr_frames(
    code: &NrCode,
    link: &NrLink,
    channel: &NrChannel,
    first: u64,
    count: usize,
) -> Result<(Vec<u8>, Vec<f32>)> {
    let (k, n, full) = (code.k(), code.n(), code.code().n());
    let qm = link.modulation.qm();
    if !n.is_multiple_of(qm) {
        return Err(LdpcError::invalid(format!(
            "n = {n} is not a multiple of Q_m = {qm} ({}): give n a multiple of {qm}",
            link.modulation.name()
        )));
    }
    let mut bits = vec![0u8; count * k];
    let mut llrs = vec![0f32; count * full];
    let (mut f, mut rx, mut e) = (vec![0u8; n], vec![0f32; n], vec![0f32; n]);
    for (i, (b, out)) in bits
        .chunks_exact_mut(k)
        .zip(llrs.chunks_exact_mut(full))
        .enumerate()
    {
        let mut rng =
            ChaCha8Rng::seed_from_u64(frame_seed(link.seed, channel.es_n0_db(), first + i as u64));
        b.iter_mut().for_each(|x| *x = rng.random_range(0..2));
        let word = code.encode_full(b)?;
        let mut sent = vec![0u8; n];
        for &rv in &link.rvs {
            code.rate_match().select(&word, rv, &mut sent)?;
            interleave(&sent, qm, &mut f)?;
            channel.transmit(&f, &mut rx, &mut rng)?;
            deinterleave(&rx, qm, &mut e)?;
            code.rate_match().combine(&e, rv, out)?;
        }
        code.rate_match().set_filler(out);
    }
    Ok((bits, llrs))
}

fn frame_seed(seed: u64, es_n0_db: f64, frame: u64) -> u64 {
    let mix = |x: u64| {
        let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    mix(mix(mix(seed) ^ es_n0_db.to_bits()) ^ frame)
}

/// Simulates one point at `es_n0_db` until `min_errors` frames failed or `max_frames` ran,
/// decoding `batch` frames per call (the stop falls on a batch boundary).
pub fn simulate_point(
    code: &NrCode,
    link: &NrLink,
    decoder: &mut dyn Decoder,
    es_n0_db: f64,
    min_errors: u64,
    max_frames: u64,
    batch: usize,
) -> Result<NrPoint> {
    if link.rvs.is_empty() {
        return Err(LdpcError::invalid(
            "no redundancy version to send: give at least one rv",
        ));
    }
    if let Some(&rv) = link.rvs.iter().find(|&&rv| rv > 3) {
        return Err(LdpcError::invalid(format!(
            "redundancy version {rv}: rv is 0, 1, 2 or 3"
        )));
    }
    let used = code.check_decoder(decoder, &link.rvs)?;
    let channel = NrChannel::new(link.modulation, link.demapper, link.fading, es_n0_db)?;
    let (k, full) = (code.k(), code.code().n());
    let (mut frames, mut frame_errors, mut bit_errors, mut iterations) = (0u64, 0u64, 0u64, 0usize);
    let mut hard = Vec::new();
    while frame_errors < min_errors && frames < max_frames {
        let count = batch.max(1).min((max_frames - frames) as usize);
        let (bits, llrs) = nr_frames(code, link, &channel, frames, count)?;
        // The decoder runs the code cut to the rows these versions reach (NrCode::decoding_code).
        let cut: Vec<f32> = (llrs.chunks_exact(full))
            .flat_map(|w| &w[..used])
            .copied()
            .collect();
        hard.resize(count * used, 0);
        let stats = decoder.decode(Llrs::F32(&cut), &mut hard)?;
        iterations += stats.iterations;
        for (word, b) in hard.chunks_exact(used).zip(bits.chunks_exact(k)) {
            let wrong = word[..k].iter().zip(b).filter(|(x, y)| x != y).count() as u64;
            bit_errors += wrong;
            frame_errors += u64::from(wrong > 0);
        }
        frames += count as u64;
    }
    Ok(NrPoint {
        es_n0_db,
        frames,
        frame_errors,
        bit_errors,
        fer: frame_errors as f64 / frames.max(1) as f64,
        ber: bit_errors as f64 / (frames.max(1) * k as u64) as f64,
        fer_ci: wilson(frame_errors, frames),
        mean_iterations: iterations as f64 / frames.max(1) as f64,
    })
}
